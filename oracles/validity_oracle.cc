// The validity oracle: production and the f64 reference accept and reject the same nets. Each
// half validates arguments, arity, in-place use, shapes and types on its own; a net that one runs
// and the other rejects means one of them is wrong about what the op is (a check missing in a
// kernel, or a check Caffe2 does not make). That is a finding of its own, blamed on the op the
// rejecting side names. The forward oracle compares values only where both ran.
#include <sstream>

#include "oracles/finding.h"
#include "oracles/localize.h"
#include "oracles/oracle.h"

namespace parity::oracles {
namespace {

// Errors that say what a backend can do, not whether the net is valid: an op one engine does not
// implement (or has no kernel for on the requested device), and the per-backend resource caps.
bool IsCapabilityLimit(const Error& error) {
  return error.kind() == ErrorKind::kUnknownOp || error.kind() == ErrorKind::kResourceLimit;
}

OracleResult CheckValidity(const Case& c, const OracleOptions& options) {
  const RunOptions untraced{false, ""};
  BackendRun reference = GetBackend(kReference).Run(c, untraced);
  BackendRun production = options.backend->Run(c, untraced);
  if (reference.error && production.error) return {std::nullopt, "", production.error};
  if (!reference.error && !production.error) return {};
  const bool production_rejected = production.error.has_value();
  const Error& error = production_rejected ? *production.error : *reference.error;
  const std::string rejecting = production_rejected ? options.backend->info().name : kReference;
  const std::string running = production_rejected ? kReference : options.backend->info().name;
  if (IsCapabilityLimit(error)) {
    return {std::nullopt, rejecting + " cannot run this net (" + ErrorKindName(error.kind()) +
                              "): " + error.what()};
  }
  std::ostringstream message;
  message << rejecting << " rejects a net that " << running << " runs: " << error.what();
  Finding finding = MakeFinding(
      "validity", c,
      production_rejected ? "rejected by production only" : "rejected by reference only",
      message.str());
  finding.set_error_kind(ErrorKindName(error.kind()));
  const int culprit = UpstreamCulprit(c, *options.backend, error, options.tolerance);
  SetBlame(&finding, culprit, c.net());
  if (culprit >= 0 && culprit != FailingOpIndex(error)) {
    finding.set_message(finding.message() + "; the outputs of op #" + std::to_string(culprit) +
                        " (" + c.net().op(culprit).type() +
                        ") upstream already differ between the two: it is blamed");
  }
  return {finding, ""};
}

const bool kRegistered = RegisterOracle("validity", CheckValidity);

}  // namespace
}  // namespace parity::oracles
