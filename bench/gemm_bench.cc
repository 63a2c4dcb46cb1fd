// GEMM-shaped ops (FC, MatMul, BatchMatMul, Conv via im2col; FCGradient, ConvGradient) against a
// bare cblas_sgemm of the same shape, in one binary. Each op benchmark has a twin named
// <Op>_Sgemm with the same arguments; the ratio of interest is time(<Op>_Sgemm) / time(<Op>)
// (target >= 0.95). Conv and ConvGradient run their IM2COL engine here (im2col + GEMM, what the
// sgemm twin models); bench/conv_bench.cc compares that engine with the default, oneDNN's.
//
// The op side runs a created operator repeatedly (its output and scratch are allocated by the first
// run, before timing), so it measures the op's per-run overhead on top of the GEMM: shape checks,
// the bias pass, im2col for Conv. OpenBLAS threading is left as the environment configures it
// (OPENBLAS_NUM_THREADS); both sides run in the same process, hence with the same setting.
//
//   bazel run -c opt //bench:gemm_bench -- --benchmark_min_time=0.2
#include <benchmark/benchmark.h>
#include <cblas.h>

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/operator.h"
#include "core/proto/caffe2.pb.h"
#include "core/workspace.h"

namespace parity {
namespace {

std::vector<float> RandomFloats(int64_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> out(n);
  for (float& v : out) v = dist(gen);
  return out;
}

void Feed(Workspace* ws, const std::string& name, const std::vector<int64_t>& dims,
          uint32_t seed) {
  Tensor* t = ws->CreateTensor(name);
  t->Resize(dims);
  std::vector<float> values = RandomFloats(t->numel(), seed);
  std::copy(values.begin(), values.end(), t->mutable_data<float>());
}

caffe2::OperatorDef Def(const std::string& type, const std::vector<std::string>& inputs,
                        const std::vector<std::pair<std::string, int64_t>>& args = {}) {
  caffe2::OperatorDef def;
  def.set_type(type);
  for (const auto& in : inputs) def.add_input(in);
  def.add_output("y");
  for (const auto& [name, value] : args) {
    caffe2::Argument* arg = def.add_arg();
    arg->set_name(name);
    arg->set_i(value);
  }
  return def;
}

// Runs `op` once outside the timing (allocating its output and scratch), then in the loop.
void RunOpLoop(benchmark::State& state, Workspace* ws, const caffe2::OperatorDef& def,
               double flops) {
  std::unique_ptr<Operator> op = CreateOperator(def, ws);
  op->Run();
  for (auto _ : state) {
    op->Run();
    benchmark::ClobberMemory();
  }
  state.counters["GFLOP/s"] =
      benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

// C[M, N] = op(A) op(B) repeated `batch` times over consecutive matrices, as the ops do.
void SgemmLoop(benchmark::State& state, int64_t batch, int64_t M, int64_t N, int64_t K,
               bool trans_b) {
  std::vector<float> a = RandomFloats(batch * M * K, 1), b = RandomFloats(batch * K * N, 2);
  std::vector<float> c(batch * M * N);
  for (auto _ : state) {
    for (int64_t i = 0; i < batch; ++i) {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans, M, N, K, 1.0f,
                  a.data() + i * M * K, K, b.data() + i * K * N, trans_b ? K : N, 0.0f,
                  c.data() + i * M * N, N);
    }
    benchmark::ClobberMemory();
  }
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * batch * M * N * K * 1e-9,
                                                 benchmark::Counter::kIsIterationInvariantRate);
}

// ---- FC: X [M, K], W [N, K], b [N]. Bare: sgemm(NoTrans, Trans).
void BM_FC(benchmark::State& state) {
  const int64_t M = state.range(0), K = state.range(1), N = state.range(2);
  Workspace ws;
  Feed(&ws, "x", {M, K}, 1);
  Feed(&ws, "w", {N, K}, 2);
  Feed(&ws, "b", {N}, 3);
  RunOpLoop(state, &ws, Def("FC", {"x", "w", "b"}), 2.0 * M * N * K);
}
void BM_FC_Sgemm(benchmark::State& state) {
  SgemmLoop(state, 1, state.range(0), state.range(2), state.range(1), /*trans_b=*/true);
}

// ---- MatMul: A [M, K], B [K, N].
void BM_MatMul(benchmark::State& state) {
  const int64_t M = state.range(0), K = state.range(1), N = state.range(2);
  Workspace ws;
  Feed(&ws, "a", {M, K}, 1);
  Feed(&ws, "b", {K, N}, 2);
  RunOpLoop(state, &ws, Def("MatMul", {"a", "b"}), 2.0 * M * N * K);
}
void BM_MatMul_Sgemm(benchmark::State& state) {
  SgemmLoop(state, 1, state.range(0), state.range(2), state.range(1), /*trans_b=*/false);
}

// ---- BatchMatMul: A [batch, M, K], B [batch, K, N]. Bare: one sgemm per batch.
void BM_BatchMatMul(benchmark::State& state) {
  const int64_t batch = state.range(0), M = state.range(1), K = state.range(2),
                N = state.range(3);
  Workspace ws;
  Feed(&ws, "a", {batch, M, K}, 1);
  Feed(&ws, "b", {batch, K, N}, 2);
  RunOpLoop(state, &ws, Def("BatchMatMul", {"a", "b"}), 2.0 * batch * M * N * K);
}
void BM_BatchMatMul_Sgemm(benchmark::State& state) {
  SgemmLoop(state, state.range(0), state.range(1), state.range(3), state.range(2), false);
}

// ---- Conv: X [N, C, H, W], W [M, C, k, k], bias [M], stride 1, pad (k - 1) / 2 (same size).
// Bare: per image, one sgemm [M, C*k*k] x [C*k*k, H*W] (what the op runs after im2col).
void BM_Conv(benchmark::State& state) {
  const int64_t N = state.range(0), C = state.range(1), H = state.range(2), M = state.range(3),
                k = state.range(4);
  Workspace ws;
  Feed(&ws, "x", {N, C, H, H}, 1);
  Feed(&ws, "w", {M, C, k, k}, 2);
  Feed(&ws, "b", {M}, 3);
  caffe2::OperatorDef def = Def("Conv", {"x", "w", "b"}, {{"kernel", k}, {"pad", (k - 1) / 2}});
  def.set_engine("IM2COL");
  RunOpLoop(state, &ws, def, 2.0 * N * M * H * H * C * k * k);
}
void BM_Conv_Sgemm(benchmark::State& state) {
  const int64_t N = state.range(0), C = state.range(1), H = state.range(2), M = state.range(3),
                k = state.range(4);
  const int64_t K = C * k * k, hw = H * H;
  std::vector<float> w = RandomFloats(M * K, 1), col = RandomFloats(K * hw, 2);
  std::vector<float> y(N * M * hw);
  for (auto _ : state) {
    for (int64_t n = 0; n < N; ++n) {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, hw, K, 1.0f, w.data(), K,
                  col.data(), hw, 0.0f, y.data() + n * M * hw, hw);
    }
    benchmark::ClobberMemory();
  }
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * N * M * hw * K * 1e-9,
                                                 benchmark::Counter::kIsIterationInvariantRate);
}

// ---- Gradients. FCGradient (X, W, dY) -> (dW, db, dX): two GEMMs of FC's size (dW = dY^T X,
// dX = dY W) plus the column sums. Bare: those two sgemms.
void BM_FCGradient(benchmark::State& state) {
  const int64_t M = state.range(0), K = state.range(1), N = state.range(2);
  Workspace ws;
  Feed(&ws, "x", {M, K}, 1);
  Feed(&ws, "w", {N, K}, 2);
  Feed(&ws, "dy", {M, N}, 3);
  caffe2::OperatorDef def = Def("FCGradient", {"x", "w", "dy"});
  def.clear_output();
  for (const char* out : {"dw", "db", "dx"}) def.add_output(out);
  RunOpLoop(state, &ws, def, 4.0 * M * N * K);
}
void BM_FCGradient_Sgemm(benchmark::State& state) {
  const int64_t M = state.range(0), K = state.range(1), N = state.range(2);
  std::vector<float> x = RandomFloats(M * K, 1), w = RandomFloats(N * K, 2),
                     dy = RandomFloats(M * N, 3);
  std::vector<float> dw(N * K), dx(M * K);
  for (auto _ : state) {
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, N, K, M, 1.0f, dy.data(), N, x.data(), K,
                0.0f, dw.data(), K);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, K, N, 1.0f, dy.data(), N, w.data(),
                K, 0.0f, dx.data(), K);
    benchmark::ClobberMemory();
  }
  state.counters["GFLOP/s"] =
      benchmark::Counter(4.0 * M * N * K * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

// ConvGradient (X, W, dY) -> (dW, db, dX), same geometry as BM_Conv. Per image: im2col, dW +=
// dY col^T, dcol = W^T dY, col2im. Bare: per image, those two sgemms on whole images.
void BM_ConvGradient(benchmark::State& state) {
  const int64_t N = state.range(0), C = state.range(1), H = state.range(2), M = state.range(3),
                k = state.range(4);
  Workspace ws;
  Feed(&ws, "x", {N, C, H, H}, 1);
  Feed(&ws, "w", {M, C, k, k}, 2);
  Feed(&ws, "dy", {N, M, H, H}, 3);
  caffe2::OperatorDef def =
      Def("ConvGradient", {"x", "w", "dy"}, {{"kernel", k}, {"pad", (k - 1) / 2}});
  def.set_engine("IM2COL");
  def.clear_output();
  for (const char* out : {"dw", "db", "dx"}) def.add_output(out);
  RunOpLoop(state, &ws, def, 4.0 * N * M * H * H * C * k * k);
}
void BM_ConvGradient_Sgemm(benchmark::State& state) {
  const int64_t N = state.range(0), C = state.range(1), H = state.range(2), M = state.range(3),
                k = state.range(4);
  const int64_t K = C * k * k, hw = H * H;
  std::vector<float> w = RandomFloats(M * K, 1), col = RandomFloats(K * hw, 2),
                     dy = RandomFloats(N * M * hw, 3);
  std::vector<float> dw(M * K), dcol(K * hw);
  for (auto _ : state) {
    for (int64_t n = 0; n < N; ++n) {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, M, K, hw, 1.0f, dy.data() + n * M * hw,
                  hw, col.data(), hw, 1.0f, dw.data(), K);
      cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, K, hw, M, 1.0f, w.data(), K,
                  dy.data() + n * M * hw, hw, 0.0f, dcol.data(), hw);
    }
    benchmark::ClobberMemory();
  }
  state.counters["GFLOP/s"] = benchmark::Counter(4.0 * N * M * hw * K * 1e-9,
                                                 benchmark::Counter::kIsIterationInvariantRate);
}

#define PARITY_PAIR(name, ...)                                                             \
  BENCHMARK(BM_##name)->Args(__VA_ARGS__)->Unit(benchmark::kMicrosecond)->UseRealTime(); \
  BENCHMARK(BM_##name##_Sgemm)->Args(__VA_ARGS__)->Unit(benchmark::kMicrosecond)->UseRealTime()

PARITY_PAIR(FC, {64, 512, 512});
PARITY_PAIR(FC, {256, 1024, 1024});
PARITY_PAIR(MatMul, {256, 512, 512});
PARITY_PAIR(MatMul, {512, 512, 512});
PARITY_PAIR(BatchMatMul, {16, 128, 128, 128});
PARITY_PAIR(BatchMatMul, {8, 256, 256, 256});
PARITY_PAIR(Conv, {1, 64, 56, 64, 3});
PARITY_PAIR(Conv, {1, 256, 56, 64, 1});
PARITY_PAIR(Conv, {8, 64, 28, 128, 3});
PARITY_PAIR(FCGradient, {64, 512, 512});
PARITY_PAIR(FCGradient, {256, 1024, 1024});
PARITY_PAIR(ConvGradient, {1, 64, 56, 64, 3});
PARITY_PAIR(ConvGradient, {1, 256, 56, 64, 1});
PARITY_PAIR(ConvGradient, {8, 64, 28, 128, 3});

}  // namespace
}  // namespace parity
