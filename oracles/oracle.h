// An oracle checks one Case and returns nothing (agreement) or a Finding. Oracles register by
// name: forward, gradient, determinism, roundtrip (transform and device plug in the same way).
// Callers never run an oracle directly: CheckCase (oracles/check.h) is the one entry point.
#ifndef PARITY_ORACLES_ORACLE_H_
#define PARITY_ORACLES_ORACLE_H_

#include <functional>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <utility>
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
  // Determinism oracle: when > 1, the case also runs with ops on 1 thread and on this many
  // (core/threads.h), SimpleNet and DAG, and every result must be bit-identical.
  int compare_threads = 0;
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

// One compared blob where a run and the truth (the f64 reference) disagree.
struct TruthDisagreement {
  std::string blob;                               // its name in the truth
  std::string name_in_run;                        // its name in the run
  const caffe2::TensorProto* expected = nullptr;  // null: the truth lacks it
  const caffe2::TensorProto* actual = nullptr;    // null: the run lacks it
  Comparison comparison;                          // out of tolerance, when both have it
};

// Each of `blobs` in `run` against the truth, its tolerance sized by the f32 reference's error
// (`f32`, the truth where f32 lacks the blob): those out of tolerance or present on one side only,
// in order. `name_in_run` gives a blob's name in the run (a graph transform may have renamed it).
std::vector<TruthDisagreement> DisagreementsWithTruth(
    const std::vector<std::string>& blobs, const BackendRun& truth, const BackendRun& f32,
    const BackendRun& run, const ToleranceClass& tolerance,
    const std::function<std::string(const std::string&)>& name_in_run = nullptr);

// `c` with each of its f32 input elements moved one f32 ulp up, down or not at all, at random: the
// same computation to first order, another realization of its f32 rounding. The forward and
// gradient oracles sample the f32 reference's error on a few of these before calling a mismatch
// a finding (one realization can land near the truth by luck).
Case MovedByOneUlp(const Case& c, std::mt19937_64* rng);

// The f32 reference's rounding is sampled on this many realizations: the case itself and
// kRoundingSamples - 1 copies moved by one ulp.
constexpr int kRoundingSamples = 4;

// The truth and the yardstick on one case: the f64 and f32 runs of what computes it. By default
// the reference interpreter's runs of the net; the builder oracle's are the textbook cell's.
using TruthAndYardstick = std::function<std::pair<BackendRun, BackendRun>(const Case&)>;

// `sample(run64, run32)` for the f64 and f32 runs (`references`, default the reference backends)
// of each of the kRoundingSamples - 1 moved copies of `c` (MovedByOneUlp, drawn from
// c.seed() ^ `salt`), skipping a copy either run rejects. The caller samples the case itself.
void SampleMovedCopies(const Case& c, uint64_t salt,
                       const std::function<void(const BackendRun&, const BackendRun&)>& sample,
                       const TruthAndYardstick& references = nullptr);

// One realization of f32 rounding can land near the truth by luck, and then k times its error is
// too tight for the realization under test; in a loop of an expanding map (a While of Tan, whose
// slope is 1 + tan^2, or of Exp feeding Tan) two realizations differ by far more than k. So before
// a mismatch is called a finding (the forward and device oracles), the f32 reference's error on
// `blobs` is sampled four times, as the gradient oracle does: on the case itself and on copies
// with the inputs moved by one ulp (MovedByOneUlp), each f32 run against the f64 run on the same
// inputs. The result stands in for the f32 run: per element, the truth moved by the largest of
// those errors. Passing cases pay nothing; a well-conditioned case's samples all sit within a few
// ulps, so its tolerance barely moves.
BackendRun SampledRounding(const Case& c, const std::vector<std::string>& blobs,
                           const BackendRun& truth, const BackendRun& f32,
                           const TruthAndYardstick& references = nullptr);

// Blobs last written at an output position without a gradient (statistics, such as SpatialBN's
// saved mean): the backward pass, like Caffe2's, never differentiates through them, so no oracle
// seeds their gradient.
std::set<std::string> BlobsWithoutGradient(const caffe2::NetDef& net);

// Runs the named oracle (kBadArgument for an unknown name). Only CheckCase calls this.
OracleResult RunOracle(const std::string& name, const Case& c, const OracleOptions& options);

}  // namespace parity::oracles

#endif  // PARITY_ORACLES_ORACLE_H_
