// Grid-stride loops around reduction_body.h. Each output element (each pass element, each reduced
// group of a gradient) is one thread's, folded in the CPU's order: deterministic, no atomics.
#include "gpu/kernels/grid.h"
#include "gpu/kernels/reduction.h"

namespace parity::gpu::kernels {
namespace {

__global__ void ReducePassKernel(Reducer op, const float* x, float* y, int64_t n, int64_t r,
                                 int64_t inner) {
  PARITY_GRID_STRIDE_LOOP(i, n) { ReducePassBody(op, x, y, r, inner, i); }
}

__global__ void ReduceBroadcastGradientKernel(const float* dy, float* dx, int64_t n, int64_t count,
                                              float scale, ReduceGeometry g) {
  PARITY_GRID_STRIDE_LOOP(i, n) { ReduceBroadcastGradientBody(dy, dx, count, scale, g, i); }
}

__global__ void ReduceSelectGradientKernel(const float* dy, const float* x, const float* y,
                                           float* dx, int64_t n, int64_t count, ReduceGeometry g) {
  PARITY_GRID_STRIDE_LOOP(o, n) { ReduceSelectGradientBody(dy, x, y, dx, count, g, o); }
}

__global__ void ReduceProdGradientKernel(const float* dy, const float* x, float* dx, int64_t n,
                                         int64_t count, ReduceGeometry g) {
  PARITY_GRID_STRIDE_LOOP(o, n) { ReduceProdGradientBody(dy, x, dx, count, g, o); }
}

__global__ void SumAllKernel(const float* x, float* y, int64_t n, bool divide) {
  if (blockIdx.x == 0 && threadIdx.x == 0) SumAllBody(x, y, n, divide);
}

__global__ void ScalarGradientKernel(const float* dy, float* dx, int64_t n, float divisor,
                                     bool divide) {
  PARITY_GRID_STRIDE_LOOP(i, n) { ScalarGradientBody(dy, dx, divisor, divide, i); }
}

}  // namespace

void ReducePassFloat(Reducer op, const float* x, float* y, int64_t outer, int64_t r, int64_t inner,
                     cudaStream_t stream) {
  const int64_t n = outer * inner;
  if (n == 0) return;
  ReducePassKernel<<<GridBlocks(n), kGridThreads, 0, stream>>>(op, x, y, n, r, inner);
}

void ReduceBroadcastGradientFloat(const float* dy, float* dx, int64_t out_numel, int64_t count,
                                  float scale, const ReduceGeometry& geometry,
                                  cudaStream_t stream) {
  const int64_t n = out_numel * count;
  if (n == 0) return;
  ReduceBroadcastGradientKernel<<<GridBlocks(n), kGridThreads, 0, stream>>>(dy, dx, n, count, scale,
                                                                            geometry);
}

void ReduceSelectGradientFloat(const float* dy, const float* x, const float* y, float* dx,
                               int64_t out_numel, int64_t count, const ReduceGeometry& geometry,
                               cudaStream_t stream) {
  if (out_numel == 0 || count == 0) return;
  ReduceSelectGradientKernel<<<GridBlocks(out_numel), kGridThreads, 0, stream>>>(
      dy, x, y, dx, out_numel, count, geometry);
}

void ReduceProdGradientFloat(const float* dy, const float* x, float* dx, int64_t out_numel,
                             int64_t count, const ReduceGeometry& geometry, cudaStream_t stream) {
  if (out_numel == 0 || count == 0) return;
  ReduceProdGradientKernel<<<GridBlocks(out_numel), kGridThreads, 0, stream>>>(dy, x, dx, out_numel,
                                                                               count, geometry);
}

void SumAllFloat(const float* x, float* y, int64_t n, bool divide, cudaStream_t stream) {
  SumAllKernel<<<1, 1, 0, stream>>>(x, y, n, divide);
}

void ScalarGradientFloat(const float* dy, float* dx, int64_t n, float divisor, bool divide,
                         cudaStream_t stream) {
  if (n == 0) return;
  ScalarGradientKernel<<<GridBlocks(n), kGridThreads, 0, stream>>>(dy, dx, n, divisor, divide);
}

}  // namespace parity::gpu::kernels
