// Per-thread bodies of Range, Trilu, GatherElements (+ gradient) and Mod (+ gradient) on the
// device (misc.cu), each the CPU kernel's definition (core/ops/fill/range.cc,
// core/ops/linalg/trilu.cc, core/ops/shape/gather_elements.cc, core/ops/elementwise/mod.cc,
// core/ops/elementwise/binary_grad.cc's ModGradFn). Host and device (host_device.h);
// tests/gpu/misc_body_test.cc runs them on the host, with the geometries the ops build, against
// the CPU engine. Indices were range-checked on the host before any launch; every output
// element is written by one thread (GatherElementsGradient gathers its picks in the CPU's order
// instead of scattering them), so no atomics.
#ifndef PARITY_GPU_KERNELS_MISC_BODY_H_
#define PARITY_GPU_KERNELS_MISC_BODY_H_

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "gpu/kernels/elementwise_body.h"  // kMaxRank, BroadcastGeometry, BroadcastOffsetsOf
#include "gpu/kernels/host_device.h"
#include "gpu/kernels/ieee_body.h"
#include "gpu/kernels/reduce_body.h"  // ReduceGeometry, ReduceBaseOffset, ReducedElementOffset

namespace parity::gpu::kernels {

// ---- Range: element i is start + i * step in the dtype (two roundings for floats, as the CPU's
// start + T(i) * step; integers wrap in the unsigned type, as the CPU computes them).

PARITY_HD float RangeValue(float start, int64_t i, float step) {
  return Add(start, Mul(static_cast<float>(i), step));
}
PARITY_HD double RangeValue(double start, int64_t i, double step) {
  return AddD(start, MulD(static_cast<double>(i), step));
}
template <typename T>
PARITY_HD T RangeValue(T start, int64_t i, T step) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(start) + static_cast<U>(i) * static_cast<U>(step));
}

template <typename T>
PARITY_HD void RangeBody(T start, T step, T* y, int64_t i) {
  y[i] = RangeValue(start, i, step);
}

// ---- Trilu: element `at` of matrices rows x cols stays where j - i >= k (upper) or <= k
// (lower), else 0. The dtypes (float, double, int32, int64) all have zero as all-bits-zero, so
// the kernel moves words of the element's size (Word: uint32_t or uint64_t). y may be x.

template <typename Word>
PARITY_HD void TriluBody(const Word* x, Word* y, int64_t rows, int64_t cols, bool upper, int64_t k,
                         int64_t at) {
  const int64_t j = at % cols;
  const int64_t i = (at / cols) % rows;
  const bool keep = upper ? j - i >= k : j - i <= k;
  y[at] = keep ? x[at] : Word(0);
}

// ---- GatherElements over DATA and INDICES of one rank (<= kMaxRank): the dims of INDICES, the
// element strides of DATA and of INDICES, the axis and DATA's size along it.
struct GatherElementsGeometry {
  int rank = 0;
  int axis = 0;
  int64_t bound = 0;
  int64_t data_dims[kMaxRank] = {};
  int64_t idx_dims[kMaxRank] = {};
  int64_t data_strides[kMaxRank] = {};
  int64_t idx_strides[kMaxRank] = {};
};

// The geometry of DATA and INDICES of `rank` dims (at most kMaxRank: the op checks), row-major
// strides: what the op builds and the host tests too.
inline GatherElementsGeometry GatherElementsGeometryOf(int rank, const int64_t* data,
                                                       const int64_t* idx, int axis) {
  GatherElementsGeometry g;
  g.rank = rank;
  g.axis = axis;
  g.bound = data[axis];
  int64_t data_stride = 1, idx_stride = 1;
  for (int d = rank - 1; d >= 0; --d) {
    g.data_dims[d] = data[d];
    g.idx_dims[d] = idx[d];
    g.data_strides[d] = data_stride;
    g.idx_strides[d] = idx_stride;
    data_stride *= data[d];
    idx_stride *= idx[d];
  }
  return g;
}

// OUTPUT[k] = DATA[the offset INDICES[k] picks]: k's coordinates in INDICES with the axis one
// replaced by the index (negative ones count from the end). Word: the element's size.
template <typename Word, typename Index>
PARITY_HD void GatherElementsBody(const Word* data, const Index* idx, Word* out,
                                  const GatherElementsGeometry& g, int64_t k) {
  int64_t rest = k, from = 0;
  for (int d = g.rank - 1; d >= 0; --d) {
    const int64_t coord = rest % g.idx_dims[d];
    rest /= g.idx_dims[d];
    if (d != g.axis) from += coord * g.data_strides[d];
  }
  int64_t v = static_cast<int64_t>(idx[k]);
  if (v < 0) v += g.bound;
  out[k] = data[from + v * g.data_strides[g.axis]];
}

PARITY_HD float PlusOf(float a, float b) { return Add(a, b); }
PARITY_HD double PlusOf(double a, double b) { return AddD(a, b); }

// dDATA[to]: the sum, from 0, of dY at every position of INDICES that picks `to`, in INDICES'
// row-major order as the CPU's scatter adds them. Those positions share `to`'s coordinates off the
// axis (none where `to` lies beyond INDICES' dims there) and run along the axis in order.
template <typename T, typename Index>
PARITY_HD void GatherElementsGradientBody(const T* dy, const Index* idx, T* ddata,
                                          const GatherElementsGeometry& g, int64_t to) {
  int64_t rest = to, base = 0, target = 0;
  bool inside = true;
  for (int d = g.rank - 1; d >= 0; --d) {
    const int64_t coord = rest % g.data_dims[d];
    rest /= g.data_dims[d];
    if (d == g.axis) {
      target = coord;
    } else {
      inside = inside && coord < g.idx_dims[d];
      base += coord * g.idx_strides[d];
    }
  }
  T sum = T(0);
  if (inside) {
    for (int64_t a = 0; a < g.idx_dims[g.axis]; ++a) {
      const int64_t k = base + a * g.idx_strides[g.axis];
      int64_t v = static_cast<int64_t>(idx[k]);
      if (v < 0) v += g.bound;
      if (v == target) sum = PlusOf(sum, dy[k]);
    }
  }
  ddata[to] = sum;
}

// ---- Mod: the remainder with A's sign (C's %, fmod) or B's (Python's %). Integer B was checked
// non-zero on the host; INT_MIN % -1 is 0, as on the CPU.

template <typename T>
PARITY_HD T ModRemainder(T a, T b, bool sign_follows_divisor) {
  T r;
  if constexpr (std::is_same_v<T, float>) {
    r = ::fmodf(a, b);
  } else if constexpr (std::is_same_v<T, double>) {
    r = ::fmod(a, b);
  } else if constexpr (std::is_signed_v<T>) {
    r = b == T(-1) ? T(0) : static_cast<T>(a % b);
  } else {
    r = static_cast<T>(a % b);
  }
  if constexpr (std::is_signed_v<T>) {
    if (sign_follows_divisor && r != T(0) && ((r < T(0)) != (b < T(0)))) {
      r = static_cast<T>(r + b);
    }
  }
  return r;
}

// Output element i of the broadcasting Mod (BroadcastGeometryOf's geometry).
template <typename T>
PARITY_HD void ModBody(const T* a, const T* b, T* y, bool sign_follows_divisor,
                       const BroadcastGeometry& g, int64_t i) {
  const BroadcastOffsets o = BroadcastOffsetsOf(g, i);
  y[i] = ModRemainder(a[o.a], b[o.b], sign_follows_divisor);
}

}  // namespace parity::gpu::kernels

#endif  // PARITY_GPU_KERNELS_MISC_BODY_H_
