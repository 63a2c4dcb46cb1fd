// An oracle checks one Case and returns nothing (agreement) or a Finding. Oracles register by
// name: forward, gradient, determinism, roundtrip (transform and device plug in the same way).
// Callers never run an oracle directly: CheckCase (oracles/check.h) is the one entry point.
#ifndef PARITY_ORACLES_ORACLE_H_
#define PARITY_ORACLES_ORACLE_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/proto/error.h"
#include "core/proto/parity.pb.h"
#include "oracles/backend.h"
#include "oracles/tolerance.h"

namespace parity::oracles {

struct OracleOptions {
  // Tolerance class for value comparisons (the loosest class of the case's ops).
  ToleranceClass tolerance = GetToleranceClass("default");
  // The backend under test; the truth is always the f64 reference, the yardstick the f32 one.
  const Backend* backend = &GetBackend(kProduction);
  // Keep every intermediate blob and blame the first diverging op.
  bool localize = true;
  // Gradient oracle: also check every input element separately (slow; on failure it runs anyway
  // to show which elements are wrong).
  bool full_jacobian = false;
};

// What an oracle concluded: agreement, a finding, or that it does not apply to this case (with
// the reason, e.g. a net without differentiable inputs for the gradient oracle).
struct OracleResult {
  std::optional<Finding> finding;
  std::string not_applicable;
  // Every backend the oracle ran rejected the case: bad input, not a discrepancy.
  std::optional<Error> rejected;
};

using OracleFunction = std::function<OracleResult(const Case&, const OracleOptions&)>;

bool RegisterOracle(const std::string& name, OracleFunction function);
const OracleFunction* FindOracle(const std::string& name);
std::vector<std::string> OracleNames();  // sorted

// Runs the named oracle (kBadArgument for an unknown name). Only CheckCase calls this.
OracleResult RunOracle(const std::string& name, const Case& c, const OracleOptions& options);

}  // namespace parity::oracles

#endif  // PARITY_ORACLES_ORACLE_H_
