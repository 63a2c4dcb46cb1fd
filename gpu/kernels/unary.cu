// The unary-family kernels: grid-stride loops around unary_body.h, one thread per output element
// (deterministic: every element is written by one thread, sums in a fixed order).
#include "gpu/kernels/grid.h"
#include "gpu/kernels/unary.h"

namespace parity::gpu::kernels {
namespace {

__global__ void UnaryMathKernel(UnaryMath fn, UnaryArgs args, const float* x, float* y, int64_t n) {
  PARITY_GRID_STRIDE_LOOP(i, n) { UnaryMathBody(fn, args, x, y, i); }
}

__global__ void UnaryGradKernel(UnaryGrad fn, UnaryArgs args, const float* v, const float* dy,
                                float* dx, int64_t n) {
  PARITY_GRID_STRIDE_LOOP(i, n) { UnaryGradBody(fn, args, v, dy, dx, i); }
}

// The geometries travel by value (a few hundred bytes each, within the argument limit).
__global__ void PowBroadcastKernel(const float* x, const float* e, float* y, int64_t n,
                                   BroadcastGeometry g) {
  PARITY_GRID_STRIDE_LOOP(i, n) { PowBroadcastBody(x, e, y, g, i); }
}

__global__ void PowGradKernel(PowGrad which, const float* dy, const float* x, const float* e,
                              const float* y, float* out, int64_t n, int64_t count,
                              ReduceGeometry r, BroadcastGeometry g) {
  PARITY_GRID_STRIDE_LOOP(i, n) { PowGradBody(which, dy, x, e, y, out, count, r, g, i); }
}

}  // namespace

void UnaryMathFloat(UnaryMath fn, UnaryArgs args, const float* x, float* y, int64_t n,
                    cudaStream_t stream) {
  if (n == 0) return;
  UnaryMathKernel<<<GridBlocks(n), kGridThreads, 0, stream>>>(fn, args, x, y, n);
}

void UnaryGradFloat(UnaryGrad fn, UnaryArgs args, const float* v, const float* dy, float* dx,
                    int64_t n, cudaStream_t stream) {
  if (n == 0) return;
  UnaryGradKernel<<<GridBlocks(n), kGridThreads, 0, stream>>>(fn, args, v, dy, dx, n);
}

void PowBroadcastFloat(const float* x, const float* e, float* y, int64_t n,
                       const BroadcastGeometry& geometry, cudaStream_t stream) {
  if (n == 0) return;
  PowBroadcastKernel<<<GridBlocks(n), kGridThreads, 0, stream>>>(x, e, y, n, geometry);
}

void PowGradFloat(PowGrad which, const float* dy, const float* x, const float* e, const float* y,
                  float* out, int64_t n, int64_t count, const ReduceGeometry& reduce,
                  const BroadcastGeometry& broadcast, cudaStream_t stream) {
  if (n == 0) return;
  PowGradKernel<<<GridBlocks(n), kGridThreads, 0, stream>>>(which, dy, x, e, y, out, n, count,
                                                            reduce, broadcast);
}

}  // namespace parity::gpu::kernels
