// Row softmax and sum/mean reductions. Both sum in a fixed order per output (a block-wide tree
// for softmax rows, a serial loop per output for reductions): no atomics, so the same run twice
// gives the same bits.
#include <cfloat>
#include <cmath>

#include "gpu/kernels/kernels.h"

namespace parity::gpu::kernels {
namespace {

constexpr int kSoftmaxThreads = 256;

// Tree reduction over the block's shared values; `max` picks the max (NaN ignored: a NaN row
// still ends NaN through its exp, as on the CPU), else the sum.
__device__ float BlockReduce(float value, float* shared, bool max) {
  shared[threadIdx.x] = value;
  __syncthreads();
  for (int width = blockDim.x / 2; width > 0; width /= 2) {
    if (threadIdx.x < width) {
      const float other = shared[threadIdx.x + width];
      shared[threadIdx.x] = max ? fmaxf(shared[threadIdx.x], other) : shared[threadIdx.x] + other;
    }
    __syncthreads();
  }
  const float result = shared[0];
  __syncthreads();
  return result;
}

__global__ void SoftmaxKernel(const float* x, float* y, int64_t d) {
  __shared__ float shared[kSoftmaxThreads];
  const float* xr = x + blockIdx.x * d;
  float* yr = y + blockIdx.x * d;
  float m = -INFINITY;
  for (int64_t j = threadIdx.x; j < d; j += blockDim.x) m = fmaxf(m, xr[j]);
  m = BlockReduce(m, shared, true);
  float sum = 0.0f;
  for (int64_t j = threadIdx.x; j < d; j += blockDim.x) {
    const float e = expf(xr[j] - m);
    yr[j] = e;
    sum += e;
  }
  sum = BlockReduce(sum, shared, false);
  for (int64_t j = threadIdx.x; j < d; j += blockDim.x) yr[j] /= sum;
}

__global__ void ReduceSumKernel(const float* x, float* y, int64_t out_numel, int64_t count,
                                bool mean, ReduceGeometry g) {
  for (int64_t o = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; o < out_numel;
       o += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    ReduceSumBody(x, y, count, mean, g, o);
  }
}

__global__ void SoftmaxGradientKernel(const float* y, const float* dy, float* dx, int64_t rows,
                                      int64_t d) {
  for (int64_t row = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; row < rows;
       row += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    SoftmaxGradientRowBody(y, dy, dx, d, row);
  }
}

}  // namespace

void SoftmaxGradientRows(const float* y, const float* dy, float* dx, int64_t rows, int64_t d,
                         cudaStream_t stream) {
  if (rows == 0 || d == 0) return;
  constexpr int kThreads = 256;
  int64_t blocks = (rows + kThreads - 1) / kThreads;
  if (blocks > 65535) blocks = 65535;
  SoftmaxGradientKernel<<<static_cast<int>(blocks), kThreads, 0, stream>>>(y, dy, dx, rows, d);
}

void SoftmaxRows(const float* x, float* y, int64_t rows, int64_t d, cudaStream_t stream) {
  if (rows == 0 || d == 0) return;
  // One block per row; rows beyond the grid's x limit (2^31 - 1) are not expected of a softmax.
  SoftmaxKernel<<<static_cast<unsigned>(rows), kSoftmaxThreads, 0, stream>>>(x, y, d);
}

void ReduceSumFloat(const float* x, float* y, int64_t out_numel, int64_t count, bool mean,
                    const ReduceGeometry& geometry, cudaStream_t stream) {
  if (out_numel == 0) return;
  constexpr int kThreads = 256;
  int64_t blocks = (out_numel + kThreads - 1) / kThreads;
  if (blocks > 65535) blocks = 65535;
  ReduceSumKernel<<<static_cast<int>(blocks), kThreads, 0, stream>>>(x, y, out_numel, count, mean,
                                                                     geometry);
}

}  // namespace parity::gpu::kernels
