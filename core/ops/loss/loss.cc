// Losses: SquaredL2Distance, AveragedLoss, LabelCrossEntropy, SoftmaxWithLoss,
// SigmoidCrossEntropyWithLogits. Caffe2 semantics (caffe2/operators/distance_op.cc, loss_op.cc,
// cross_entropy_op.cc, softmax_with_loss_op.cc), newer pytorch tree. float and double; labels
// int32 or int64.
#include <Eigen/Core>
#include <algorithm>
#include <cmath>

#include "core/ops/loss/loss.h"

#include "core/operator.h"
#include "core/ops/common/eigen_maps.h"
#include "core/ops/common/shape_util.h"
#include "core/schema.h"

namespace parity {
namespace loss_util {

using shape_util::SizeFromDim;
using shape_util::SizeToDim;

int64_t RowsOf(const std::vector<int64_t>& dims) { return dims.empty() ? 1 : dims[0]; }

RowsCols LabelCEDims(const std::vector<int64_t>& x, const std::vector<int64_t>& label_dims,
                     const std::string& label) {
  PARITY_ENFORCE(!x.empty(), ErrorKind::kShapeMismatch, label,
                 ": X must have rank >= 1, got a scalar []");
  RowsCols rc = x.size() > 1 ? RowsCols{x[0], SizeFromDim(x, 1)} : RowsCols{1, x[0]};
  const bool shape_ok = (label_dims.size() == 1 || (label_dims.size() == 2 && label_dims[1] == 1)) &&
                        label_dims[0] == rc.n;
  PARITY_ENFORCE(shape_ok, ErrorKind::kShapeMismatch, label, ": labels ", ShapeString(label_dims),
                 " must be [", rc.n, "] or [", rc.n, ", 1] for X ", ShapeString(x));
  return rc;
}

void CheckSoftmaxLossOrder(const std::string& order, const std::string& label) {
  PARITY_ENFORCE(order == "NCHW", ErrorKind::kBadArgument, label, ": argument 'order' = \"", order,
                 "\" is not supported (only \"NCHW\")");
}

void CheckSoftmaxLossLabels(const std::vector<int64_t>& x, const std::vector<int64_t>& t,
                            int axis, bool label_prob, const std::string& label) {
  const int64_t n = SizeToDim(x, axis);
  const int64_t d = SizeFromDim(x, axis);
  bool ok;
  if (label_prob) {
    ok = t.size() >= 2 && static_cast<int>(t.size()) >= axis && SizeToDim(t, axis) == n &&
         SizeFromDim(t, axis) == d;
  } else if (static_cast<int>(t.size()) == axis) {
    ok = SizeFromDim(t, 0) == n;
  } else {
    ok = static_cast<int>(t.size()) > axis && SizeToDim(t, axis) == n && SizeFromDim(t, axis) == 1;
  }
  PARITY_ENFORCE(ok, ErrorKind::kShapeMismatch, label, ": labels ", ShapeString(t),
                 label_prob ? " must be probabilities shaped like the logits "
                            : " must hold one label per row of the logits ",
                 ShapeString(x), " (", n, " rows of ", d, " at axis ", axis, ")");
}

void CheckSigmoidCEModes(bool log_d_trick, bool unjoined, const std::string& label) {
  PARITY_ENFORCE(!(log_d_trick && unjoined), ErrorKind::kBadArgument, label,
                 ": log_D_trick and unjoined_lr_loss cannot both be set");
}

std::vector<int64_t> SigmoidCEDims(const std::vector<int64_t>& x, const std::vector<int64_t>& t,
                                   const std::string& label) {
  PARITY_ENFORCE(x == t, ErrorKind::kShapeMismatch, label, ": logits ", ShapeString(x),
                 " and targets ", ShapeString(t), " must have the same shape");
  PARITY_ENFORCE(x.empty() || x.back() > 0, ErrorKind::kShapeMismatch, label, ": logits ",
                 ShapeString(x), " have an empty last dim to average over");
  return x.empty() ? x : std::vector<int64_t>(x.begin(), x.end() - 1);
}

OpSchema& SoftmaxWithLossArgs(OpSchema& schema) {
  return schema
      .Arg("scale", ArgType::kFloat, 1.0, "Multiplies the averaged loss.")
      .Arg("label_prob", ArgType::kInt, int64_t{0},
           "If 1, labels are per-class probabilities shaped like the logits (rows sum to 1).")
      .Arg("axis", ArgType::kInt, int64_t{1},
           "Logits are coerced to 2-D [prod(dims[:axis]), prod(dims[axis:])].")
      .Arg("order", ArgType::kString, std::string("NCHW"), "Only \"NCHW\" is supported.");
}

OpSchema& SigmoidCrossEntropyArgs(OpSchema& schema) {
  return schema
      .Arg("log_D_trick", ArgType::kInt, int64_t{0},
           "If 1, use (2t - 1) * log(sigmoid(x)) (the GAN log-D trick).")
      .Arg("unjoined_lr_loss", ArgType::kInt, int64_t{0},
           "If 1, use Caffe2's unjoined logistic-regression loss.");
}

}  // namespace loss_util

namespace {

using loss_util::CheckSoftmaxLossLabels;
using loss_util::CheckSoftmaxLossOrder;
using loss_util::RowWeights;
using loss_util::kLogThreshold;
using loss_util::LabelCEDims;
using loss_util::RowsCols;
using loss_util::RowsOf;
using loss_util::SigmoidCEDims;
using loss_util::WithLabels;

using shape_util::CanonicalAxis;
using shape_util::SizeFromDim;
using shape_util::SizeToDim;

// ---------------------------------------------------------------------------------------------
// SquaredL2Distance: out[i] = 0.5 * sum_j (X[i, j] - Y[i, j])^2 over the rows of dim 0.

class SquaredL2DistanceOp final : public Operator {
 public:
  using Operator::Operator;
  void Run() override {
    const Tensor& X = Input(0);
    const Tensor& Y = Input(1);
    PARITY_ENFORCE(X.dims() == Y.dims() && X.dtype() == Y.dtype(), ErrorKind::kShapeMismatch,
                   label(), ": X ", X.DebugString(), " and Y ", Y.DebugString(),
                   " must have the same dtype and shape");
    shape_util::DispatchFloating(X, label(), InputName(0), [&](auto zero) {
      using T = decltype(zero);
      const int64_t n = RowsOf(X.dims());
      const int64_t d = n > 0 ? X.numel() / n : 0;
      Tensor* out = Output(0);
      out->Resize({n});
      T* o = out->template mutable_data<T>();
      const T* x = X.data<T>();
      const T* y = Y.data<T>();
      for (int64_t i = 0; i < n; ++i) {
        const T* xi = x + i * d;
        const T* yi = y + i * d;
        o[i] = T(0.5) * IndexOrderedSum<T>(d, [xi, yi](int64_t j) {
                 const T diff = xi[j] - yi[j];
                 return diff * diff;
               });
      }
    });
  }
};

PARITY_OP_SCHEMA(SquaredL2Distance)
    .NumInputs(2)
    .NumOutputs(1)
    .DifferentiableInputs({0, 1})
    .ShapeInference([](const caffe2::OperatorDef&, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) {
      PARITY_ENFORCE(in[0].dims == in[1].dims && in[0].dtype == in[1].dtype,
                     ErrorKind::kShapeMismatch, args.op_label(), ": X ", TensorTypeString(in[0]),
                     " and Y ", TensorTypeString(in[1]), " must have the same dtype and shape");
      return std::vector<TensorType>{{in[0].dtype, {RowsOf(in[0].dims)}, true}};
    })
    .InputDoc(0, "X", "float/double, rows along dim 0.")
    .InputDoc(1, "Y", "Same dtype and shape as X.")
    .OutputDoc(0, "Z", "[N]: 0.5 * squared L2 distance of each row (N = 1 for a scalar input).")
    .Doc("Half the squared L2 distance between the rows of X and Y.");
PARITY_REGISTER_CPU_OPERATOR(SquaredL2Distance, SquaredL2DistanceOp);

// ---------------------------------------------------------------------------------------------
// AveragedLoss: the mean of all elements as a scalar (dims []); NaN for an empty input.

class AveragedLossOp final : public Operator {
 public:
  using Operator::Operator;
  void Run() override {
    const Tensor& X = Input(0);
    shape_util::DispatchFloating(X, label(), InputName(0), [&](auto zero) {
      using T = decltype(zero);
      const T* data = X.data<T>();
      const T sum = IndexOrderedSum<T>(X.numel(), [data](int64_t j) { return data[j]; });
      Tensor* out = Output(0);
      out->Resize({});
      out->template mutable_data<T>()[0] = sum / static_cast<T>(X.numel());
    });
  }
};

PARITY_OP_SCHEMA(AveragedLoss)
    .NumInputs(1)
    .NumOutputs(1)
    .ShapeInference([](const caffe2::OperatorDef&, const ArgumentHelper&,
                       const std::vector<TensorType>& in) {
      return std::vector<TensorType>{{in[0].dtype, {}, true}};
    })
    .InputDoc(0, "input", "float/double losses.")
    .OutputDoc(0, "output", "Scalar (dims []): their mean.")
    .Doc("The mean of all elements of the input, as a scalar.");
PARITY_REGISTER_CPU_OPERATOR(AveragedLoss, AveragedLossOp);

// ---------------------------------------------------------------------------------------------
// LabelCrossEntropy: X [N, D] probabilities (1-D X is one row), label [N] or [N, 1];
// Y[i] = -log(max(X[i, label[i]], 1e-20)).

class LabelCrossEntropyOp final : public Operator {
 public:
  using Operator::Operator;
  void Run() override {
    const Tensor& X = Input(0);
    const RowsCols rc = LabelCEDims(X.dims(), Input(1).dims(), label());
    shape_util::DispatchFloating(X, label(), InputName(0), [&](auto zero) {
      using T = decltype(zero);
      WithLabels(Input(1), label(), InputName(1), [&](const auto* labels) {
        loss_util::CheckLabelRange(labels, rc.n, rc.d, label(), "X " + X.DebugString());
        Tensor* out = Output(0);
        out->Resize({rc.n});
        T* y = out->template mutable_data<T>();
        const T* x = X.data<T>();
        for (int64_t i = 0; i < rc.n; ++i) {
          y[i] = -std::log(std::max(x[i * rc.d + labels[i]], static_cast<T>(kLogThreshold)));
        }
      });
    });
  }
};

PARITY_OP_SCHEMA(LabelCrossEntropy)
    .NumInputs(2)
    .NumOutputs(1)
    .DifferentiableInputs({0})
    .ShapeInference([](const caffe2::OperatorDef&, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) {
      const RowsCols rc = LabelCEDims(in[0].dims, in[1].dims, args.op_label());
      return std::vector<TensorType>{{in[0].dtype, {rc.n}, true}};
    })
    .InputDoc(0, "X", "[N, D] probabilities (float/double); 1-D X is a single row.")
    .InputDoc(1, "label", "[N] or [N, 1] int32/int64 class indices in [0, D).")
    .OutputDoc(0, "Y", "[N]: -log(X[i, label[i]]) (the probability floored at 1e-20).")
    .Doc("Cross entropy of probabilities against integer labels.");
PARITY_REGISTER_CPU_OPERATOR(LabelCrossEntropy, LabelCrossEntropyOp);

// ---------------------------------------------------------------------------------------------
// SoftmaxWithLoss

class SoftmaxWithLossOp final : public Operator {
 public:
  SoftmaxWithLossOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws),
        scale_(Arg<double>("scale")),
        label_prob_(Arg<bool>("label_prob")),
        axis_(Arg<int64_t>("axis")) {
    CheckSoftmaxLossOrder(Arg<std::string>("order"), label());
  }

  void Run() override {
    shape_util::DispatchFloating(Input(0), label(), InputName(0),
                                 [&](auto zero) { RunTyped<decltype(zero)>(); });
  }

 private:
  template <typename T>
  void RunTyped() {
    const Tensor& X = Input(0);
    const Tensor& T_in = Input(1);
    const int axis = CanonicalAxis(axis_, X.ndim(), label(), "axis", X.dims());
    CheckSoftmaxLossLabels(X.dims(), T_in.dims(), axis, label_prob_, label());
    const int64_t n = SizeToDim(X.dims(), axis);
    const int64_t d = SizeFromDim(X.dims(), axis);
    const T* weights = nullptr;
    if (InputSize() > 2) weights = RowWeights<T>(Input(2), X.dtype(), n, label(), InputName(2));
    const T* x = X.data<T>();
    Tensor* P = Output(0);
    P->Resize(X.dims());
    T* p = P->template mutable_data<T>();
    double loss_sum = 0;
    double weight_sum = 0;
    if (!label_prob_) {
      WithLabels(T_in, label(), InputName(1), [&](const auto* labels) {
        loss_util::CheckLabelRange(labels, n, d, label(), "logits " + X.DebugString());
        for (int64_t i = 0; i < n; ++i) {
          // -log softmax(x)[label] = log(sum(exp(x - max))) - (x[label] - max), exactly as
          // Caffe2 computes it from the log-softmax (no probability floor here).
          ConstArrayMap<T> row(x + i * d, d);
          ArrayMap<T> prow(p + i * d, d);
          const T m = row.maxCoeff();
          const T* xi = x + i * d;
          T* pi = p + i * d;
          AssignIndexAligned<T>(pi, d, [xi, m](int64_t b, int64_t len) {
            return (ConstArrayMap<T>(xi + b, len) - m).exp();
          });
          const T s = IndexOrderedSum<T>(d, [pi](int64_t j) { return pi[j]; });
          prow /= s;
          const double w = weights ? weights[i] : 1.0;
          loss_sum += w * (std::log(static_cast<double>(s)) - (x[i * d + labels[i]] - m));
          weight_sum += w;
        }
      });
    } else {
      shape_util::ExpectSameDtype(T_in, X.dtype(), label(), InputName(1));
      const T* probs = T_in.data<T>();
      loss_util::CheckLabelProbabilities(probs, n, d, label());
      for (int64_t i = 0; i < n; ++i) {
        ConstArrayMap<T> row(x + i * d, d);
        ArrayMap<T> prow(p + i * d, d);
        const T m = d > 0 ? row.maxCoeff() : T(0);
        const T* xi = x + i * d;
        T* pi = p + i * d;
        AssignIndexAligned<T>(pi, d, [xi, m](int64_t b, int64_t len) {
          return (ConstArrayMap<T>(xi + b, len) - m).exp();
        });
        prow /= IndexOrderedSum<T>(d, [pi](int64_t j) { return pi[j]; });
        const double w = weights ? weights[i] : 1.0;
        double l = 0;
        for (int64_t j = 0; j < d; ++j) {
          const double q = probs[i * d + j];
          l -= std::log(std::max(static_cast<double>(p[i * d + j]), kLogThreshold)) * q;
        }
        loss_sum += l * w;
        weight_sum += w;
      }
    }
    Tensor* loss = Output(1);
    loss->Resize({});
    // Caffe2 outputs 0 when the weights sum to 0 (e.g. an empty batch).
    loss->template mutable_data<T>()[0] =
        weight_sum != 0 ? static_cast<T>(loss_sum * scale_ / weight_sum) : T(0);
  }

  const double scale_;
  const bool label_prob_;
  const int64_t axis_;
};

PARITY_OP_SCHEMA(SoftmaxWithLoss)
    .NonDifferentiableOutputs({0})  // P; the loss (output 1) carries the gradient
    .NumInputs(2, 3)
    .NumOutputs(2)
    .Apply(loss_util::SoftmaxWithLossArgs)
    .DifferentiableInputs({0})
    .ShapeInference([](const caffe2::OperatorDef&, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) {
      const int axis = CanonicalAxis(args.Get<int64_t>("axis"),
                                     static_cast<int>(in[0].dims.size()), args.op_label(), "axis",
                                     in[0].dims);
      CheckSoftmaxLossLabels(in[0].dims, in[1].dims, axis, args.Get<bool>("label_prob"),
                             args.op_label());
      return std::vector<TensorType>{in[0], {in[0].dtype, {}, true}};
    })
    .InputDoc(0, "logits", "float/double logits, [N, D] after coercion at `axis`.")
    .InputDoc(1, "labels", "int32/int64 [N] (or [N, 1]) labels, or probabilities with label_prob=1.")
    .InputDoc(2, "weights", "Optional [N] per-row weights.")
    .OutputDoc(0, "softmax", "Softmax of the logits, dims of the logits.")
    .OutputDoc(1, "loss", "Scalar: scale * sum(w_i * loss_i) / sum(w_i) (0 if the weights sum to 0).")
    .Doc("Softmax followed by cross entropy, averaged over rows (weighted).");
PARITY_REGISTER_CPU_OPERATOR(SoftmaxWithLoss, SoftmaxWithLossOp);

// ---------------------------------------------------------------------------------------------
// SigmoidCrossEntropyWithLogits: per element, with softplus(x) = log(1 + exp(x)) computed stably,
//   default:          t * x - softplus(x)          (= t log s(x) + (1 - t) log(1 - s(x)))
//   log_D_trick:      (2t - 1) * (x - softplus(x)) (= (2t - 1) log s(x))
//   unjoined_lr_loss: t * x - (1 - t) * softplus(x)
// and out = -mean over the last dim, dims = dims[:-1].

template <typename T>
T Softplus(T x) {
  return std::max(x, T(0)) + std::log1p(std::exp(-std::abs(x)));
}

class SigmoidCrossEntropyWithLogitsOp final : public Operator {
 public:
  SigmoidCrossEntropyWithLogitsOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws),
        log_d_trick_(Arg<bool>("log_D_trick")),
        unjoined_(Arg<bool>("unjoined_lr_loss")) {
    loss_util::CheckSigmoidCEModes(log_d_trick_, unjoined_, label());
  }

  void Run() override {
    const Tensor& X = Input(0);
    const Tensor& Tt = Input(1);
    const std::vector<int64_t> out_dims = SigmoidCEDims(X.dims(), Tt.dims(), label());
    shape_util::DispatchFloating(X, label(), InputName(0), [&](auto zero) {
      using T = decltype(zero);
      shape_util::ExpectSameDtype(Tt, X.dtype(), label(), InputName(1));
      const int64_t inner = X.ndim() > 0 ? X.dims().back() : 1;
      const int64_t outer = X.numel() / inner;
      Tensor* out = Output(0);
      out->Resize(out_dims);
      T* o = out->template mutable_data<T>();
      const T* x = X.data<T>();
      const T* t = Tt.data<T>();
      for (int64_t i = 0; i < outer; ++i) {
        T value = 0;
        for (int64_t j = i * inner; j < (i + 1) * inner; ++j) value += Term(x[j], t[j]);
        o[i] = -value / static_cast<T>(inner);
      }
    });
  }

 private:
  template <typename T>
  T Term(T x, T t) const {
    if (log_d_trick_) return (2 * t - 1) * (x - Softplus(x));
    // log(1 + exp(-|x|)): the part of softplus that needs no max.
    const T tail = std::log1p(std::exp(-std::abs(x)));
    const T pos = x >= 0 ? T(1) : T(0);
    if (unjoined_) return x * t + (t - 1) * x * pos - (1 - t) * tail;
    return x * (t - pos) - tail;
  }

  const bool log_d_trick_;
  const bool unjoined_;
};

PARITY_OP_SCHEMA(SigmoidCrossEntropyWithLogits)
    .NumInputs(2)
    .NumOutputs(1)
    .Apply(loss_util::SigmoidCrossEntropyArgs)
    .DifferentiableInputs({0})
    .ShapeInference([](const caffe2::OperatorDef&, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) {
      return std::vector<TensorType>{
          {in[0].dtype, SigmoidCEDims(in[0].dims, in[1].dims, args.op_label()), true}};
    })
    .InputDoc(0, "logits", "float/double logits.")
    .InputDoc(1, "targets", "Targets in [0, 1], same shape and dtype as the logits.")
    .OutputDoc(0, "xentropy", "Mean cross entropy over the last dim; dims = logits.dims[:-1].")
    .Doc("Sigmoid cross entropy from logits, averaged over the last dimension.");
PARITY_REGISTER_CPU_OPERATOR(SigmoidCrossEntropyWithLogits, SigmoidCrossEntropyWithLogitsOp);

}  // namespace
}  // namespace parity
