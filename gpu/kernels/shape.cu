// Transpose / Slice, Concat / Split and Gather: grid-stride loops around shape_body.h, one
// instantiation per element size.
#include "gpu/kernels/grid.h"
#include "gpu/kernels/shape.h"

namespace parity::gpu::kernels {
namespace {

template <typename E>
__global__ void StridedCopyKernel(const E* x, E* y, int64_t numel, StridedGeometry g) {
  PARITY_GRID_STRIDE_LOOP(o, numel) { StridedCopyElement(o, g, x, y); }
}

template <typename E>
__global__ void StridedScatterKernel(const E* x, E* y, int64_t numel, StridedGeometry g) {
  PARITY_GRID_STRIDE_LOOP(o, numel) { StridedScatterElement(o, g, x, y); }
}

template <typename E>
__global__ void TileKernel(const E* x, E* y, int64_t numel, int64_t tiles, int64_t block) {
  PARITY_GRID_STRIDE_LOOP(o, numel) { TileElement(o, x, tiles, block, y); }
}

__global__ void TileGradientKernel(const float* dy, int64_t numel, int64_t tiles, int64_t block,
                                   float* dx) {
  PARITY_GRID_STRIDE_LOOP(e, numel) { TileGradientElement(e, dy, tiles, block, dx); }
}

template <typename Index>
__global__ void GatherGradientKernel(const float* dy, const Index* idx, int64_t numel, int64_t n,
                                     int64_t bound, int64_t block, float* ddata) {
  PARITY_GRID_STRIDE_LOOP(e, numel) { GatherGradientElement(e, dy, idx, n, bound, block, ddata); }
}

template <typename E>
__global__ void BandCopyKernel(const E* src, E* dst, int64_t numel, BandGeometry g) {
  PARITY_GRID_STRIDE_LOOP(i, numel) { BandCopyElement(i, g, src, dst); }
}

template <typename E, typename Index>
__global__ void GatherKernel(const E* data, const Index* idx, int64_t numel, int64_t n,
                             int64_t bound, int64_t block, E* out) {
  PARITY_GRID_STRIDE_LOOP(k, numel) { GatherElement(k, data, idx, n, bound, block, out); }
}

}  // namespace

void StridedCopy(const void* x, void* y, int64_t numel, size_t esize, const StridedGeometry& g,
                 cudaStream_t stream) {
  if (numel == 0) return;
  WithWord(esize, [&](auto word) {
    using E = decltype(word);
    StridedCopyKernel<E><<<GridBlocks(numel), kGridThreads, 0, stream>>>(
        static_cast<const E*>(x), static_cast<E*>(y), numel, g);
  });
}

void StridedScatter(const void* x, void* y, int64_t numel, size_t esize, const StridedGeometry& g,
                    cudaStream_t stream) {
  if (numel == 0) return;
  WithWord(esize, [&](auto word) {
    using E = decltype(word);
    StridedScatterKernel<E><<<GridBlocks(numel), kGridThreads, 0, stream>>>(
        static_cast<const E*>(x), static_cast<E*>(y), numel, g);
  });
}

void Tile(const void* x, void* y, int64_t outer, int64_t tiles, int64_t block, size_t esize,
          cudaStream_t stream) {
  const int64_t numel = outer * tiles * block;
  if (numel == 0) return;
  WithWord(esize, [&](auto word) {
    using E = decltype(word);
    TileKernel<E><<<GridBlocks(numel), kGridThreads, 0, stream>>>(
        static_cast<const E*>(x), static_cast<E*>(y), numel, tiles, block);
  });
}

void TileGradientFloat(const float* dy, int64_t outer, int64_t tiles, int64_t block, float* dx,
                       cudaStream_t stream) {
  const int64_t numel = outer * block;
  if (numel == 0) return;
  TileGradientKernel<<<GridBlocks(numel), kGridThreads, 0, stream>>>(dy, numel, tiles, block, dx);
}

void GatherGradientFloat(const float* dy, const void* idx, bool index_is_64, int64_t outer,
                         int64_t n, int64_t bound, int64_t block, float* ddata,
                         cudaStream_t stream) {
  const int64_t numel = outer * bound * block;
  if (numel == 0) return;
  WithIndex(idx, index_is_64, [&](auto indices) {
    GatherGradientKernel<<<GridBlocks(numel), kGridThreads, 0, stream>>>(dy, indices, numel, n,
                                                                         bound, block, ddata);
  });
}

void BandCopy(const void* src, void* dst, int64_t rows, size_t esize, const BandGeometry& g,
              cudaStream_t stream) {
  const int64_t numel = rows * g.width;
  if (numel == 0) return;
  WithWord(esize, [&](auto word) {
    using E = decltype(word);
    BandCopyKernel<E><<<GridBlocks(numel), kGridThreads, 0, stream>>>(
        static_cast<const E*>(src), static_cast<E*>(dst), numel, g);
  });
}

void Gather(const void* data, const void* idx, bool index_is_64, int64_t outer, int64_t n,
            int64_t bound, int64_t block, size_t esize, void* out, cudaStream_t stream) {
  const int64_t numel = outer * n * block;
  if (numel == 0) return;
  WithWord(esize, [&](auto word) {
    using E = decltype(word);
    WithIndex(idx, index_is_64, [&](auto indices) {
      GatherKernel<<<GridBlocks(numel), kGridThreads, 0, stream>>>(
          static_cast<const E*>(data), indices, numel, n, bound, block, static_cast<E*>(out));
    });
  });
}

}  // namespace parity::gpu::kernels
