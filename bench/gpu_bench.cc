// The engine's CUDA ops against bare CUDA peers on the same device, stream and cuBLAS handle
// (issue 19's "done when"), in one Google Benchmark table. Every row runs its work once untimed
// (cuBLAS workspaces, the caching allocator's first blocks, kernel images), then a fixed number of
// iterations, each ending with a synchronize of the device's stream: wall time (UseRealTime) of
// the work and of the host's launches, parity's op dispatch included.
//
//   BM_Fc/parity, BM_Fc/cublas          FC (X [M, K], W [N, K], b [N], all on the device) against
//                                       the bias broadcast (a one-line kernel) + one cublasSgemm of
//                                       the same shape: the same work our FC does, so the ratio is
//                                       the engine's overhead. FLOPS = 2 M N K per second.
//   BM_MatMul/parity, BM_MatMul/cublas  MatMul A [M, K] B [K, N] against one cublasSgemm.
//   BM_BatchMatMul/parity, .../cublas   64 products of 256x256x256 against one
//                                       cublasSgemmStridedBatched.
//   BM_Conv/parity, BM_Conv/im2col_cublas
//                                       Conv NCHW 3x3, pad 1, stride 1, no bias, against a plain
//                                       im2col kernel (bench/gpu_peers.cu) + one cublasSgemm per
//                                       image. Our CUDA Conv (gpu/ops/conv.cc) is itself im2col
//                                       (gpu/kernels) + cuBLAS per image, so this row measures our
//                                       im2col kernel and dispatch, not a different algorithm;
//                                       cuDNN would be the faster peer, and is not linked here.
//   BM_Elementwise/add, BM_Elementwise/relu, BM_Memcpy
//                                       Add of two 64M-float tensors (256 MiB each), Relu of one,
//                                       and a cudaMemcpyAsync device to device of 64M floats.
//                                       bytes_per_second counts the bytes each moves (Add 3 x 4 n,
//                                       Relu 2 x 4 n, memcpy 2 x 4 n), so Add's or Relu's
//                                       bytes_per_second / Memcpy's is the fraction of the copy
//                                       bandwidth the kernel reaches.
//   BM_LstmForward/parity, BM_LstmForwardBackward/parity
//                                       T=50, N=32, D=H=256. RecurrentNetwork has no CUDA kernel,
//                                       so the LSTM is unrolled into one net on the device: per
//                                       step FC(x_t, W_x, b) + FC(h_{t-1}, W_h, b0) -> Add ->
//                                       LSTMUnit -> h_t, c_t (the 50 x_t already on the device;
//                                       seq_lengths and the timesteps are host tensors, as the
//                                       CUDA LSTMUnit reads them on the host). The backward pass
//                                       is AddGradientOperators seeded with ones on every h_t (as
//                                       lstm_bench seeds hidden_t_all). A row whose net has an op
//                                       without a CUDA kernel is skipped naming those ops. The
//                                       backward net's Sum (the gradient accumulation of W_x, W_h,
//                                       b and h_t over the steps) and AddGradient have CUDA
//                                       kernels since gpu/ops/sum_grad.cc.
//                                       The CUDA LSTMUnit reads seq_lengths and the timestep on
//                                       the host and copies its per-row flags to the device
//                                       synchronously each step: that wait is in the time.
//   BM_Lstm.../torch                    torch.nn.LSTM (cuDNN) on the device, under no_grad and
//                                       forward + out.backward(ones), timed by
//                                       bench/torch_lstm_cuda.py's own loop (which synchronizes
//                                       every iteration) in a child process; PARITY_BENCH_PYTHON
//                                       picks the interpreter, PARITY_BENCH_DIR the folder of the
//                                       .py files (bench/torch_peer.h).
//
// cuBLAS runs in CUBLAS_PEDANTIC_MATH (full f32, no TF32) on both sides: the context's handle.
// Without a device the binary prints "no CUDA device: skipped" and exits 0 (bench/BUILD: a build
// without --config=cuda links gpu_bench_stub.cc, which says "no CUDA build: skipped").
//
//   bazel build -c opt --config=cuda //bench:gpu_bench && bazel-bin/bench/gpu_bench
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdio>
#include <exception>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "bench/bench_util.h"
#include "bench/gpu_peers.h"
#include "bench/torch_peer.h"
#include "core/grad/backward.h"
#include "core/net.h"
#include "core/operator.h"
#include "core/proto/caffe2.pb.h"
#include "core/tensor.h"
#include "core/workspace.h"
#include "gpu/device.h"

namespace parity {
namespace {

using bench::AddOp;

namespace peers = bench::gpu_peers;

constexpr Device kGpu{kCudaDeviceType, 0};
constexpr int kIterations = 50;
constexpr int kLstmIterations = 20;
constexpr int64_t kSteps = 50, kBatch = 32, kInput = 256, kHidden = 256;

// Float blob `name` of `dims` on the device, uniform in [low, high) (bench_util's values).
Tensor* FeedDevice(Workspace* ws, const std::string& name, const std::vector<int64_t>& dims,
                   uint32_t seed, float low, float high) {
  Workspace host;
  bench::FeedUniform(&host, name, dims, seed, low, high);
  Tensor* t = ws->CreateTensor(name);
  *t = Tensor(kGpu);
  gpu::CopyTensor(host.GetTensor(name), t);
  return t;
}

// An uninitialized float tensor on the device, outside any workspace (the peers' buffers).
Tensor DeviceBuffer(const std::vector<int64_t>& dims) {
  Tensor t(DataType::kFloat, dims, kGpu);
  t.mutable_data<float>();
  return t;
}

// A net whose ops all run on device 0.
caffe2::NetDef DeviceNet(const std::string& name) {
  caffe2::NetDef net;
  net.set_name(name);
  net.mutable_device_option()->set_device_type(kCudaDeviceType);
  net.mutable_device_option()->set_device_id(0);
  return net;
}

// The timed loop of every row: `work` once untimed, then once per iteration, each followed by a
// synchronize of the device's stream. A parity::Error (an op the device refuses) skips the row
// with its message instead of aborting the table.
template <typename Setup>
void TimeOnDevice(benchmark::State& state, Setup setup) {
  try {
    auto work = setup();
    work();
    peers::Synchronize();
    for (auto _ : state) {
      work();
      peers::Synchronize();
    }
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

void RowCommon(benchmark::internal::Benchmark* b) {
  b->Iterations(kIterations)->Unit(benchmark::kMillisecond)->UseRealTime();
}

// ---- FC and MatMul -------------------------------------------------------------------------

void SetFlops(benchmark::State& state, double flops) {
  state.counters["FLOPS"] =
      benchmark::Counter(flops, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_FcParity(benchmark::State& state) {
  const int64_t m = state.range(0), k = state.range(1), n = state.range(2);
  Workspace ws;
  TimeOnDevice(state, [&] {
    FeedDevice(&ws, "X", {m, k}, 1, -1.0f, 1.0f);
    FeedDevice(&ws, "W", {n, k}, 2, -1.0f, 1.0f);
    FeedDevice(&ws, "b", {n}, 3, -1.0f, 1.0f);
    caffe2::NetDef def = DeviceNet("fc");
    AddOp(&def, "FC", {"X", "W", "b"}, {"Y"});
    NetBase* net = ws.CreateNet(def);
    return [net] { net->Run(); };
  });
  SetFlops(state, 2.0 * m * n * k);
}

void BM_FcCublas(benchmark::State& state) {
  const int64_t m = state.range(0), k = state.range(1), n = state.range(2);
  Workspace ws;
  Tensor y;
  TimeOnDevice(state, [&] {
    const float* x = FeedDevice(&ws, "X", {m, k}, 1, -1.0f, 1.0f)->data<float>();
    const float* w = FeedDevice(&ws, "W", {n, k}, 2, -1.0f, 1.0f)->data<float>();
    const float* b = FeedDevice(&ws, "b", {n}, 3, -1.0f, 1.0f)->data<float>();
    y = DeviceBuffer({m, n});
    float* out = y.mutable_data<float>();
    return [=] {
      peers::FillRows(b, out, m, n);
      peers::Sgemm(/*trans_b=*/true, m, n, k, x, w, 1.0f, out);
    };
  });
  SetFlops(state, 2.0 * m * n * k);
}

void BM_MatMulParity(benchmark::State& state) {
  const int64_t m = state.range(0), k = state.range(1), n = state.range(2);
  Workspace ws;
  TimeOnDevice(state, [&] {
    FeedDevice(&ws, "A", {m, k}, 1, -1.0f, 1.0f);
    FeedDevice(&ws, "B", {k, n}, 2, -1.0f, 1.0f);
    caffe2::NetDef def = DeviceNet("matmul");
    AddOp(&def, "MatMul", {"A", "B"}, {"Y"});
    NetBase* net = ws.CreateNet(def);
    return [net] { net->Run(); };
  });
  SetFlops(state, 2.0 * m * n * k);
}

void BM_MatMulCublas(benchmark::State& state) {
  const int64_t m = state.range(0), k = state.range(1), n = state.range(2);
  Workspace ws;
  Tensor y;
  TimeOnDevice(state, [&] {
    const float* a = FeedDevice(&ws, "A", {m, k}, 1, -1.0f, 1.0f)->data<float>();
    const float* b = FeedDevice(&ws, "B", {k, n}, 2, -1.0f, 1.0f)->data<float>();
    y = DeviceBuffer({m, n});
    float* out = y.mutable_data<float>();
    return [=] { peers::Sgemm(/*trans_b=*/false, m, n, k, a, b, 0.0f, out); };
  });
  SetFlops(state, 2.0 * m * n * k);
}

constexpr int64_t kBatchCount = 64, kBatchSide = 256;

void BM_BatchMatMulParity(benchmark::State& state) {
  const int64_t s = kBatchSide;
  Workspace ws;
  TimeOnDevice(state, [&] {
    FeedDevice(&ws, "A", {kBatchCount, s, s}, 1, -1.0f, 1.0f);
    FeedDevice(&ws, "B", {kBatchCount, s, s}, 2, -1.0f, 1.0f);
    caffe2::NetDef def = DeviceNet("batch_matmul");
    AddOp(&def, "BatchMatMul", {"A", "B"}, {"Y"});
    NetBase* net = ws.CreateNet(def);
    return [net] { net->Run(); };
  });
  SetFlops(state, 2.0 * kBatchCount * s * s * s);
}

void BM_BatchMatMulCublas(benchmark::State& state) {
  const int64_t s = kBatchSide;
  Workspace ws;
  Tensor y;
  TimeOnDevice(state, [&] {
    const float* a = FeedDevice(&ws, "A", {kBatchCount, s, s}, 1, -1.0f, 1.0f)->data<float>();
    const float* b = FeedDevice(&ws, "B", {kBatchCount, s, s}, 2, -1.0f, 1.0f)->data<float>();
    y = DeviceBuffer({kBatchCount, s, s});
    float* out = y.mutable_data<float>();
    return [=] { peers::SgemmStridedBatched(kBatchCount, s, s, s, a, b, out); };
  });
  SetFlops(state, 2.0 * kBatchCount * s * s * s);
}

void GemmShapes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"M", "K", "N"})
      ->Args({512, 1024, 1024})
      ->Args({4096, 4096, 4096})
      ->Args({64, 4096, 4096});
  RowCommon(b);
}

// ---- Conv ----------------------------------------------------------------------------------

constexpr int64_t kConvKernel = 3, kConvPad = 1;

void ConvShapes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"N", "C", "H", "K"})->Args({32, 64, 56, 64})->Args({32, 256, 14, 256});
  RowCommon(b);
}

// Output H = W (3x3, pad 1, stride 1).
double ConvFlops(int64_t n, int64_t c, int64_t hw, int64_t k) {
  return 2.0 * n * k * hw * hw * c * kConvKernel * kConvKernel;
}

void BM_ConvParity(benchmark::State& state) {
  const int64_t n = state.range(0), c = state.range(1), hw = state.range(2), k = state.range(3);
  Workspace ws;
  TimeOnDevice(state, [&] {
    FeedDevice(&ws, "X", {n, c, hw, hw}, 1, -1.0f, 1.0f);
    FeedDevice(&ws, "W", {k, c, kConvKernel, kConvKernel}, 2, -0.1f, 0.1f);
    caffe2::NetDef def = DeviceNet("conv");
    AddOp(&def, "Conv", {"X", "W"}, {"Y"},
          {{"kernel", kConvKernel}, {"pad", kConvPad}, {"stride", 1}});
    NetBase* net = ws.CreateNet(def);
    return [net] { net->Run(); };
  });
  SetFlops(state, ConvFlops(n, c, hw, k));
}

void BM_ConvIm2colCublas(benchmark::State& state) {
  const int64_t n = state.range(0), c = state.range(1), hw = state.range(2), k = state.range(3);
  const int64_t rows = c * kConvKernel * kConvKernel, out_hw = hw * hw;
  Workspace ws;
  Tensor col, y;
  TimeOnDevice(state, [&] {
    const float* x = FeedDevice(&ws, "X", {n, c, hw, hw}, 1, -1.0f, 1.0f)->data<float>();
    const float* w =
        FeedDevice(&ws, "W", {k, c, kConvKernel, kConvKernel}, 2, -0.1f, 0.1f)->data<float>();
    col = DeviceBuffer({rows, out_hw});
    y = DeviceBuffer({n, k, hw, hw});
    float* col_data = col.mutable_data<float>();
    float* out = y.mutable_data<float>();
    return [=] {
      for (int64_t i = 0; i < n; ++i) {
        peers::Im2Col(x + i * c * out_hw, c, hw, hw, kConvKernel, kConvPad, 1, col_data);
        // Y_i [K, out_hw] = W [K, C * 9] col [C * 9, out_hw].
        peers::Sgemm(/*trans_b=*/false, k, out_hw, rows, w, col_data, 0.0f, out + i * k * out_hw);
      }
    };
  });
  SetFlops(state, ConvFlops(n, c, hw, k));
}

// ---- Elementwise against memcpy ------------------------------------------------------------

constexpr int64_t kElements = int64_t{64} << 20;  // 64M floats, 256 MiB

void SetBytes(benchmark::State& state, int64_t tensors) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * tensors * 4 * kElements);
}

void BM_ElementwiseAdd(benchmark::State& state) {
  Workspace ws;
  TimeOnDevice(state, [&] {
    FeedDevice(&ws, "A", {kElements}, 1, -1.0f, 1.0f);
    FeedDevice(&ws, "B", {kElements}, 2, -1.0f, 1.0f);
    caffe2::NetDef def = DeviceNet("add");
    AddOp(&def, "Add", {"A", "B"}, {"C"});
    NetBase* net = ws.CreateNet(def);
    return [net] { net->Run(); };
  });
  SetBytes(state, 3);
}

void BM_ElementwiseRelu(benchmark::State& state) {
  Workspace ws;
  TimeOnDevice(state, [&] {
    FeedDevice(&ws, "X", {kElements}, 1, -1.0f, 1.0f);
    caffe2::NetDef def = DeviceNet("relu");
    AddOp(&def, "Relu", {"X"}, {"Y"});
    NetBase* net = ws.CreateNet(def);
    return [net] { net->Run(); };
  });
  SetBytes(state, 2);
}

void BM_Memcpy(benchmark::State& state) {
  Workspace ws;
  Tensor y;
  TimeOnDevice(state, [&] {
    const float* x = FeedDevice(&ws, "X", {kElements}, 1, -1.0f, 1.0f)->data<float>();
    y = DeviceBuffer({kElements});
    float* out = y.mutable_data<float>();
    return [=] { peers::MemcpyDeviceToDevice(out, x, kElements * sizeof(float)); };
  });
  SetBytes(state, 2);
}

// ---- LSTM ----------------------------------------------------------------------------------

std::string Step(const std::string& name, int64_t t) { return name + "_" + std::to_string(t); }

// The unrolled LSTM (see the header); with `backward`, its gradient ops.
caffe2::NetDef UnrolledLstm(bool backward) {
  caffe2::NetDef def = DeviceNet(backward ? "lstm_forward_backward" : "lstm_forward");
  GradientSeeds seeds;
  std::string hidden = "hidden_init", cell = "cell_init";
  for (int64_t t = 0; t < kSteps; ++t) {
    AddOp(&def, "FC", {Step("x", t), "W_x", "b"}, {Step("gates_x", t)}, {{"axis", 2}});
    AddOp(&def, "FC", {hidden, "W_h", "b0"}, {Step("gates_h", t)}, {{"axis", 2}});
    AddOp(&def, "Add", {Step("gates_x", t), Step("gates_h", t)}, {Step("gates", t)});
    AddOp(&def, "LSTMUnit", {hidden, cell, Step("gates", t), "seq_lengths", Step("timestep", t)},
          {Step("hidden", t), Step("cell", t)});
    hidden = Step("hidden", t);
    cell = Step("cell", t);
    seeds.push_back({hidden, ""});
  }
  if (backward) AddGradientOperators(&def, seeds);
  return def;
}

// The unrolled LSTM's inputs in `ws`: parameters, initial states and the x_t on the device (by
// `feed`), seq_lengths and the timesteps on the host.
template <typename Feed>
void FeedLstm(Workspace* ws, Feed feed) {
  const float bound = 1.0f / std::sqrt(static_cast<float>(kHidden));  // torch's init
  feed(ws, "W_x", {4 * kHidden, kInput}, 1, -bound, bound);
  feed(ws, "W_h", {4 * kHidden, kHidden}, 2, -bound, bound);
  feed(ws, "b", {4 * kHidden}, 3, -bound, bound);
  feed(ws, "b0", {4 * kHidden}, 4, 0.0f, 0.0f);
  feed(ws, "hidden_init", {1, kBatch, kHidden}, 5, 0.0f, 0.0f);
  feed(ws, "cell_init", {1, kBatch, kHidden}, 6, 0.0f, 0.0f);
  Tensor* lengths = ws->CreateTensor("seq_lengths");
  lengths->Resize({kBatch});
  for (int64_t n = 0; n < kBatch; ++n) lengths->mutable_data<int32_t>()[n] = kSteps;
  for (int64_t t = 0; t < kSteps; ++t) {
    feed(ws, Step("x", t), {1, kBatch, kInput}, 100 + t, -1.0f, 1.0f);
    Tensor* timestep = ws->CreateTensor(Step("timestep", t));
    timestep->Resize({1});
    timestep->mutable_data<int32_t>()[0] = static_cast<int32_t>(t);
  }
}

// The op types of `def` without a CUDA kernel, comma-separated ("" when all have one).
std::string MissingCudaKernels(const caffe2::NetDef& def) {
  std::set<std::string> missing;
  for (const caffe2::OperatorDef& op : def.op()) {
    if (!OperatorRegistry::HasKernel(op.type(), kCudaDeviceType)) missing.insert(op.type());
  }
  std::string out;
  for (const std::string& type : missing) out += (out.empty() ? "" : ", ") + type;
  return out;
}

void BM_ParityLstm(benchmark::State& state, bool backward) {
  Workspace ws;
  caffe2::NetDef def;
  try {
    def = UnrolledLstm(backward);
    FeedLstm(&ws, FeedDevice);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  const std::string missing = MissingCudaKernels(def);
  if (!missing.empty()) {
    state.SkipWithError(("no CUDA kernel for: " + missing).c_str());
    return;
  }
  TimeOnDevice(state, [&] {
    NetBase* net = ws.CreateNet(def);
    return [net] { net->Run(); };
  });
}

void BM_TorchLstmCuda(benchmark::State& state, const char* mode) {
  bench::TimeTorchPeer(state, "torch_lstm_cuda.py", 1,
                       "--T " + std::to_string(kSteps) + " --N " + std::to_string(kBatch) +
                           " --D " + std::to_string(kInput) + " --H " + std::to_string(kHidden) +
                           " --mode " + mode,
                       kLstmIterations);
}

[[maybe_unused]] const bool kRowsRegistered = [] {
  using benchmark::RegisterBenchmark;
  RegisterBenchmark("BM_Fc/parity", BM_FcParity)->Apply(GemmShapes);
  RegisterBenchmark("BM_Fc/cublas", BM_FcCublas)->Apply(GemmShapes);
  RegisterBenchmark("BM_MatMul/parity", BM_MatMulParity)->Apply(GemmShapes);
  RegisterBenchmark("BM_MatMul/cublas", BM_MatMulCublas)->Apply(GemmShapes);
  RegisterBenchmark("BM_BatchMatMul/parity", BM_BatchMatMulParity)->Apply(RowCommon);
  RegisterBenchmark("BM_BatchMatMul/cublas", BM_BatchMatMulCublas)->Apply(RowCommon);
  RegisterBenchmark("BM_Conv/parity", BM_ConvParity)->Apply(ConvShapes);
  RegisterBenchmark("BM_Conv/im2col_cublas", BM_ConvIm2colCublas)->Apply(ConvShapes);
  RegisterBenchmark("BM_Elementwise/add", BM_ElementwiseAdd)->Apply(RowCommon);
  RegisterBenchmark("BM_Elementwise/relu", BM_ElementwiseRelu)->Apply(RowCommon);
  RegisterBenchmark("BM_Memcpy", BM_Memcpy)->Apply(RowCommon);
  for (const auto& [op, mode] : {std::pair<const char*, const char*>{"LstmForward", "forward"},
                                 {"LstmForwardBackward", "forward_backward"}}) {
    const bool backward = std::string(mode) == "forward_backward";
    RegisterBenchmark((std::string("BM_") + op + "/parity").c_str(),
                      [backward](benchmark::State& state) { BM_ParityLstm(state, backward); })
        ->Iterations(kLstmIterations)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    RegisterBenchmark((std::string("BM_") + op + "/torch").c_str(),
                      [mode = mode](benchmark::State& state) { BM_TorchLstmCuda(state, mode); })
        ->Iterations(kLstmIterations)
        ->Unit(benchmark::kMillisecond)
        ->UseManualTime();
  }
  return true;
}();

}  // namespace
}  // namespace parity

int main(int argc, char** argv) {
  if (parity::gpu::DeviceCount() == 0) {
    std::printf("no CUDA device: skipped\n");
    std::fprintf(stderr, "gpu_bench: %s\n", parity::gpu::NoDeviceReason().c_str());
    return 0;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
