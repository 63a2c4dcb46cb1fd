// Shape rules, label access and argument declarations shared by the loss kernels (loss.cc) and
// their gradients (loss_grad.cc).
#ifndef PARITY_CORE_OPS_LOSS_H_
#define PARITY_CORE_OPS_LOSS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/proto/error.h"
#include "core/schema.h"
#include "core/tensor.h"

namespace parity {
namespace loss_util {

// Caffe2's floor inside -log(p) for probabilities (kLOG_THRESHOLD).
constexpr double kLogThreshold = 1e-20;

// Calls fn(label_pointer) with the labels as const int32_t* or const int64_t*.
template <typename Fn>
void WithLabels(const Tensor& t, const std::string& label, const std::string& blob, Fn&& fn) {
  if (t.dtype() == DataType::kInt32) {
    fn(t.data<int32_t>());
  } else if (t.dtype() == DataType::kInt64) {
    fn(t.data<int64_t>());
  } else {
    throw MakeError(ErrorKind::kShapeMismatch, label, ": labels '", blob,
                    "' must be int32 or int64, got ", t.DebugString());
  }
}

// SquaredL2Distance's rows: dim 0 (1 for a scalar).
int64_t RowsOf(const std::vector<int64_t>& dims);

// LabelCrossEntropy: X [N, D] (1-D X is one row), labels [N] or [N, 1].
struct RowsCols {
  int64_t n;
  int64_t d;
};
RowsCols LabelCEDims(const std::vector<int64_t>& x, const std::vector<int64_t>& label_dims,
                     const std::string& label);

// SoftmaxWithLoss: labels (or label probabilities) against logits coerced to 2-D at `axis`.
void CheckSoftmaxLossLabels(const std::vector<int64_t>& x, const std::vector<int64_t>& t,
                            int axis, bool label_prob, const std::string& label);
// scale, label_prob, axis, order.
OpSchema& SoftmaxWithLossArgs(OpSchema& schema);

// SigmoidCrossEntropyWithLogits: logits and targets of one shape; the output drops the last dim.
std::vector<int64_t> SigmoidCEDims(const std::vector<int64_t>& x, const std::vector<int64_t>& t,
                                   const std::string& label);
// log_D_trick, unjoined_lr_loss.
OpSchema& SigmoidCrossEntropyArgs(OpSchema& schema);

}  // namespace loss_util
}  // namespace parity

#endif  // PARITY_CORE_OPS_LOSS_H_
