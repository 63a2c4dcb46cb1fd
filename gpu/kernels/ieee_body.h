// Float arithmetic for kernel bodies that must round like the CPU kernels. nvcc contracts a * b + c
// into one fused multiply-add by default (--fmad=true), which rounds once where the CPU's Eigen
// code (x86-64 without FMA) rounds twice; the _rn intrinsics are never contracted. On the host they
// are the plain operators. Also the CPU's sigmoid formula (core/ops/common/sigmoid.h), on scalars.
#ifndef PARITY_GPU_KERNELS_IEEE_BODY_H_
#define PARITY_GPU_KERNELS_IEEE_BODY_H_

#include <cmath>

#include "gpu/kernels/host_device.h"

namespace parity::gpu::kernels {

PARITY_HD float Mul(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}

PARITY_HD float Add(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}

PARITY_HD float Sub(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fsub_rn(a, b);
#else
  return a - b;
#endif
}

PARITY_HD double MulD(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}

PARITY_HD double AddD(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}

PARITY_HD double SubD(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dsub_rn(a, b);
#else
  return a - b;
#endif
}

// The CPU's sigmoid: with e = exp(-|x|), 1 / (1 + e) for x >= 0 and e / (1 + e) below, so
// neither side cancels or overflows; NaN stays NaN. The CPU's exp is a Cephes polynomial within
// 1 ulp and CUDA's expf within 2 ulp, so the two may differ by a few ulp (never by formula).
PARITY_HD float Sigmoid(float x) {
  if (x != x) return x;
  const float e = ::expf(-::fabsf(x));
  const float r = 1.0f / Add(1.0f, e);
  return x >= 0.0f ? r : Mul(e, r);
}

}  // namespace parity::gpu::kernels

#endif  // PARITY_GPU_KERNELS_IEEE_BODY_H_
