// SpatialBN (inference and training) and LayerNorm on the device (float). Arguments, layouts and
// errors come from the CPU kernels' helpers (core/ops/norm/norm.h), so both devices accept and
// reject the same nets; the arithmetic is gpu/kernels/norm_body.h's, tested on the host against
// the CPU kernels (tests/gpu/bodies/norm_body_test.cc).
#include "core/ops/norm/norm.h"
#include "gpu/cuda_operator.h"
#include "gpu/kernels/kernels.h"
#include "gpu/kernels/norm_rnn.h"

namespace parity::gpu {
namespace {

class SpatialBNCudaOp final : public CudaOperator {
 public:
  SpatialBNCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : CudaOperator(def, ws), options_(norm_util::ReadSpatialBNOptions(*this)) {}

  void Run() override {
    const Tensor& X = FloatInput(0);
    const norm_util::BNLayout l = norm_util::BNDims(X.dims(), options_.nchw, label());
    const float* scale = Channel(1, l.c);
    const float* bias = Channel(2, l.c);
    kernels::BNShape shape;
    shape.n = l.n;
    shape.c = l.c;
    shape.hxw = l.hxw;
    shape.nchw = options_.nchw;
    // alpha, shift and beta, one float per channel each, in one scratch tensor (the caching
    // allocator makes it cheap to take per run).
    Tensor coefficients(DataType::kFloat, {3 * l.c}, device());
    float* alpha = coefficients.mutable_data<float>();
    float* shift = alpha + l.c;
    float* beta = alpha + 2 * l.c;
    if (options_.is_test) {
      const float* mean = Channel(3, l.c);
      const float* var = Channel(4, l.c);
      kernels::BNInferenceCoefficientsFloat(scale, bias, mean, var, options_.epsilon, l.c, alpha,
                                            shift, beta, stream());
    } else if (!Train(X, l, shape, scale, bias, alpha, shift, beta)) {
      CheckLaunch();
      return;  // empty batch
    }
    Tensor* Y = DeviceOutput(0);
    const float* x = X.data<float>();  // before Resize: Y may be X (in place)
    Y->Resize(X.dims());
    kernels::BNApplyFloat(x, shape, alpha, shift, beta, Y->mutable_data<float>(), X.numel(),
                          stream());
    CheckLaunch();
  }

 private:
  const float* Channel(int i, int64_t c) {
    norm_util::CheckChannelInput(*this, i, DataType::kFloat, c);
    return DeviceInput(i).data<float>();
  }

  // The running statistic output `out` (in place with input `in`): zeros when it does not hold
  // one float per channel yet, as on the CPU.
  float* RunningStat(int out, int in, int64_t c) {
    // A running statistic kept on the host would be replaced by zeros below (DeviceOutput drops
    // a tensor on another device): name it instead. An undefined one starts at zero, as on the CPU.
    if (Input(in).defined()) DeviceInput(in);
    Tensor* t = DeviceOutput(out);
    if (t->numel() != c || !t->defined()) {
      t->Resize({c});
      kernels::FillFloat(0.0f, t->mutable_data<float>(), c, stream());
    }
    PARITY_ENFORCE(t->dtype() == DataType::kFloat, ErrorKind::kShapeMismatch, label(),
                   ": input '", InputName(in), "' must be float, got ", t->DebugString());
    return t->mutable_data<float>();
  }

  // Batch statistics, running statistics and the coefficients; false for an empty batch (Y
  // allocated, saved statistics zero, running statistics untouched), as on the CPU.
  bool Train(const Tensor& X, const norm_util::BNLayout& l, const kernels::BNShape& shape,
             const float* scale, const float* bias, float* alpha, float* shift, float* beta) {
    kernels::BNTrainArgs args;
    args.epsilon = options_.epsilon;
    args.momentum = options_.momentum;
    args.num_batches = options_.num_batches;
    if (l.n > 0 && options_.num_batches > 1) {
      args.sums = Channel(5, l.c);
      args.sumsq = Channel(6, l.c);
    }
    Tensor* saved_mean = DeviceOutput(3);
    Tensor* saved_rstd = DeviceOutput(4);
    saved_mean->Resize({l.c});
    saved_rstd->Resize({l.c});
    float* mean = saved_mean->mutable_data<float>();
    float* rstd = saved_rstd->mutable_data<float>();
    float* running_mean = RunningStat(1, 3, l.c);
    float* running_var = RunningStat(2, 4, l.c);
    if (l.n == 0) {
      Tensor* Y = DeviceOutput(0);
      Y->Resize(X.dims());
      Y->mutable_data<float>();
      kernels::FillFloat(0.0f, mean, l.c, stream());
      kernels::FillFloat(0.0f, rstd, l.c, stream());
      return false;
    }
    kernels::BNTrainFloat(X.data<float>(), shape, args, scale, bias, running_mean, running_var,
                          mean, rstd, alpha, shift, beta, stream());
    return true;
  }

  const norm_util::BNOptions options_;
};

PARITY_REGISTER_CUDA_OPERATOR(SpatialBN, SpatialBNCudaOp);

class LayerNormCudaOp final : public CudaOperator {
 public:
  LayerNormCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : CudaOperator(def, ws),
        axis_(Arg<int64_t>("axis")),
        epsilon_(Arg<double>("epsilon")),
        affine_(Arg<bool>("elementwise_affine")) {
    norm_util::CheckLayerNormInputs(*this, affine_);
  }

  void Run() override {
    const Tensor& X = FloatInput(0);
    const norm_util::LayerNormRows rows = norm_util::PlanLayerNorm(*this, axis_, affine_);
    const float* gamma = affine_ ? FloatInput(1).data<float>() : nullptr;
    const float* beta = affine_ ? FloatInput(2).data<float>() : nullptr;
    const float* x = X.data<float>();
    const std::vector<int64_t> moment_dims = norm_util::MomentDims(X.dims(), rows.axis);
    Tensor* Y = DeviceOutput(0);
    Tensor* mean = DeviceOutput(1);
    Tensor* sd = DeviceOutput(2);
    Y->Resize(X.dims());
    mean->Resize(moment_dims);
    sd->Resize(moment_dims);
    // epsilon rounded to float as the CPU's float kernel does (static_cast<T>(epsilon_)).
    kernels::LayerNormFloat(x, rows.m, rows.n, static_cast<float>(epsilon_), gamma, beta,
                            Y->mutable_data<float>(), mean->mutable_data<float>(),
                            sd->mutable_data<float>(), stream());
    CheckLaunch();
  }

 private:
  const int64_t axis_;
  const double epsilon_;
  const bool affine_;
};

PARITY_REGISTER_CUDA_OPERATOR(LayerNorm, LayerNormCudaOp);

}  // namespace
}  // namespace parity::gpu
