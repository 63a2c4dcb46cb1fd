// ConvTranspose's fold: a grid-stride loop around conv_transpose_body.h, one thread per output
// element, gathering its taps in order (deterministic, no atomics).
#include "gpu/kernels/conv_transpose.h"
#include "gpu/kernels/grid.h"

namespace parity::gpu::kernels {
namespace {

__global__ void ConvTransposeCol2ImKernel(const float* col, const float* bias, float* y,
                                          ConvPoolGeometry g, int64_t n) {
  PARITY_GRID_STRIDE_LOOP(i, n) { ConvTransposeCol2ImBody(col, bias, y, g, i); }
}

}  // namespace

void ConvTransposeCol2ImFloat(const float* col, const float* bias, float* y,
                              const ConvPoolGeometry& g, cudaStream_t stream) {
  const int64_t n = g.planes * g.H * g.W;
  if (n == 0) return;
  ConvTransposeCol2ImKernel<<<GridBlocks(n), kGridThreads, 0, stream>>>(col, bias, y, g, n);
}

}  // namespace parity::gpu::kernels
