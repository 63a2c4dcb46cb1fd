// Launchers of the shape kernels (bodies in shape_body.h, tested on the host by tests/gpu/bodies).
// `esize` is the element size in bytes (1, 2, 4 or 8): the data moves as words of that size.
#ifndef PARITY_GPU_KERNELS_SHAPE_H_
#define PARITY_GPU_KERNELS_SHAPE_H_

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "gpu/kernels/shape_body.h"

namespace parity::gpu::kernels {

void StridedCopy(const void* x, void* y, int64_t numel, size_t esize, const StridedGeometry& g,
                 cudaStream_t stream);
// y[box offsets] = x, the reverse of StridedCopy (y zeroed by the caller).
void StridedScatter(const void* x, void* y, int64_t numel, size_t esize, const StridedGeometry& g,
                    cudaStream_t stream);
// rows x g.width elements.
void BandCopy(const void* src, void* dst, int64_t rows, size_t esize, const BandGeometry& g,
              cudaStream_t stream);
// idx is int32 (index_is_64 false) or int64; out has outer * n * block elements.
void Gather(const void* data, const void* idx, bool index_is_64, int64_t outer, int64_t n,
            int64_t bound, int64_t block, size_t esize, void* out, cudaStream_t stream);

// Tile into y (outer * tiles * block elements) and TileGradient into dx (outer * block floats).
void Tile(const void* x, void* y, int64_t outer, int64_t tiles, int64_t block, size_t esize,
          cudaStream_t stream);
void TileGradientFloat(const float* dy, int64_t outer, int64_t tiles, int64_t block, float* dx,
                       cudaStream_t stream);

// GatherGradient into ddata (outer * bound * block floats, every element written).
void GatherGradientFloat(const float* dy, const void* idx, bool index_is_64, int64_t outer,
                         int64_t n, int64_t bound, int64_t block, float* ddata,
                         cudaStream_t stream);

}  // namespace parity::gpu::kernels

#endif  // PARITY_GPU_KERNELS_SHAPE_H_
