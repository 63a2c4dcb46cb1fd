// Per-thread bodies of the unary-family kernels (unary.cu): the forward math ops beyond
// elementwise.cu's ApplyUnary (Tan ... Erf, Round, Sign, Elu, LeakyRelu, Scale, Clip, Pow), their
// gradients, and Pow with a broadcast exponent input and its gradient. Host and device
// (host_device.h); tests/gpu/unary_body_test.cc runs them on the host against the CPU engine
// (core/ops/unary/unary.cc, unary_grad.cc, core/ops/elementwise/binary.cc, binary_grad.cc).
//
// Each function is the CPU functor's expression, operation for operation and in its order; products
// and sums go through ieee_body.h so nvcc contracts nothing into a fused multiply-add the CPU does
// not use. The transcendentals are the C library's float functions on the host (bit for bit the
// CPU's, which calls them per element) and CUDA's on the device (within a few ulp of them; where
// the CPU uses Eigen's vectorized sin / cos / log / expm1 the host differs by ulps as well).
#ifndef PARITY_GPU_KERNELS_UNARY_BODY_H_
#define PARITY_GPU_KERNELS_UNARY_BODY_H_

#include <cmath>
#include <cstdint>

#include "gpu/kernels/elementwise_body.h"  // BroadcastGeometry, BroadcastOffsetsOf
#include "gpu/kernels/host_device.h"
#include "gpu/kernels/ieee_body.h"
#include "gpu/kernels/reduce_body.h"  // ReduceGeometry, ReduceBaseOffset, ReducedElementOffset

namespace parity::gpu::kernels {

// Forward functions, named after their ops.
enum class UnaryMath {
  kTan,
  kAsin,
  kAcos,
  kAtan,
  kSinh,
  kCosh,
  kAsinh,
  kAtanh,
  kErf,
  kRound,
  kSign,
  kElu,        // a = alpha
  kLeakyRelu,  // a = alpha
  kScale,      // a = scale
  kClip,       // a = lower bound, b = upper bound
  kPow,        // a = exponent (the argument form)
};

// Gradients, named after their forward ops: (X, dY) -> dX, or (Y, dY) -> dX for Elu, LeakyRelu,
// Clip and Reciprocal (the CPU's UnaryGradientOp conventions).
enum class UnaryGrad {
  kAbs,
  kSin,
  kCos,
  kTan,
  kAsin,
  kAcos,
  kAtan,
  kSinh,
  kCosh,
  kAsinh,
  kAtanh,
  kErf,
  kSoftsign,
  kReciprocal,
  kElu,        // a = alpha
  kLeakyRelu,  // a = alpha
  kClip,       // a = lower bound, b = upper bound
  kPow,        // a = exponent (PowGradient (dY, X, Y) with the argument)
};

// A function's arguments, cast to float as the CPU's functors cast their double arguments.
struct UnaryArgs {
  float a = 0.0f;
  float b = 0.0f;
};

// Eigen's PropagateNaN max / min as the CPU's SSE code evaluates them (pminmax_propagate_nan: a
// NaN a, else maxps / minps of (a, b)): a NaN a, else a NaN b, else the larger / smaller, b on a
// tie. Ties matter only for signed zeros: max(-0, +0) is +0 here. (Eigen's scalar path, std::max,
// returns a on a tie instead; the CPU takes it for the last n % 4 elements and an unaligned head,
// where a zero's sign may then differ from the device's: equal values, compared equal.)
PARITY_HD float MaxPropagateNaN(float a, float b) {
  if (a != a) return a;
  if (b != b) return b;
  return a > b ? a : b;
}
PARITY_HD float MinPropagateNaN(float a, float b) {
  if (a != a) return a;
  if (b != b) return b;
  return a < b ? a : b;
}

PARITY_HD float ApplyUnaryMath(UnaryMath fn, UnaryArgs args, float x) {
  switch (fn) {
    case UnaryMath::kTan:
      return ::tanf(x);
    case UnaryMath::kAsin:
      return ::asinf(x);
    case UnaryMath::kAcos:
      return ::acosf(x);
    case UnaryMath::kAtan:
      return ::atanf(x);
    case UnaryMath::kSinh:
      return ::sinhf(x);
    case UnaryMath::kCosh:
      return ::coshf(x);
    case UnaryMath::kAsinh:
      return ::asinhf(x);
    case UnaryMath::kAtanh:
      return ::atanhf(x);
    case UnaryMath::kErf:
      return ::erff(x);
    // Halves to even: nearbyint in the default rounding mode, as the CPU.
    case UnaryMath::kRound:
      return ::nearbyintf(x);
    // -1, 0 or 1; -0, +0 and NaN stay as they are.
    case UnaryMath::kSign:
      return x > 0.0f ? 1.0f : (x < 0.0f ? -1.0f : x);
    // x where x > 0, alpha * expm1(x) elsewhere (NaN fails x > 0 and stays NaN).
    case UnaryMath::kElu:
      return x > 0.0f ? x : Mul(args.a, ::expm1f(x));
    // max(x, 0) + alpha * min(x, 0), the CPU's expression (NaN kept; +-0 gives +0).
    case UnaryMath::kLeakyRelu:
      return Add(MaxPropagateNaN(x, 0.0f), Mul(args.a, MinPropagateNaN(x, 0.0f)));
    case UnaryMath::kScale:
      return Mul(x, args.a);
    // min(max(x, lo), hi): a NaN x or bound gives NaN.
    case UnaryMath::kClip:
      return MinPropagateNaN(MaxPropagateNaN(x, args.a), args.b);
    // x^2 as a product (the CPU's special case), else pow.
    case UnaryMath::kPow:
      return args.a == 2.0f ? Mul(x, x) : ::powf(x, args.a);
  }
  return x;
}

// dX from v (X or Y, see UnaryGrad) and dy: unary_grad.cc's functors, dY * f'(v) with f' as the
// CPU computes it.
PARITY_HD float ApplyUnaryGrad(UnaryGrad fn, UnaryArgs args, float v, float dy) {
  switch (fn) {
    // dY * sign(X), 0 at X = 0 and where X is NaN (both comparisons fail).
    case UnaryGrad::kAbs:
      return v > 0.0f ? dy : (v < 0.0f ? -dy : 0.0f);
    case UnaryGrad::kSin:
      return Mul(dy, ::cosf(v));
    case UnaryGrad::kCos:
      return -Mul(dy, ::sinf(v));
    case UnaryGrad::kTan: {
      const float c = ::cosf(v);
      return Mul(dy, 1.0f / Mul(c, c));
    }
    case UnaryGrad::kAsin:
      return Mul(dy, 1.0f / ::sqrtf(Sub(1.0f, Mul(v, v))));
    case UnaryGrad::kAcos:
      return Mul(dy, -1.0f / ::sqrtf(Sub(1.0f, Mul(v, v))));
    case UnaryGrad::kAtan:
      return Mul(dy, 1.0f / Add(1.0f, Mul(v, v)));
    case UnaryGrad::kSinh:
      return Mul(dy, ::coshf(v));
    case UnaryGrad::kCosh:
      return Mul(dy, ::sinhf(v));
    case UnaryGrad::kAsinh:
      return Mul(dy, 1.0f / ::sqrtf(Add(Mul(v, v), 1.0f)));
    case UnaryGrad::kAtanh:
      return Mul(dy, 1.0f / Sub(1.0f, Mul(v, v)));
    // 2 / sqrt(pi) * exp(-x^2), the constant rounded to float as the CPU's T(...) does.
    case UnaryGrad::kErf:
      return Mul(dy, Mul(1.1283791670955126f, ::expf(Mul(-v, v))));
    case UnaryGrad::kSoftsign: {
      const float t = Add(1.0f, ::fabsf(v));
      return dy / Mul(t, t);
    }
    case UnaryGrad::kReciprocal:
      return -Mul(Mul(dy, v), v);
    // From Y: dY where Y > 0, else dY * (Y + alpha) (Elu) or alpha * dY (LeakyRelu).
    case UnaryGrad::kElu:
      return v > 0.0f ? dy : Mul(dy, Add(v, args.a));
    case UnaryGrad::kLeakyRelu:
      return v > 0.0f ? dy : Mul(args.a, dy);
    // dY strictly inside (lo, hi), else 0 (Caffe2's ClipGradientOp; NaN Y gives 0).
    case UnaryGrad::kClip:
      return (v > args.a && v < args.b) ? dy : 0.0f;
    // The CPU's cases: e = 0 gives 0 (even for a NaN dY), e = 1 dY, e = 2 (2 X) dY, else
    // (e dY) X^(e - 1).
    case UnaryGrad::kPow: {
      const float e = args.a;
      if (e == 0.0f) return 0.0f;
      if (e == 1.0f) return dy;
      if (e == 2.0f) return Mul(Mul(2.0f, v), dy);
      return Mul(Mul(e, dy), ::powf(v, Sub(e, 1.0f)));
    }
  }
  return dy;
}

PARITY_HD void UnaryMathBody(UnaryMath fn, UnaryArgs args, const float* x, float* y, int64_t i) {
  y[i] = ApplyUnaryMath(fn, args, x[i]);
}

// Reads v[i] and dy[i] before writing dx[i]: dx may be either input.
PARITY_HD void UnaryGradBody(UnaryGrad fn, UnaryArgs args, const float* v, const float* dy,
                             float* dx, int64_t i) {
  dx[i] = ApplyUnaryGrad(fn, args, v[i], dy[i]);
}

// Output element i of Pow with an exponent input: x^e with x and e broadcast as in Add (no x^2
// special case: the CPU's binary kernel calls pow for every element).
PARITY_HD void PowBroadcastBody(const float* x, const float* e, float* y,
                                const BroadcastGeometry& g, int64_t i) {
  const BroadcastOffsets o = BroadcastOffsetsOf(g, i);
  y[i] = ::powf(x[o.a], e[o.b]);
}

// PowGradient (dY, X, E, Y): dX = (dY * E) * X^(E - 1) and dE = (dY * Y) * ln X, binary_grad.cc's
// PowGradFn, at output offset o.
enum class PowGrad { kDX, kDE };

PARITY_HD float PowGradTerm(PowGrad which, const float* dy, const float* x, const float* e,
                            const float* y, int64_t o, const BroadcastOffsets& xe) {
  if (which == PowGrad::kDX) {
    const float ev = e[xe.b];
    return Mul(Mul(dy[o], ev), ::powf(x[xe.a], Sub(ev, 1.0f)));
  }
  return Mul(Mul(dy[o], y[o]), ::logf(x[xe.a]));
}

// Operand element i of dX or dE (which): the term at each of its `count` broadcast copies in the
// output, summed serially in the output's row-major order from 0, or with count 1 the term itself
// (assigned, as on the CPU). The CPU sums in this order where the operand varies along the output's
// innermost run; where it is constant along that run the CPU's Eigen .sum() adds the run's block in
// its own order and the last bits may differ (grad2_body.h's BinaryGradBody does the same). `r` and
// `g` as there (BroadcastReduceGeometryOf, BroadcastGeometryOf). out may not be an input.
PARITY_HD void PowGradBody(PowGrad which, const float* dy, const float* x, const float* e,
                           const float* y, float* out, int64_t count, const ReduceGeometry& r,
                           const BroadcastGeometry& g, int64_t i) {
  const int64_t base = ReduceBaseOffset(r, i);
  if (count == 1) {
    out[i] = PowGradTerm(which, dy, x, e, y, base, BroadcastOffsetsOf(g, base));
    return;
  }
  float sum = 0.0f;
  for (int64_t k = 0; k < count; ++k) {
    const int64_t o = ReducedElementOffset(r, base, k);
    sum = Add(sum, PowGradTerm(which, dy, x, e, y, o, BroadcastOffsetsOf(g, o)));
  }
  out[i] = sum;
}

}  // namespace parity::gpu::kernels

#endif  // PARITY_GPU_KERNELS_UNARY_BODY_H_
