// What Conv shares with ConvGradient (conv_grad.cc): the shape checks, the argument declarations,
// and the unfold (im2col) / fold (col2im) of a block of output rows.
//
// Both kernels work per image and per block of output rows: the block's unfolded input col is
// [C * kh * kw, rows * out_w], sized to stay in cache (kConvColBlockBytes), and group g owns the
// rows [g * C/G * kh * kw, (g + 1) * C/G * kh * kw) of col (channels are grouped contiguously). A
// pointwise convolution (1x1 kernel, stride 1, no padding; dilation is then irrelevant) skips the
// unfolding: the image [C, H * W] already is col.
#ifndef PARITY_CORE_OPS_CONV_CONV_H_
#define PARITY_CORE_OPS_CONV_CONV_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/ops/common/conv_geometry.h"
#include "core/schema.h"

namespace parity {

// Validates X, W and b (when given) against the geometry and `group` (kShapeMismatch naming the op
// and the shapes) and writes Y's dims: the checks Caffe2's ConvOp makes, shared with shape
// inference and with ConvGradient.
void ConvShape(const std::string& label, ConvGeometry g, int64_t group,
               const std::vector<int64_t>& x, const std::vector<int64_t>& w,
               const std::vector<int64_t>* b, std::vector<int64_t>* y_dims);

// Which outputs a ConvGradient op has: (dW, db[, dX]), or (dW[, dX]) with no_bias=1 (kBadArgument
// for another count). Shared with the CUDA kernel (gpu/ops/conv.cc).
struct ConvGradOutputs {
  bool db = false;
  bool dx = false;
  int dx_index = -1;
};
ConvGradOutputs ConvGradientOutputs(const std::string& label, bool no_bias, int outputs);

// ConvGradient's shape checks: X and W as Conv's (ConvShape), dY against the forward output;
// writes Y's dims.
void ConvGradientShape(const std::string& label, const ConvGeometry& g, int64_t group,
                       const std::vector<int64_t>& x, const std::vector<int64_t>& w,
                       const std::vector<int64_t>& dy, std::vector<int64_t>* y_dims);

// kBadArgument unless `group` > 0.
void EnforceConvGroup(const std::string& label, int64_t group);

// Conv's arguments: the geometry (ConvGeometryArgs) and `group`. ConvGradient declares them too,
// since it receives the forward op's arguments.
OpSchema& ConvArgs(OpSchema& schema);

// Budget for one block of the unfolded input: well inside a core's L2 (1-2 MiB on the x86 parts
// parity targets), so im2col writes and the GEMM's packing reads stay in cache.
constexpr int64_t kConvColBlockBytes = 512 * 1024;

inline bool IsPointwiseConv(const ConvGeometry& g) {
  return g.kernel_h == 1 && g.kernel_w == 1 && g.stride_h == 1 && g.stride_w == 1 && g.pad_t == 0 &&
         g.pad_l == 0 && g.pad_b == 0 && g.pad_r == 0;
}

// Output rows per block for an unfolded matrix with `col_rows` rows (at least one output row).
inline int64_t ConvRowsPerBlock(int64_t col_rows, int64_t out_w, int64_t elem_size) {
  const int64_t row_bytes = std::max<int64_t>(1, col_rows * out_w * elem_size);
  return std::max<int64_t>(1, kConvColBlockBytes / row_bytes);
}

// Row blocks per image the float kernels (Conv, ConvRelu and ConvGradient) unfold an op's input in,
// from the op's arguments and its input dims: >= 2 takes the multi-block path (ConvGradient's
// col2im then accumulates across blocks); -1 for a pointwise conv (no unfolding) or an invalid
// instance.
int64_t ConvRowBlocks(const caffe2::OperatorDef& def, const std::vector<std::vector<int64_t>>& in);

// Unfolds output rows [row_begin, row_end) of one image x [C, H, W] into col [C * kh * kw, n],
// n = (row_end - row_begin) * out_w: row (c, i, j) of col holds, for each of those output
// positions, the input under kernel tap (i, j) of channel c, or 0 in the padding.
template <typename T>
void Im2Col(const T* x, int64_t C, int64_t H, int64_t W, const ConvGeometry& g, int64_t row_begin,
            int64_t row_end, int64_t out_w, T* col) {
  const int64_t n = (row_end - row_begin) * out_w;
  // "Same"-width convolutions with stride 1 (out_w == W): within a tap's row of col, output
  // position oh * W + ow reads input position (oh + row_shift) * W + ow + offset, a constant
  // shift, so the tap is one memcpy over its valid output rows followed by zeroing the columns
  // that wrapped around the image's left/right edges.
  const bool flat_shift = g.stride_h == 1 && g.stride_w == 1 && out_w == W;
  for (int64_t c = 0; c < C; ++c) {
    const T* plane = x + c * H * W;
    for (int64_t i = 0; i < g.kernel_h; ++i) {
      for (int64_t j = 0; j < g.kernel_w; ++j, col += n) {
        // Input column of output column ow is ow * stride_w + offset; it lies inside the image for
        // ow in [ow_lo, ow_hi), so the inner loops need no bounds tests.
        const int64_t offset = j * g.dilation_w - g.pad_l;
        int64_t ow_lo = offset >= 0 ? 0 : (-offset + g.stride_w - 1) / g.stride_w;
        int64_t ow_hi = W - 1 - offset < 0 ? 0 : (W - 1 - offset) / g.stride_w + 1;
        ow_lo = std::min(ow_lo, out_w);
        ow_hi = std::max(std::min(ow_hi, out_w), ow_lo);
        if (flat_shift) {
          const int64_t row_shift = i * g.dilation_h - g.pad_t;  // ih = oh + row_shift
          // Output rows of this block whose input row lies inside the image, relative to the
          // block: [lo, hi).
          const int64_t lo =
              std::min(std::max<int64_t>(-row_shift, row_begin), row_end) - row_begin;
          const int64_t hi = std::max(std::min(H - row_shift, row_end) - row_begin, lo);
          std::fill(col, col + lo * out_w, T(0));
          std::fill(col + hi * out_w, col + n, T(0));
          if (lo == hi || ow_lo == ow_hi) {
            std::fill(col + lo * out_w, col + hi * out_w, T(0));
            continue;
          }
          // The first and last copied elements are inside the image: input (row_begin + lo +
          // row_shift, ow_lo + offset) and (row_begin + hi - 1 + row_shift, ow_hi - 1 + offset).
          const int64_t begin = lo * out_w + ow_lo, end = (hi - 1) * out_w + ow_hi;
          std::memcpy(col + begin, plane + (row_begin + row_shift) * W + offset + begin,
                      (end - begin) * sizeof(T));
          if (ow_lo > 0 || ow_hi < out_w) {
            for (int64_t r = lo; r < hi; ++r) {
              T* dst = col + r * out_w;
              std::fill(dst, dst + ow_lo, T(0));
              std::fill(dst + ow_hi, dst + out_w, T(0));
            }
          }
          continue;
        }
        for (int64_t oh = row_begin; oh < row_end; ++oh) {
          T* dst = col + (oh - row_begin) * out_w;
          const int64_t ih = oh * g.stride_h - g.pad_t + i * g.dilation_h;
          if (ih < 0 || ih >= H) {
            std::fill(dst, dst + out_w, T(0));
            continue;
          }
          const T* src = plane + ih * W;
          std::fill(dst, dst + ow_lo, T(0));
          if (g.stride_w == 1) {
            std::memcpy(dst + ow_lo, src + ow_lo + offset, (ow_hi - ow_lo) * sizeof(T));
          } else {
            for (int64_t ow = ow_lo; ow < ow_hi; ++ow) dst[ow] = src[ow * g.stride_w + offset];
          }
          std::fill(dst + ow_hi, dst + out_w, T(0));
        }
      }
    }
  }
}

// The adjoint of Im2Col: adds col [C * kh * kw, n] (n = (row_end - row_begin) * out_w) back onto
// the image x [C, H, W]: each entry of row (c, i, j) goes to the input under kernel tap (i, j) of
// channel c at its output position; entries over the padding are dropped. Accumulates (x is not
// cleared), so blocks of output rows whose windows overlap add up.
template <typename T>
void Col2ImAdd(const T* col, int64_t C, int64_t H, int64_t W, const ConvGeometry& g,
               int64_t row_begin, int64_t row_end, int64_t out_w, T* x) {
  const int64_t n = (row_end - row_begin) * out_w;
  for (int64_t c = 0; c < C; ++c) {
    T* plane = x + c * H * W;
    for (int64_t i = 0; i < g.kernel_h; ++i) {
      for (int64_t j = 0; j < g.kernel_w; ++j, col += n) {
        // As in Im2Col: output column ow reads input column ow * stride_w + offset, inside the
        // image for ow in [ow_lo, ow_hi).
        const int64_t offset = j * g.dilation_w - g.pad_l;
        int64_t ow_lo = offset >= 0 ? 0 : (-offset + g.stride_w - 1) / g.stride_w;
        int64_t ow_hi = W - 1 - offset < 0 ? 0 : (W - 1 - offset) / g.stride_w + 1;
        ow_lo = std::min(ow_lo, out_w);
        ow_hi = std::max(std::min(ow_hi, out_w), ow_lo);
        if (ow_lo == ow_hi) continue;
        for (int64_t oh = row_begin; oh < row_end; ++oh) {
          const int64_t ih = oh * g.stride_h - g.pad_t + i * g.dilation_h;
          if (ih < 0 || ih >= H) continue;
          const T* src = col + (oh - row_begin) * out_w;
          T* dst = plane + ih * W;
          if (g.stride_w == 1) {
            for (int64_t ow = ow_lo; ow < ow_hi; ++ow) dst[ow + offset] += src[ow];
          } else {
            for (int64_t ow = ow_lo; ow < ow_hi; ++ow) dst[ow * g.stride_w + offset] += src[ow];
          }
        }
      }
    }
  }
}

}  // namespace parity

#endif  // PARITY_CORE_OPS_CONV_CONV_H_
