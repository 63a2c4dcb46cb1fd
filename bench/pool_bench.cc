// MaxPool, AveragePool and their gradients against PyTorch on the same shapes and threads, in one
// table (issue 18's pool rows):
//
//   BM_<Op>/parity/...   the op through its Operator, as a net runs it
//   BM_<Op>/torch/...    max_pool2d / avg_pool2d (count_include_pad False, Caffe2's default) and
//                        aten's pool backward kernels, timed by bench/torch_ops.py in a child
//                        process and reported as manual time (a benchmark peer only)
//
// Arguments: N, C, H (= W), k (square kernel), stride, pad, threads; float NCHW, inputs uniform in
// [-1, 1]. The gradient rows time what takes each side from X and dY to dX: parity's gradient op
// (X, Y, dY -> dX; MaxPoolGradient finds each window's maximum in X, as Caffe2's did), torch's
// avg_pool2d_backward, and for max its max_pool2d_with_indices then the backward (torch's training
// forward saves the indices instead; bench/torch_ops.py says more). Each row is repeated 5 times; the table shows the minimum beside the median (on a
// shared machine the minimum is the least disturbed run).
//
//   bazel run -c opt //bench:pool_bench
#include <benchmark/benchmark.h>
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
#include "core/threads.h"
#include "core/workspace.h"

namespace parity {
namespace {

constexpr int kTorchIterations = 50;

struct Shape {
  int64_t n, c, h, k, stride, pad;
  int64_t out() const { return (h + 2 * pad - k) / stride + 1; }
};

Shape ShapeOf(const benchmark::State& state) {
  return {state.range(0), state.range(1), state.range(2),
          state.range(3), state.range(4), state.range(5)};
}
int ThreadsOf(const benchmark::State& state) { return static_cast<int>(state.range(6)); }

caffe2::OperatorDef PoolDef(const std::string& type, const Shape& s,
                            const std::vector<std::string>& inputs, const std::string& output) {
  caffe2::OperatorDef def;
  def.set_type(type);
  for (const auto& in : inputs) def.add_input(in);
  def.add_output(output);
  for (const auto& [name, value] : std::vector<std::pair<std::string, int64_t>>{
           {"kernel", s.k}, {"pad", s.pad}, {"stride", s.stride}}) {
    caffe2::Argument* arg = def.add_arg();
    arg->set_name(name);
    arg->set_i(value);
  }
  return def;
}

// `type` is MaxPool, AveragePool or one of their gradients.
void BM_Parity(benchmark::State& state, const std::string& type) {
  const Shape s = ShapeOf(state);
  SetComputeThreads(ThreadsOf(state));
  Workspace ws;
  bench::FeedUniform(&ws, "x", {s.n, s.c, s.h, s.h}, 1, -1.0f, 1.0f);
  const std::string forward = type.substr(0, type.find("Gradient"));
  CreateOperator(PoolDef(forward, s, {"x"}, "y"), &ws)->Run();
  bench::FeedUniform(&ws, "dy", {s.n, s.c, s.out(), s.out()}, 2, -1.0f, 1.0f);
  std::unique_ptr<Operator> op =
      forward == type ? CreateOperator(PoolDef(type, s, {"x"}, "z"), &ws)
                      : CreateOperator(PoolDef(type, s, {"x", "y", "dy"}, "dx"), &ws);
  op->Run();
  for (auto _ : state) {
    op->Run();
    benchmark::ClobberMemory();
  }
}

void BM_Torch(benchmark::State& state, const std::string& type) {
  const Shape s = ShapeOf(state);
  std::string arguments =
      std::string("pool ") + (type.find("Gradient") == std::string::npos ? "forward" : "backward") +
      (type.rfind("MaxPool", 0) == 0 ? " max" : " avg");
  for (int64_t v : {s.n, s.c, s.h, s.k, s.stride, s.pad}) arguments += " " + std::to_string(v);
  bench::TimeTorchPeer(state, "torch_ops.py", ThreadsOf(state), arguments, kTorchIterations);
}

double Min(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }

// Shape-major, so that parity and the peer of one shape run close in time.
bool RegisterAll() {
  const std::vector<std::vector<int64_t>> shapes = {
      // {N, C, H, k, stride, pad}
      {1, 64, 112, 3, 2, 1},  // ResNet's stem max pool
      {8, 64, 56, 3, 2, 1},   // batch 8
      {8, 128, 28, 2, 2, 0},  // 2x2 stride 2, VGG-style
      {1, 256, 28, 3, 1, 1},  // 3x3 stride 1 (Inception-style)
  };
  for (int64_t threads : {1, 2}) {
    for (const auto& shape : shapes) {
      std::vector<int64_t> args = shape;
      args.push_back(threads);
      for (const std::string type :
           {"MaxPool", "MaxPoolGradient", "AveragePool", "AveragePoolGradient"}) {
        for (const std::string side : {"parity", "torch"}) {
          const std::string name = "BM_" + type + "/" + side;
          benchmark::internal::Benchmark* b;
          if (side == "torch") {
            b = benchmark::RegisterBenchmark(
                name.c_str(), [type](benchmark::State& state) { BM_Torch(state, type); });
            b->UseManualTime()->Iterations(kTorchIterations);
          } else {
            b = benchmark::RegisterBenchmark(
                name.c_str(), [type](benchmark::State& state) { BM_Parity(state, type); });
            b->UseRealTime();
          }
          b->ArgNames({"N", "C", "H", "k", "s", "p", "threads"})->Args(args);
          b->Unit(benchmark::kMicrosecond);
          b->Repetitions(5)->ComputeStatistics("min", Min)->DisplayAggregatesOnly(true);
        }
      }
    }
  }
  return true;
}

[[maybe_unused]] const bool kRegistered = RegisterAll();

}  // namespace
}  // namespace parity
