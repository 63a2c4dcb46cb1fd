// Elementwise kernels: unary functions, broadcasting binary arithmetic, Sum, Mul/Div gradients,
// fills. Grid-stride loops over int64 indices, so any tensor size runs with a bounded grid.
#include <cmath>

#include "gpu/kernels/kernels.h"

namespace parity::gpu::kernels {
namespace {

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = 65535;

int Blocks(int64_t n) {
  int64_t blocks = (n + kThreads - 1) / kThreads;
  return static_cast<int>(blocks < kMaxBlocks ? (blocks > 0 ? blocks : 1) : kMaxBlocks);
}

__device__ float ApplyUnary(Unary fn, float x) {
  switch (fn) {
    // max(x, 0) with NaN kept, as Eigen's PropagateNaN max on the CPU.
    case Unary::kRelu: return isnan(x) ? x : (x > 0.0f ? x : 0.0f);
    // The CPU's stable form: 1 / (1 + exp(-x)) for x >= 0, exp(x) / (1 + exp(x)) below.
    case Unary::kSigmoid: {
      if (isnan(x)) return x;
      const float e = expf(-fabsf(x));
      return x >= 0.0f ? 1.0f / (1.0f + e) : e / (1.0f + e);
    }
    case Unary::kTanh: return tanhf(x);
    case Unary::kExp: return expf(x);
    case Unary::kLog: return logf(x);
    case Unary::kSqrt: return sqrtf(x);
    case Unary::kSqr: return x * x;
    case Unary::kAbs: return fabsf(x);
    case Unary::kNeg: return -x;
    case Unary::kReciprocal: return 1.0f / x;
    case Unary::kSin: return sinf(x);
    case Unary::kCos: return cosf(x);
    case Unary::kSoftsign: return x / (1.0f + fabsf(x));
    case Unary::kFloor: return floorf(x);
    case Unary::kCeil: return ceilf(x);
  }
  return x;
}

__global__ void UnaryKernel(Unary fn, const float* x, float* y, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    y[i] = ApplyUnary(fn, x[i]);
  }
}

// The geometry travels by value as a kernel argument (a few hundred bytes, within the limit).
__global__ void BinaryKernel(Binary fn, const float* a, const float* b, float* y, int64_t n,
                             BroadcastGeometry g) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    BinaryBody(fn, a, b, y, g, i);
  }
}

__global__ void SumKernel(SumInputs in, float* y, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    SumBody(in, y, i);
  }
}

// Both geometries travel by value (a few hundred bytes each, within the argument limit).
__global__ void BinaryGradKernel(BinaryGrad fn, const float* dc, const float* a, const float* b,
                                 const float* c, float* y, int64_t n, int64_t count,
                                 ReduceGeometry r, BroadcastGeometry g) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    BinaryGradBody(fn, dc, a, b, c, y, count, r, g, i);
  }
}

__global__ void FillRowsKernel(const float* row, float* y, int64_t rows, int64_t cols) {
  const int64_t n = rows * cols;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    y[i] = row[i % cols];
  }
}

__global__ void FillKernel(float value, float* y, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    y[i] = value;
  }
}

}  // namespace

void UnaryFloat(Unary fn, const float* x, float* y, int64_t n, cudaStream_t stream) {
  if (n == 0) return;
  UnaryKernel<<<Blocks(n), kThreads, 0, stream>>>(fn, x, y, n);
}

void BinaryFloat(Binary fn, const float* a, const float* b, float* y, int64_t n,
                 const BroadcastGeometry& geometry, cudaStream_t stream) {
  if (n == 0) return;
  BinaryKernel<<<Blocks(n), kThreads, 0, stream>>>(fn, a, b, y, n, geometry);
}

void SumFloat(const float* const* x, int count, float* y, int64_t n, cudaStream_t stream) {
  if (n == 0) return;
  // Launches on one stream run in order: each chunk sees the previous one's running sum.
  ForEachSumChunk(x, count, y, [&](const SumInputs& in) {
    SumKernel<<<Blocks(n), kThreads, 0, stream>>>(in, y, n);
  });
}

void BinaryGradFloat(BinaryGrad fn, const float* dc, const float* a, const float* b, const float* c,
                     float* y, int64_t n, int64_t count, const ReduceGeometry& reduce,
                     const BroadcastGeometry& broadcast, cudaStream_t stream) {
  if (n == 0) return;
  BinaryGradKernel<<<Blocks(n), kThreads, 0, stream>>>(fn, dc, a, b, c, y, n, count, reduce,
                                                       broadcast);
}

void FillRows(const float* row, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  if (rows * cols == 0) return;
  FillRowsKernel<<<Blocks(rows * cols), kThreads, 0, stream>>>(row, y, rows, cols);
}

void FillFloat(float value, float* y, int64_t n, cudaStream_t stream) {
  if (n == 0) return;
  FillKernel<<<Blocks(n), kThreads, 0, stream>>>(value, y, n);
}

}  // namespace parity::gpu::kernels
