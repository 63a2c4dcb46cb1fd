// Gradients of the losses on the device (float): SquaredL2DistanceGradient,
// LabelCrossEntropyGradient, SoftmaxWithLossGradient and SigmoidCrossEntropyWithLogitsGradient.
// Checks are the CPU gradients' (core/ops/loss/loss.h), labels range-checked on a host copy;
// SoftmaxWithLoss's factor (scale * dLoss / sum of weights) is computed on the host in double, as
// the CPU computes it, from host copies of dLoss and the weights. The arithmetic is
// gpu/kernels/loss_body.h's, tested on the host (tests/gpu/bodies/loss_body_test.cc).
#include <string>
#include <vector>

#include "core/ops/common/shape_util.h"
#include "core/ops/loss/loss.h"
#include "gpu/cuda_operator.h"
#include "gpu/device.h"
#include "gpu/kernels/loss.h"

namespace parity::gpu {
namespace {

class SquaredL2DistanceGradientCudaOp final : public CudaOperator {
 public:
  using CudaOperator::CudaOperator;

  void Run() override {
    const Tensor& X = DeviceInput(0);
    const Tensor& Y = DeviceInput(1);
    const Tensor& dD = DeviceInput(2);
    // The CPU gradient's checks (inline there, as in the forward op).
    PARITY_ENFORCE(X.dims() == Y.dims() && X.dtype() == Y.dtype(), ErrorKind::kShapeMismatch,
                   label(), ": X ", X.DebugString(), " and Y ", Y.DebugString(),
                   " must have the same dtype and shape");
    const int64_t n = loss_util::RowsOf(X.dims());
    loss_util::ExpectTensor(dD, {n}, X.dtype(), label(), InputName(2), "dDistance");
    FloatInput(0);
    const int64_t d = n > 0 ? X.numel() / n : 0;
    const std::vector<int64_t> dims = X.dims();
    const float* x = X.data<float>();
    const float* y = Y.data<float>();
    const float* g = dD.data<float>();
    Tensor* dX = DeviceOutput(0);
    Tensor* dY = DeviceOutput(1);
    dX->Resize(dims);
    dY->Resize(dims);
    kernels::SquaredL2DistanceGradientFloat(x, y, g, n, d, dX->mutable_data<float>(),
                                            dY->mutable_data<float>(), stream());
    CheckLaunch();
  }
};

PARITY_REGISTER_CUDA_OPERATOR(SquaredL2DistanceGradient, SquaredL2DistanceGradientCudaOp);

class LabelCrossEntropyGradientCudaOp final : public CudaOperator {
 public:
  using CudaOperator::CudaOperator;

  void Run() override {
    const Tensor& X = DeviceInput(0);
    const Tensor& labels = DeviceInput(1);
    const loss_util::RowsCols rc = loss_util::LabelCEDims(X.dims(), labels.dims(), label());
    loss_util::ExpectTensor(DeviceInput(2), {rc.n}, X.dtype(), label(), InputName(2), "dY");
    FloatInput(0);
    const Tensor host_labels = ToCpu(labels);
    loss_util::WithLabels(host_labels, label(), InputName(1), [&](const auto* l) {
      loss_util::CheckLabelRange(l, rc.n, rc.d, label(), "X " + X.DebugString());
    });
    const float* x = X.data<float>();
    const float* g = Input(2).data<float>();
    Tensor* dX = DeviceOutput(0);
    dX->Resize(X.dims());
    kernels::LabelCrossEntropyGradientFloat(x, labels.raw_data(),
                                            labels.dtype() == DataType::kInt64, g, rc.n, rc.d,
                                            dX->mutable_data<float>(), stream());
    CheckLaunch();
  }
};

PARITY_REGISTER_CUDA_OPERATOR(LabelCrossEntropyGradient, LabelCrossEntropyGradientCudaOp);

class SoftmaxWithLossGradientCudaOp final : public CudaOperator {
 public:
  SoftmaxWithLossGradientCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : CudaOperator(def, ws),
        scale_(Arg<double>("scale")),
        label_prob_(Arg<bool>("label_prob")),
        axis_(Arg<int64_t>("axis")) {
    loss_util::CheckSoftmaxLossOrder(Arg<std::string>("order"), label());
  }

  void Run() override {
    const Tensor& X = FloatInput(0);
    const Tensor& labels = DeviceInput(1);
    const bool weighted = InputSize() == 5;
    const Tensor& P = DeviceInput(weighted ? 3 : 2);
    const Tensor& dL = DeviceInput(weighted ? 4 : 3);
    const int axis = shape_util::CanonicalAxis(axis_, X.ndim(), label(), "axis", X.dims());
    loss_util::CheckSoftmaxLossLabels(X.dims(), labels.dims(), axis, label_prob_, label());
    const int64_t n = shape_util::SizeToDim(X.dims(), axis);
    const int64_t d = shape_util::SizeFromDim(X.dims(), axis);
    loss_util::ExpectTensor(P, X.dims(), X.dtype(), label(), InputName(weighted ? 3 : 2),
                            "softmax");
    // The CPU gradient's check of dLoss (inline there).
    PARITY_ENFORCE(dL.numel() == 1 && dL.dtype() == X.dtype(), ErrorKind::kShapeMismatch, label(),
                   ": dLoss '", InputName(weighted ? 4 : 3), "' must be a ",
                   DataTypeName(X.dtype()), " scalar, got ", dL.DebugString());
    const float* weights = nullptr;
    double weight_sum = static_cast<double>(n);
    if (weighted) {
      weights = loss_util::RowWeights<float>(DeviceInput(2), X.dtype(), n, label(), InputName(2));
      const Tensor host_w = ToCpu(Input(2));
      weight_sum = 0;
      for (int64_t i = 0; i < n; ++i) weight_sum += host_w.data<float>()[i];
    }
    const double dloss = static_cast<double>(ToCpu(dL).data<float>()[0]);
    const double factor = weight_sum != 0 ? scale_ * dloss / weight_sum : 0.0;
    const float* probs = nullptr;
    if (label_prob_) {
      shape_util::ExpectSameDtype(labels, X.dtype(), label(), InputName(1));
      probs = labels.data<float>();
    } else {
      const Tensor host_labels = ToCpu(labels);
      loss_util::WithLabels(host_labels, label(), InputName(1), [&](const auto* t) {
        loss_util::CheckLabelRange(t, n, d, label(), "logits " + X.DebugString());
      });
    }
    const float* p = P.data<float>();
    Tensor* dX = DeviceOutput(0);
    dX->Resize(X.dims());
    kernels::SoftmaxWithLossGradientFloat(p, n, d, label_prob_ ? nullptr : labels.raw_data(),
                                          labels.dtype() == DataType::kInt64, probs, weights,
                                          factor, dX->mutable_data<float>(), stream());
    CheckLaunch();
  }

 private:
  const double scale_;
  const bool label_prob_;
  const int64_t axis_;
};

PARITY_REGISTER_CUDA_OPERATOR(SoftmaxWithLossGradient, SoftmaxWithLossGradientCudaOp);

class SigmoidCrossEntropyGradientCudaOp final : public CudaOperator {
 public:
  SigmoidCrossEntropyGradientCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : CudaOperator(def, ws),
        log_d_trick_(Arg<bool>("log_D_trick")),
        unjoined_(Arg<bool>("unjoined_lr_loss")) {
    loss_util::CheckSigmoidCEModes(log_d_trick_, unjoined_, label());
  }

  void Run() override {
    const Tensor& dL = DeviceInput(0);
    const Tensor& X = DeviceInput(1);
    const Tensor& T = DeviceInput(2);
    const std::vector<int64_t> out_dims = loss_util::SigmoidCEDims(X.dims(), T.dims(), label());
    FloatInput(1);
    shape_util::ExpectSameDtype(T, X.dtype(), label(), InputName(2));
    loss_util::ExpectTensor(dL, out_dims, X.dtype(), label(), InputName(0), "dLoss");
    const int64_t inner = X.ndim() > 0 ? X.dims().back() : 1;
    const int64_t outer = inner > 0 ? X.numel() / inner : 0;
    const kernels::SigmoidCEMode mode = log_d_trick_ ? kernels::SigmoidCEMode::kLogDTrick
                                        : unjoined_  ? kernels::SigmoidCEMode::kUnjoined
                                                     : kernels::SigmoidCEMode::kDefault;
    const float* g = dL.data<float>();
    const float* x = X.data<float>();
    const float* t = T.data<float>();
    Tensor* dX = DeviceOutput(0);
    dX->Resize(X.dims());
    kernels::SigmoidCrossEntropyGradientFloat(g, x, t, outer, inner, mode,
                                              dX->mutable_data<float>(), stream());
    CheckLaunch();
  }

 private:
  const bool log_d_trick_;
  const bool unjoined_;
};

PARITY_REGISTER_CUDA_OPERATOR(SigmoidCrossEntropyWithLogitsGradient,
                              SigmoidCrossEntropyGradientCudaOp);

}  // namespace
}  // namespace parity::gpu
