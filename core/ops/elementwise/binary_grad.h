// Shared pieces of the elementwise gradient kernels (elementwise_grad.cc,
// elementwise_variadic_grad.cc): dtype checks, distinct outputs, and routing outputs that
// share memory with an input through scratch tensors.
#ifndef PARITY_CORE_OPS_ELEMENTWISE_BINARY_GRAD_H_
#define PARITY_CORE_OPS_ELEMENTWISE_BINARY_GRAD_H_

#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>
#include "core/operator.h"
#include "core/ops/common/broadcast.h"
#include "core/ops/common/eigen_maps.h"
#include "core/ops/common/elementwise.h"
#include "core/ops/elementwise/binary.h"
#include "core/schema.h"

namespace parity::elementwise_grad {

using elementwise::Array;
using elementwise::ConstMap;
using elementwise::Map;
using elementwise::SameDims;


// Every input tensor float or double, all of one dtype. `names[i]` names input i in messages.
template <class Describe>
inline DataType CheckGradientDtypes(const std::vector<DataType>& dtypes, const std::vector<std::string>& names,
                             Describe&& describe, const std::string& label) {
  PARITY_ENFORCE(dtypes[0] == DataType::kFloat || dtypes[0] == DataType::kDouble,
                 ErrorKind::kShapeMismatch, label, ": unsupported dtype of ", names[0], " (",
                 describe(0), "); supported: float, double");
  for (size_t i = 1; i < dtypes.size(); ++i) {
    PARITY_ENFORCE(dtypes[i] == dtypes[0], ErrorKind::kShapeMismatch, label, ": ", names[i], " (",
                   describe(i), ") must have the dtype of ", names[0], " (", describe(0), ")");
  }
  return dtypes[0];
}

// Where a gradient kernel writes its outputs: into the output tensor, or — when the output blob is
// also an input (in place) or its memory overlaps an input's (views) — into a scratch tensor that
// Finish copies over once every output is computed. Scratch tensors persist across runs.
class OutputRouter {
 public:
  template <typename T>
  T* Prepare(Operator& op, int i, const std::vector<int64_t>& dims) {
    if (scratch_.size() < static_cast<size_t>(op.OutputSize())) {
      scratch_.resize(op.OutputSize());
      aside_.resize(op.OutputSize());
    }
    bool aside = false;
    for (int j = 0; j < op.InputSize(); ++j) aside = aside || op.OutputBlob(i) == op.InputBlob(j);
    if (!aside) {
      Tensor* out = op.Output(i);
      elementwise::ResizeTo(out, dims);
      T* data = out->mutable_data<T>();
      for (int j = 0; j < op.InputSize() && !aside; ++j) {
        const Tensor& in = op.Input(j);
        aside = elementwise::UnsafeOverlap(data, out->nbytes(), in.raw_data(), in.nbytes(), false);
      }
      if (!aside) {
        aside_[i] = false;
        return data;
      }
    }
    aside_[i] = true;
    elementwise::ResizeTo(&scratch_[i], dims);
    return scratch_[i].mutable_data<T>();
  }

  // Copies the outputs computed aside into their blobs.
  template <typename T>
  void Finish(Operator& op) {
    for (int i = 0; i < op.OutputSize() && i < static_cast<int>(aside_.size()); ++i) {
      if (!aside_[i]) continue;
      Tensor* out = op.Output(i);
      elementwise::ResizeTo(out, scratch_[i].dims());
      if (scratch_[i].numel() > 0) {
        std::memcpy(out->mutable_data<T>(), scratch_[i].data<T>(), scratch_[i].nbytes());
      }
    }
  }

 private:
  std::vector<Tensor> scratch_;
  std::vector<char> aside_;
};

inline int64_t NumElements(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}


// Two outputs of one gradient op cannot be one blob (each would overwrite the other).
inline void CheckDistinctOutputs(const caffe2::OperatorDef& def, const std::string& label) {
  for (int i = 0; i < def.output_size(); ++i) {
    for (int j = i + 1; j < def.output_size(); ++j) {
      PARITY_ENFORCE(def.output(i) != def.output(j), ErrorKind::kBadArgument, label, ": outputs ",
                     i, " and ", j, " are both '", def.output(i),
                     "'; each input gradient needs its own blob");
    }
  }
}

// out[...] = expr (vector block, `assign`), += expr (vector block), or += sum(expr) (repeated).
// The sum is index-ordered (IndexOrderedSum): Eigen's sum() starts its packets at the first
// aligned address, so a gradient fed as a view off alignment summed to other bits.
template <typename T, class E>
inline void Store(T* out, int64_t offset, bool vector, bool assign, const E& expr) {
  if (vector) {
    Map<T> dst(out + offset, expr.size());
    if (assign) {
      dst = expr;
    } else {
      dst += expr;
    }
    return;
  }
  const Eigen::internal::evaluator<E> values(expr);
  const T sum = IndexOrderedSum<T>(expr.size(), [&values](int64_t i) { return values.coeff(i); });
  if (assign) {
    out[offset] = sum;
  } else {
    out[offset] += sum;
  }
}

}  // namespace parity::elementwise_grad

#endif  // PARITY_CORE_OPS_ELEMENTWISE_BINARY_GRAD_H_
