// The parallel DAG executor against SimpleNet on a net with independent work: 4 branches, each a
// chain of 4 FC ops (X [64, 256] -> FC 256 -> FC 256 -> FC 256 -> FC 256, every FC with its own
// W [256, 256] and b [256]), so at most 4 ops can run at once and each branch is sequential.
//
//   Simple/blas:B        NetDef.type "simple", OpenBLAS on B threads
//   Dag/workers:W/blas:B NetDef.type "dag", num_workers W, OpenBLAS on B threads
//
// The interesting ratio is time(Simple/blas:1) / time(Dag/workers:W/blas:1): parallelism from the
// executor alone (each FC is one single-threaded sgemm). Simple/blas:2 is the other way to use two
// cores (threads inside each GEMM) for comparison. The speedup is bounded by the cores the
// machine gives the process, and by whatever else runs on them: report the load with the figures.
//
//   bazel run -c opt //bench:dag_bench -- --benchmark_min_time=0.5
#include <benchmark/benchmark.h>
#include <cblas.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/net.h"
#include "core/proto/caffe2.pb.h"
#include "core/workspace.h"

namespace parity {
namespace {

constexpr int kBranches = 4;
constexpr int kDepth = 4;
constexpr int64_t kBatch = 64;
constexpr int64_t kWidth = 256;

void Feed(Workspace* ws, const std::string& name, const std::vector<int64_t>& dims, uint32_t seed) {
  Tensor* t = ws->CreateTensor(name);
  t->Resize(dims);
  std::mt19937 gen(seed);
  // Small weights keep activations bounded along the chain.
  std::uniform_real_distribution<float> dist(-0.06f, 0.06f);
  float* data = t->mutable_data<float>();
  for (int64_t i = 0; i < t->numel(); ++i) data[i] = dist(gen);
}

// Branch b: x_b -> h_b_1 -> ... -> h_b_kDepth, op j reading h_b_{j-1} and w_b_j, b_b_j.
caffe2::NetDef BranchesNet(const std::string& type, int num_workers, Workspace* ws) {
  caffe2::NetDef net;
  net.set_name("branches_" + type);
  net.set_type(type);
  if (num_workers > 0) net.set_num_workers(num_workers);
  uint32_t seed = 1;
  for (int b = 0; b < kBranches; ++b) {
    const std::string prefix = "b" + std::to_string(b) + "_";
    Feed(ws, prefix + "x", {kBatch, kWidth}, seed++);
    std::string input = prefix + "x";
    for (int j = 1; j <= kDepth; ++j) {
      const std::string w = prefix + "w" + std::to_string(j);
      const std::string bias = prefix + "bias" + std::to_string(j);
      const std::string out = prefix + "h" + std::to_string(j);
      Feed(ws, w, {kWidth, kWidth}, seed++);
      Feed(ws, bias, {kWidth}, seed++);
      caffe2::OperatorDef* op = net.add_op();
      op->set_type("FC");
      op->add_input(input);
      op->add_input(w);
      op->add_input(bias);
      op->add_output(out);
      input = out;
    }
    net.add_external_output(input);
  }
  return net;
}

void RunBranches(benchmark::State& state, const std::string& type, int num_workers,
                 int blas_threads) {
  openblas_set_num_threads(blas_threads);
  Workspace ws;
  std::unique_ptr<NetBase> net = CreateNetForDef(BranchesNet(type, num_workers, &ws), &ws);
  net->Run();  // outputs allocated before timing
  for (auto _ : state) net->Run();
  const double flops = 2.0 * kBatch * kWidth * kWidth * kBranches * kDepth;
  state.counters["GFLOPS"] = benchmark::Counter(
      flops, benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
  state.counters["ops"] = kBranches * kDepth;
}

void BM_Simple(benchmark::State& state) {
  RunBranches(state, "simple", 0, static_cast<int>(state.range(0)));
}
BENCHMARK(BM_Simple)->ArgName("blas")->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);

void BM_Dag(benchmark::State& state) {
  RunBranches(state, "dag", static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
}
BENCHMARK(BM_Dag)
    ->ArgNames({"workers", "blas"})
    ->Args({2, 1})
    ->Args({4, 1})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace parity
