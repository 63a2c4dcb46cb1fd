// MulGradient, DivGradient, ModGradient and SoftmaxGradient on the device (float). Dtypes, shapes,
// arguments and their errors come from the CPU's own shape inference (the ops' schemas,
// core/ops/elementwise/binary_grad.cc and core/ops/reduce/reduce_grad.cc) and broadcast helpers
// (core/ops/elementwise/binary.h), so both devices accept and reject the same nets.
//
// Formulas and order (gpu/kernels/grad2_body.h):
//   - MulGradient (dC, A, B) -> (dA, dB): dA = dC * B, dB = dC * A; DivGradient (dC, A, B, C), or
//     the legacy (B, C, dC) with A's dims taken from C: dA = dC / B, dB = -(dC * C) / B;
//     ModGradient (dC, A, B, C): dA = dC, dB = -(dC * round((A - C) / B)); the CPU functors'
//     expressions. Each is summed over its operand's broadcast copies serially in the
//     output's row-major order from 0, the CPU's order where the operand varies along the
//     output's innermost run; where it is constant along that run the CPU's Eigen sums the run's
//     block in one vectorized .sum() and the last bits may differ (within the device oracle's
//     tolerance). Without broadcast copies the derivative is assigned, as on the CPU.
//   - SoftmaxGradient (Y, dY) -> dX: per row of the 2-D view at `axis`, dX = Y * (dY - <Y, dY>),
//     the dot summed serially (the CPU's Eigen .sum() adds in its own order).
#include <vector>

#include "core/ops/common/shape_util.h"
#include "core/ops/elementwise/binary.h"
#include "core/ops/elementwise/binary_grad.h"
#include "core/ops/reduce/reduce.h"
#include "core/schema.h"
#include "gpu/cuda_operator.h"
#include "gpu/device.h"
#include "gpu/kernel_geometry.h"
#include "gpu/kernels/kernels.h"

namespace parity::gpu {
namespace {

enum class GradOf { kMul, kDiv, kMod };

// Mul: (dC, A, B) -> (dA, dB). Div: (dC, A, B, C) -> (dA, dB), or legacy (B, C, dC) -> (dA, dB)
// (the CPU's LayoutFor: DivGradient with 3 inputs is the legacy form). Mod: (dC, A, B, C) ->
// (dA, [dB]).
template <GradOf kOf>
class BinaryGradientCudaOp final : public CudaOperator {
 public:
  BinaryGradientCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : CudaOperator(def, ws), bargs_(ReadBroadcastArgs(def, args())) {
    // At construction, as the CPU kernel checks it.
    elementwise_grad::CheckDistinctOutputs(def, label());
    if (kOf == GradOf::kDiv && def.input_size() == 3) {
      dc_ = 2, a_ = -1, b_ = 0, c_ = 1;
    } else if (kOf != GradOf::kMul) {
      c_ = 3;
    }
    scratch_.emplace_back(device());
    scratch_.emplace_back(device());
  }

  void Run() override {
    InferOutputs();
    const float* dc = FloatInput(dc_).data<float>();
    const Tensor& b = FloatInput(b_);
    const float* pb = b.data<float>();
    const float* pc = c_ >= 0 ? FloatInput(c_).data<float>() : nullptr;
    // Legacy Div: A is not an input; its dims are C's, and dA (dC / B) does not read it.
    const float* pa = a_ >= 0 ? FloatInput(a_).data<float>() : pc;
    const std::vector<int64_t> a_dims = a_ >= 0 ? Input(a_).dims() : Input(c_).dims();
    const std::vector<int64_t> b_dims = b.dims();
    BinaryDims(bargs_, a_dims, b_dims, label(), &out_dims_, &b_plan_);
    const kernels::BroadcastGeometry g = BroadcastGeometryOf(label(), out_dims_, a_dims, b_plan_);
    // An output over an input is computed aside and copied over once both are done, so every
    // input is read intact.
    Tensor* results[2] = {nullptr, nullptr};
    for (int i = 0; i < OutputSize(); ++i) {
      bool aside = false;
      for (int j = 0; j < InputSize(); ++j) aside = aside || OutputBlob(i) == InputBlob(j);
      results[i] = aside ? &scratch_[i] : DeviceOutput(i);
    }
    using kernels::BinaryGrad;
    constexpr BinaryGrad kDA = kOf == GradOf::kMul   ? BinaryGrad::kMulDA
                               : kOf == GradOf::kDiv ? BinaryGrad::kDivDA
                                                     : BinaryGrad::kModDA;
    constexpr BinaryGrad kDB = kOf == GradOf::kMul   ? BinaryGrad::kMulDB
                               : kOf == GradOf::kDiv ? BinaryGrad::kDivDB
                                                     : BinaryGrad::kModDB;
    Grad(kDA, dc, pa, pb, pc, a_dims, a_dims, g, results[0]);
    if (OutputSize() > 1) Grad(kDB, dc, pa, pb, pc, b_dims, b_plan_, g, results[1]);
    for (int i = 0; i < OutputSize(); ++i) {
      if (results[i] == &scratch_[i]) CopyTensor(scratch_[i], DeviceOutput(i));
    }
  }

 private:
  // y (dims `dims`; `plan` as the broadcast sees them) = the derivative `fn` summed over the
  // output's broadcast copies of each element.
  void Grad(kernels::BinaryGrad fn, const float* dc, const float* a, const float* b, const float* c,
            const std::vector<int64_t>& dims, const std::vector<int64_t>& plan,
            const kernels::BroadcastGeometry& g, Tensor* y) {
    y->Resize(dims);
    float* py = y->mutable_data<float>();
    int64_t count = 0;
    const kernels::ReduceGeometry r = BroadcastReduceGeometryOf(label(), out_dims_, plan, &count);
    kernels::BinaryGradFloat(fn, dc, a, b, c, py, y->numel(), count, r, g, stream());
    CheckLaunch();
  }

  const BroadcastArgs bargs_;
  int dc_ = 0, a_ = 1, b_ = 2, c_ = -1;
  std::vector<int64_t> out_dims_;
  std::vector<int64_t> b_plan_;
  std::vector<Tensor> scratch_;
};

PARITY_REGISTER_CUDA_OPERATOR(MulGradient, BinaryGradientCudaOp<GradOf::kMul>);
PARITY_REGISTER_CUDA_OPERATOR(DivGradient, BinaryGradientCudaOp<GradOf::kDiv>);
PARITY_REGISTER_CUDA_OPERATOR(ModGradient, BinaryGradientCudaOp<GradOf::kMod>);

// (Y, dY) -> dX. Each row reads every Y and dY element at an index before writing dX there, so dX
// may be written over dY (the schema's in place) or Y.
class SoftmaxGradientCudaOp final : public CudaOperator {
 public:
  SoftmaxGradientCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : CudaOperator(def, ws), axis_(Arg<int64_t>("axis")) {}

  void Run() override {
    InferOutputs();
    const Tensor& y = FloatInput(0);
    const Tensor& dy = FloatInput(1);
    const std::vector<int64_t> dims = y.dims();
    const int axis = reduce_util::SoftmaxAxis(axis_, dims, label());
    const float* py = y.data<float>();
    const float* pdy = dy.data<float>();
    Tensor* dx = DeviceOutput(0);
    dx->Resize(dims);
    kernels::SoftmaxGradientRows(py, pdy, dx->mutable_data<float>(),
                                 shape_util::SizeToDim(dims, axis),
                                 shape_util::SizeFromDim(dims, axis), stream());
    CheckLaunch();
  }

 private:
  const int64_t axis_;
};

PARITY_REGISTER_CUDA_OPERATOR(SoftmaxGradient, SoftmaxGradientCudaOp);

}  // namespace
}  // namespace parity::gpu
