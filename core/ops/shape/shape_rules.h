// Argument rules of the shape ops (shape.cc) that a kernel needs beyond the output dims: the
// CUDA kernels (gpu/ops/shape.cc) take their dims from the ops' shape inference, which runs the
// same functions as the CPU kernels, and these for the permutation and the concat/split axis.
#ifndef PARITY_CORE_OPS_SHAPE_SHAPE_RULES_H_
#define PARITY_CORE_OPS_SHAPE_SHAPE_RULES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/argument.h"

namespace parity {
namespace shape_rules {

// Transpose's permutation from `axes` (default: reversed axes); kBadArgument unless a
// permutation of the input's axes.
std::vector<int> TransposeAxes(const std::vector<int64_t>& axes, const std::vector<int64_t>& dims,
                               const std::string& label);

// The (possibly negative) axis of Concat/Split: `axis`, else from `order` (NCHW -> 1, NHWC -> 3);
// giving both is an error, as in Caffe2. add_axis only counts together with `axis`.
struct AxisSpec {
  int64_t axis;
  bool add_axis;
};
AxisSpec ConcatSplitAxis(const ArgumentHelper& args);

}  // namespace shape_rules
}  // namespace parity

#endif  // PARITY_CORE_OPS_SHAPE_SHAPE_RULES_H_
