// Bodies of the data-moving shape ops: Transpose and Slice (a strided gather: each output element
// reads the input at a base offset plus its index's strides), Concat and Split (rows of a column
// band copied between two row-major matrices) and Gather (rows picked by index). Element types
// are unsigned words of the element's size: the ops move any dtype as bits.
#ifndef PARITY_GPU_KERNELS_SHAPE_BODY_H_
#define PARITY_GPU_KERNELS_SHAPE_BODY_H_

#include <cstdint>

#include "gpu/kernels/host_device.h"

namespace parity::gpu::kernels {

// Ranks up to this travel to the device by value; the ops merge nothing, so a rank-9 tensor is
// refused on the device (kUnknownOp, run it on the CPU).
constexpr int kMaxShapeRank = 8;

// y[o] = x[base + sum_a index_a(o) * strides[a]], index_a(o) the digits of o in out_dims.
// Transpose: base 0, strides[a] the input stride of axis perm[a]. Slice: base the box's first
// element, strides the input's own.
struct StridedGeometry {
  int rank = 0;
  int64_t out_dims[kMaxShapeRank] = {};
  int64_t strides[kMaxShapeRank] = {};
  int64_t base = 0;
};

template <typename E>
PARITY_HD void StridedCopyElement(int64_t o, const StridedGeometry& g, const E* x, E* y) {
  int64_t rest = o, offset = g.base;
  for (int a = g.rank - 1; a >= 0; --a) {
    offset += (rest % g.out_dims[a]) * g.strides[a];
    rest /= g.out_dims[a];
  }
  y[o] = x[offset];
}

// The reverse: y[base + sum_a index_a(o) * strides[a]] = x[o] (SliceGradient writes dY into the
// box of a zeroed dX).
template <typename E>
PARITY_HD void StridedScatterElement(int64_t o, const StridedGeometry& g, const E* x, E* y) {
  int64_t rest = o, offset = g.base;
  for (int a = g.rank - 1; a >= 0; --a) {
    offset += (rest % g.out_dims[a]) * g.strides[a];
    rest /= g.out_dims[a];
  }
  y[offset] = x[o];
}

// Element `index` of a band `width` wide: row index / width, column index % width;
// dst[row * dst_row + dst_col + column] = src[row * src_row + src_col + column].
// Concat: each input is a band of the output; Split: each output a band of the input.
struct BandGeometry {
  int64_t width = 0;
  int64_t src_row = 0;
  int64_t src_col = 0;
  int64_t dst_row = 0;
  int64_t dst_col = 0;
};

template <typename E>
PARITY_HD void BandCopyElement(int64_t index, const BandGeometry& g, const E* src, E* dst) {
  const int64_t row = index / g.width;
  const int64_t column = index % g.width;
  dst[row * g.dst_row + g.dst_col + column] = src[row * g.src_row + g.src_col + column];
}

// Gather on an axis: DATA as [outer, bound, block], the output as [outer, n, block];
// output element k copies DATA[o, idx[i] (+ bound when negative), e]. The indices were checked
// on the host (shape_index::CheckGatherIndices) before the launch.
template <typename E, typename Index>
PARITY_HD void GatherElement(int64_t k, const E* data, const Index* idx, int64_t n, int64_t bound,
                             int64_t block, E* out) {
  const int64_t e = k % block;
  const int64_t pair = k / block;
  const int64_t i = pair % n;
  const int64_t o = pair / n;
  int64_t v = static_cast<int64_t>(idx[i]);
  if (v < 0) v += bound;
  out[k] = data[(o * bound + v) * block + e];
}

// Tile: the input as [outer, block] (block = the tiled axis and the dims after it), the output as
// [outer, tiles, block]; output element o copies input (row, o % block).
template <typename E>
PARITY_HD void TileElement(int64_t o, const E* x, int64_t tiles, int64_t block, E* y) {
  y[o] = x[(o / (tiles * block)) * block + o % block];
}

// TileGradient, element e of dX ([outer, block]): the sum of its `tiles` copies in dY, the first
// copied and the others added in order (the CPU's order, so the same bits).
PARITY_HD void TileGradientElement(int64_t e, const float* dy, int64_t tiles, int64_t block,
                                   float* dx) {
  const int64_t o = e / block;
  const int64_t k = e % block;
  const float* src = dy + o * tiles * block + k;
  float sum = src[0];
  for (int64_t t = 1; t < tiles; ++t) sum += src[t * block];
  dx[e] = sum;
}

// GatherGradient, element e of dDATA ([outer, bound, block]): the sum of dY[o, i, k] over the
// indices i that pick row v (negative ones wrapped), in index order from 0 -- the CPU's
// scatter-add order, without atomics (each thread owns its element; the cost is n per element).
template <typename Index>
PARITY_HD void GatherGradientElement(int64_t e, const float* dy, const Index* idx, int64_t n,
                                     int64_t bound, int64_t block, float* ddata) {
  const int64_t k = e % block;
  const int64_t v = (e / block) % bound;
  const int64_t o = e / (block * bound);
  float sum = 0.0f;
  for (int64_t i = 0; i < n; ++i) {
    int64_t iv = static_cast<int64_t>(idx[i]);
    if (iv < 0) iv += bound;
    if (iv == v) sum += dy[(o * n + i) * block + k];
  }
  ddata[e] = sum;
}

}  // namespace parity::gpu::kernels

#endif  // PARITY_GPU_KERNELS_SHAPE_BODY_H_
