// Elementwise ops on the device: unary functions and Add/Sub/Mul/Div with numpy and Caffe2
// legacy broadcasting. Shapes, arguments and their errors come from the CPU kernels' own helpers
// (core/ops/elementwise/binary.h), so both devices accept and reject the same nets.
#include <vector>

#include "core/ops/elementwise/binary.h"
#include "gpu/cuda_operator.h"
#include "gpu/kernel_geometry.h"
#include "gpu/kernels/kernels.h"

namespace parity::gpu {
namespace {

using kernels::Binary;
using kernels::Unary;

template <Unary kFn>
class UnaryCudaOp final : public CudaOperator {
 public:
  using CudaOperator::CudaOperator;

  void Run() override {
    const Tensor& x = FloatInput(0);
    Tensor* y = DeviceOutput(0);
    y->Resize(x.dims());
    kernels::UnaryFloat(kFn, x.data<float>(), y->mutable_data<float>(), x.numel(), stream());
    CheckLaunch();
  }
};

PARITY_REGISTER_CUDA_OPERATOR(Relu, UnaryCudaOp<Unary::kRelu>);
PARITY_REGISTER_CUDA_OPERATOR(Sigmoid, UnaryCudaOp<Unary::kSigmoid>);
PARITY_REGISTER_CUDA_OPERATOR(Tanh, UnaryCudaOp<Unary::kTanh>);
PARITY_REGISTER_CUDA_OPERATOR(Exp, UnaryCudaOp<Unary::kExp>);
PARITY_REGISTER_CUDA_OPERATOR(Log, UnaryCudaOp<Unary::kLog>);
PARITY_REGISTER_CUDA_OPERATOR(Sqrt, UnaryCudaOp<Unary::kSqrt>);
PARITY_REGISTER_CUDA_OPERATOR(Sqr, UnaryCudaOp<Unary::kSqr>);
PARITY_REGISTER_CUDA_OPERATOR(Abs, UnaryCudaOp<Unary::kAbs>);
PARITY_REGISTER_CUDA_OPERATOR(Neg, UnaryCudaOp<Unary::kNeg>);
PARITY_REGISTER_CUDA_OPERATOR(Reciprocal, UnaryCudaOp<Unary::kReciprocal>);
PARITY_REGISTER_CUDA_OPERATOR(Sin, UnaryCudaOp<Unary::kSin>);
PARITY_REGISTER_CUDA_OPERATOR(Cos, UnaryCudaOp<Unary::kCos>);
PARITY_REGISTER_CUDA_OPERATOR(Softsign, UnaryCudaOp<Unary::kSoftsign>);
PARITY_REGISTER_CUDA_OPERATOR(Floor, UnaryCudaOp<Unary::kFloor>);
PARITY_REGISTER_CUDA_OPERATOR(Ceil, UnaryCudaOp<Unary::kCeil>);

template <Binary kFn>
class BinaryCudaOp final : public CudaOperator {
 public:
  BinaryCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : CudaOperator(def, ws), bargs_(ReadBroadcastArgs(def, args())) {}

  void Run() override {
    const Tensor& a = FloatInput(0);
    const Tensor& b = FloatInput(1);
    BinaryDims(bargs_, a.dims(), b.dims(), label(), &out_dims_, &b_plan_dims_);
    // Checked before Resize: in place, the output is the input tensor itself.
    if (OutputBlob(0) == InputBlob(0)) CheckInPlaceDims(label(), "A", a.dims(), out_dims_);
    if (OutputBlob(0) == InputBlob(1)) CheckInPlaceDims(label(), "B", b.dims(), out_dims_);
    const kernels::BroadcastGeometry g =
        BroadcastGeometryOf(label(), out_dims_, a.dims(), b_plan_dims_);
    Tensor* y = DeviceOutput(0);
    y->Resize(out_dims_);
    kernels::BinaryFloat(kFn, a.data<float>(), b.data<float>(), y->mutable_data<float>(),
                         y->numel(), g, stream());
    CheckLaunch();
  }

 private:
  const BroadcastArgs bargs_;
  std::vector<int64_t> out_dims_;
  std::vector<int64_t> b_plan_dims_;
};

PARITY_REGISTER_CUDA_OPERATOR(Add, BinaryCudaOp<Binary::kAdd>);
PARITY_REGISTER_CUDA_OPERATOR(Sub, BinaryCudaOp<Binary::kSub>);
PARITY_REGISTER_CUDA_OPERATOR(Mul, BinaryCudaOp<Binary::kMul>);
PARITY_REGISTER_CUDA_OPERATOR(Div, BinaryCudaOp<Binary::kDiv>);

}  // namespace
}  // namespace parity::gpu
