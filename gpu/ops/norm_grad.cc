// SpatialBNGradient and LayerNormGradient on the device (float). Arguments and checks are the CPU
// gradients' (core/ops/norm/norm.h); the arithmetic is gpu/kernels/norm_body.h's, in double where
// the CPU sums in double, tested on the host (tests/gpu/bodies/norm_body_test.cc).
#include <vector>

#include "core/ops/norm/norm.h"
#include "gpu/cuda_operator.h"
#include "gpu/kernels/norm_rnn.h"

namespace parity::gpu {
namespace {

class SpatialBNGradientCudaOp final : public CudaOperator {
 public:
  SpatialBNGradientCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : CudaOperator(def, ws), options_(norm_util::ReadSpatialBNGradientOptions(*this)) {}

  void Run() override {
    const Tensor& X = FloatInput(0);
    const Tensor& dY = DeviceInput(2);
    const norm_util::BNLayout l = norm_util::CheckSpatialBNGradientInputs(*this, options_.nchw);
    const float* scale = Channel(1, l.c);
    const float* stat_mean = Channel(3, l.c);
    const float* stat_second = Channel(4, l.c);
    kernels::BNShape shape;
    shape.n = l.n;
    shape.c = l.c;
    shape.hxw = l.hxw;
    shape.nchw = options_.nchw;
    const float* x = X.data<float>();
    const float* dy = dY.data<float>();
    Tensor coefficients(DataType::kFloat, {4 * l.c}, device());
    Tensor* dX = DeviceOutput(0);
    Tensor* dScale = DeviceOutput(1);
    Tensor* dBias = DeviceOutput(2);
    dX->Resize(X.dims());
    dScale->Resize({l.c});
    dBias->Resize({l.c});
    kernels::BNGradientFloat(x, dy, shape, options_.is_test, options_.epsilon, scale, stat_mean,
                             stat_second, dScale->mutable_data<float>(),
                             dBias->mutable_data<float>(), coefficients.mutable_data<float>(),
                             dX->mutable_data<float>(), stream());
    CheckLaunch();
  }

 private:
  const float* Channel(int i, int64_t c) {
    norm_util::CheckChannelInput(*this, i, DataType::kFloat, c);
    return DeviceInput(i).data<float>();
  }

  const norm_util::BNOptions options_;
};

PARITY_REGISTER_CUDA_OPERATOR(SpatialBNGradient, SpatialBNGradientCudaOp);

class LayerNormGradientCudaOp final : public CudaOperator {
 public:
  LayerNormGradientCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : CudaOperator(def, ws),
        axis_(Arg<int64_t>("axis")),
        affine_(Arg<bool>("elementwise_affine")) {
    norm_util::CheckLayerNormGradientArity(*this, affine_);
  }

  void Run() override {
    const Tensor& X = FloatInput(4);
    for (int i = 0; i < InputSize(); ++i) DeviceInput(i);
    const norm_util::LayerNormRows rows = norm_util::PlanLayerNormGradient(*this, axis_, affine_);
    const float* dy = Input(0).data<float>();
    const float* x = X.data<float>();
    const float* mean = Input(2).data<float>();
    const float* sd = Input(3).data<float>();
    const float* gamma = affine_ ? Input(5).data<float>() : nullptr;
    float* dgamma = nullptr;
    float* dbeta = nullptr;
    if (affine_) {
      const std::vector<int64_t> param_dims(X.dims().begin() + rows.axis, X.dims().end());
      Tensor* dGamma = DeviceOutput(1);
      Tensor* dBeta = DeviceOutput(2);
      dGamma->Resize(param_dims);
      dBeta->Resize(param_dims);
      dgamma = dGamma->mutable_data<float>();
      dbeta = dBeta->mutable_data<float>();
    }
    Tensor* dX = DeviceOutput(0);
    dX->Resize(X.dims());
    kernels::LayerNormGradientFloat(dy, x, mean, sd, gamma, rows.m, rows.n,
                                    dX->mutable_data<float>(), dgamma, dbeta, stream());
    CheckLaunch();
  }

 private:
  const int64_t axis_;
  const bool affine_;
};

PARITY_REGISTER_CUDA_OPERATOR(LayerNormGradient, LayerNormGradientCudaOp);

}  // namespace
}  // namespace parity::gpu
