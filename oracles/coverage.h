// The coverage table (architecture §4): for every production op, whether it has a reference
// kernel, a test spec, a gradient (maker, or an explicit "no gradient"), and a GPU kernel.
#ifndef PARITY_ORACLES_COVERAGE_H_
#define PARITY_ORACLES_COVERAGE_H_

#include <string>
#include <vector>

namespace parity::oracles {

struct OpCoverage {
  std::string type;
  bool is_gradient_op = false;  // "<Forward>Gradient": covered through its forward op's checks
  std::string reference;        // "yes", "finite differences: <reason>", or "missing"
  std::string spec;             // "yes", "via forward op", or "missing"
  std::string gradient;         // "maker", "no gradient", "should not", "not implemented",
                                // "n/a (gradient op)" or "missing"
  std::string cuda;             // "yes" or "-"
  std::vector<std::string> problems;  // what the coverage test fails on
};

// One row per production op type (schemas), sorted. `spec_types` are the op types with specs.
std::vector<OpCoverage> ComputeCoverage(const std::vector<std::string>& spec_types);

}  // namespace parity::oracles

#endif  // PARITY_ORACLES_COVERAGE_H_
