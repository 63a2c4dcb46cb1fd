// The forward oracle: production vs the f64 reference on the same inputs, with tolerances sized
// by the f32 reference; on a mismatch, the first diverging op is blamed.
#include <string>
#include <vector>

#include "oracles/finding.h"
#include "oracles/localize.h"
#include "oracles/oracle.h"
#include "oracles/subnet_localize.h"

namespace parity::oracles {
namespace {

// `run` against the truth on every compared blob: a finding holding each blob out of tolerance
// (or missing on one side), or nothing when all agree.
std::optional<Finding> CompareWithTruthRun(const Case& c, const BackendRun& truth,
                                           const BackendRun& f32, const BackendRun& run,
                                           const OracleOptions& options) {
  std::optional<Finding> finding;
  for (const TruthDisagreement& d :
       DisagreementsWithTruth(ComparedBlobs(c), truth, f32, run, options.tolerance)) {
    if (d.expected == nullptr || d.actual == nullptr) {
      std::string side = d.expected == nullptr ? "the reference" : "production";
      if (!finding) {
        finding =
            MakeFinding("forward", c, "missing output", side + " did not produce '" + d.blob + "'");
      }
      continue;
    }
    if (!finding) {
      finding = MakeFinding("forward", c, d.comparison.error_class,
                            "blob '" + d.blob + "': " + d.comparison.detail);
    }
    AddComparison(&*finding, d.blob, *d.expected, *d.actual, d.comparison);
  }
  return finding;
}

OracleResult CheckForward(const Case& c, const OracleOptions& options) {
  const RunOptions traced{options.localize, ""};
  // The "exact" class asks for equality, which only a backend of the same precision can promise:
  // an f32 backend is then compared element for element with the f32 reference, not with f64.
  const ToleranceClass& tol = options.tolerance;
  const bool exact = tol.k == 0 && tol.abs_floor == 0 && tol.rel_floor == 0;
  const Backend& truth_backend = exact && options.backend->info().precision == Precision::kF32
                                     ? GetBackend(kReferenceF32)
                                     : GetBackend(kReference);
  BackendRun truth = truth_backend.Run(c, traced);
  // Production's values are the executor's (Run), as users get them: the traced run replays the
  // ops in order for localization, and would hide a bug of the executor.
  BackendRun production = options.backend->Run(c, {/*trace=*/false, ""});
  // Both rejecting the net is agreement: it is bad input, and both said so.
  if (truth.error && production.error) return {std::nullopt, "", production.error};
  if (truth.error && truth.error->kind() == ErrorKind::kUnknownOp) {
    return {std::nullopt, std::string("the reference cannot run this net: ") + truth.error->what()};
  }
  // One side rejecting what the other runs is the validity oracle's finding; values can only be
  // compared where both ran.
  if (truth.error || production.error) {
    const bool production_failed = production.error.has_value();
    return {std::nullopt, std::string(production_failed ? "production" : "the reference") +
                              " rejected the net (judged by the validity oracle): " +
                              (production_failed ? production.error->what() : truth.error->what())};
  }
  BackendRun f32 = exact ? truth : GetBackend(kReferenceF32).Run(c, traced);

  std::optional<Finding> finding = CompareWithTruthRun(c, truth, f32, production, options);
  if (finding && !exact) {
    const BackendRun sampled = SampledRounding(c, ComparedBlobs(c), truth, f32);
    finding = CompareWithTruthRun(c, truth, sampled, production, options);
  }
  if (!finding) return {};
  if (options.localize) {
    const BackendRun in_order = options.backend->Run(c, traced);
    Blame blame = Localize(c.net(), CaseInputs(c), in_order, truth, f32, options.tolerance);
    if (blame.op_index < 0 && !in_order.error &&
        !CompareWithTruthRun(c, truth, f32, in_order, options)) {
      // Every op is right when run in order: the executor put them together wrongly.
      const std::string executor = c.net().type().empty() ? "simple" : c.net().type();
      finding->set_blamed_op_path("executor '" + executor + "'");
      finding->set_blamed_op_type("executor " + executor);
      finding->mutable_signature()->set_blamed_op_type("executor " + executor);
      finding->set_message(finding->message() + "; the ops run one by one in order agree with " +
                           "the truth: the '" + executor + "' executor is wrong");
    }
    if (blame.op_index >= 0) {
      SetBlame(&*finding, blame.op_index, c.net());
      finding->set_message(finding->message() + "; first diverging op #" +
                           std::to_string(blame.op_index) + " (" +
                           c.net().op(blame.op_index).type() + ") output '" + blame.blob +
                           "': " + blame.comparison.detail);
      BlameInside(&*finding, c.net(), blame, c.seed(), *options.backend, options.tolerance);
    }
  }
  return {finding, ""};
}

const bool kRegistered = RegisterOracle("forward", CheckForward);

}  // namespace
}  // namespace parity::oracles
