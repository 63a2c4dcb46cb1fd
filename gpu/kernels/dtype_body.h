// Per-thread bodies of the kernels beyond float (dtype.cu): integer and double arithmetic,
// comparisons, logical ops, Where and its gradient, Cast. Host and device (host_device.h);
// tests/gpu/dtype_body_test.cc runs them on the host against the CPU engine's ops
// (core/ops/elementwise/binary.cc, where.cc, core/ops/unary/unary.cc), whose semantics they copy:
// integer arithmetic wraps (two's complement), division truncates, INT_MIN / -1 is INT_MIN, a
// float converted to an integer saturates with NaN -> 0.
#ifndef PARITY_GPU_KERNELS_DTYPE_BODY_H_
#define PARITY_GPU_KERNELS_DTYPE_BODY_H_

#include <cstdint>
#include <type_traits>

#include "gpu/kernels/elementwise_body.h"  // Binary, BroadcastGeometry, BroadcastOffsetsOf
#include "gpu/kernels/host_device.h"
#include "gpu/kernels/reduce_body.h"  // ReduceGeometry

namespace parity::gpu::kernels {

// The element types the kernels take: core's DataType without core (the ops map one onto the
// other). Every numeric dtype a parity tensor holds, and bool.
enum class ElementType { kFloat, kDouble, kInt8, kInt16, kInt32, kInt64, kUint8, kUint16, kBool };

// Integer arithmetic in an unsigned type at least as wide as unsigned int, so overflow wraps
// instead of being undefined; the narrowing cast back keeps the low bits (the CPU's AsWrapping /
// FromWrapping, core/ops/common/elementwise.h).
template <typename T>
using WrappingType = std::make_unsigned_t<std::common_type_t<T, unsigned>>;

// Add / Sub / Mul / Div of one element pair. Floating point is one IEEE operation, as on the CPU;
// integers wrap and divide toward zero, x / -1 being the wrapped negation (INT_MIN / -1 overflows
// otherwise). A zero divisor never gets here (the op checks B first, as the CPU does); 0 keeps
// the body total.
template <typename T>
PARITY_HD T ApplyArithmetic(Binary fn, T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = WrappingType<T>;
    switch (fn) {
      case Binary::kAdd:
        return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
      case Binary::kSub:
        return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
      case Binary::kMul:
        return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
      case Binary::kDiv:
        if (b == T(0)) return T(0);
        if constexpr (std::is_signed_v<T>) {
          if (b == T(-1)) return static_cast<T>(U(0) - static_cast<U>(a));
        }
        return static_cast<T>(a / b);
    }
    return a;
  } else {
    switch (fn) {
      case Binary::kAdd:
        return a + b;
      case Binary::kSub:
        return a - b;
      case Binary::kMul:
        return a * b;
      case Binary::kDiv:
        return a / b;
    }
    return a;
  }
}

// Output element i of a broadcasting Add / Sub / Mul / Div over T (float has BinaryBody's kernel).
template <typename T>
PARITY_HD void ArithmeticBody(Binary fn, const T* a, const T* b, T* y, const BroadcastGeometry& g,
                              int64_t i) {
  const BroadcastOffsets o = BroadcastOffsetsOf(g, i);
  y[i] = ApplyArithmetic<T>(fn, a[o.a], b[o.b]);
}

// Integer Div's check of B: every thread that sees a zero divisor writes 1 to *flag (all of them
// the same value, so the result does not depend on their order: no atomics needed). The op reads
// the flag back and, when set, finds the first zero on the host for the CPU's message.
template <typename T>
PARITY_HD void ZeroFlagBody(const T* b, int32_t* flag, int64_t i) {
  if (b[i] == T(0)) *flag = 1;
}

// The comparisons, C++'s operators (NaN compares unequal to everything, as on the CPU).
enum class Compare { kEQ, kNE, kLT, kLE, kGT, kGE };

template <typename T>
PARITY_HD bool ApplyCompare(Compare fn, T a, T b) {
  switch (fn) {
    case Compare::kEQ:
      return a == b;
    case Compare::kNE:
      return a != b;
    case Compare::kLT:
      return a < b;
    case Compare::kLE:
      return a <= b;
    case Compare::kGT:
      return a > b;
    case Compare::kGE:
      return a >= b;
  }
  return false;
}

template <typename T>
PARITY_HD void CompareBody(Compare fn, const T* a, const T* b, bool* y, const BroadcastGeometry& g,
                           int64_t i) {
  const BroadcastOffsets o = BroadcastOffsetsOf(g, i);
  y[i] = ApplyCompare<T>(fn, a[o.a], b[o.b]);
}

enum class Logical { kAnd, kOr, kXor };

PARITY_HD void LogicalBody(Logical fn, const bool* a, const bool* b, bool* y,
                           const BroadcastGeometry& g, int64_t i) {
  const BroadcastOffsets o = BroadcastOffsetsOf(g, i);
  const bool x = a[o.a], z = b[o.b];
  switch (fn) {
    case Logical::kAnd:
      y[i] = x && z;
      return;
    case Logical::kOr:
      y[i] = x || z;
      return;
    case Logical::kXor:
      y[i] = x != z;
      return;
  }
}

PARITY_HD void NotBody(const bool* x, bool* y, int64_t i) { y[i] = !x[i]; }

// Where's three operands over its output: C's, X's and Y's element strides (0 where one is
// repeated). Built from two broadcast geometries whose A is C (BroadcastGeometryOf(out, C, X)
// and (out, C, Y)): the op and the tests build it alike.
struct WhereGeometry {
  int rank = 0;
  int64_t out_dims[kMaxRank] = {};
  int64_t c_strides[kMaxRank] = {};
  int64_t x_strides[kMaxRank] = {};
  int64_t y_strides[kMaxRank] = {};
};

PARITY_HD WhereGeometry WhereGeometryFrom(const BroadcastGeometry& cx,
                                          const BroadcastGeometry& cy) {
  WhereGeometry g;
  g.rank = cx.rank;
  for (int d = 0; d < cx.rank; ++d) {
    g.out_dims[d] = cx.out_dims[d];
    g.c_strides[d] = cx.a_strides[d];
    g.x_strides[d] = cx.b_strides[d];
    g.y_strides[d] = cy.b_strides[d];
  }
  return g;
}

// Output element i of Where: C ? X : Y. W is a word of the element's size (the select moves
// bits, so one kernel per size serves every dtype).
template <typename W>
PARITY_HD void WhereBody(const bool* c, const W* x, const W* y, W* z, const WhereGeometry& g,
                         int64_t i) {
  int64_t rest = i, ic = 0, ix = 0, iy = 0;
  for (int d = g.rank - 1; d >= 0; --d) {
    const int64_t coord = rest % g.out_dims[d];
    rest /= g.out_dims[d];
    ic += coord * g.c_strides[d];
    ix += coord * g.x_strides[d];
    iy += coord * g.y_strides[d];
  }
  z[i] = c[ic] ? x[ix] : y[iy];
}

// Element i of dX (when_true) or dY of WhereGradient: dZ at each of the element's `count`
// broadcast copies where C is when_true, added into 0 serially in the output's row-major order,
// as the CPU adds (so a -0.0 alone becomes +0.0 there too). `r` is BroadcastReduceGeometryOf's
// view of the output as the operand's dims (kept) and its broadcast dims (reduced); `c_of` maps an
// output element to C's (its a_strides).
template <typename T>
PARITY_HD void WhereGradBody(bool when_true, const bool* c, const T* dz, T* d, int64_t count,
                             const ReduceGeometry& r, const BroadcastGeometry& c_of, int64_t i) {
  const int64_t base = ReduceBaseOffset(r, i);
  T sum = T(0);
  for (int64_t k = 0; k < count; ++k) {
    const int64_t o = ReducedElementOffset(r, base, k);
    if (c[BroadcastOffsetsOf(c_of, o).a] == when_true) sum = sum + dz[o];
  }
  d[i] = sum;
}

// The lowest and highest value of an integer type (std::numeric_limits is not callable in
// device code without nvcc's relaxed constexpr).
template <typename T>
struct IntegerLimits {
  static constexpr T kLowest =
      std::is_signed_v<T> ? static_cast<T>(WrappingType<T>(1) << (8 * sizeof(T) - 1)) : T(0);
  static constexpr T kMax = std::is_signed_v<T> ? static_cast<T>(~kLowest) : static_cast<T>(~T(0));
};

// Cast's conversion (core/ops/unary/unary.cc's CastValue): C++'s, except floating point to an
// integer, which saturates at the type's limits and maps NaN to 0.
template <typename To, typename From>
PARITY_HD To CastValue(From v) {
  if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To> &&
                !std::is_same_v<To, bool>) {
    if (v != v) return To(0);
    // The limits as From: exact for the minimum (a power of two or 0); the maximum rounds up to
    // a power of two for wide types, hence ">=".
    constexpr From kLow = static_cast<From>(IntegerLimits<To>::kLowest);
    constexpr From kHigh = static_cast<From>(IntegerLimits<To>::kMax);
    if (v <= kLow) return IntegerLimits<To>::kLowest;
    if (v >= kHigh) return IntegerLimits<To>::kMax;
    return static_cast<To>(v);
  } else {
    return static_cast<To>(v);
  }
}

template <typename To, typename From>
PARITY_HD void CastBody(const From* x, To* y, int64_t i) {
  y[i] = CastValue<To, From>(x[i]);
}

}  // namespace parity::gpu::kernels

#endif  // PARITY_GPU_KERNELS_DTYPE_BODY_H_
