// Reduction planning shared by the Reduce* kernels (reduce.cc) and their gradients
// (reduce_grad.cc): one definition of Caffe2's axes / keepdims rules for both.
#ifndef PARITY_CORE_OPS_REDUCE_REDUCE_H_
#define PARITY_CORE_OPS_REDUCE_REDUCE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/schema.h"

namespace parity {
namespace reduce_util {

struct ReducePlan {
  std::vector<bool> reduced;  // Per input axis.
  std::vector<int64_t> out_dims;
  int64_t count = 1;          // Elements folded into each output element.
};

// `axes` (empty: all) canonicalized (negative allowed, duplicates count once); keepdims keeps
// reduced axes as size 1. kBadArgument naming the op for an axis out of range.
ReducePlan PlanReduce(const std::vector<int64_t>& dims, const std::vector<int64_t>& axes,
                      bool keepdims, const std::string& label);

// The arguments every Reduce* op and its gradient take: axes, keepdims.
OpSchema& ReduceArgs(OpSchema& schema);

// Softmax's axis in [0, rank).
int SoftmaxAxis(int64_t axis, const std::vector<int64_t>& dims, const std::string& label);

}  // namespace reduce_util
}  // namespace parity

#endif  // PARITY_CORE_OPS_REDUCE_REDUCE_H_
