// Conv and ConvGradient on their two CPU engines, and PyTorch on the same shapes, in one table
// (issue 18's conv rows, plus stride 2 and depthwise):
//
//   BM_Conv/DNNL/...           the default engine: oneDNN's direct convolution (conv_dnnl.h)
//   BM_Conv/IM2COL/...         the im2col + GEMM kernel
//   BM_Conv/torch/...          torch.nn.functional.conv2d, timed by bench/torch_conv.py's own loop
//                              in a child process (Debian's python3-torch) and reported as manual
//                              time: a benchmark peer only, never a dependency
//   BM_ConvGradient/...        the same for ConvGradient (dW, db, dX); the peer times
//                              aten::convolution_backward alone, no forward
//   BM_ConvCreateAndRun/...    a fuzz-sized Conv created and run once: the per-instance cost
//
// Arguments: N, C, H (= W), M, k (square kernel, pad (k - 1) / 2), stride, group, threads; float
// NCHW with a bias. `threads` is OpenMP's (oneDNN's convolutions and sgemm) and OpenBLAS's team
// here, torch.set_num_threads in the peer. The op side runs a created operator repeatedly
// (primitives, output and scratch are made by a first run outside the timing). The rows of one
// shape run one after the other (DNNL, IM2COL, torch), each repeated 5 times, and the table shows
// the minimum next to the median: on a shared machine the minimum is the least disturbed run.
//
//   bazel run -c opt //bench:conv_bench
#include <benchmark/benchmark.h>
#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "bench/torch_peer.h"
#include "core/operator.h"
#include "core/proto/caffe2.pb.h"
#include "core/workspace.h"

namespace parity {
namespace {

constexpr int kTorchIterations = 50;

struct Shape {
  int64_t n, c, h, m, k, stride, group;
  int64_t out() const { return (h + 2 * ((k - 1) / 2) - k) / stride + 1; }
  double flops() const { return 2.0 * n * m * out() * out() * (c / group) * k * k; }
};

Shape ShapeOf(const benchmark::State& state) {
  return {state.range(0), state.range(1), state.range(2), state.range(3),
          state.range(4), state.range(5), state.range(6)};
}
int ThreadsOf(const benchmark::State& state) { return static_cast<int>(state.range(7)); }

caffe2::OperatorDef ConvDef(const std::string& type, const Shape& s, const std::string& engine,
                            const std::vector<std::string>& inputs,
                            const std::vector<std::string>& outputs) {
  caffe2::OperatorDef def;
  def.set_type(type);
  def.set_engine(engine);
  for (const auto& in : inputs) def.add_input(in);
  for (const auto& out : outputs) def.add_output(out);
  for (const auto& [name, value] : std::vector<std::pair<std::string, int64_t>>{
           {"kernel", s.k}, {"pad", (s.k - 1) / 2}, {"stride", s.stride}, {"group", s.group}}) {
    caffe2::Argument* arg = def.add_arg();
    arg->set_name(name);
    arg->set_i(value);
  }
  return def;
}

void RunOpLoop(benchmark::State& state, Workspace* ws, const caffe2::OperatorDef& def,
               double flops) {
  omp_set_num_threads(ThreadsOf(state));
  openblas_set_num_threads(ThreadsOf(state));
  std::unique_ptr<Operator> op = CreateOperator(def, ws);
  op->Run();
  for (auto _ : state) {
    op->Run();
    benchmark::ClobberMemory();
  }
  state.counters["GFLOP/s"] =
      benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_Conv(benchmark::State& state, const std::string& engine) {
  const Shape s = ShapeOf(state);
  Workspace ws;
  bench::FeedUniform(&ws, "x", {s.n, s.c, s.h, s.h}, 1, -1.0f, 1.0f);
  bench::FeedUniform(&ws, "w", {s.m, s.c / s.group, s.k, s.k}, 2, -1.0f, 1.0f);
  bench::FeedUniform(&ws, "b", {s.m}, 3, -1.0f, 1.0f);
  RunOpLoop(state, &ws, ConvDef("Conv", s, engine, {"x", "w", "b"}, {"y"}), s.flops());
}

void BM_ConvGradient(benchmark::State& state, const std::string& engine) {
  const Shape s = ShapeOf(state);
  Workspace ws;
  bench::FeedUniform(&ws, "x", {s.n, s.c, s.h, s.h}, 1, -1.0f, 1.0f);
  bench::FeedUniform(&ws, "w", {s.m, s.c / s.group, s.k, s.k}, 2, -1.0f, 1.0f);
  bench::FeedUniform(&ws, "dy", {s.n, s.m, s.out(), s.out()}, 3, -1.0f, 1.0f);
  RunOpLoop(state, &ws, ConvDef("ConvGradient", s, engine, {"x", "w", "dy"}, {"dw", "db", "dx"}),
            2.0 * s.flops());
}

// What a fuzz case pays: a small Conv created and run once (the oracles create the ops of a case
// many times over), so per-instance costs (oneDNN's descriptors, buffers, reorders) show.
void BM_ConvCreateAndRun(benchmark::State& state, const std::string& engine) {
  const Shape s = ShapeOf(state);
  Workspace ws;
  bench::FeedUniform(&ws, "x", {s.n, s.c, s.h, s.h}, 1, -1.0f, 1.0f);
  bench::FeedUniform(&ws, "w", {s.m, s.c / s.group, s.k, s.k}, 2, -1.0f, 1.0f);
  bench::FeedUniform(&ws, "b", {s.m}, 3, -1.0f, 1.0f);
  omp_set_num_threads(1);  // as a fuzz worker
  const caffe2::OperatorDef def = ConvDef("Conv", s, engine, {"x", "w", "b"}, {"y"});
  for (auto _ : state) {
    CreateOperator(def, &ws)->Run();
    benchmark::ClobberMemory();
  }
}

// The peer: bench/torch_conv.py on the same shape and threads.
void BM_Torch(benchmark::State& state, const std::string& mode) {
  const Shape s = ShapeOf(state);
  std::string arguments = "--mode " + mode;
  for (int64_t v : {s.n, s.c, s.h, s.m, s.k, s.stride, s.group}) {
    arguments += " " + std::to_string(v);
  }
  bench::TimeTorchPeer(state, "torch_conv.py", ThreadsOf(state), arguments, kTorchIterations);
}

double Min(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }

// Shape-major, so that the engines and the peer of one shape run close in time.
bool RegisterAll() {
  const std::vector<std::vector<int64_t>> shapes = {
      // {N, C, H, M, k, stride, group}
      {1, 64, 56, 64, 3, 1, 1},      // ResNet stage 1, 3x3
      {8, 64, 28, 128, 3, 1, 1},     // batch 8
      {1, 256, 56, 64, 1, 1, 1},     // 1x1 (pointwise)
      {1, 64, 56, 128, 3, 2, 1},     // 3x3 stride 2
      {1, 256, 28, 256, 3, 1, 256},  // depthwise 3x3
  };
  const std::vector<std::string> names = {"N", "C", "H", "M", "k", "s", "g", "threads"};
  for (int64_t threads : {1, 2}) {
    for (const auto& shape : shapes) {
      std::vector<int64_t> args = shape;
      args.push_back(threads);
      for (const std::string op : {"Conv", "ConvGradient"}) {
        for (const std::string side : {"DNNL", "IM2COL", "torch"}) {
          const std::string name = "BM_" + op + "/" + side;
          benchmark::internal::Benchmark* b;
          if (side == "torch") {
            const std::string mode = op == "Conv" ? "forward" : "backward";
            b = benchmark::RegisterBenchmark(
                name.c_str(), [mode](benchmark::State& state) { BM_Torch(state, mode); });
            b->UseManualTime()->Iterations(kTorchIterations);
          } else if (op == "Conv") {
            b = benchmark::RegisterBenchmark(
                name.c_str(), [side](benchmark::State& state) { BM_Conv(state, side); });
            b->UseRealTime();
          } else {
            b = benchmark::RegisterBenchmark(
                name.c_str(), [side](benchmark::State& state) { BM_ConvGradient(state, side); });
            b->UseRealTime();
          }
          b->ArgNames(names)->Args(args)->Unit(benchmark::kMicrosecond);
          b->Repetitions(5)->ComputeStatistics("min", Min)->DisplayAggregatesOnly(true);
        }
      }
    }
  }
  for (const std::string engine : {"DNNL", "IM2COL"}) {
    benchmark::RegisterBenchmark(
        ("BM_ConvCreateAndRun/" + engine).c_str(),
        [engine](benchmark::State& state) { BM_ConvCreateAndRun(state, engine); })
        ->ArgNames({"N", "C", "H", "M", "k", "s", "g"})
        ->Args({1, 3, 7, 4, 3, 1, 1})
        ->Unit(benchmark::kMicrosecond);
  }
  return true;
}

[[maybe_unused]] const bool kRegistered = RegisterAll();

}  // namespace
}  // namespace parity
