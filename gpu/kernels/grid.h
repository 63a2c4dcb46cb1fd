// Launch geometry shared by the .cu files that wrap kernel bodies (*_body.h) in grid-stride
// loops (CUDA only; included by .cu files, never by host code).
#ifndef PARITY_GPU_KERNELS_GRID_H_
#define PARITY_GPU_KERNELS_GRID_H_

#include <cstddef>
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

// Calls fn(E{}) with E the unsigned word of `esize` bytes (1, 2, 4 or 8; the ops refuse other
// sizes before launching): kernels that move elements without reading them as numbers.
template <typename Fn>
void WithWord(size_t esize, Fn&& fn) {
  switch (esize) {
    case 1: fn(uint8_t{}); break;
    case 2: fn(uint16_t{}); break;
    case 4: fn(uint32_t{}); break;
    case 8: fn(uint64_t{}); break;
    default: break;
  }
}

// Calls fn(indices) with `idx` as int64 (`is_64`) or int32 indices, the two dtypes the index
// inputs take.
template <typename Fn>
void WithIndex(const void* idx, bool is_64, Fn&& fn) {
  if (is_64) {
    fn(static_cast<const int64_t*>(idx));
  } else {
    fn(static_cast<const int32_t*>(idx));
  }
}

}  // namespace parity::gpu::kernels

// for (i over [0, n)) in a grid-stride loop: each index exactly once, as RunBodyOnHost does.
#define PARITY_GRID_STRIDE_LOOP(i, n)                                                      \
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < (n); \
       i += static_cast<int64_t>(blockDim.x) * gridDim.x)

#endif  // PARITY_GPU_KERNELS_GRID_H_
