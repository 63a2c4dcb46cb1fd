// The per-thread body of ConvTranspose's fold on the device (conv_transpose.cu): col2im as a
// gather. Host and device (host_device.h); tests/gpu/conv_transpose_body_test.cc runs it on the
// host, after a host GEMM of ConvGemmsOf's shape, against the CPU engine's ConvTranspose.
#ifndef PARITY_GPU_KERNELS_CONV_TRANSPOSE_BODY_H_
#define PARITY_GPU_KERNELS_CONV_TRANSPOSE_BODY_H_

#include <cstdint>

#include "gpu/kernels/conv_pool_body.h"  // ConvPoolGeometry, OutputOfTap
#include "gpu/kernels/host_device.h"
#include "gpu/kernels/ieee_body.h"

namespace parity::gpu::kernels {

// Element i of one image's Y [planes = M, H = out_h, W = out_w] from col [M * kh * kw, X's H * W]
// (g.out_h x g.out_w is X's grid, the convolution's "output" seen from Y): the bias of its channel
// (0 without one), then, tap after tap in (kh, kw) order, the col entry of the X position that tap
// spreads onto this element. Each tap reaches an element from at most one X position, so this is
// the CPU's fill-then-Col2ImAdd (core/ops/conv/conv_transpose.cc), addition for addition: one
// thread per element, no atomics, and the CPU's bits for the same col.
PARITY_HD void ConvTransposeCol2ImBody(const float* col, const float* bias, float* y,
                                       const ConvPoolGeometry& g, int64_t i) {
  const int64_t w = i % g.W;
  const int64_t h = (i / g.W) % g.H;
  const int64_t c = i / (g.W * g.H);
  const int64_t grid = g.out_h * g.out_w;
  float sum = bias != nullptr ? bias[c] : 0.0f;
  for (int64_t tap_h = 0; tap_h < g.kernel_h; ++tap_h) {
    const int64_t oh = OutputOfTap(h, tap_h, g.stride_h, g.pad_t, g.dilation_h, g.out_h);
    if (oh < 0) continue;
    for (int64_t tap_w = 0; tap_w < g.kernel_w; ++tap_w) {
      const int64_t ow = OutputOfTap(w, tap_w, g.stride_w, g.pad_l, g.dilation_w, g.out_w);
      if (ow < 0) continue;
      sum =
          Add(sum, col[((c * g.kernel_h + tap_h) * g.kernel_w + tap_w) * grid + oh * g.out_w + ow]);
    }
  }
  y[i] = sum;
}

}  // namespace parity::gpu::kernels

#endif  // PARITY_GPU_KERNELS_CONV_TRANSPOSE_BODY_H_
