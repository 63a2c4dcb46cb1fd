// Elementwise ops on the device: unary functions. (Add / Sub / Mul / Div, in every dtype the CPU
// takes, are gpu/ops/dtype_binary.cc's, with the comparisons and logical ops.)
#include <vector>

#include "gpu/cuda_operator.h"
#include "gpu/kernels/kernels.h"

namespace parity::gpu {
namespace {

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

}  // namespace
}  // namespace parity::gpu
