// Layout and argument helpers shared by SpatialBN / LayerNorm (norm.cc) and their gradients
// (norm_grad.cc), so forward and gradient apply the same rules and declare the same arguments.
#ifndef PARITY_CORE_OPS_NORM_NORM_H_
#define PARITY_CORE_OPS_NORM_NORM_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/schema.h"

namespace parity {
namespace norm_util {

// SpatialBN's view of X: N, C (dim 1 for NCHW, the last dim for NHWC) and the spatial size.
struct BNLayout {
  int64_t n = 0;
  int64_t c = 0;
  int64_t hxw = 0;
};
BNLayout BNDims(const std::vector<int64_t>& dims, bool nchw, const std::string& label);
// true for "NCHW", false for "NHWC", kBadArgument otherwise.
bool IsNCHW(const std::string& order, const std::string& label);
// SpatialBN's arguments: is_test, epsilon, momentum, order, num_batches.
OpSchema& SpatialBNArgs(OpSchema& schema);

// LayerNorm's mean / std dims: X.dims[:axis] + [1].
std::vector<int64_t> MomentDims(const std::vector<int64_t>& dims, int axis);
// LayerNorm's arguments: axis, epsilon, elementwise_affine.
OpSchema& LayerNormArgs(OpSchema& schema);

}  // namespace norm_util
}  // namespace parity

#endif  // PARITY_CORE_OPS_NORM_NORM_H_
