// What MaxPool / AveragePool share with their gradient kernels (pool_grad.cc): the argument
// declarations, the window of an output position, and MaxPool's choice of the maximum.
#ifndef PARITY_CORE_OPS_POOL_POOL_H_
#define PARITY_CORE_OPS_POOL_POOL_H_

#include <algorithm>
#include <cstdint>

#include "core/ops/common/conv_geometry.h"
#include "core/schema.h"

namespace parity {

// The geometry (ConvGeometryArgs) and `global_pooling`: every pool and pool-gradient schema.
OpSchema& PoolArgs(OpSchema& schema);
// `count_include_pad`: AveragePool and AveragePoolGradient.
OpSchema& CountIncludePadArg(OpSchema& schema);

// Window of output (oh, ow) clipped to the H x W image: rows [h_begin, h_end), columns
// [w_begin, w_end). Never empty: pools require every pad to be smaller than the kernel.
struct PoolWindow {
  int64_t h_begin, h_end, w_begin, w_end;
};

inline PoolWindow WindowAt(const ConvGeometry& g, int64_t H, int64_t W, int64_t oh, int64_t ow) {
  const int64_t h0 = oh * g.stride_h - g.pad_t;
  const int64_t w0 = ow * g.stride_w - g.pad_l;
  return {std::max<int64_t>(h0, 0), std::min(h0 + g.kernel_h, H), std::max<int64_t>(w0, 0),
          std::min(w0 + g.kernel_w, W)};
}

// Index in `plane` (row width W) of the window's maximum: the FIRST maximal element in scan order
// (row by row, left to right), since the running maximum is replaced only by a strictly greater
// value. With NaNs: comparisons with NaN are false, so a NaN wins only as the window's first
// element. MaxPool returns plane[index]; MaxPoolGradient sends the window's gradient to index.
template <typename T>
int64_t WindowArgMax(const T* plane, int64_t W, const PoolWindow& win) {
  int64_t best_index = win.h_begin * W + win.w_begin;
  T best = plane[best_index];
  for (int64_t h = win.h_begin; h < win.h_end; ++h) {
    const T* row = plane + h * W;
    for (int64_t w = win.w_begin; w < win.w_end; ++w) {
      if (row[w] > best) {
        best = row[w];
        best_index = h * W + w;
      }
    }
  }
  return best_index;
}

// Divisor of AveragePool's window: the clipped window's size, or with count_include_pad the full
// kernel_h * kernel_w (the padding counting as zeros; windows never reach past the padding).
inline int64_t AverageCount(const ConvGeometry& g, bool count_include_pad, const PoolWindow& win) {
  return count_include_pad ? g.kernel_h * g.kernel_w
                           : (win.h_end - win.h_begin) * (win.w_end - win.w_begin);
}

}  // namespace parity

#endif  // PARITY_CORE_OPS_POOL_POOL_H_
