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

// The sum of term(0) ... term(n - 1) in an order fixed by the indices alone. Eigen's sum() of a
// Map adds scalars until the first aligned address before it adds packets, so the same values
// round differently by where they lie: a view at an offset into another blob's storage
// (RecurrentNetwork's aliases) summed to other bits than a fresh tensor holding the same values,
// and the determinism oracle's rerun saw LayerNorm's mean move by an ulp. Eight lanes by index
// (what the compiler vectorizes, with unaligned loads), the lanes added pairwise, then the tail.
template <typename T, typename Term>
T IndexOrderedSum(int64_t n, const Term& term) {
  T lanes[8] = {};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (int k = 0; k < 8; ++k) lanes[k] += term(i + k);
  }
  T sum = ((lanes[0] + lanes[4]) + (lanes[1] + lanes[5])) +
          ((lanes[2] + lanes[6]) + (lanes[3] + lanes[7]));
  for (; i < n; ++i) sum += term(i);
  return sum;
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

// The product of term(0) ... term(n - 1), in the same index-fixed order as IndexOrderedSum.
template <typename T, typename Term>
T IndexOrderedProduct(int64_t n, const Term& term) {
  T lanes[8] = {T(1), T(1), T(1), T(1), T(1), T(1), T(1), T(1)};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (int k = 0; k < 8; ++k) lanes[k] *= term(i + k);
  }
  T product = ((lanes[0] * lanes[4]) * (lanes[1] * lanes[5])) *
              ((lanes[2] * lanes[6]) * (lanes[3] * lanes[7]));
  for (; i < n; ++i) product *= term(i);
  return product;
}

}  // namespace parity

#endif  // PARITY_CORE_OPS_COMMON_EIGEN_MAPS_H_
