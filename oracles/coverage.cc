#include "oracles/coverage.h"

#include <algorithm>
#include <set>

#include "core/grad/gradient.h"
#include "core/operator.h"
#include "core/schema.h"
#include "reference/interpreter.h"

namespace parity::oracles {
namespace {

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() > suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

std::vector<OpCoverage> ComputeCoverage(const std::vector<std::string>& spec_types) {
  std::vector<std::string> reference_ops = reference::SupportedOps();
  std::set<std::string> reference(reference_ops.begin(), reference_ops.end());
  std::map<std::string, std::string> fd_only = reference::FiniteDifferenceOnlyOps();
  std::set<std::string> specs(spec_types.begin(), spec_types.end());
  std::vector<OpCoverage> rows;
  for (const std::string& type : OpSchemaRegistry::Types()) {
    OpCoverage row;
    row.type = type;
    // A gradient op is one some forward op's maker emits; by name: "<Forward>Gradient".
    row.is_gradient_op =
        EndsWith(type, "Gradient") && OpSchemaRegistry::Find(type.substr(0, type.size() - 8));
    if (reference.count(type)) {
      row.reference = "yes";
    } else if (fd_only.count(type)) {
      row.reference = "finite differences: " + fd_only.at(type);
    } else {
      row.reference = "missing";
      // A gradient op needs its own reference kernel too: finite differences of the forward op
      // check the whole backward net, but only an op-level comparison can blame the gradient op.
      row.problems.push_back(row.is_gradient_op ? "no reference gradient kernel"
                                                : "no reference kernel");
    }
    if (specs.count(type)) {
      row.spec = "yes";
    } else if (row.is_gradient_op) {
      row.spec = "via forward op";
    } else {
      row.spec = "missing";
      row.problems.push_back("no test spec");
    }
    if (row.is_gradient_op) {
      row.gradient = "n/a (gradient op)";
    } else if (const GradientEntry* entry = GradientRegistry::Find(type)) {
      switch (entry->kind) {
        case GradientKind::kMaker:
          row.gradient = "maker";
          break;
        case GradientKind::kNoGradient:
          row.gradient = "no gradient";
          break;
        case GradientKind::kShouldNotDo:
          row.gradient = "should not";
          break;
        case GradientKind::kNotImplemented:
          // A differentiable op whose gradient is still missing is a gap, not a choice.
          row.gradient = "not implemented";
          row.problems.push_back("gradient not implemented");
          break;
      }
    } else {
      row.gradient = "missing";
      row.problems.push_back("no gradient maker and no explicit 'no gradient'");
    }
    row.cuda = OperatorRegistry::HasKernel(type, kCudaDeviceType) ? "yes" : "-";
    rows.push_back(row);
  }
  return rows;
}

}  // namespace parity::oracles
