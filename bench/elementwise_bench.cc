// Elementwise kernels on 1M floats against a plain memcpy of the same 4 MB in the same binary
// (target: Add, Relu, Sigmoid within 2x of memcpy). The ops run through their Operator (as a net
// would), so dispatch and shape checks are included. Inputs are uniform in [-5, 5].
//
//   bazel run -c opt //bench:elementwise_bench -- --benchmark_min_time=0.2
#include <benchmark/benchmark.h>

#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/operator.h"
#include "core/workspace.h"

namespace parity {
namespace {

constexpr int64_t kN = int64_t{1} << 20;

void FillUniform(Tensor* t, uint32_t seed) {
  t->Resize({kN});
  float* data = t->mutable_data<float>();
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-5.0f, 5.0f);
  for (int64_t i = 0; i < kN; ++i) data[i] = dist(gen);
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

// Runs `type` on inputs x (and y for binary ops), writing z.
void BM_Op(benchmark::State& state, const std::string& type, int inputs) {
  Workspace ws;
  FillUniform(ws.CreateTensor("x"), 1);
  FillUniform(ws.CreateTensor("y"), 2);
  caffe2::OperatorDef def;
  def.set_type(type);
  def.add_input("x");
  if (inputs == 2) def.add_input("y");
  def.add_output("z");
  std::unique_ptr<Operator> op = CreateOperator(def, &ws);
  op->Run();  // allocate the output once
  for (auto _ : state) {
    op->Run();
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * kN * sizeof(float));
}
BENCHMARK_CAPTURE(BM_Op, Add, std::string("Add"), 2);
BENCHMARK_CAPTURE(BM_Op, Relu, std::string("Relu"), 1);
BENCHMARK_CAPTURE(BM_Op, Sigmoid, std::string("Sigmoid"), 1);
BENCHMARK_CAPTURE(BM_Op, Tanh, std::string("Tanh"), 1);
BENCHMARK_CAPTURE(BM_Op, Mul, std::string("Mul"), 2);

// Broadcasting: [1024, 1024] + [1024] (a row added to every row; inner blocks of 1024).
void BM_AddRowBroadcast(benchmark::State& state) {
  Workspace ws;
  Tensor* x = ws.CreateTensor("x");
  FillUniform(x, 1);
  x->Reshape({1024, 1024});
  Tensor* b = ws.CreateTensor("b");
  b->Resize({1024});
  std::fill(b->mutable_data<float>(), b->mutable_data<float>() + 1024, 0.5f);
  caffe2::OperatorDef def;
  def.set_type("Add");
  def.add_input("x");
  def.add_input("b");
  def.add_output("z");
  std::unique_ptr<Operator> op = CreateOperator(def, &ws);
  op->Run();
  for (auto _ : state) {
    op->Run();
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * kN * sizeof(float));
}
BENCHMARK(BM_AddRowBroadcast);

}  // namespace
}  // namespace parity
