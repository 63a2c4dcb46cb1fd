// Grid-stride loops around arg_body.h: one thread per output run (an index, a column of running
// sums, a Hardmax row), each scanned in the CPU's order. Deterministic, no atomics.
#include "gpu/kernels/arg.h"
#include "gpu/kernels/grid.h"

namespace parity::gpu::kernels {
namespace {

__global__ void ArgKernel(bool max, bool last, const float* x, int64_t* y, int64_t runs, int64_t n,
                          int64_t inner) {
  PARITY_GRID_STRIDE_LOOP(j, runs) { ArgBody(max, last, x, y, n, inner, j); }
}

__global__ void CumSumKernel(const float* x, float* y, int64_t runs, int64_t n, int64_t inner,
                             bool exclusive, bool reverse) {
  PARITY_GRID_STRIDE_LOOP(j, runs) { CumSumBody(x, y, n, inner, exclusive, reverse, j); }
}

__global__ void HardmaxKernel(const float* x, float* y, int64_t rows, int64_t cols) {
  PARITY_GRID_STRIDE_LOOP(row, rows) { HardmaxRowBody(x, y, cols, row); }
}

}  // namespace

void ArgFloat(bool max, bool last, const float* x, int64_t* y, int64_t outer, int64_t n,
              int64_t inner, cudaStream_t stream) {
  const int64_t runs = outer * inner;
  if (runs == 0) return;
  ArgKernel<<<GridBlocks(runs), kGridThreads, 0, stream>>>(max, last, x, y, runs, n, inner);
}

void CumSumFloat(const float* x, float* y, int64_t outer, int64_t n, int64_t inner, bool exclusive,
                 bool reverse, cudaStream_t stream) {
  const int64_t runs = outer * inner;
  if (runs == 0 || n == 0) return;
  CumSumKernel<<<GridBlocks(runs), kGridThreads, 0, stream>>>(x, y, runs, n, inner, exclusive,
                                                              reverse);
}

void HardmaxFloat(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  if (rows == 0 || cols == 0) return;
  HardmaxKernel<<<GridBlocks(rows), kGridThreads, 0, stream>>>(x, y, rows, cols);
}

}  // namespace parity::gpu::kernels
