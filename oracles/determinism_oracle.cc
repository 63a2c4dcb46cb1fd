// Determinism: the same case run twice on production is bit-identical, and the parallel DAG
// executor gives SimpleNet's results bit for bit. With compare_threads = N > 1 (CheckRequest),
// ops also run on 1 compute thread and on N, SimpleNet and DAG, and must agree bit for bit: the
// intra-op split (core/parallel.h) may not change results. A case with compute_threads > 1 (the
// campaign draws them) is compared with its one-thread run the same way.
#include "oracles/finding.h"
#include "oracles/oracle.h"

namespace parity::oracles {
namespace {

std::optional<Finding> CompareRuns(const Case& c, const BackendRun& a, const BackendRun& b,
                                   const std::string& what) {
  if (a.error || b.error) {
    if (a.error && b.error && std::string(a.error->what()) == b.error->what()) return std::nullopt;
    return MakeFinding("determinism", c, "error mismatch",
                       what + ": one run failed and the other did not, or they failed differently");
  }
  for (const std::string& blob : ComparedBlobs(c)) {
    auto x = a.blobs.find(blob), y = b.blobs.find(blob);
    if (x == a.blobs.end() || y == b.blobs.end()) continue;
    if (!BitwiseEqual(x->second, y->second)) {
      Finding finding = MakeFinding("determinism", c, "nondeterministic",
                                    what + ": blob '" + blob + "' differs between runs");
      Comparison comparison =
          CompareWithTruth(x->second, x->second, y->second, GetToleranceClass("exact"));
      AddComparison(&finding, blob, x->second, y->second, comparison);
      return finding;
    }
  }
  return std::nullopt;
}

OracleResult CheckDeterminism(const Case& c, const OracleOptions& options) {
  const Backend& backend = *options.backend;
  const RunOptions simple{false, "simple"};
  const RunOptions dag{false, "dag"};
  BackendRun first = backend.Run(c, simple);
  BackendRun second = backend.Run(c, simple);
  if (auto finding = CompareRuns(c, first, second, "two SimpleNet runs")) return {finding, ""};
  // A case that splits ParallelFor's work (Case.compute_threads) gives one thread's bits.
  if (c.compute_threads() > 1) {
    Case one_thread = c;
    one_thread.clear_compute_threads();
    if (auto finding = CompareRuns(c, backend.Run(one_thread, simple), first,
                                   "SimpleNet on 1 thread vs its work split over " +
                                       std::to_string(c.compute_threads()) + " threads")) {
      return {finding, ""};
    }
  }
  BackendRun parallel = backend.Run(c, dag);
  if (auto finding = CompareRuns(c, first, parallel, "SimpleNet vs the DAG executor")) {
    return {finding, ""};
  }
  if (options.compare_threads > 1) {
    const int n = options.compare_threads;
    RunOptions one = simple;
    one.compute_threads = 1;
    RunOptions many = simple;
    many.compute_threads = n;
    RunOptions many_dag = dag;
    many_dag.compute_threads = n;
    BackendRun single = backend.Run(c, one);
    const std::string threads = std::to_string(n) + " compute threads";
    if (auto finding = CompareRuns(c, single, backend.Run(c, many),
                                   "SimpleNet on 1 compute thread vs on " + threads)) {
      return {finding, ""};
    }
    if (auto finding = CompareRuns(c, single, backend.Run(c, many_dag),
                                   "SimpleNet on 1 compute thread vs the DAG executor on " +
                                       threads)) {
      return {finding, ""};
    }
  }
  // Every run failed alike: the case is bad input.
  return {std::nullopt, "", first.error};
}

const bool kRegistered = RegisterOracle("determinism", CheckDeterminism);

}  // namespace
}  // namespace parity::oracles
