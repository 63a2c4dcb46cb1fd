// Shape rules, label access and argument declarations shared by the loss kernels (loss.cc) and
// their gradients (loss_grad.cc).
#ifndef PARITY_CORE_OPS_LOSS_LOSS_H_
#define PARITY_CORE_OPS_LOSS_LOSS_H_

#include <cmath>
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

// Every one of the n labels in [0, d), else kBadArgument naming the first label out of range, its
// row and `of` (what the labels index, e.g. "logits float [2, 3]"). Checked before anything is
// computed, by the CPU kernels and by the CUDA ones on a host copy of the labels.
template <typename Index>
void CheckLabelRange(const Index* labels, int64_t n, int64_t d, const std::string& label,
                     const std::string& of) {
  for (int64_t i = 0; i < n; ++i) {
    PARITY_ENFORCE(labels[i] >= 0 && labels[i] < d, ErrorKind::kBadArgument, label, ": label ",
                   labels[i], " of row ", i, " is out of range [0, ", d, ") for ", of);
  }
}

// SoftmaxWithLoss's label probabilities, n rows of d: none negative and every row summing to 1
// within 1e-5 (in double, in index order), else kBadArgument naming the first offender, row by
// row.
template <typename T>
void CheckLabelProbabilities(const T* probs, int64_t n, int64_t d, const std::string& label) {
  for (int64_t i = 0; i < n; ++i) {
    double total = 0;
    for (int64_t j = 0; j < d; ++j) {
      const double q = probs[i * d + j];
      PARITY_ENFORCE(q >= 0, ErrorKind::kBadArgument, label, ": label probability ", q, " at [",
                     i, ", ", j, "] is negative");
      total += q;
    }
    PARITY_ENFORCE(std::abs(total - 1.0) < 1e-5, ErrorKind::kBadArgument, label,
                   ": label probabilities of row ", i, " sum to ", total, ", not 1");
  }
}

// `t` must be `dtype` with `dims`, else kShapeMismatch naming it as `what` (the gradients' inputs).
inline void ExpectTensor(const Tensor& t, const std::vector<int64_t>& dims, DataType dtype,
                         const std::string& label, const std::string& blob, const char* what) {
  PARITY_ENFORCE(t.dims() == dims && t.dtype() == dtype, ErrorKind::kShapeMismatch, label, ": ",
                 what, " '", blob, "' must be ", DataTypeName(dtype), " ", ShapeString(dims),
                 ", got ", t.DebugString());
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
// The two SigmoidCrossEntropyWithLogits modes exclude each other (forward and gradient, both
// devices).
void CheckSigmoidCEModes(bool log_d_trick, bool unjoined, const std::string& label);

}  // namespace loss_util
}  // namespace parity

#endif  // PARITY_CORE_OPS_LOSS_LOSS_H_
