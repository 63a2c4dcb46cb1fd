// The forward oracle: production vs the f64 reference on the same inputs, with tolerances sized
// by the f32 reference; on a mismatch, the first diverging op is blamed.
#include <set>
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

// `truth` (the f32 reference's run) with each blob `production` holds as DOUBLE, and each trace
// entry of that name, replaced by the f64 reference's value; the f64 run is made only when there
// is one.
void TakeDoubleBlobsFromF64(const Case& c, const RunOptions& traced, const BackendRun& production,
                            BackendRun* truth) {
  std::set<std::string> doubles;
  for (const auto& [name, value] : production.blobs) {
    if (value.data_type() == caffe2::TensorProto::DOUBLE) doubles.insert(name);
  }
  if (doubles.empty()) return;
  const BackendRun f64 = GetBackend(kReference).Run(c, traced);
  if (f64.error) return;
  for (const std::string& name : doubles) {
    auto it = f64.blobs.find(name);
    if (it != f64.blobs.end()) truth->blobs[name] = it->second;
  }
  for (size_t k = 0; k < truth->trace.size() && k < f64.trace.size(); ++k) {
    for (auto& [name, value] : truth->trace[k].outputs) {
      auto it = f64.trace[k].outputs.find(name);
      if (doubles.count(name) && it != f64.trace[k].outputs.end()) value = it->second;
    }
  }
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
  // A net fed doubles computes them in double: an exact class's double blobs are equal to the f64
  // reference's, not to the f32 reference's rounding of them.
  if (exact && options.backend->info().precision == Precision::kF32) {
    TakeDoubleBlobsFromF64(c, traced, production, &truth);
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
