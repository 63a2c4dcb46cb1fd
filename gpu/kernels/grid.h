// Launch geometry shared by the .cu files that wrap kernel bodies (*_body.h) in grid-stride
// loops (CUDA only; included by .cu files, never by host code).
#ifndef PARITY_GPU_KERNELS_GRID_H_
#define PARITY_GPU_KERNELS_GRID_H_

#include <cstdint>

namespace parity::gpu::kernels {

constexpr int kGridThreads = 256;

// Blocks for n threads' worth of work, capped: the grid-stride loop covers the rest, and 65535
// blocks fill any current GPU many times over.
inline unsigned GridBlocks(int64_t n) {
  int64_t blocks = (n + kGridThreads - 1) / kGridThreads;
  if (blocks > 65535) blocks = 65535;
  return static_cast<unsigned>(blocks < 1 ? 1 : blocks);
}

}  // namespace parity::gpu::kernels

// for (i over [0, n)) in a grid-stride loop: each index exactly once, as RunBodyOnHost does.
#define PARITY_GRID_STRIDE_LOOP(i, n)                                                      \
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < (n); \
       i += static_cast<int64_t>(blockDim.x) * gridDim.x)

#endif  // PARITY_GPU_KERNELS_GRID_H_
