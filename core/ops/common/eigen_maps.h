// Eigen views of a kernel's flat buffers as 1-D arrays, shared by the norm, loss and reduction
// kernels (forward and gradient), so each computes with Eigen's vectorized array expressions.
#ifndef PARITY_CORE_OPS_COMMON_EIGEN_MAPS_H_
#define PARITY_CORE_OPS_COMMON_EIGEN_MAPS_H_

#include <Eigen/Core>

namespace parity {

template <typename T>
using ArrayMap = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;
template <typename T>
using ConstArrayMap = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;

}  // namespace parity

#endif  // PARITY_CORE_OPS_COMMON_EIGEN_MAPS_H_
