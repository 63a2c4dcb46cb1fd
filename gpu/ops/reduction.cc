// ReduceMax, ReduceMin, ReduceProd, the gradients of the Reduce* ops, SumElements, AveragedLoss
// and their gradients on the device (float). Axes, output dims, arguments and errors come from the
// CPU kernels' own helpers (core/ops/reduce/reduce.h's PlanReduce, the ops' schemas through
// InferOutputs), and the checks the CPU kernels make in Run are made here in the same order with
// the same messages, so both devices accept and reject the same nets.
//
// Order and bits (gpu/kernels/reduction_body.h): ReduceMax / ReduceMin / ReduceProd run the CPU's
// passes (one per run of reduced axes, innermost first, through scratch buffers as the CPU does),
// each row folded in Eigen's redux order and each column row by row, so the products round and
// NaN and -0.0 come out as on the CPU. SumElements and AveragedLoss replay Eigen's .sum() of the
// whole input on one thread. The gradients fold each reduced group in X's row-major order, the
// CPU's walk. No atomics anywhere: every run gives the same bits.
#include "gpu/kernels/reduction.h"

#include <string>
#include <vector>

#include "core/ops/common/shape_util.h"
#include "core/ops/reduce/reduce.h"
#include "gpu/cuda_operator.h"
#include "gpu/kernel_geometry.h"

namespace parity::gpu {
namespace {

using kernels::Reducer;
using reduce_util::PlanReduce;
using reduce_util::ReducePlan;

// reduce_grad.cc's ExpectDims: the same check, the same message.
void ExpectDims(const Tensor& t, const std::vector<int64_t>& dims, const std::string& label,
                const std::string& blob, const char* what) {
  PARITY_ENFORCE(t.dims() == dims, ErrorKind::kShapeMismatch, label, ": ", what, " '", blob, "' ",
                 t.DebugString(), " must have dims ", ShapeString(dims));
}

// ReduceMax / ReduceMin / ReduceProd: X -> Y.
template <Reducer kOp>
class ReducePassesCudaOp final : public CudaOperator {
 public:
  ReducePassesCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : CudaOperator(def, ws), axes_(Args<int64_t>("axes")), keepdims_(Arg<bool>("keepdims")) {
    scratch_.emplace_back(device());
    scratch_.emplace_back(device());
  }

  void Run() override {
    const Tensor& x = DeviceInput(0);
    const ReducePlan plan = PlanReduce(x.dims(), axes_, keepdims_, label());
    const int64_t out_numel = shape_util::SizeFromDim(plan.out_dims, 0);
    PARITY_ENFORCE(plan.count > 0 || out_numel == 0 || kOp == Reducer::kProd,
                   ErrorKind::kShapeMismatch, label(), ": cannot take the ",
                   kOp == Reducer::kMax ? "max" : "min", " over an empty axis of input ",
                   x.DebugString());
    FloatInput(0);
    Tensor* y = DeviceOutput(0);
    y->Resize(plan.out_dims);
    float* py = y->mutable_data<float>();
    if (out_numel == 0) return;
    // reduce.cc's Compute: one pass per run of reduced axes, each into a scratch buffer but the
    // last (the buffers' alignment does not matter: the bodies fold as from a 16-byte boundary).
    const std::vector<kernels::ReducePass> passes =
        kernels::PlanReducePasses(x.dims(), plan.reduced);
    const float* src = x.data<float>();
    if (passes.empty()) {  // nothing reduced (a scalar input): a copy
      CudaCheck(
          cudaMemcpyAsync(py, src, out_numel * sizeof(float), cudaMemcpyDeviceToDevice, stream()),
          "cudaMemcpyAsync");
      return;
    }
    for (size_t p = 0; p < passes.size(); ++p) {
      const kernels::ReducePass& pass = passes[p];
      float* dst = py;
      if (p + 1 < passes.size()) {
        Tensor& buffer = scratch_[p % 2];
        buffer.Resize({pass.outer * pass.inner});
        dst = buffer.mutable_data<float>();
      }
      kernels::ReducePassFloat(kOp, src, dst, pass.outer, pass.r, pass.inner, stream());
      CheckLaunch();
      src = dst;
    }
  }

 private:
  const std::vector<int64_t> axes_;
  const bool keepdims_;
  std::vector<Tensor> scratch_;
};

PARITY_REGISTER_CUDA_OPERATOR(ReduceMax, ReducePassesCudaOp<Reducer::kMax>);
PARITY_REGISTER_CUDA_OPERATOR(ReduceMin, ReducePassesCudaOp<Reducer::kMin>);
PARITY_REGISTER_CUDA_OPERATOR(ReduceProd, ReducePassesCudaOp<Reducer::kProd>);

enum class Gradient { kSum, kMean, kMax, kMin, kProd };

// Reduce{Sum,Mean,Max,Min,Prod}Gradient: (dY, X, Y) -> dX.
template <Gradient kKind>
class ReduceGradientCudaOp final : public CudaOperator {
 public:
  ReduceGradientCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : CudaOperator(def, ws), axes_(Args<int64_t>("axes")), keepdims_(Arg<bool>("keepdims")) {}

  void Run() override {
    InferOutputs();
    const Tensor& dy = DeviceInput(0);
    const Tensor& x = DeviceInput(1);
    const Tensor& y = DeviceInput(2);
    // reduce_grad.cc's checks, in its order.
    const ReducePlan plan = PlanReduce(x.dims(), axes_, keepdims_, label());
    ExpectDims(dy, plan.out_dims, label(), InputName(0), "gradient");
    ExpectDims(y, plan.out_dims, label(), InputName(2), "forward output");
    constexpr bool kSelect = kKind == Gradient::kMax || kKind == Gradient::kMin;
    if (kSelect || kKind == Gradient::kProd) {
      shape_util::ExpectSameDtype(x, dy.dtype(), label(), InputName(1));
    }
    if (kSelect) shape_util::ExpectSameDtype(y, dy.dtype(), label(), InputName(2));
    const float* pdy = FloatInput(0).data<float>();
    const float* px =
        kKind == Gradient::kSum || kKind == Gradient::kMean ? nullptr : FloatInput(1).data<float>();
    const float* py = kSelect ? FloatInput(2).data<float>() : nullptr;
    const kernels::ReduceGeometry g = ReduceGeometryOf(label(), x.dims(), plan.reduced);
    const int64_t out_numel = shape_util::SizeFromDim(plan.out_dims, 0);
    Tensor* out = DeviceOutput(0);
    out->Resize(x.dims());
    float* dx = out->mutable_data<float>();
    if (out->numel() == 0) return;
    if (kKind == Gradient::kSum || kKind == Gradient::kMean) {
      // The CPU's scale: T(1), or T(1) / count.
      const float scale = kKind == Gradient::kMean ? 1.0f / static_cast<float>(plan.count) : 1.0f;
      kernels::ReduceBroadcastGradientFloat(pdy, dx, out_numel, plan.count, scale, g, stream());
    } else if (kSelect) {
      kernels::ReduceSelectGradientFloat(pdy, px, py, dx, out_numel, plan.count, g, stream());
    } else {
      kernels::ReduceProdGradientFloat(pdy, px, dx, out_numel, plan.count, g, stream());
    }
    CheckLaunch();
  }

 private:
  const std::vector<int64_t> axes_;
  const bool keepdims_;
};

PARITY_REGISTER_CUDA_OPERATOR(ReduceSumGradient, ReduceGradientCudaOp<Gradient::kSum>);
PARITY_REGISTER_CUDA_OPERATOR(ReduceMeanGradient, ReduceGradientCudaOp<Gradient::kMean>);
PARITY_REGISTER_CUDA_OPERATOR(ReduceMaxGradient, ReduceGradientCudaOp<Gradient::kMax>);
PARITY_REGISTER_CUDA_OPERATOR(ReduceMinGradient, ReduceGradientCudaOp<Gradient::kMin>);
PARITY_REGISTER_CUDA_OPERATOR(ReduceProdGradient, ReduceGradientCudaOp<Gradient::kProd>);

// SumElements (average: divide by the element count) and AveragedLoss (always divide): X -> a
// scalar (dims []).
template <bool kAveragedLoss>
class SumAllCudaOp final : public CudaOperator {
 public:
  SumAllCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : CudaOperator(def, ws), average_(kAveragedLoss || Arg<bool>("average")) {}

  void Run() override {
    InferOutputs();
    const Tensor& x = FloatInput(0);
    Tensor* y = DeviceOutput(0);
    y->Resize({});
    kernels::SumAllFloat(x.data<float>(), y->mutable_data<float>(), x.numel(), average_, stream());
    CheckLaunch();
  }

 private:
  const bool average_;
};

PARITY_REGISTER_CUDA_OPERATOR(SumElements, SumAllCudaOp<false>);
PARITY_REGISTER_CUDA_OPERATOR(AveragedLoss, SumAllCudaOp<true>);

// SumElementsGradient and AveragedLossGradient: (X, dY) -> dX, dY (or dY / numel) everywhere.
template <bool kAveragedLoss>
class ScalarGradientCudaOp final : public CudaOperator {
 public:
  ScalarGradientCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : CudaOperator(def, ws), average_(kAveragedLoss || Arg<bool>("average")) {}

  void Run() override {
    InferOutputs();
    const Tensor& dy = DeviceInput(1);
    if (kAveragedLoss) {
      PARITY_ENFORCE(dy.numel() == 1, ErrorKind::kShapeMismatch, label(), ": dLoss '", InputName(1),
                     "' must hold one element (AveragedLoss outputs a scalar), got ",
                     dy.DebugString());
    } else {
      PARITY_ENFORCE(dy.numel() == 1, ErrorKind::kShapeMismatch, label(), ": gradient '",
                     InputName(1), "' must hold one element (SumElements outputs a scalar), got ",
                     dy.DebugString());
    }
    const float* pdy = FloatInput(1).data<float>();
    const std::vector<int64_t> dims = Input(0).dims();
    Tensor* dx = DeviceOutput(0);
    dx->Resize(dims);
    kernels::ScalarGradientFloat(pdy, dx->mutable_data<float>(), dx->numel(),
                                 static_cast<float>(shape_util::SizeFromDim(dims, 0)), average_,
                                 stream());
    CheckLaunch();
  }

 private:
  const bool average_;
};

PARITY_REGISTER_CUDA_OPERATOR(SumElementsGradient, ScalarGradientCudaOp<false>);
PARITY_REGISTER_CUDA_OPERATOR(AveragedLossGradient, ScalarGradientCudaOp<true>);

}  // namespace
}  // namespace parity::gpu
