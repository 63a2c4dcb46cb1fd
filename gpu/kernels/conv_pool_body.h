// Per-thread bodies of the convolution and pooling kernels (conv_pool.cu): im2col, a gather-style
// col2im, MaxPool / AveragePool and their gradients, and Conv's bias. Host and device
// (host_device.h); tests/gpu/conv_pool_body_test.cc runs them on the host against the CPU
// engine's kernels.
//
// The backward bodies gather: one thread per INPUT element sums what every output position whose
// window covers it sends there, in the order the CPU kernel adds it (output positions row-major,
// from zero). No atomics, so the device's results are deterministic, and the same additions in
// the same order give the CPU's bits.
#ifndef PARITY_GPU_KERNELS_CONV_POOL_BODY_H_
#define PARITY_GPU_KERNELS_CONV_POOL_BODY_H_

#include <cstdint>

#include "gpu/kernels/host_device.h"

namespace parity::gpu::kernels {

// The 2-D (NCHW) geometry of one convolution or pooling, after the CPU's ConvOutputDims (global
// pooling already turned into a kernel of H x W). `planes`: the [H, W] planes a kernel walks,
// C of one image for im2col / col2im, N * C for the pools. The bottom and right pads are implicit
// in out_h and out_w.
struct ConvPoolGeometry {
  int64_t planes = 0;
  int64_t H = 0, W = 0, out_h = 0, out_w = 0;
  int64_t kernel_h = 1, kernel_w = 1;
  int64_t stride_h = 1, stride_w = 1;
  int64_t dilation_h = 1, dilation_w = 1;
  int64_t pad_t = 0, pad_l = 0;
};

// a * b rounded on its own: nvcc contracts a product feeding an addition into one fma (one
// rounding instead of two) unless told otherwise, while the host compiler (no -mfma) rounds
// both; the gradients below use this where the CPU's product then sum must keep its bits.
PARITY_HD float MulRn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}

// ---- Convolution ----

// col [planes * kh * kw, out_h * out_w] of one image x [planes, H, W], element i: row (c, i, j) of
// col holds, at output position (oh, ow), the input under kernel tap (i, j) of channel c, or 0 in
// the padding (the CPU's Im2Col over all output rows, core/ops/conv/conv.h).
PARITY_HD void Im2ColBody(const float* x, float* col, const ConvPoolGeometry& g, int64_t i) {
  const int64_t ow = i % g.out_w;
  const int64_t oh = (i / g.out_w) % g.out_h;
  const int64_t row = i / (g.out_w * g.out_h);
  const int64_t tap_w = row % g.kernel_w;
  const int64_t tap_h = (row / g.kernel_w) % g.kernel_h;
  const int64_t c = row / (g.kernel_w * g.kernel_h);
  const int64_t ih = oh * g.stride_h - g.pad_t + tap_h * g.dilation_h;
  const int64_t iw = ow * g.stride_w - g.pad_l + tap_w * g.dilation_w;
  col[i] = ih >= 0 && ih < g.H && iw >= 0 && iw < g.W ? x[(c * g.H + ih) * g.W + iw] : 0.0f;
}

// The output position (along one dim) whose tap `tap` reads input coordinate `in`: -1 when none
// does (between strides, or outside the output).
PARITY_HD int64_t OutputOfTap(int64_t in, int64_t tap, int64_t stride, int64_t pad,
                              int64_t dilation, int64_t out_size) {
  const int64_t t = in + pad - tap * dilation;  // = out * stride
  if (t < 0 || t % stride != 0) return -1;
  const int64_t out = t / stride;
  return out < out_size ? out : -1;
}

// Element i of one image's dx [planes, H, W] from dcol [planes * kh * kw, out_h * out_w] (the
// adjoint of Im2ColBody): the sum over the taps (i, j), in order, of the dcol entry of the output
// position that tap reads this element from. Each tap reads an element from at most one output
// position, so this is the CPU's Col2ImAdd for one block of all output rows, addition for
// addition. Writes dx (no accumulation onto it).
PARITY_HD void Col2ImBody(const float* dcol, float* dx, const ConvPoolGeometry& g, int64_t i) {
  const int64_t w = i % g.W;
  const int64_t h = (i / g.W) % g.H;
  const int64_t c = i / (g.W * g.H);
  const int64_t out_hw = g.out_h * g.out_w;
  float sum = 0.0f;
  for (int64_t tap_h = 0; tap_h < g.kernel_h; ++tap_h) {
    const int64_t oh = OutputOfTap(h, tap_h, g.stride_h, g.pad_t, g.dilation_h, g.out_h);
    if (oh < 0) continue;
    for (int64_t tap_w = 0; tap_w < g.kernel_w; ++tap_w) {
      const int64_t ow = OutputOfTap(w, tap_w, g.stride_w, g.pad_l, g.dilation_w, g.out_w);
      if (ow < 0) continue;
      sum += dcol[((c * g.kernel_h + tap_h) * g.kernel_w + tap_w) * out_hw + oh * g.out_w + ow];
    }
  }
  dx[i] = sum;
}

// Element i of y [N, channels, inner] set to bias[channel]: Conv's bias, written before the GEMMs
// accumulate onto it (beta = 1), as the CPU's IM2COL kernel does.
PARITY_HD void FillChannelsBody(const float* bias, float* y, int64_t channels, int64_t inner,
                                int64_t i) {
  y[i] = bias[(i / inner) % channels];
}

// ---- Pooling ----

// The taps start + k * step, k in [0, kernel), inside [0, size): [*begin, *end) stepping by
// `step`, *begin == *end when none is (the CPU's ClipTaps, core/ops/pool/pool.h).
PARITY_HD void ClipTapsBody(int64_t start, int64_t kernel, int64_t step, int64_t size,
                            int64_t* begin, int64_t* end) {
  const int64_t first = start >= 0 ? 0 : (-start + step - 1) / step;
  int64_t past = 0;
  if (start < size) {
    past = (size - start + step - 1) / step;
    if (past > kernel) past = kernel;
  }
  if (first >= past) {
    *begin = *end = 0;
    return;
  }
  *begin = start + first * step;
  *end = start + (past - 1) * step + 1;
}

// The window of output (oh, ow), clipped to the image.
struct PoolWindowBody {
  int64_t h_begin = 0, h_end = 0, w_begin = 0, w_end = 0;
};
PARITY_HD PoolWindowBody WindowOf(const ConvPoolGeometry& g, int64_t oh, int64_t ow) {
  PoolWindowBody win;
  ClipTapsBody(oh * g.stride_h - g.pad_t, g.kernel_h, g.dilation_h, g.H, &win.h_begin,
               &win.h_end);
  ClipTapsBody(ow * g.stride_w - g.pad_l, g.kernel_w, g.dilation_w, g.W, &win.w_begin,
               &win.w_end);
  return win;
}

// Index in the plane of the window's FIRST maximum in scan order (row by row, left to right): the
// running maximum is replaced only by a strictly greater value, so a NaN wins only as the first
// element (the CPU's WindowArgMax).
PARITY_HD int64_t WindowArgMaxBody(const float* plane, const ConvPoolGeometry& g,
                                   const PoolWindowBody& win) {
  int64_t best_index = win.h_begin * g.W + win.w_begin;
  float best = plane[best_index];
  for (int64_t h = win.h_begin; h < win.h_end; h += g.dilation_h) {
    for (int64_t w = win.w_begin; w < win.w_end; w += g.dilation_w) {
      if (plane[h * g.W + w] > best) {
        best = plane[h * g.W + w];
        best_index = h * g.W + w;
      }
    }
  }
  return best_index;
}

// Output element i of MaxPool over x [planes, H, W]: the window's first maximum; `indices`
// (optional) gets its flat index in x (MaxPool's Indices output, and MaxPoolGradient's argmax).
// `y` may be null when only the indices are wanted.
PARITY_HD void MaxPoolBody(const float* x, float* y, int64_t* indices, const ConvPoolGeometry& g,
                           int64_t i) {
  const int64_t out_hw = g.out_h * g.out_w;
  const int64_t p = i / out_hw;
  const int64_t o = i % out_hw;
  const float* plane = x + p * g.H * g.W;
  const int64_t k = WindowArgMaxBody(plane, g, WindowOf(g, o / g.out_w, o % g.out_w));
  if (y != nullptr) y[i] = plane[k];
  if (indices != nullptr) indices[i] = p * g.H * g.W + k;
}

// AveragePool's divisor: the window's taps inside the image, or with count_include_pad the full
// kernel (the CPU's AverageCount).
PARITY_HD int64_t AverageCountBody(const ConvPoolGeometry& g, bool count_include_pad,
                                   const PoolWindowBody& win) {
  if (count_include_pad) return g.kernel_h * g.kernel_w;
  return (win.h_end - win.h_begin + g.dilation_h - 1) / g.dilation_h *
         ((win.w_end - win.w_begin + g.dilation_w - 1) / g.dilation_w);
}

// Output element i of AveragePool: the window's sum in scan order times 1 / count, as the CPU
// (and Caffe2) scale by the reciprocal.
PARITY_HD void AveragePoolBody(const float* x, float* y, const ConvPoolGeometry& g,
                               bool count_include_pad, int64_t i) {
  const int64_t out_hw = g.out_h * g.out_w;
  const float* plane = x + (i / out_hw) * g.H * g.W;
  const PoolWindowBody win = WindowOf(g, (i % out_hw) / g.out_w, i % g.out_w);
  float sum = 0.0f;
  for (int64_t h = win.h_begin; h < win.h_end; h += g.dilation_h) {
    for (int64_t w = win.w_begin; w < win.w_end; w += g.dilation_w) sum += plane[h * g.W + w];
  }
  y[i] = sum * (1.0f / static_cast<float>(AverageCountBody(g, count_include_pad, win)));
}

// The output positions along one dim whose window may cover input coordinate `in`:
// [*first, *last], the window of `out` spanning [out * stride - pad, ... + (kernel - 1) *
// dilation]. Empty (*first > *last) when none does.
PARITY_HD void CoveringOutputs(int64_t in, int64_t kernel, int64_t stride, int64_t pad,
                               int64_t dilation, int64_t out_size, int64_t* first, int64_t* last) {
  const int64_t lowest = in + pad - (kernel - 1) * dilation;  // out * stride >= lowest
  *first = lowest <= 0 ? 0 : (lowest + stride - 1) / stride;
  *last = (in + pad) / stride;  // in + pad >= 0 always
  if (*last > out_size - 1) *last = out_size - 1;
}

// Element i of dx [planes, H, W] for MaxPoolGradient: the sum, over the output positions of its
// plane in row-major order, of dy where that window's argmax (MaxPoolBody's index, flat in x) is
// this element. The CPU adds the same dy values onto dx in the same order.
PARITY_HD void MaxPoolGradientBody(const int64_t* argmax, const float* dy, float* dx,
                                   const ConvPoolGeometry& g, int64_t i) {
  const int64_t w = i % g.W;
  const int64_t h = (i / g.W) % g.H;
  const int64_t p = i / (g.W * g.H);
  int64_t oh_first, oh_last, ow_first, ow_last;
  CoveringOutputs(h, g.kernel_h, g.stride_h, g.pad_t, g.dilation_h, g.out_h, &oh_first, &oh_last);
  CoveringOutputs(w, g.kernel_w, g.stride_w, g.pad_l, g.dilation_w, g.out_w, &ow_first, &ow_last);
  const int64_t base = p * g.out_h * g.out_w;
  float sum = 0.0f;
  for (int64_t oh = oh_first; oh <= oh_last; ++oh) {
    for (int64_t ow = ow_first; ow <= ow_last; ++ow) {
      const int64_t o = base + oh * g.out_w + ow;
      if (argmax[o] == i) sum += dy[o];
    }
  }
  dx[i] = sum;
}

// Element i of dx for AveragePoolGradient: the sum, over the windows covering it (row-major), of
// dy * (1 / count), the share the CPU adds onto every element of the window. With a dilation the
// element must sit on a tap of the window, not between two.
PARITY_HD void AveragePoolGradientBody(const float* dy, float* dx, const ConvPoolGeometry& g,
                                       bool count_include_pad, int64_t i) {
  const int64_t w = i % g.W;
  const int64_t h = (i / g.W) % g.H;
  const int64_t p = i / (g.W * g.H);
  int64_t oh_first, oh_last, ow_first, ow_last;
  CoveringOutputs(h, g.kernel_h, g.stride_h, g.pad_t, g.dilation_h, g.out_h, &oh_first, &oh_last);
  CoveringOutputs(w, g.kernel_w, g.stride_w, g.pad_l, g.dilation_w, g.out_w, &ow_first, &ow_last);
  const int64_t base = p * g.out_h * g.out_w;
  float sum = 0.0f;
  for (int64_t oh = oh_first; oh <= oh_last; ++oh) {
    if ((h + g.pad_t - oh * g.stride_h) % g.dilation_h != 0) continue;
    for (int64_t ow = ow_first; ow <= ow_last; ++ow) {
      if ((w + g.pad_l - ow * g.stride_w) % g.dilation_w != 0) continue;
      const PoolWindowBody win = WindowOf(g, oh, ow);
      sum += MulRn(dy[base + oh * g.out_w + ow],
                   1.0f / static_cast<float>(AverageCountBody(g, count_include_pad, win)));
    }
  }
  dx[i] = sum;
}

// ---- Activation gradients from the forward output Y (the CPU's unary_grad.cc) ----

enum class ActivationGradient { kRelu, kSigmoid, kTanh };

// dX[i] from Y[i] and dY[i]: Relu dY where Y > 0 else 0 (NaN Y gives 0); Sigmoid dY * Y * (1 - Y);
// Tanh dY * (1 - Y * Y), in the CPU's order of operations.
PARITY_HD void ActivationGradientBody(ActivationGradient fn, const float* y, const float* dy,
                                      float* dx, int64_t i) {
  const float v = y[i], d = dy[i];
  switch (fn) {
    case ActivationGradient::kRelu: dx[i] = v > 0.0f ? d : 0.0f; return;
    case ActivationGradient::kSigmoid: dx[i] = d * v * (1.0f - v); return;
    case ActivationGradient::kTanh: dx[i] = d * (1.0f - MulRn(v, v)); return;
  }
}

}  // namespace parity::gpu::kernels

#endif  // PARITY_GPU_KERNELS_CONV_POOL_BODY_H_
