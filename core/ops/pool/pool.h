// What MaxPool / AveragePool share with their gradient kernels (pool_grad.cc): the argument
// declarations, the window of an output position, and MaxPool's choice of the maximum.
#ifndef PARITY_CORE_OPS_POOL_POOL_H_
#define PARITY_CORE_OPS_POOL_POOL_H_

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "core/ops/common/conv_geometry.h"
#include "core/schema.h"

namespace parity {

// The geometry (ConvGeometryArgs) and `global_pooling`: every pool and pool-gradient schema.
OpSchema& PoolArgs(OpSchema& schema);
// `count_include_pad`: AveragePool and AveragePoolGradient.
OpSchema& CountIncludePadArg(OpSchema& schema);

// The pool gradients' shape checks (shared with the CUDA kernels, gpu/ops/pool.cc): X 4-D as the
// forward takes it, Y and dY with the forward output's dims; writes them into *y_dims and the
// effective geometry (global pooling: the kernel is X's H x W) into *g.
void PoolGradientShape(const std::string& label, const std::vector<int64_t>& x,
                       const std::vector<int64_t>& y, const std::vector<int64_t>& dy,
                       ConvGeometry* g, std::vector<int64_t>* y_dims);

// Window of output (oh, ow) clipped to the H x W image: rows h_begin, h_begin + h_step, ... below
// h_end, columns likewise (the steps are the dilation, 1 without). Empty only with a dilation
// that puts every tap of a row or column in the padding (EnforceWindowsCoverInput refuses that).
struct PoolWindow {
  int64_t h_begin, h_end, w_begin, w_end;
  int64_t h_step = 1, w_step = 1;
  int64_t taps() const {
    return (h_end - h_begin + h_step - 1) / h_step * ((w_end - w_begin + w_step - 1) / w_step);
  }
};

// The taps start + k * step, k in [0, kernel), that fall in [0, size): [*begin, *end) stepping by
// `step`; *begin == *end when none does.
inline void ClipTaps(int64_t start, int64_t kernel, int64_t step, int64_t size, int64_t* begin,
                     int64_t* end) {
  const int64_t first = start >= 0 ? 0 : (-start + step - 1) / step;
  const int64_t past = start >= size ? 0 : std::min(kernel, (size - start + step - 1) / step);
  if (first >= past) {
    *begin = *end = 0;
    return;
  }
  *begin = start + first * step;
  *end = start + (past - 1) * step + 1;
}

// The clipped taps of every output row and column of one pooling (ClipTaps of each), computed once
// per run: a window is then a row's taps times a column's, with no division per output. Every
// plane of the input shares them.
class PoolPlan {
 public:
  PoolPlan(const ConvGeometry& g, int64_t H, int64_t W, int64_t out_h, int64_t out_w)
      : rows_(out_h), cols_(out_w), h_step_(g.dilation_h), w_step_(g.dilation_w) {
    for (int64_t oh = 0; oh < out_h; ++oh) {
      ClipTaps(oh * g.stride_h - g.pad_t, g.kernel_h, g.dilation_h, H, &rows_[oh].begin,
               &rows_[oh].end);
    }
    for (int64_t ow = 0; ow < out_w; ++ow) {
      ClipTaps(ow * g.stride_w - g.pad_l, g.kernel_w, g.dilation_w, W, &cols_[ow].begin,
               &cols_[ow].end);
    }
  }

  PoolWindow Window(int64_t oh, int64_t ow) const {
    return {rows_[oh].begin, rows_[oh].end, cols_[ow].begin, cols_[ow].end, h_step_, w_step_};
  }

 private:
  struct Taps {
    int64_t begin = 0, end = 0;
  };
  std::vector<Taps> rows_, cols_;
  int64_t h_step_, w_step_;
};

// Work items of one plane for ParallelFor's grain: every tap of every window (out_h * out_w *
// kernel_h * kernel_w), at least the plane's own size.
inline int64_t PoolPlaneWork(const ConvGeometry& g, int64_t H, int64_t W, int64_t out_h,
                             int64_t out_w) {
  return std::max(H * W, out_h * out_w * g.kernel_h * g.kernel_w);
}

// kBadArgument when a window of the out_h x out_w output holds no input element (possible only
// with dilation: the taps of a row or column all in the padding), as the reference refuses it.
inline void EnforceWindowsCoverInput(const std::string& label, const ConvGeometry& g, int64_t H,
                                     int64_t W, int64_t out_h, int64_t out_w) {
  int64_t begin = 0, end = 0;
  for (int64_t oh = 0; oh < out_h; ++oh) {
    ClipTaps(oh * g.stride_h - g.pad_t, g.kernel_h, g.dilation_h, H, &begin, &end);
    PARITY_ENFORCE(begin < end, ErrorKind::kBadArgument, label, ": pooling window row ", oh,
                   " covers only padding (dilation ", g.dilation_h, ", pads ", g.pad_t, ", ",
                   g.pad_b, ", input height ", H, ")");
  }
  for (int64_t ow = 0; ow < out_w; ++ow) {
    ClipTaps(ow * g.stride_w - g.pad_l, g.kernel_w, g.dilation_w, W, &begin, &end);
    PARITY_ENFORCE(begin < end, ErrorKind::kBadArgument, label, ": pooling window column ", ow,
                   " covers only padding (dilation ", g.dilation_w, ", pads ", g.pad_l, ", ",
                   g.pad_r, ", input width ", W, ")");
  }
}

// Index in `plane` (row width W) of the window's maximum: the FIRST maximal element in scan order
// (row by row, left to right), since the running maximum is replaced only by a strictly greater
// value. With NaNs: comparisons with NaN are false, so a NaN wins only as the window's first
// element. MaxPool returns plane[index]; MaxPoolGradient sends the window's gradient to index.
template <typename T>
int64_t WindowArgMax(const T* plane, int64_t W, const PoolWindow& win) {
  int64_t best_index = win.h_begin * W + win.w_begin;
  T best = plane[best_index];
  for (int64_t h = win.h_begin; h < win.h_end; h += win.h_step) {
    const T* row = plane + h * W;
    for (int64_t w = win.w_begin; w < win.w_end; w += win.w_step) {
      if (row[w] > best) {
        best = row[w];
        best_index = h * W + w;
      }
    }
  }
  return best_index;
}

// The value WindowArgMax's element holds, without tracking where it is: each tap replaces the best
// so far only when strictly greater, in the same scan order, so the bits are the same (the first
// of equal maxima, -0 before +0 as it comes; a NaN only as the first tap). A select instead of a
// branch on random data (MaxPool's forward; 1.05-1.14x torch with the argmax).
template <typename T>
T WindowMax(const T* plane, int64_t W, const PoolWindow& win) {
  T best = plane[win.h_begin * W + win.w_begin];
  for (int64_t h = win.h_begin; h < win.h_end; h += win.h_step) {
    const T* row = plane + h * W;
    for (int64_t w = win.w_begin; w < win.w_end; w += win.w_step) {
      const T v = row[w];
      best = v > best ? v : best;
    }
  }
  return best;
}

// Divisor of AveragePool's window: its taps inside the image, or with count_include_pad the full
// kernel_h * kernel_w (the padding counting as zeros; windows never reach past the padding).
inline int64_t AverageCount(const ConvGeometry& g, bool count_include_pad, const PoolWindow& win) {
  return count_include_pad ? g.kernel_h * g.kernel_w : win.taps();
}

}  // namespace parity

#endif  // PARITY_CORE_OPS_POOL_POOL_H_
