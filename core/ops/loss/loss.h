// Shape rules, label access and argument declarations shared by the loss kernels (loss.cc) and
// their gradients (loss_grad.cc).
#ifndef PARITY_CORE_OPS_LOSS_LOSS_H_
#define PARITY_CORE_OPS_LOSS_LOSS_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/proto/error.h"
#include "core/schema.h"
#include "core/ops/common/shape_util.h"
#include "core/tensor.h"

namespace parity {
namespace loss_util {

// Caffe2's floor inside -log(p) for probabilities (kLOG_THRESHOLD).
constexpr double kLogThreshold = 1e-20;

// Calls fn(label_pointer) with the labels as const int32_t* or const int64_t*.
template <typename Fn>
void WithLabels(const Tensor& t, const std::string& label, const std::string& blob, Fn&& fn) {
  shape_util::DispatchIndex(t, label, blob, "labels", std::forward<Fn>(fn));
}

// SoftmaxWithLoss takes order "NCHW" only (its axis argument says where the classes are).
void CheckSoftmaxLossOrder(const std::string& order, const std::string& label);

// The optional per-row weights of SoftmaxWithLoss: `n` values of X's dtype.
template <typename T>
const T* RowWeights(const Tensor& w, DataType dtype, int64_t n, const std::string& label,
                    const std::string& blob) {
  PARITY_ENFORCE(w.dtype() == dtype && w.numel() == n, ErrorKind::kShapeMismatch, label,
                 ": weights '", blob, "' must be ", DataTypeName(dtype),
                 " with one weight per row (", n, "), got ", w.DebugString());
  return w.data<T>();
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

#endif  // PARITY_CORE_OPS_LOSS_LOSS_H_
