// Per-thread bodies of the kernels of gpu/kernels/arg.cu: ArgMax / ArgMin (int64 indices), CumSum
// and Hardmax, each over an [outer, n, inner] view of its input (ArgMax / ArgMin and CumSum along
// their axis) or rows (Hardmax's 2-D view). Host and device (host_device.h);
// tests/gpu/arg_body_test.cc runs them on the host against the CPU engine
// (core/ops/reduce/arg.cc, cumsum.cc, hardmax.cc).
#ifndef PARITY_GPU_KERNELS_ARG_BODY_H_
#define PARITY_GPU_KERNELS_ARG_BODY_H_

#include <cstdint>

#include "gpu/kernels/host_device.h"
#include "gpu/kernels/ieee_body.h"

namespace parity::gpu::kernels {

// Output element j = o * inner + i of ArgMax (max) / ArgMin: the index k along the axis of the best
// element, scanning from k = 0: a candidate replaces the best when strictly greater (smaller), or
// also when equal with `last` (select_last_index). NaN compares false, so a NaN wins only at k = 0
// and then stays (arg.cc's loop). n >= 1 (the CPU refuses an empty axis with elements around it).
PARITY_HD void ArgBody(bool max, bool last, const float* x, int64_t* y, int64_t n, int64_t inner,
                       int64_t j) {
  const float* run = x + (j / inner) * n * inner + j % inner;
  int64_t best = 0;
  for (int64_t k = 1; k < n; ++k) {
    const float candidate = run[k * inner], current = run[best * inner];
    const bool better = max ? (last ? candidate >= current : candidate > current)
                            : (last ? candidate <= current : candidate < current);
    if (better) best = k;
  }
  y[j] = best;
}

// Column j = o * inner + i of CumSum along an axis of length n: running sums from 0 (so a first
// -0.0 becomes +0.0, as on the CPU), from the end with `reverse`; `exclusive` writes each sum
// before adding its element. Each element is read before it is written and never read again, so
// y may be x (the schema's in place).
PARITY_HD void CumSumBody(const float* x, float* y, int64_t n, int64_t inner, bool exclusive,
                          bool reverse, int64_t j) {
  const int64_t start = (j / inner) * n * inner + j % inner;
  float acc = 0.0f;
  for (int64_t step = 0; step < n; ++step) {
    const int64_t at = start + (reverse ? n - 1 - step : step) * inner;
    const float v = x[at];
    if (exclusive) {
      y[at] = acc;
      acc = Add(acc, v);
    } else {
      acc = Add(acc, v);
      y[at] = acc;
    }
  }
}

// Row `row` (of cols >= 1 elements) of Hardmax: 1 at the first maximum, 0 elsewhere; the first NaN
// counts as the maximum (hardmax.cc's scan stops at it). The whole row is read before any of it is
// written, so y may be x (the schema's in place).
PARITY_HD void HardmaxRowBody(const float* x, float* y, int64_t cols, int64_t row) {
  const float* in = x + row * cols;
  int64_t best = 0;
  for (int64_t d = 1; d < cols && in[best] == in[best]; ++d) {
    if (in[d] != in[d] || in[d] > in[best]) best = d;
  }
  float* out = y + row * cols;
  for (int64_t d = 0; d < cols; ++d) out[d] = d == best ? 1.0f : 0.0f;
}

}  // namespace parity::gpu::kernels

#endif  // PARITY_GPU_KERNELS_ARG_BODY_H_
