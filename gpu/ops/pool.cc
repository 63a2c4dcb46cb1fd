// MaxPool, AveragePool, their gradients, and ReluGradient / SigmoidGradient / TanhGradient on the
// device (float, NCHW). Geometry, output dims and errors are the CPU kernels' own helpers
// (ParseConvGeometry, ConvOutputDims, EnforceWindowsCoverInput, PoolGradientShape), so both
// devices accept and reject the same nets; the bodies (conv_pool_body.h) compute what the CPU
// kernels do, in the same order: MaxPool picks the first maximum in scan order, AveragePool divides
// as count_include_pad says, and the gradients gather per input element (no atomics).
//
// Compiled, not yet run on a GPU (README's GPU section).
#include <vector>

#include "core/ops/common/conv_geometry.h"
#include "core/ops/pool/pool.h"
#include "gpu/cuda_operator.h"
#include "gpu/kernel_geometry.h"
#include "gpu/kernels/conv_pool.h"

namespace parity::gpu {
namespace {

template <bool kAverage>
class PoolCudaOp final : public CudaOperator {
 public:
  PoolCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : CudaOperator(def, ws),
        geometry_(ParseConvGeometry(args(), ConvKind::kPool)),
        count_include_pad_(kAverage && Arg<bool>("count_include_pad")) {}

  void Run() override {
    const Tensor& X = FloatInput(0);
    ConvGeometry g = geometry_;  // global pooling sets the kernel from X
    ConvOutputDims(label(), X.dims(), X.ndim() > 1 ? X.dim(1) : 0, &g, &y_dims_);
    EnforceWindowsCoverInput(label(), g, X.dim(2), X.dim(3), y_dims_[2], y_dims_[3]);
    const kernels::ConvPoolGeometry kg = ConvPoolGeometryOf(
        g, X.dim(0) * X.dim(1), X.dim(2), X.dim(3), y_dims_[2], y_dims_[3]);
    Tensor* Y = DeviceOutput(0);
    Y->Resize(y_dims_);
    if constexpr (kAverage) {
      kernels::AveragePoolFloat(X.data<float>(), Y->mutable_data<float>(), kg, count_include_pad_,
                                stream());
    } else {
      int64_t* indices = nullptr;
      if (OutputSize() == 2) {  // ONNX's Indices: flat in X, int64
        Tensor* I = DeviceOutput(1);
        I->Resize(y_dims_);
        indices = I->mutable_data<int64_t>();
      }
      kernels::MaxPoolFloat(X.data<float>(), Y->mutable_data<float>(), indices, kg, stream());
    }
    CheckLaunch();
  }

 private:
  const ConvGeometry geometry_;
  const bool count_include_pad_;
  std::vector<int64_t> y_dims_;
};

PARITY_REGISTER_CUDA_OPERATOR(MaxPool, PoolCudaOp<false>);
PARITY_REGISTER_CUDA_OPERATOR(AveragePool, PoolCudaOp<true>);

// (X, Y, dY) -> dX. MaxPoolGradient first finds each window's argmax in X (MaxPool's own body, so
// the credited element is the one the forward chose; Y is checked for shape only, as on the CPU),
// then gathers.
template <bool kAverage>
class PoolGradientCudaOp final : public CudaOperator {
 public:
  PoolGradientCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : CudaOperator(def, ws),
        geometry_(ParseConvGeometry(args(), ConvKind::kPool)),
        count_include_pad_(kAverage && Arg<bool>("count_include_pad")),
        argmax_(device()) {}

  void Run() override {
    const Tensor& X = FloatInput(0);
    const Tensor& Y = FloatInput(1);
    const Tensor& dY = FloatInput(2);
    ConvGeometry g = geometry_;
    PoolGradientShape(label(), X.dims(), Y.dims(), dY.dims(), &g, &y_dims_);
    const kernels::ConvPoolGeometry kg = ConvPoolGeometryOf(
        g, X.dim(0) * X.dim(1), X.dim(2), X.dim(3), y_dims_[2], y_dims_[3]);
    Tensor* dX = DeviceOutput(0);
    dX->Resize(X.dims());
    float* dx = dX->mutable_data<float>();
    if constexpr (kAverage) {
      kernels::AveragePoolGradientFloat(dY.data<float>(), dx, kg, count_include_pad_, stream());
    } else {
      argmax_.Resize(y_dims_);  // keeps its storage while large enough
      int64_t* argmax = argmax_.mutable_data<int64_t>();
      kernels::MaxPoolFloat(X.data<float>(), nullptr, argmax, kg, stream());
      CheckLaunch();
      kernels::MaxPoolGradientFloat(argmax, dY.data<float>(), dx, kg, stream());
    }
    CheckLaunch();
  }

 private:
  const ConvGeometry geometry_;
  const bool count_include_pad_;
  std::vector<int64_t> y_dims_;
  Tensor argmax_;  // MaxPoolGradient: each window's argmax, flat in X, on the device
};

PARITY_REGISTER_CUDA_OPERATOR(MaxPoolGradient, PoolGradientCudaOp<false>);
PARITY_REGISTER_CUDA_OPERATOR(AveragePoolGradient, PoolGradientCudaOp<true>);

// (Y, dY) -> dX for the activations whose gradient reads the forward output.
template <kernels::ActivationGradient kFn>
class ActivationGradientCudaOp final : public CudaOperator {
 public:
  using CudaOperator::CudaOperator;

  void Run() override {
    const Tensor& y = FloatInput(0);
    const Tensor& dy = FloatInput(1);
    // The CPU kernel's check and message (core/ops/unary/unary_grad.cc).
    PARITY_ENFORCE(y.dims() == dy.dims(), ErrorKind::kShapeMismatch, label(), ": dY ",
                   ShapeString(dy.dims()), " must have the dims of Y ", ShapeString(y.dims()));
    Tensor* dx = DeviceOutput(0);
    // Elementwise, so dX in place of Y or dY is safe: each thread reads its element first.
    dx->Resize(dy.dims());
    kernels::ActivationGradientFloat(kFn, y.data<float>(), dy.data<float>(),
                                     dx->mutable_data<float>(), dy.numel(), stream());
    CheckLaunch();
  }
};

PARITY_REGISTER_CUDA_OPERATOR(ReluGradient,
                              ActivationGradientCudaOp<kernels::ActivationGradient::kRelu>);
PARITY_REGISTER_CUDA_OPERATOR(SigmoidGradient,
                              ActivationGradientCudaOp<kernels::ActivationGradient::kSigmoid>);
PARITY_REGISTER_CUDA_OPERATOR(TanhGradient,
                              ActivationGradientCudaOp<kernels::ActivationGradient::kTanh>);

}  // namespace
}  // namespace parity::gpu
