// Layout and argument helpers shared by SpatialBN / LayerNorm (norm.cc) and their gradients
// (norm_grad.cc), so forward and gradient apply the same rules and declare the same arguments.
#ifndef PARITY_CORE_OPS_NORM_NORM_H_
#define PARITY_CORE_OPS_NORM_NORM_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/operator.h"
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

// SpatialBN's arguments, read and checked against the op's output and input counts: one reading
// for the CPU kernel and the CUDA one (gpu/ops/norm.cc), so both reject the same nets.
struct BNOptions {
  bool is_test = false;
  double epsilon = 1e-5;
  double momentum = 0.9;
  bool nchw = true;
  int64_t num_batches = 1;
};
BNOptions ReadSpatialBNOptions(const Operator& op);
// Input i holds one `dtype` value per channel (c of them), else kShapeMismatch naming X.
void CheckChannelInput(const Operator& op, int i, DataType dtype, int64_t c);

// LayerNorm's mean / std dims: X.dims[:axis] + [1].
std::vector<int64_t> MomentDims(const std::vector<int64_t>& dims, int axis);
// LayerNorm's arguments: axis, epsilon, elementwise_affine.
OpSchema& LayerNormArgs(OpSchema& schema);

// SpatialBNGradient's arguments (order, is_test, epsilon > 0, num_batches 1: other batches' sums
// have no gradient), for the CPU and CUDA gradients (norm_grad.cc, gpu/ops/norm_grad.cc).
BNOptions ReadSpatialBNGradientOptions(const Operator& op);
// SpatialBNGradient's dY (input 2) has X's dtype and dims; returns X's layout.
BNLayout CheckSpatialBNGradientInputs(const Operator& op, bool nchw);

// LayerNormGradient: (dY, Y, mean, std, X) -> dX, or with gamma -> (dX, dgamma, dbeta).
void CheckLayerNormGradientArity(const Operator& op, bool affine);

// LayerNorm takes 1 input, or 3 with elementwise_affine (kBadArgument otherwise).
void CheckLayerNormInputs(const Operator& op, bool affine);
// LayerNorm's rows: X as m rows of n elements from `axis` (canonicalized); with affine, gamma
// and beta must hold n values of X's dtype.
struct LayerNormRows {
  int axis = 0;
  int64_t m = 0;
  int64_t n = 0;
};
LayerNormRows PlanLayerNorm(const Operator& op, int64_t axis, bool affine);
// LayerNormGradient's rows (of X, input 4) and its checks of dY, Y, mean, std and gamma.
LayerNormRows PlanLayerNormGradient(const Operator& op, int64_t axis, bool affine);

}  // namespace norm_util
}  // namespace parity

#endif  // PARITY_CORE_OPS_NORM_NORM_H_
