// Whole nets against the same models in PyTorch, same sizes and threads, in one table (issue 18):
//
//   BM_Mlp{Forward,ForwardBackward}/parity   FC(784 -> 1024), Relu, FC(1024 -> 1024), Relu,
//                                            FC(1024 -> 10) on [N, 784]; the training net adds the
//                                            backward pass (AddGradientOperators) seeded with ones
//   BM_ResNetBlockForward/parity             ResNet's basic block in inference: Conv 3x3 (no
//                                            bias), SpatialBN (is_test), Relu, Conv 3x3, SpatialBN,
//                                            Add(x), Relu
//   BM_.../torch                             the same model in bench/torch_nets.py (torch.nn,
//                                            eval mode, no_grad for forward), timed in a child
//                                            process and reported as manual time (a peer only)
//
// The nets run through SimpleNet from a Workspace, created once; a first run allocates outside
// the timing. `threads` is parity's compute threads (OpenMP: oneDNN's GEMM and convolutions, the
// intra-op loops) and OpenBLAS's, torch.set_num_threads in the peer. The LSTM's rows are in
// bench/lstm_bench.cc.
//
//   bazel run -c opt //bench:net_bench
#include <benchmark/benchmark.h>
#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "bench/torch_peer.h"
#include "core/grad/backward.h"
#include "core/net.h"
#include "core/proto/caffe2.pb.h"
#include "core/threads.h"
#include "core/workspace.h"

namespace parity {
namespace {

using bench::AddOp;

constexpr int kIterations = 20;

void SetThreads(const benchmark::State& state, int64_t threads) {
  SetComputeThreads(static_cast<int>(threads));
  openblas_set_num_threads(static_cast<int>(threads));
}

// Runs `def` once to allocate, then in the timing loop.
void RunNet(benchmark::State& state, Workspace* ws, const caffe2::NetDef& def) {
  NetBase* net = ws->CreateNet(def);
  net->Run();
  for (auto _ : state) {
    net->Run();
    benchmark::ClobberMemory();
  }
}

// Arguments: N, threads. Weights uniform in +-1/sqrt(fan_in) (torch.nn.Linear's init).
void BM_Mlp(benchmark::State& state, bool backward) {
  const int64_t n = state.range(0);
  SetThreads(state, state.range(1));
  caffe2::NetDef def;
  def.set_name("mlp");
  Workspace ws;
  bench::FeedUniform(&ws, "x", {n, 784}, 1, -1.0f, 1.0f);
  const std::vector<std::pair<int64_t, int64_t>> layers = {{784, 1024}, {1024, 1024}, {1024, 10}};
  std::string blob = "x";
  for (size_t i = 0; i < layers.size(); ++i) {
    const auto [fan_in, fan_out] = layers[i];
    const std::string w = "w" + std::to_string(i), b = "b" + std::to_string(i);
    const float bound = 1.0f / std::sqrt(static_cast<float>(fan_in));
    bench::FeedUniform(&ws, w, {fan_out, fan_in}, 10 + i, -bound, bound);
    bench::FeedUniform(&ws, b, {fan_out}, 20 + i, -bound, bound);
    const std::string fc = "fc" + std::to_string(i);
    AddOp(&def, "FC", {blob, w, b}, {fc});
    blob = fc;
    if (i + 1 < layers.size()) {
      const std::string relu = "relu" + std::to_string(i);
      AddOp(&def, "Relu", {blob}, {relu});
      blob = relu;
    }
  }
  if (backward) AddGradientOperators(&def, {{blob, ""}});
  RunNet(state, &ws, def);
}

// Arguments: N, C, H (= W), threads.
void BM_ResNetBlock(benchmark::State& state) {
  const int64_t n = state.range(0), c = state.range(1), h = state.range(2);
  SetThreads(state, state.range(3));
  caffe2::NetDef def;
  def.set_name("resnet_block");
  Workspace ws;
  bench::FeedUniform(&ws, "x", {n, c, h, h}, 1, -1.0f, 1.0f);
  const float bound = 1.0f / std::sqrt(static_cast<float>(c * 9));  // torch's conv init scale
  std::string blob = "x";
  for (int i = 1; i <= 2; ++i) {
    const std::string k = std::to_string(i);
    bench::FeedUniform(&ws, "w" + k, {c, c, 3, 3}, 10 + i, -bound, bound);
    bench::FeedUniform(&ws, "scale" + k, {c}, 20 + i, 0.5f, 1.5f);
    bench::FeedUniform(&ws, "bias" + k, {c}, 30 + i, -0.1f, 0.1f);
    bench::FeedUniform(&ws, "mean" + k, {c}, 40 + i, -0.1f, 0.1f);
    bench::FeedUniform(&ws, "var" + k, {c}, 50 + i, 0.5f, 1.5f);
    AddOp(&def, "Conv", {blob, "w" + k}, {"conv" + k}, {{"kernel", 3}, {"pad", 1}});
    AddOp(&def, "SpatialBN", {"conv" + k, "scale" + k, "bias" + k, "mean" + k, "var" + k},
          {"bn" + k}, {{"is_test", 1}});
    blob = "bn" + k;
    if (i == 1) {
      AddOp(&def, "Relu", {blob}, {"relu1"});
      blob = "relu1";
    }
  }
  AddOp(&def, "Add", {blob, "x"}, {"sum"});
  AddOp(&def, "Relu", {"sum"}, {"y"});
  RunNet(state, &ws, def);
}

// The peer: bench/torch_nets.py MODEL MODE SIZES... on the row's threads (its last argument).
void BM_Torch(benchmark::State& state, const std::string& model, const std::string& mode,
              int sizes) {
  std::string arguments = model + " " + mode;
  for (int i = 0; i < sizes; ++i) arguments += " " + std::to_string(state.range(i));
  bench::TimeTorchPeer(state, "torch_nets.py", state.range(sizes), arguments, kIterations);
}

double Min(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }

void Rows(benchmark::internal::Benchmark* b, const std::vector<std::string>& names,
          const std::vector<std::vector<int64_t>>& sizes) {
  b->ArgNames(names);
  for (int64_t threads : {1, 2}) {
    for (std::vector<int64_t> args : sizes) {
      args.push_back(threads);
      b->Args(args);
    }
  }
  b->Unit(benchmark::kMillisecond)->Repetitions(3)->ComputeStatistics("min", Min);
  b->DisplayAggregatesOnly(true);
}

bool RegisterAll() {
  const std::vector<std::vector<int64_t>> mlp_sizes = {{64}, {256}};
  for (const bool backward : {false, true}) {
    const std::string op = backward ? "BM_MlpForwardBackward" : "BM_MlpForward";
    const std::string mode = backward ? "forward_backward" : "forward";
    auto* ours = benchmark::RegisterBenchmark(
        (op + "/parity").c_str(), [backward](benchmark::State& s) { BM_Mlp(s, backward); });
    Rows(ours->UseRealTime()->Iterations(kIterations), {"N", "threads"}, mlp_sizes);
    auto* peer = benchmark::RegisterBenchmark(
        (op + "/torch").c_str(), [mode](benchmark::State& s) { BM_Torch(s, "mlp", mode, 1); });
    Rows(peer->UseManualTime()->Iterations(kIterations), {"N", "threads"}, mlp_sizes);
  }
  const std::vector<std::vector<int64_t>> block_sizes = {{1, 64, 56}, {8, 128, 28}};
  auto* ours = benchmark::RegisterBenchmark("BM_ResNetBlockForward/parity", BM_ResNetBlock);
  Rows(ours->UseRealTime()->Iterations(kIterations), {"N", "C", "H", "threads"}, block_sizes);
  auto* peer = benchmark::RegisterBenchmark(
      "BM_ResNetBlockForward/torch",
      [](benchmark::State& s) { BM_Torch(s, "resnet_block", "forward", 3); });
  Rows(peer->UseManualTime()->Iterations(kIterations), {"N", "C", "H", "threads"}, block_sizes);
  return true;
}

[[maybe_unused]] const bool kRegistered = RegisterAll();

}  // namespace
}  // namespace parity
