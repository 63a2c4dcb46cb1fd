// Eigen views of a kernel's flat buffers as 1-D arrays, shared by the norm, loss and reduction
// kernels (forward and gradient), so each computes with Eigen's vectorized array expressions.
#ifndef PARITY_CORE_OPS_COMMON_EIGEN_MAPS_H_
#define PARITY_CORE_OPS_COMMON_EIGEN_MAPS_H_

#include <Eigen/Core>
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

}  // namespace parity

#endif  // PARITY_CORE_OPS_COMMON_EIGEN_MAPS_H_
