// Grid-stride loops around variadic_body.h: one thread per output element (per operand element
// for the gradients), each folding in the CPU's order. Deterministic, no atomics.
#include "gpu/kernels/grid.h"
#include "gpu/kernels/variadic.h"

namespace parity::gpu::kernels {
namespace {

__global__ void ExtremumKernel(bool max, VariadicInputs in, float* y, int64_t n) {
  PARITY_GRID_STRIDE_LOOP(i, n) { ExtremumBody(max, in, y, i); }
}

__global__ void ExtremumWinnerKernel(VariadicInputs in, int first, const float* y, int32_t* winner,
                                     int64_t n) {
  PARITY_GRID_STRIDE_LOOP(i, n) { ExtremumWinnerBody(in, first, y, winner, i); }
}

__global__ void ExtremumGradientKernel(const int32_t* winner, int32_t input, const float* dy,
                                       float* dx, int64_t n, int64_t count, int64_t block,
                                       ReduceGeometry g) {
  PARITY_GRID_STRIDE_LOOP(e, n) { ExtremumGradientBody(winner, input, dy, dx, count, block, g, e); }
}

__global__ void ScaleKernel(const float* x, float* y, float scale, int64_t n) {
  PARITY_GRID_STRIDE_LOOP(i, n) { ScaleBody(x, y, scale, i); }
}

}  // namespace

void ExtremumFloat(bool max, const VariadicInputs& in, float* y, int64_t n, cudaStream_t stream) {
  if (n == 0) return;
  ExtremumKernel<<<GridBlocks(n), kGridThreads, 0, stream>>>(max, in, y, n);
}

void ExtremumWinnerFloat(const VariadicInputs& in, int first, const float* y, int32_t* winner,
                         int64_t n, cudaStream_t stream) {
  if (n == 0) return;
  ExtremumWinnerKernel<<<GridBlocks(n), kGridThreads, 0, stream>>>(in, first, y, winner, n);
}

void ExtremumGradientFloat(const int32_t* winner, int32_t input, const float* dy, float* dx,
                           int64_t n, int64_t count, int64_t block, const ReduceGeometry& geometry,
                           cudaStream_t stream) {
  if (n == 0) return;
  ExtremumGradientKernel<<<GridBlocks(n), kGridThreads, 0, stream>>>(winner, input, dy, dx, n,
                                                                     count, block, geometry);
}

void ScaleFloat(const float* x, float* y, float scale, int64_t n, cudaStream_t stream) {
  if (n == 0) return;
  ScaleKernel<<<GridBlocks(n), kGridThreads, 0, stream>>>(x, y, scale, n);
}

}  // namespace parity::gpu::kernels
