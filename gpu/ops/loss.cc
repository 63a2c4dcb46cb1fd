// Losses on the device (float): SquaredL2Distance, LabelCrossEntropy,
// SigmoidCrossEntropyWithLogits and SoftmaxWithLoss. Shapes and errors come from the CPU kernels'
// helpers (core/ops/loss/loss.h); labels and label probabilities are checked on a host copy with
// the CPU's checks before anything is computed. The arithmetic is gpu/kernels/loss_body.h's,
// tested on the host against the CPU kernels (tests/gpu/bodies/loss_body_test.cc).
#include <string>
#include <vector>

#include "core/ops/common/shape_util.h"
#include "core/ops/loss/loss.h"
#include "gpu/cuda_operator.h"
#include "gpu/device.h"
#include "gpu/kernels/loss.h"

namespace parity::gpu {
namespace {

class SquaredL2DistanceCudaOp final : public CudaOperator {
 public:
  using CudaOperator::CudaOperator;

  void Run() override {
    const Tensor& X = DeviceInput(0);
    const Tensor& Y = DeviceInput(1);
    // The CPU kernel's check (inline there).
    PARITY_ENFORCE(X.dims() == Y.dims() && X.dtype() == Y.dtype(), ErrorKind::kShapeMismatch,
                   label(), ": X ", X.DebugString(), " and Y ", Y.DebugString(),
                   " must have the same dtype and shape");
    FloatInput(0);
    const int64_t n = loss_util::RowsOf(X.dims());
    const int64_t d = n > 0 ? X.numel() / n : 0;
    Tensor* out = DeviceOutput(0);
    out->Resize({n});
    kernels::SquaredL2DistanceFloat(X.data<float>(), Y.data<float>(), n, d,
                                    out->mutable_data<float>(), stream());
    CheckLaunch();
  }
};

PARITY_REGISTER_CUDA_OPERATOR(SquaredL2Distance, SquaredL2DistanceCudaOp);

class LabelCrossEntropyCudaOp final : public CudaOperator {
 public:
  using CudaOperator::CudaOperator;

  void Run() override {
    const Tensor& X = FloatInput(0);
    const Tensor& labels = DeviceInput(1);
    const loss_util::RowsCols rc = loss_util::LabelCEDims(X.dims(), labels.dims(), label());
    const Tensor host_labels = ToCpu(labels);
    loss_util::WithLabels(host_labels, label(), InputName(1), [&](const auto* l) {
      loss_util::CheckLabelRange(l, rc.n, rc.d, label(), "X " + X.DebugString());
    });
    Tensor* out = DeviceOutput(0);
    out->Resize({rc.n});
    kernels::LabelCrossEntropyFloat(X.data<float>(), labels.raw_data(),
                                    labels.dtype() == DataType::kInt64, rc.n, rc.d,
                                    out->mutable_data<float>(), stream());
    CheckLaunch();
  }
};

PARITY_REGISTER_CUDA_OPERATOR(LabelCrossEntropy, LabelCrossEntropyCudaOp);

class SigmoidCrossEntropyCudaOp final : public CudaOperator {
 public:
  SigmoidCrossEntropyCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : CudaOperator(def, ws),
        log_d_trick_(Arg<bool>("log_D_trick")),
        unjoined_(Arg<bool>("unjoined_lr_loss")) {
    loss_util::CheckSigmoidCEModes(log_d_trick_, unjoined_, label());
  }

  void Run() override {
    const Tensor& X = DeviceInput(0);
    const Tensor& T = DeviceInput(1);
    const std::vector<int64_t> out_dims = loss_util::SigmoidCEDims(X.dims(), T.dims(), label());
    FloatInput(0);
    shape_util::ExpectSameDtype(T, X.dtype(), label(), InputName(1));
    const int64_t inner = X.ndim() > 0 ? X.dims().back() : 1;
    const int64_t outer = inner > 0 ? X.numel() / inner : 0;
    Tensor* out = DeviceOutput(0);
    out->Resize(out_dims);
    const kernels::SigmoidCEMode mode = log_d_trick_ ? kernels::SigmoidCEMode::kLogDTrick
                                        : unjoined_  ? kernels::SigmoidCEMode::kUnjoined
                                                     : kernels::SigmoidCEMode::kDefault;
    kernels::SigmoidCrossEntropyFloat(X.data<float>(), T.data<float>(), outer, inner, mode,
                                      out->mutable_data<float>(), stream());
    CheckLaunch();
  }

 private:
  const bool log_d_trick_;
  const bool unjoined_;
};

PARITY_REGISTER_CUDA_OPERATOR(SigmoidCrossEntropyWithLogits, SigmoidCrossEntropyCudaOp);

class SoftmaxWithLossCudaOp final : public CudaOperator {
 public:
  SoftmaxWithLossCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : CudaOperator(def, ws),
        scale_(Arg<double>("scale")),
        label_prob_(Arg<bool>("label_prob")),
        axis_(Arg<int64_t>("axis")) {
    loss_util::CheckSoftmaxLossOrder(Arg<std::string>("order"), label());
  }

  void Run() override {
    const Tensor& X = FloatInput(0);
    const Tensor& T = DeviceInput(1);
    const int axis = shape_util::CanonicalAxis(axis_, X.ndim(), label(), "axis", X.dims());
    loss_util::CheckSoftmaxLossLabels(X.dims(), T.dims(), axis, label_prob_, label());
    const int64_t n = shape_util::SizeToDim(X.dims(), axis);
    const int64_t d = shape_util::SizeFromDim(X.dims(), axis);
    const float* weights = nullptr;
    if (InputSize() > 2) {
      weights = loss_util::RowWeights<float>(DeviceInput(2), X.dtype(), n, label(), InputName(2));
    }
    const float* probs = nullptr;
    const Tensor host_t = ToCpu(T);
    if (label_prob_) {
      shape_util::ExpectSameDtype(T, X.dtype(), label(), InputName(1));
      loss_util::CheckLabelProbabilities(host_t.data<float>(), n, d, label());
      probs = T.data<float>();
    } else {
      loss_util::WithLabels(host_t, label(), InputName(1), [&](const auto* l) {
        loss_util::CheckLabelRange(l, n, d, label(), "logits " + X.DebugString());
      });
    }
    Tensor* P = DeviceOutput(0);
    P->Resize(X.dims());
    Tensor* loss = DeviceOutput(1);
    loss->Resize({});
    Tensor row_terms(DataType::kDouble, {2 * n}, device());
    kernels::SoftmaxWithLossFloat(X.data<float>(), n, d, label_prob_ ? nullptr : T.raw_data(),
                                  T.dtype() == DataType::kInt64, probs, weights, scale_,
                                  P->mutable_data<float>(), row_terms.mutable_data<double>(),
                                  loss->mutable_data<float>(), stream());
    CheckLaunch();
  }

 private:
  const double scale_;
  const bool label_prob_;
  const int64_t axis_;
};

PARITY_REGISTER_CUDA_OPERATOR(SoftmaxWithLoss, SoftmaxWithLossCudaOp);

}  // namespace
}  // namespace parity::gpu
