// Elementwise kernels on 1M floats against a plain memcpy of the same 4 MB in the same binary
// (target: Add, Relu, Sigmoid within 2x of memcpy), and the other ops split across threads by
// core/parallel.h (a broadcast, reductions, Softmax, LayerNorm, Gather), each on 1M floats. The
// ops run through their Operator (as a net would), so dispatch and shape checks are included.
// Inputs are uniform in [-5, 5].
//
// Every op row takes the compute threads (core/threads.h) as its last argument ("/threads:2" in
// the name is the argument, not Google Benchmark's own threading): 1 and 2, and has a PyTorch twin
// (BM_<Op>/torch: bench/torch_ops.py in a child process, torch.set_num_threads the same, reported
// as manual time; a benchmark peer only). Each row is repeated 5 times, the minimum shown beside
// the median. BM_AddSize sweeps the element count around the parallel threshold
// (kParallelMinWork, core/parallel.h).
//
//   bazel run -c opt //bench:elementwise_bench -- --benchmark_min_time=0.2 --benchmark_repetitions=5
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bench/torch_peer.h"
#include "core/operator.h"
#include "core/threads.h"
#include "core/workspace.h"

namespace parity {
namespace {

constexpr int64_t kN = int64_t{1} << 20;
constexpr int kTorchIterations = 100;

void FillUniform(Tensor* t, const std::vector<int64_t>& dims, uint32_t seed) {
  t->Resize(dims);
  float* data = t->mutable_data<float>();
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-5.0f, 5.0f);
  for (int64_t i = 0; i < t->numel(); ++i) data[i] = dist(gen);
}

void BM_Memcpy(benchmark::State& state) {
  std::vector<float> src(kN, 1.0f);
  std::vector<float> dst(kN);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), kN * sizeof(float));
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * kN * sizeof(float));
}
BENCHMARK(BM_Memcpy);

caffe2::OperatorDef MakeDef(const std::string& type, const std::vector<std::string>& inputs,
                            const std::vector<std::string>& outputs) {
  caffe2::OperatorDef def;
  def.set_type(type);
  for (const auto& name : inputs) def.add_input(name);
  for (const auto& name : outputs) def.add_output(name);
  return def;
}

// Runs the op on `threads` compute threads, once before timing (to allocate its outputs).
void RunTimed(benchmark::State& state, const caffe2::OperatorDef& def, Workspace* ws,
              int64_t elements, int threads) {
  SetComputeThreads(threads);
  std::unique_ptr<Operator> op = CreateOperator(def, ws);
  op->Run();
  for (auto _ : state) {
    op->Run();
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * elements * sizeof(float));
  SetComputeThreads(1);
}

// Runs `type` on inputs x (and y for binary ops) of 1M floats, writing z.
void BM_Op(benchmark::State& state, const std::string& type, int inputs) {
  Workspace ws;
  FillUniform(ws.CreateTensor("x"), {kN}, 1);
  FillUniform(ws.CreateTensor("y"), {kN}, 2);
  std::vector<std::string> in{"x"};
  if (inputs == 2) in.push_back("y");
  RunTimed(state, MakeDef(type, in, {"z"}), &ws, kN, static_cast<int>(state.range(0)));
}

// Add on n floats (first argument) on 1 or 2 threads: where splitting starts to pay.
void BM_AddSize(benchmark::State& state) {
  const int64_t n = state.range(0);
  Workspace ws;
  FillUniform(ws.CreateTensor("x"), {n}, 1);
  FillUniform(ws.CreateTensor("y"), {n}, 2);
  RunTimed(state, MakeDef("Add", {"x", "y"}, {"z"}), &ws, n, static_cast<int>(state.range(1)));
}
BENCHMARK(BM_AddSize)
    ->ArgNames({"n", "threads"})
    ->ArgsProduct({{16384, 32768, 65536, 131072, 262144, 524288, 1048576}, {1, 2}});

// Broadcasting: [1024, 1024] + [1024] (a row added to every row; inner blocks of 1024).
void BM_AddRowBroadcast(benchmark::State& state) {
  Workspace ws;
  FillUniform(ws.CreateTensor("x"), {1024, 1024}, 1);
  Tensor* b = ws.CreateTensor("b");
  b->Resize({1024});
  std::fill(b->mutable_data<float>(), b->mutable_data<float>() + 1024, 0.5f);
  RunTimed(state, MakeDef("Add", {"x", "b"}, {"z"}), &ws, kN, static_cast<int>(state.range(0)));
}

// A reduction over `axis` of [1024, 1024]: axis 1 sums each row (split by rows), axis 0 sums
// down the columns (split by columns). Bytes processed: the input's.
void BM_Reduce(benchmark::State& state, const std::string& type, int64_t axis) {
  Workspace ws;
  FillUniform(ws.CreateTensor("x"), {1024, 1024}, 1);
  caffe2::OperatorDef def = MakeDef(type, {"x"}, {"z"});
  caffe2::Argument* axes = def.add_arg();
  axes->set_name("axes");
  axes->add_ints(axis);
  RunTimed(state, def, &ws, kN, static_cast<int>(state.range(0)));
}

// Softmax and LayerNorm over the rows of [1024, 1024] (axis 1).
void BM_Rows(benchmark::State& state, const std::string& type) {
  Workspace ws;
  FillUniform(ws.CreateTensor("x"), {1024, 1024}, 1);
  std::vector<std::string> outputs{"z"};
  if (type == "LayerNorm") outputs = {"z", "mean", "std"};
  RunTimed(state, MakeDef(type, {"x"}, outputs), &ws, kN, static_cast<int>(state.range(0)));
}

// Gather of 16384 random rows of 64 floats from a [16384, 64] table: 1M floats out.
void BM_Gather(benchmark::State& state) {
  Workspace ws;
  FillUniform(ws.CreateTensor("data"), {16384, 64}, 1);
  Tensor* indices = ws.CreateTensor("indices");
  indices->Resize({16384});
  std::mt19937 gen(3);
  std::uniform_int_distribution<int64_t> pick(0, 16383);
  for (int64_t i = 0; i < 16384; ++i) indices->mutable_data<int64_t>()[i] = pick(gen);
  RunTimed(state, MakeDef("Gather", {"data", "indices"}, {"z"}), &ws, kN,
           static_cast<int>(state.range(0)));
}

// The peer: bench/torch_ops.py on the same work and threads.
void BM_Torch(benchmark::State& state, const std::string& work) {
  bench::TimeTorchPeer(state, "torch_ops.py", state.range(0), work, kTorchIterations);
}

double Min(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }

// Rows BM_<Op>/parity/threads:T and BM_<Op>/torch/threads:T, as bench/compare.py pairs them;
// the two sides of one thread count run one after the other.
bool RegisterAll() {
  const std::string n = std::to_string(kN);
  struct Row {
    std::string name;
    std::function<void(benchmark::State&)> parity;
    std::string torch;  // bench/torch_ops.py's arguments
  };
  auto op = [](std::string type, int inputs) {
    return [type, inputs](benchmark::State& state) { BM_Op(state, type, inputs); };
  };
  const std::vector<Row> rows = {
      {"Add", op("Add", 2), "unary add " + n},
      {"Mul", op("Mul", 2), "unary mul " + n},
      {"Relu", op("Relu", 1), "unary relu " + n},
      {"Sigmoid", op("Sigmoid", 1), "unary sigmoid " + n},
      {"Tanh", op("Tanh", 1), "unary tanh " + n},
      {"Exp", op("Exp", 1), "unary exp " + n},
      {"AddRowBroadcast", BM_AddRowBroadcast, "rowadd 1024 1024"},
      {"ReduceSumRows", [](benchmark::State& s) { BM_Reduce(s, "ReduceSum", 1); },
       "reduce sum 1"},
      {"ReduceMeanColumns", [](benchmark::State& s) { BM_Reduce(s, "ReduceMean", 0); },
       "reduce mean 0"},
      {"Softmax", [](benchmark::State& s) { BM_Rows(s, "Softmax"); }, "softmax"},
      {"LayerNorm", [](benchmark::State& s) { BM_Rows(s, "LayerNorm"); }, "layernorm"},
      {"Gather", BM_Gather, "gather"},
  };
  for (int64_t threads : {1, 2}) {
    for (const Row& row : rows) {
      for (const bool peer : {false, true}) {
        const std::string name = "BM_" + row.name + (peer ? "/torch" : "/parity");
        benchmark::internal::Benchmark* b;
        if (peer) {
          const std::string work = row.torch;
          b = benchmark::RegisterBenchmark(
              name.c_str(), [work](benchmark::State& state) { BM_Torch(state, work); });
          b->UseManualTime()->Iterations(kTorchIterations);
        } else {
          b = benchmark::RegisterBenchmark(name.c_str(), row.parity);
          b->UseRealTime();
        }
        b->ArgName("threads")->Arg(threads)->Unit(benchmark::kMicrosecond);
        b->Repetitions(5)->ComputeStatistics("min", Min)->DisplayAggregatesOnly(true);
      }
    }
  }
  return true;
}

[[maybe_unused]] const bool kRegistered = RegisterAll();

}  // namespace
}  // namespace parity
