// Per-thread bodies of the MulGradient / DivGradient / ModGradient and SoftmaxGradient kernels
// (elementwise.cu, reduce.cu). Host and device (host_device.h); tests/gpu/grad2_body_test.cc runs
// them on the host against the CPU engine (core/ops/elementwise/binary_grad.cc,
// core/ops/reduce/reduce_grad.cc). Products and sums go through ieee_body.h's Mul / Add / Sub, so
// nvcc contracts nothing into a fused multiply-add the CPU's Eigen code does not use.
#ifndef PARITY_GPU_KERNELS_GRAD2_BODY_H_
#define PARITY_GPU_KERNELS_GRAD2_BODY_H_

#include <cmath>
#include <cstdint>

#include "gpu/kernels/elementwise_body.h"  // BroadcastGeometry, BroadcastOffsetsOf
#include "gpu/kernels/host_device.h"
#include "gpu/kernels/ieee_body.h"
#include "gpu/kernels/reduce_body.h"  // ReduceGeometry

namespace parity::gpu::kernels {

// The elementwise derivative one binary-gradient output takes, the CPU's functors' formulas:
//   MulGradFn: dA = dc * b, dB = dc * a;  DivGradFn: dA = dc / b, dB = -(dc * c) / b;
//   ModGradFn: dA = dc, dB = -(dc * round((a - c) / b)).
enum class BinaryGrad { kMulDA, kMulDB, kDivDA, kDivDB, kModDA, kModDB };

PARITY_HD float BinaryGradTerm(BinaryGrad fn, const float* dc, const float* a, const float* b,
                               const float* c, int64_t o, const BroadcastOffsets& ab) {
  switch (fn) {
    case BinaryGrad::kMulDA:
      return Mul(dc[o], b[ab.b]);
    case BinaryGrad::kMulDB:
      return Mul(dc[o], a[ab.a]);
    case BinaryGrad::kDivDA:
      return dc[o] / b[ab.b];
    case BinaryGrad::kDivDB:
      return -Mul(dc[o], c[o]) / b[ab.b];
    case BinaryGrad::kModDA:
      return dc[o];
    case BinaryGrad::kModDB:
      return -Mul(dc[o], ::roundf(Sub(a[ab.a], c[o]) / b[ab.b]));
  }
  return 0.0f;
}

// Operand element i of dA or dB (fn): the derivative at each of its `count` broadcast copies in
// the output, summed serially in row-major order of the output from 0 (the CPU's pass over the
// output adds them into zeros in that order), or, with count 1 (no broadcast copies), the
// derivative itself (assigned, as the CPU does: a -0.0 stays -0.0). `r` is the output seen as
// the operand's dims (kept) and its broadcast dims (reduced), BroadcastReduceGeometryOf's; `g`
// maps an output element to A's and B's (BroadcastGeometryOf). c (the forward output) is read by
// kDivDB and kModDB only; a by kMulDB and kModDB only. y may not be an input.
PARITY_HD void BinaryGradBody(BinaryGrad fn, const float* dc, const float* a, const float* b,
                              const float* c, float* y, int64_t count, const ReduceGeometry& r,
                              const BroadcastGeometry& g, int64_t i) {
  const int64_t base = ReduceBaseOffset(r, i);
  if (count == 1) {
    y[i] = BinaryGradTerm(fn, dc, a, b, c, base, BroadcastOffsetsOf(g, base));
    return;
  }
  float sum = 0.0f;
  for (int64_t k = 0; k < count; ++k) {
    const int64_t o = ReducedElementOffset(r, base, k);
    sum = Add(sum, BinaryGradTerm(fn, dc, a, b, c, o, BroadcastOffsetsOf(g, o)));
  }
  y[i] = sum;
}

// Row `row` (of length d) of SoftmaxGradient: dx = y * (dy - dot) with dot = sum of y * dy over
// the row, summed serially from 0 in row order (the CPU's Eigen .sum() adds in its own vectorized
// order, so the two may differ in the last bits). Each dy element is read before the dx element
// at its index is written, so dx may be dy (the schema's in place).
PARITY_HD void SoftmaxGradientRowBody(const float* y, const float* dy, float* dx, int64_t d,
                                      int64_t row) {
  const float* yr = y + row * d;
  const float* gr = dy + row * d;
  float* out = dx + row * d;
  float dot = 0.0f;
  for (int64_t j = 0; j < d; ++j) dot = Add(dot, Mul(yr[j], gr[j]));
  for (int64_t j = 0; j < d; ++j) out[j] = Mul(yr[j], Sub(gr[j], dot));
}

}  // namespace parity::gpu::kernels

#endif  // PARITY_GPU_KERNELS_GRAD2_BODY_H_
