// Eigen views of a kernel's flat buffers as 1-D arrays, shared by the norm, loss and reduction
// kernels (forward and gradient), so each computes with Eigen's vectorized array expressions.
#ifndef PARITY_CORE_OPS_COMMON_EIGEN_MAPS_H_
#define PARITY_CORE_OPS_COMMON_EIGEN_MAPS_H_

#include <Eigen/Core>
#include <algorithm>
#include <cstdint>

namespace parity {

template <typename T>
using ArrayMap = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;
template <typename T>
using ConstArrayMap = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;

// The fold of term(0) ... term(n - 1) by `combine`, in an order fixed by the indices alone.
// Eigen's sum() of a Map adds scalars until the first aligned address before it adds packets, so
// the same values round differently by where they lie: a view at an offset into another blob's
// storage (RecurrentNetwork's aliases) summed to other bits than a fresh tensor holding the same
// values, and the determinism oracle saw LayerNorm's mean move by an ulp. Here: eight lanes by
// index started from the first eight terms (what the compiler vectorizes, with unaligned loads),
// folded ((l0 . l4) . (l1 . l5)) . ((l2 . l6) . (l3 . l7)), then the tail in order; fewer than
// eight terms, a serial fold from term(0); `empty` for none. Starting from the terms, not from 0,
// keeps a sum of -0.0s -0.0. The CUDA bodies replay it (gpu/kernels/reduction_body.h).
template <typename T, typename Term, typename Combine>
T IndexOrderedFold(int64_t n, T empty, const Term& term, const Combine& combine) {
  if (n <= 0) return empty;
  if (n < 8) {
    T acc = term(0);
    for (int64_t i = 1; i < n; ++i) acc = combine(acc, term(i));
    return acc;
  }
  T lanes[8];
  for (int k = 0; k < 8; ++k) lanes[k] = term(k);
  int64_t i = 8;
  for (; i + 8 <= n; i += 8) {
    for (int k = 0; k < 8; ++k) lanes[k] = combine(lanes[k], term(i + k));
  }
  T acc = combine(combine(combine(lanes[0], lanes[4]), combine(lanes[1], lanes[5])),
                  combine(combine(lanes[2], lanes[6]), combine(lanes[3], lanes[7])));
  for (; i < n; ++i) acc = combine(acc, term(i));
  return acc;
}

template <typename T, typename Term>
T IndexOrderedSum(int64_t n, const Term& term) {
  return IndexOrderedFold<T>(n, T(0), term, [](T a, T b) { return a + b; });
}

template <typename T, typename Term>
T IndexOrderedProduct(int64_t n, const Term& term) {
  return IndexOrderedFold<T>(n, T(1), term, [](T a, T b) { return a * b; });
}

// dst[0, n) = segment(0, n), an Eigen array expression of T, evaluated with its packets starting
// at index 0 whatever dst's address. Eigen starts packets at the destination's first aligned
// address, and its vector exp, log, tanh round otherwise than the scalar ones on the head: an
// output written over a view at an offset came out other bits. `segment(begin, len)` gives the
// expression for dst[begin, begin + len); a destination off alignment is computed through an
// aligned block.
template <typename T, typename Segment>
void AssignIndexAligned(T* dst, int64_t n, const Segment& segment) {
  constexpr int64_t kAlignment = 64;
  if (reinterpret_cast<uintptr_t>(dst) % kAlignment == 0) {
    ArrayMap<T>(dst, n) = segment(int64_t{0}, n);
    return;
  }
  constexpr int64_t kBlock = 256;  // a multiple of every packet size
  alignas(kAlignment) T block[kBlock];
  for (int64_t i = 0; i < n; i += kBlock) {
    const int64_t len = std::min(kBlock, n - i);
    Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>, Eigen::Aligned64>(block, len) = segment(i, len);
    std::copy(block, block + len, dst + i);
  }
}

}  // namespace parity

#endif  // PARITY_CORE_OPS_COMMON_EIGEN_MAPS_H_
