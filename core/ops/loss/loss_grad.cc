// Gradient kernels of the losses (conventions in core/ops/GRADIENTS.md; makers in core/ops/loss/makers.cc; the forward op's
// arguments are copied onto the gradient op). float and double; labels int32 or int64.
//   SquaredL2DistanceGradient (X, Y, dDist) -> (dX, dY):  dX = (X - Y) * dDist[row], dY = -dX
//   AveragedLossGradient (X, dLoss) -> dX:                dLoss / numel everywhere
//   LabelCrossEntropyGradient (X, label, dY) -> dX:       -dY[i] / max(X[i, label], 1e-20) at the
//                                                         label, 0 elsewhere (Caffe2's floor)
//   SoftmaxWithLossGradient (X, label, [weight], P, dLoss) -> dX:
//       (P - onehot(label)) (or P - label probabilities) * w_i * scale * dLoss / sum(w);
//       0 when the weights sum to 0 (the loss is then the constant 0)
//   SigmoidCrossEntropyWithLogitsGradient (dLoss, logits, targets) -> dlogits, with s = sigmoid(x)
//       and the loss -mean over the last dim of the per-element term:
//       default (s - t), log_D_trick -(2t - 1)(1 - s), unjoined_lr_loss -(t - (1 - t) s),
//       each times dLoss / (last dim).
#include <Eigen/Core>
#include <algorithm>
#include <cmath>

#include "core/operator.h"
#include "core/ops/loss/loss.h"
#include "core/ops/common/eigen_maps.h"
#include "core/ops/common/shape_util.h"
#include "core/schema.h"

namespace parity {
namespace {

using shape_util::CanonicalAxis;
using shape_util::SizeFromDim;
using shape_util::SizeToDim;

using loss_util::ExpectTensor;

// ---------------------------------------------------------------------------------------------
// SquaredL2DistanceGradient

class SquaredL2DistanceGradientOp final : public Operator {
 public:
  using Operator::Operator;
  void Run() override {
    const Tensor& X = Input(0);
    const Tensor& Y = Input(1);
    const Tensor& dD = Input(2);
    PARITY_ENFORCE(X.dims() == Y.dims() && X.dtype() == Y.dtype(), ErrorKind::kShapeMismatch,
                   label(), ": X ", X.DebugString(), " and Y ", Y.DebugString(),
                   " must have the same dtype and shape");
    const int64_t n = loss_util::RowsOf(X.dims());
    ExpectTensor(dD, {n}, X.dtype(), label(), InputName(2), "dDistance");
    shape_util::DispatchFloating(X, label(), InputName(0), [&](auto zero) {
      using T = decltype(zero);
      const std::vector<int64_t> dims = X.dims();
      const int64_t d = n > 0 ? X.numel() / n : 0;
      const T* x = X.data<T>();
      const T* y = Y.data<T>();
      const T* g = dD.data<T>();
      Tensor* dX = Output(0);
      Tensor* dY = Output(1);
      dX->Resize(dims);
      dY->Resize(dims);
      T* dx = dX->template mutable_data<T>();
      T* dy = dY->template mutable_data<T>();
      for (int64_t i = 0; i < n; ++i) {
        ArrayMap<T>(dx + i * d, d) = (ConstArrayMap<T>(x + i * d, d) - ConstArrayMap<T>(y + i * d, d)) * g[i];
        ArrayMap<T>(dy + i * d, d) = -ArrayMap<T>(dx + i * d, d);
      }
    });
  }
};

PARITY_OP_SCHEMA(SquaredL2DistanceGradient)
    .NumInputs(3)
    .NumOutputs(2)
    .NotDifferentiable()
    .ShapeInference([](const caffe2::OperatorDef&, const ArgumentHelper&,
                       const std::vector<TensorType>& in) {
      return std::vector<TensorType>{in[0], in[1]};
    })
    .InputDoc(0, "X", "SquaredL2Distance's X.")
    .InputDoc(1, "Y", "SquaredL2Distance's Y.")
    .InputDoc(2, "dDistance", "[N] gradient of the distances.")
    .OutputDoc(0, "dX", "(X - Y) * dDistance per row.")
    .OutputDoc(1, "dY", "-dX.")
    .Doc("Gradient of SquaredL2Distance.");
PARITY_REGISTER_CPU_OPERATOR(SquaredL2DistanceGradient, SquaredL2DistanceGradientOp);

// ---------------------------------------------------------------------------------------------
// AveragedLossGradient

class AveragedLossGradientOp final : public Operator {
 public:
  using Operator::Operator;
  void Run() override {
    const Tensor& dL = Input(1);
    PARITY_ENFORCE(dL.numel() == 1, ErrorKind::kShapeMismatch, label(), ": dLoss '", InputName(1),
                   "' must hold one element (AveragedLoss outputs a scalar), got ",
                   dL.DebugString());
    shape_util::DispatchFloating(dL, label(), InputName(1), [&](auto zero) {
      using T = decltype(zero);
      const std::vector<int64_t> dims = Input(0).dims();
      const T value = dL.data<T>()[0] / static_cast<T>(SizeFromDim(dims, 0));
      Tensor* dX = Output(0);
      dX->Resize(dims);
      T* dx = dX->template mutable_data<T>();
      std::fill(dx, dx + dX->numel(), value);
    });
  }
};

PARITY_OP_SCHEMA(AveragedLossGradient)
    .NumInputs(2)
    .NumOutputs(1)
    .NotDifferentiable()
    .ShapeInference([](const caffe2::OperatorDef&, const ArgumentHelper&,
                       const std::vector<TensorType>& in) {
      TensorType out = in[0];
      out.dtype = in[1].dtype;
      return std::vector<TensorType>{out};
    })
    .InputDoc(0, "X", "AveragedLoss' input (read for its dims).")
    .InputDoc(1, "dLoss", "Scalar gradient of the mean.")
    .OutputDoc(0, "dX", "dLoss / numel everywhere.")
    .Doc("Gradient of AveragedLoss.");
PARITY_REGISTER_CPU_OPERATOR(AveragedLossGradient, AveragedLossGradientOp);

// ---------------------------------------------------------------------------------------------
// LabelCrossEntropyGradient

class LabelCrossEntropyGradientOp final : public Operator {
 public:
  using Operator::Operator;
  void Run() override {
    const Tensor& X = Input(0);
    const loss_util::RowsCols rc = loss_util::LabelCEDims(X.dims(), Input(1).dims(), label());
    ExpectTensor(Input(2), {rc.n}, X.dtype(), label(), InputName(2), "dY");
    shape_util::DispatchFloating(X, label(), InputName(0), [&](auto zero) {
      using T = decltype(zero);
      loss_util::WithLabels(Input(1), label(), InputName(1), [&](const auto* labels) {
        loss_util::CheckLabelRange(labels, rc.n, rc.d, label(), "X " + X.DebugString());
        const T* x = X.data<T>();
        const T* g = Input(2).data<T>();
        Tensor* dX = Output(0);
        dX->Resize(X.dims());
        T* dx = dX->template mutable_data<T>();
        std::fill(dx, dx + dX->numel(), T(0));
        for (int64_t i = 0; i < rc.n; ++i) {
          const int64_t k = i * rc.d + labels[i];
          dx[k] = -g[i] / std::max(x[k], static_cast<T>(loss_util::kLogThreshold));
        }
      });
    });
  }
};

PARITY_OP_SCHEMA(LabelCrossEntropyGradient)
    .NumInputs(3)
    .NumOutputs(1)
    .NotDifferentiable()
    .ShapeInference([](const caffe2::OperatorDef&, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) {
      loss_util::LabelCEDims(in[0].dims, in[1].dims, args.op_label());
      return std::vector<TensorType>{in[0]};
    })
    .InputDoc(0, "X", "LabelCrossEntropy's probabilities.")
    .InputDoc(1, "label", "LabelCrossEntropy's labels.")
    .InputDoc(2, "dY", "[N] gradient of the cross entropies.")
    .OutputDoc(0, "dX", "-dY / X at each row's label, 0 elsewhere.")
    .Doc("Gradient of LabelCrossEntropy.");
PARITY_REGISTER_CPU_OPERATOR(LabelCrossEntropyGradient, LabelCrossEntropyGradientOp);

// ---------------------------------------------------------------------------------------------
// SoftmaxWithLossGradient

class SoftmaxWithLossGradientOp final : public Operator {
 public:
  SoftmaxWithLossGradientOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws),
        scale_(Arg<double>("scale")),
        label_prob_(Arg<bool>("label_prob")),
        axis_(Arg<int64_t>("axis")) {
    loss_util::CheckSoftmaxLossOrder(Arg<std::string>("order"), label());
  }

  void Run() override {
    shape_util::DispatchFloating(Input(0), label(), InputName(0),
                                 [&](auto zero) { RunTyped<decltype(zero)>(); });
  }

 private:
  template <typename T>
  void RunTyped() {
    const Tensor& X = Input(0);
    const Tensor& labels = Input(1);
    const bool weighted = InputSize() == 5;
    const Tensor& P = Input(weighted ? 3 : 2);
    const Tensor& dL = Input(weighted ? 4 : 3);
    const int axis = CanonicalAxis(axis_, X.ndim(), label(), "axis", X.dims());
    loss_util::CheckSoftmaxLossLabels(X.dims(), labels.dims(), axis, label_prob_, label());
    const int64_t n = SizeToDim(X.dims(), axis);
    const int64_t d = SizeFromDim(X.dims(), axis);
    ExpectTensor(P, X.dims(), X.dtype(), label(), InputName(weighted ? 3 : 2), "softmax");
    PARITY_ENFORCE(dL.numel() == 1 && dL.dtype() == X.dtype(), ErrorKind::kShapeMismatch, label(),
                   ": dLoss '", InputName(weighted ? 4 : 3), "' must be a ",
                   DataTypeName(X.dtype()), " scalar, got ", dL.DebugString());
    const T* w = nullptr;
    if (weighted) w = loss_util::RowWeights<T>(Input(2), X.dtype(), n, label(), InputName(2));
    double weight_sum = static_cast<double>(n);
    if (w != nullptr) {
      weight_sum = 0;
      for (int64_t i = 0; i < n; ++i) weight_sum += w[i];
    }
    const double factor =
        weight_sum != 0 ? scale_ * static_cast<double>(dL.data<T>()[0]) / weight_sum : 0.0;
    const T* p = P.data<T>();
    Tensor* dX = Output(0);
    dX->Resize(X.dims());
    T* dx = dX->template mutable_data<T>();
    if (label_prob_) {
      shape_util::ExpectSameDtype(labels, X.dtype(), label(), InputName(1));
      const T* q = labels.data<T>();
      for (int64_t i = 0; i < n; ++i) {
        const T f = static_cast<T>(factor * (w ? static_cast<double>(w[i]) : 1.0));
        ArrayMap<T>(dx + i * d, d) =
            (ConstArrayMap<T>(p + i * d, d) - ConstArrayMap<T>(q + i * d, d)) * f;
      }
      return;
    }
    loss_util::WithLabels(labels, label(), InputName(1), [&](const auto* t) {
      loss_util::CheckLabelRange(t, n, d, label(), "logits " + X.DebugString());
      for (int64_t i = 0; i < n; ++i) {
        const T f = static_cast<T>(factor * (w ? static_cast<double>(w[i]) : 1.0));
        ArrayMap<T> row(dx + i * d, d);
        row = ConstArrayMap<T>(p + i * d, d) * f;
        row[t[i]] -= f;
      }
    });
  }

  const double scale_;
  const bool label_prob_;
  const int64_t axis_;
};

PARITY_OP_SCHEMA(SoftmaxWithLossGradient)
    .NumInputs(4, 5)
    .NumOutputs(1)
    .Apply(loss_util::SoftmaxWithLossArgs)
    .NotDifferentiable()
    .ShapeInference([](const caffe2::OperatorDef&, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) {
      const int axis = CanonicalAxis(args.Get<int64_t>("axis"),
                                     static_cast<int>(in[0].dims.size()), args.op_label(), "axis",
                                     in[0].dims);
      loss_util::CheckSoftmaxLossLabels(in[0].dims, in[1].dims, axis,
                                        args.Get<bool>("label_prob"), args.op_label());
      return std::vector<TensorType>{in[0]};
    })
    .InputDoc(0, "logits", "SoftmaxWithLoss' logits.")
    .InputDoc(1, "labels", "SoftmaxWithLoss' labels (or label probabilities).")
    .InputDoc(2, "weights", "Optional: SoftmaxWithLoss' per-row weights.")
    .InputDoc(3, "softmax", "SoftmaxWithLoss' output 0 (input 2 without weights).")
    .InputDoc(4, "dLoss", "Scalar gradient of the loss (last input).")
    .OutputDoc(0, "dlogits", "(softmax - target) * w_i * scale * dLoss / sum(w).")
    .Doc("Gradient of SoftmaxWithLoss with respect to the logits.");
PARITY_REGISTER_CPU_OPERATOR(SoftmaxWithLossGradient, SoftmaxWithLossGradientOp);

// ---------------------------------------------------------------------------------------------
// SigmoidCrossEntropyWithLogitsGradient

template <typename T>
T StableSigmoid(T x) {
  if (x >= 0) return T(1) / (T(1) + std::exp(-x));
  const T e = std::exp(x);
  return e / (T(1) + e);
}

class SigmoidCrossEntropyWithLogitsGradientOp final : public Operator {
 public:
  SigmoidCrossEntropyWithLogitsGradientOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws),
        log_d_trick_(Arg<bool>("log_D_trick")),
        unjoined_(Arg<bool>("unjoined_lr_loss")) {
    loss_util::CheckSigmoidCEModes(log_d_trick_, unjoined_, label());
  }

  void Run() override {
    const Tensor& dL = Input(0);
    const Tensor& X = Input(1);
    const Tensor& Tt = Input(2);
    const std::vector<int64_t> out_dims = loss_util::SigmoidCEDims(X.dims(), Tt.dims(), label());
    shape_util::DispatchFloating(X, label(), InputName(1), [&](auto zero) {
      using T = decltype(zero);
      shape_util::ExpectSameDtype(Tt, X.dtype(), label(), InputName(2));
      ExpectTensor(dL, out_dims, X.dtype(), label(), InputName(0), "dLoss");
      const int64_t inner = X.ndim() > 0 ? X.dims().back() : 1;
      const int64_t outer = X.numel() / inner;
      const T* g = dL.data<T>();
      const T* x = X.data<T>();
      const T* t = Tt.data<T>();
      Tensor* dX = Output(0);
      dX->Resize(X.dims());
      T* dx = dX->template mutable_data<T>();
      for (int64_t i = 0; i < outer; ++i) {
        const T f = g[i] / static_cast<T>(inner);
        for (int64_t j = i * inner; j < (i + 1) * inner; ++j) {
          const T s = StableSigmoid(x[j]);
          T term;  // d(per-element term)/dx; the loss is its negated mean.
          if (log_d_trick_) {
            term = (2 * t[j] - 1) * (T(1) - s);
          } else if (unjoined_) {
            term = t[j] - (T(1) - t[j]) * s;
          } else {
            term = t[j] - s;
          }
          dx[j] = -term * f;
        }
      }
    });
  }

 private:
  const bool log_d_trick_;
  const bool unjoined_;
};

PARITY_OP_SCHEMA(SigmoidCrossEntropyWithLogitsGradient)
    .NumInputs(3)
    .NumOutputs(1)
    .Apply(loss_util::SigmoidCrossEntropyArgs)
    .NotDifferentiable()
    .ShapeInference([](const caffe2::OperatorDef&, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) {
      loss_util::SigmoidCEDims(in[1].dims, in[2].dims, args.op_label());
      return std::vector<TensorType>{in[1]};
    })
    .InputDoc(0, "dLoss", "Gradient of the loss, dims logits.dims[:-1].")
    .InputDoc(1, "logits", "The forward op's logits.")
    .InputDoc(2, "targets", "The forward op's targets.")
    .OutputDoc(0, "dlogits", "Gradient of the logits.")
    .Doc("Gradient of SigmoidCrossEntropyWithLogits with respect to the logits.");
PARITY_REGISTER_CPU_OPERATOR(SigmoidCrossEntropyWithLogitsGradient,
                             SigmoidCrossEntropyWithLogitsGradientOp);

}  // namespace
}  // namespace parity
