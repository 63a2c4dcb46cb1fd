// The forward oracle: production vs the f64 reference on the same inputs, with tolerances sized
// by the f32 reference; on a mismatch, the first diverging op is blamed.
#include <algorithm>
#include <cmath>
#include <map>
#include <random>
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

// One realization of f32 rounding can land near the truth by luck, and then k times its error is
// too tight for production's realization; in a loop of an expanding map (a While of Tan, whose
// slope is 1 + tan^2) the two realizations differ by far more than k. So before a mismatch is
// called a finding, the f32 reference's error is sampled kRoundingSamples times, as the gradient
// oracle does: on the case itself and on copies with the inputs moved by one ulp
// (MovedByOneUlp), each f32 run against the f64 run on the same inputs. The result stands in for
// the f32 run: per element, the truth moved by the largest of those errors. Passing cases pay
// nothing; a well-conditioned case's samples all sit within a few ulps, so its tolerance barely
// moves.
constexpr int kRoundingSamples = 4;

BackendRun SampledRounding(const Case& c, const std::vector<std::string>& blobs,
                           const BackendRun& truth, const BackendRun& f32) {
  std::map<std::string, std::vector<double>> largest;  // blob -> per-element largest error
  auto sample = [&](const BackendRun& run64, const BackendRun& run32) {
    for (const std::string& blob : blobs) {
      auto t = run64.blobs.find(blob);
      auto r = run32.blobs.find(blob);
      if (t == run64.blobs.end() || r == run32.blobs.end() || !IsFloatingProto(t->second) ||
          !IsFloatingProto(r->second)) {
        continue;
      }
      const std::vector<double> tv = ProtoValues(t->second), rv = ProtoValues(r->second);
      if (tv.size() != rv.size()) continue;
      std::vector<double>& out = largest[blob];
      out.resize(tv.size(), 0.0);
      for (size_t i = 0; i < tv.size(); ++i) {
        const double e = std::abs(rv[i] - tv[i]);
        if (std::isfinite(e)) out[i] = std::max(out[i], e);
      }
    }
  };
  sample(truth, f32);
  std::mt19937_64 rng(c.seed() ^ 0x9E3779B97F4A7C15ull);
  for (int k = 1; k < kRoundingSamples; ++k) {
    const Case moved = MovedByOneUlp(c, &rng);
    const BackendRun run64 = GetBackend(kReference).Run(moved);
    const BackendRun run32 = GetBackend(kReferenceF32).Run(moved);
    if (!run64.error && !run32.error) sample(run64, run32);
  }
  BackendRun out = f32;
  for (const auto& [blob, errors] : largest) {
    auto r = out.blobs.find(blob);
    auto t_it = truth.blobs.find(blob);
    if (r == out.blobs.end() || t_it == truth.blobs.end()) continue;
    const caffe2::TensorProto& t = t_it->second;
    const std::vector<double> tv = ProtoValues(t), rv = ProtoValues(r->second);
    if (tv.size() != errors.size() || rv.size() != errors.size()) continue;
    caffe2::TensorProto envelope;
    envelope.set_data_type(caffe2::TensorProto::DOUBLE);
    *envelope.mutable_dims() = t.dims();
    for (size_t i = 0; i < tv.size(); ++i) {
      // Where the f32 run is not finite, it stays as it was (CompareWithTruth reads it as the
      // dtype's limit); elsewhere the truth moved by the largest sampled error.
      envelope.add_double_data(std::isfinite(rv[i]) ? tv[i] + errors[i] : rv[i]);
    }
    r->second = envelope;
  }
  return out;
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
