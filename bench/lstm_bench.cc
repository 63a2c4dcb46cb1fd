// The LSTM built by Lstm(...) (core/rnn/rnn_cell.h) at T=50, N=32, D=H=256 against PyTorch's
// torch.nn.LSTM with the same sizes, in one Google Benchmark table:
//
//   BM_LstmForward/parity           the forward-only net (no step workspaces kept for backward)
//   BM_LstmForwardBackward/parity   the training net: forward, then the backward pass seeded with
//                                   ones on hidden_t_all (RecurrentNetworkGradient, FCGradient...)
//   BM_Lstm.../torch                torch.nn.LSTM under no_grad, and forward + out.backward(ones),
//                                   timed by bench/torch_lstm.py's own loop in a child process
//                                   (Debian's python3-torch) and reported as manual time
//   BM_LstmGemmFloor/...            only the sgemm calls the LSTM's FCs make, same shapes, on
//                                   oneDNN (what the engine's float GEMM calls) and on OpenBLAS:
//                                   the time no LSTM on that GEMM can beat. time(Lstm.../parity)
//                                   - time(GemmFloor onednn) is our step overhead (links, step nets,
//                                   LSTMUnit, Sum, gradient accumulation).
//
// The `threads` argument is the OpenMP (oneDNN) and OpenBLAS thread count here, and
// torch.set_num_threads in the peer.
//
//   bazel run -c opt //bench:lstm_bench
#include <benchmark/benchmark.h>
#include <cblas.h>
#include <dnnl.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "bench/torch_peer.h"
#include "core/grad/backward.h"
#include "core/net.h"
#include "core/rnn/rnn_cell.h"
#include "core/workspace.h"

namespace parity {
namespace {

constexpr int64_t kSteps = 50, kBatch = 32, kInput = 256, kHidden = 256;
constexpr int kIterations = 20;

void SetThreads(const benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  omp_set_num_threads(threads);  // oneDNN's sgemm
  openblas_set_num_threads(threads);
}

// Every benchmark here: 1 and 2 threads, the same fixed iteration count, in milliseconds.
void OneAndTwoThreads(benchmark::internal::Benchmark* b) {
  b->ArgName("threads")->Arg(1)->Arg(2)->Iterations(kIterations)->Unit(benchmark::kMillisecond);
}

void BM_ParityLstm(benchmark::State& state, bool backward) {
  SetThreads(state);
  LstmSpec spec;
  spec.dim_in = kInput;
  spec.dim_out = kHidden;
  spec.forward_only = !backward;
  caffe2::NetDef def;
  def.set_name("lstm");
  const LstmOutputs out = Lstm(&def, spec);
  if (backward) AddGradientOperators(&def, {{out.hidden_all, ""}});

  Workspace ws;
  bench::FeedUniform(&ws, "input", {kSteps, kBatch, kInput}, 1, -1.0f, 1.0f);
  Tensor* lengths = ws.CreateTensor("seq_lengths");
  lengths->Resize({kBatch});
  for (int64_t n = 0; n < kBatch; ++n) lengths->mutable_data<int32_t>()[n] = kSteps;
  bench::FeedUniform(&ws, "hidden_init", {1, kBatch, kHidden}, 2, 0.0f, 0.0f);
  bench::FeedUniform(&ws, "cell_init", {1, kBatch, kHidden}, 3, 0.0f, 0.0f);
  const float bound = 1.0f / std::sqrt(static_cast<float>(kHidden));  // torch's init
  uint32_t seed = 4;
  for (const RnnParameter& p : out.parameters) {
    bench::FeedUniform(&ws, p.name, p.dims, seed++, -bound, bound);
  }
  NetBase* net = ws.CreateNet(def);
  net->Run();  // allocations and step workspaces made before timing
  for (auto _ : state) net->Run();
}


// The peer: bench/torch_lstm.py with the same sizes and threads.
void BM_TorchLstm(benchmark::State& state, const char* mode) {
  bench::TimeTorchPeer(state, "torch_lstm.py", state.range(0),
                       "--T " + std::to_string(kSteps) + " --N " + std::to_string(kBatch) +
                           " --D " + std::to_string(kInput) + " --H " + std::to_string(kHidden) +
                           " --mode " + mode,
                       kIterations);
}
// Rows named BM_<Op>/<side>/threads:T, as bench/compare.py pairs them.
[[maybe_unused]] const bool kLstmRowsRegistered = [] {
  for (const auto& [op, mode] : {std::pair<const char*, const char*>{"LstmForward", "forward"},
                                 {"LstmForwardBackward", "forward_backward"}}) {
    const bool backward = std::string(mode) == "forward_backward";
    benchmark::RegisterBenchmark((std::string("BM_") + op + "/parity").c_str(),
                                 [backward](benchmark::State& state) {
                                   BM_ParityLstm(state, backward);
                                 })
        ->Apply(OneAndTwoThreads)
        ->UseRealTime();
    benchmark::RegisterBenchmark((std::string("BM_") + op + "/torch").c_str(),
                                 [mode = mode](benchmark::State& state) {
                                   BM_TorchLstm(state, mode);
                                 })
        ->Apply(OneAndTwoThreads)
        ->UseManualTime();
  }
  return true;
}();

// C[M, N] (+)= A[M, K] op(B): one sgemm of the LSTM's FCs.
struct Gemm {
  int64_t m, n, k;
  bool trans_a, trans_b;
  float beta;
};

void BM_LstmGemmFloor(benchmark::State& state, bool backward, bool onednn) {
  SetThreads(state);
  const int64_t rows = kSteps * kBatch, gates = 4 * kHidden;
  // Forward: the input projection over the sequence, then per step FC(hidden_t_prev).
  std::vector<Gemm> gemms = {{rows, gates, kInput, false, true, 0.0f}};
  for (int64_t t = 0; t < kSteps; ++t) gemms.push_back({kBatch, gates, kHidden, false, true, 0.0f});
  if (backward) {
    // Per step, FCGradient of FC(hidden_t_prev): dW += dY^T X, dX = dY W.
    for (int64_t t = 0; t < kSteps; ++t) {
      gemms.push_back({gates, kHidden, kBatch, true, false, 1.0f});
      gemms.push_back({kBatch, kHidden, gates, false, false, 0.0f});
    }
    // The input projection's FCGradient over the whole sequence.
    gemms.push_back({gates, kInput, rows, true, false, 0.0f});
    gemms.push_back({rows, kInput, gates, false, false, 0.0f});
  }
  int64_t largest = 0;
  for (const Gemm& g : gemms) largest = std::max({largest, g.m * g.k, g.k * g.n, g.m * g.n});
  std::vector<float> a(largest, 0.5f), b(largest, 0.25f), c(largest);
  for (auto _ : state) {
    for (const Gemm& g : gemms) {
      const int64_t lda = g.trans_a ? g.m : g.k, ldb = g.trans_b ? g.k : g.n;
      if (onednn) {
        dnnl_sgemm(g.trans_a ? 'T' : 'N', g.trans_b ? 'T' : 'N', g.m, g.n, g.k, 1.0f, a.data(), lda,
                   b.data(), ldb, g.beta, c.data(), g.n);
      } else {
        cblas_sgemm(CblasRowMajor, g.trans_a ? CblasTrans : CblasNoTrans,
                    g.trans_b ? CblasTrans : CblasNoTrans, g.m, g.n, g.k, 1.0f, a.data(), lda,
                    b.data(), ldb, g.beta, c.data(), g.n);
      }
    }
    benchmark::ClobberMemory();
  }
}
BENCHMARK_CAPTURE(BM_LstmGemmFloor, forward_onednn, false, true)
    ->Apply(OneAndTwoThreads)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_LstmGemmFloor, forward_backward_onednn, true, true)
    ->Apply(OneAndTwoThreads)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_LstmGemmFloor, forward_openblas, false, false)
    ->Apply(OneAndTwoThreads)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_LstmGemmFloor, forward_backward_openblas, true, false)
    ->Apply(OneAndTwoThreads)
    ->UseRealTime();

}  // namespace
}  // namespace parity
