// ONNX's class losses on the device (float): NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss
// and their gradients (core/ops/loss/nll.cc defines them). The shapes, dtypes and the reduction
// are checked by the CPU kernels' own shape inference (CudaOperator::InferOutputs), in the CPU's
// order; the targets are read on a host copy with the CPU's range check and message before any
// launch, and go to the device as one int64 class per position (-1 where ignored). The arithmetic
// is gpu/kernels/class_loss_body.h's, tested on the host against the CPU kernels
// (tests/gpu/bodies/class_loss_body_test.cc).
//
// The reduction's and dLoss's messages are the CPU's, written out again here: nll.cc keeps its
// helpers file-local, and the device tests compare both devices' messages.
//
// Compiled, not yet run on a GPU (the host body tests and the device tests' CPU side ran).
#include "gpu/kernels/class_loss.h"

#include <string>
#include <vector>

#include "core/ops/common/shape_util.h"
#include "gpu/cuda_operator.h"
#include "gpu/device.h"

namespace parity::gpu {
namespace {

using kernels::ClassReduction;

ClassReduction ParseReduction(const std::string& s, const std::string& label) {
  if (s == "none") return ClassReduction::kNone;
  if (s == "sum") return ClassReduction::kSum;
  PARITY_ENFORCE(s == "mean", ErrorKind::kBadArgument, label, ": argument 'reduction' = \"", s,
                 "\" is not one of \"none\", \"sum\", \"mean\"");
  return ClassReduction::kMean;
}

// What the four ops share: the arguments (read at construction, as on the CPU) and the targets.
class ClassLossCudaOp : public CudaOperator {
 public:
  // `max_inputs`: the op's input count with the optional weights (the last one may be dLoss).
  ClassLossCudaOp(const caffe2::OperatorDef& def, Workspace* ws, int max_inputs)
      : CudaOperator(def, ws),
        reduction_(ParseReduction(Arg<std::string>("reduction"), label())),
        has_ignore_(args().Has("ignore_index")),
        ignore_(has_ignore_ ? Arg<int64_t>("ignore_index") : 0),
        weighted_(InputSize() == max_inputs),
        classes_(device()) {}

 protected:
  // The CPU's ReadTargets: the forward inputs' shapes (the schema's inference), then every target
  // in range or ignored, checked on a host copy; the classes then go to the device.
  kernels::ClassDims ReadTargets() {
    InferOutputs();
    const Tensor& x = DeviceInput(0);
    kernels::ClassDims s;
    s.n = x.dim(0);
    s.c = x.dim(1);
    for (int i = 2; i < x.ndim(); ++i) s.d *= x.dim(i);
    Tensor host(DataType::kInt64, {s.n * s.d});
    int64_t* classes = host.mutable_data<int64_t>();
    const Tensor targets = ToCpu(DeviceInput(1));
    shape_util::DispatchIndex(targets, label(), InputName(1), "target", [&](const auto* t) {
      for (int64_t p = 0; p < s.n * s.d; ++p) {
        const int64_t v = t[p];
        if (has_ignore_ && v == ignore_) {
          classes[p] = -1;
          continue;
        }
        PARITY_ENFORCE(
            v >= 0 && v < s.c, ErrorKind::kBadArgument, label(), ": target ", v, " at position ", p,
            " of '", InputName(1), "' is out of range [0, ", s.c, ")",
            has_ignore_ ? " and is not ignore_index " + std::to_string(ignore_) : std::string(),
            " for ", x.DebugString());
        classes[p] = v;
      }
    });
    CopyTensor(host, &classes_);
    return s;
  }

  // After the CPU's checks: the kernels take float only (a double X, and its weights, passed the
  // CPU's checks and run on the CPU alone).
  const float* FloatX() { return FloatInput(0).data<float>(); }
  const float* Weights() { return weighted_ ? FloatInput(2).data<float>() : nullptr; }

  // Whether output 0 is one of the inputs (a gradient written over dLoss, say): then it is
  // computed aside and copied over, so every input is read intact.
  bool OutputIsAnInput() const {
    for (int i = 0; i < InputSize(); ++i) {
      if (OutputBlob(0) == InputBlob(i)) return true;
    }
    return false;
  }

  // The gradient's dLoss (the last input): the loss's dims and X's dtype (the CPU's Scales check).
  const Tensor& DLoss() {
    const int g = InputSize() - 1;
    const Tensor& dloss = DeviceInput(g);
    const std::vector<int64_t> want =
        reduction_ == ClassReduction::kNone ? Input(1).dims() : std::vector<int64_t>{};
    PARITY_ENFORCE(dloss.dims() == want && dloss.dtype() == Input(0).dtype(),
                   ErrorKind::kShapeMismatch, label(), ": gradient '", InputName(g), "' ",
                   dloss.DebugString(), " must be ", DataTypeName(Input(0).dtype()), " ",
                   ShapeString(want), " (the loss's)");
    return dloss;
  }

  // The loss's output: the target's dims (none) or a scalar.
  Tensor* LossOutput() {
    Tensor* y = DeviceOutput(0);
    y->Resize(reduction_ == ClassReduction::kNone ? Input(1).dims() : std::vector<int64_t>{});
    return y;
  }

  const ClassReduction reduction_;
  const bool has_ignore_;
  const int64_t ignore_;
  const bool weighted_;
  Tensor classes_;
};

class NegativeLogLikelihoodLossCudaOp final : public ClassLossCudaOp {
 public:
  NegativeLogLikelihoodLossCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : ClassLossCudaOp(def, ws, 3) {}

  void Run() override {
    const kernels::ClassDims s = ReadTargets();
    const float* x = FloatX();
    const float* weights = Weights();
    Tensor scratch(DataType::kDouble, {2 * s.n * s.d}, device());
    kernels::ClassLossFloat(x, classes_.data<int64_t>(), weights, s, reduction_,
                            scratch.mutable_data<double>(), LossOutput()->mutable_data<float>(),
                            stream());
    CheckLaunch();
  }
};

PARITY_REGISTER_CUDA_OPERATOR(NegativeLogLikelihoodLoss, NegativeLogLikelihoodLossCudaOp);

class SoftmaxCrossEntropyLossCudaOp final : public ClassLossCudaOp {
 public:
  SoftmaxCrossEntropyLossCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : ClassLossCudaOp(def, ws, 3), log_prob_scratch_(device()) {}

  void Run() override {
    const kernels::ClassDims s = ReadTargets();
    // The scores' pointer is taken before log_prob is written, which may be them (the CPU's
    // order; the body reads each position's scores before writing them).
    const float* x = FloatX();
    const float* weights = Weights();
    const std::vector<int64_t> dims = Input(0).dims();
    Tensor* log_prob = OutputSize() > 1 ? DeviceOutput(1) : &log_prob_scratch_;
    log_prob->Resize(dims);
    float* logp = log_prob->mutable_data<float>();
    kernels::LogSoftmaxClassesFloat(x, s, logp, stream());
    Tensor scratch(DataType::kDouble, {2 * s.n * s.d}, device());
    kernels::ClassLossFloat(logp, classes_.data<int64_t>(), weights, s, reduction_,
                            scratch.mutable_data<double>(), LossOutput()->mutable_data<float>(),
                            stream());
    CheckLaunch();
  }

 private:
  Tensor log_prob_scratch_;
};

PARITY_REGISTER_CUDA_OPERATOR(SoftmaxCrossEntropyLoss, SoftmaxCrossEntropyLossCudaOp);

class NegativeLogLikelihoodLossGradientCudaOp final : public ClassLossCudaOp {
 public:
  NegativeLogLikelihoodLossGradientCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : ClassLossCudaOp(def, ws, 4) {}

  void Run() override {
    const kernels::ClassDims s = ReadTargets();
    const float* dloss = DLoss().data<float>();
    FloatX();
    const float* weights = Weights();
    Tensor scratch(DataType::kDouble, {1}, device());
    const std::vector<int64_t> dims = Input(0).dims();
    Tensor* dx = DeviceOutput(0);
    Tensor aside(device());
    Tensor* out = OutputIsAnInput() ? &aside : dx;
    out->Resize(dims);
    kernels::NllGradientFloat(classes_.data<int64_t>(), weights, dloss, s, reduction_,
                              scratch.mutable_data<double>(), out->mutable_data<float>(), stream());
    CheckLaunch();
    if (out != dx) CopyTensor(aside, dx);
  }
};

PARITY_REGISTER_CUDA_OPERATOR(NegativeLogLikelihoodLossGradient,
                              NegativeLogLikelihoodLossGradientCudaOp);

class SoftmaxCrossEntropyLossGradientCudaOp final : public ClassLossCudaOp {
 public:
  SoftmaxCrossEntropyLossGradientCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : ClassLossCudaOp(def, ws, 4) {}

  void Run() override {
    const kernels::ClassDims s = ReadTargets();
    const float* dloss = DLoss().data<float>();
    const float* x = FloatX();
    const float* weights = Weights();
    Tensor scratch(DataType::kDouble, {2 * s.n * s.d + 1}, device());
    const std::vector<int64_t> dims = Input(0).dims();
    Tensor* dx = DeviceOutput(0);
    Tensor aside(device());
    Tensor* out = OutputIsAnInput() ? &aside : dx;
    out->Resize(dims);
    kernels::SceGradientFloat(x, classes_.data<int64_t>(), weights, dloss, s, reduction_,
                              scratch.mutable_data<double>(), out->mutable_data<float>(), stream());
    CheckLaunch();
    if (out != dx) CopyTensor(aside, dx);
  }
};

PARITY_REGISTER_CUDA_OPERATOR(SoftmaxCrossEntropyLossGradient,
                              SoftmaxCrossEntropyLossGradientCudaOp);

}  // namespace
}  // namespace parity::gpu
