// Sum, AddGradient and SubGradient on the device (float): the ops of a backward pass that
// accumulate gradients and undo Add / Sub. Dtypes, shapes, arguments and their errors come from
// the CPU's own shape inference (the ops' schemas, core/ops/elementwise/variadic.cc and
// binary_grad.cc) and broadcast helpers (core/ops/elementwise/binary.h), so both devices accept
// and reject the same nets.
//
// Summation order:
//   - Sum adds input after input, ((x0 + x1) + x2) + ..., as the CPU: the same bits.
//   - dA / dB over broadcast dims: each operand element sums its dC elements serially in row-major
//     order from 0 (ReduceSumBody), the order of the CPU's pass over the output; where the CPU's
//     Eigen sums a broadcast run of a scalar operand in one vectorized .sum() the orders differ
//     (within the device oracle's f32 tolerance). SubGradient's dB is that sum negated, which
//     equals the CPU's sum of -dC exactly (round-to-nearest is symmetric) except that a sum of
//     zeros ends -0.0 here and +0.0 there.
#include <vector>

#include "core/ops/elementwise/binary.h"
#include "core/ops/elementwise/binary_grad.h"
#include "core/schema.h"
#include "gpu/cuda_operator.h"
#include "gpu/device.h"
#include "gpu/kernel_geometry.h"
#include "gpu/kernels/kernels.h"

namespace parity::gpu {
namespace {

int64_t Numel(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

class SumCudaOp final : public CudaOperator {
 public:
  SumCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : CudaOperator(def, ws), scratch_(device()) {}

  void Run() override {
    InferOutputs();
    const int count = InputSize();
    x_.clear();
    for (int i = 0; i < count; ++i) x_.push_back(FloatInput(i).data<float>());
    const std::vector<int64_t> dims = Input(0).dims();
    // In place of input 0 the kernel reads each element before it writes it; an output over a
    // later input (which the schema does not allow) would be read after an earlier launch wrote
    // it, so it is computed aside.
    bool aside = false;
    for (int i = 1; i < count; ++i) aside = aside || OutputBlob(0) == InputBlob(i);
    Tensor* out = DeviceOutput(0);
    Tensor* y = aside ? &scratch_ : out;
    y->Resize(dims);
    kernels::SumFloat(x_.data(), count, y->mutable_data<float>(), y->numel(), stream());
    CheckLaunch();
    if (aside) CopyTensor(scratch_, out);
  }

 private:
  std::vector<const float*> x_;
  Tensor scratch_;
};

PARITY_REGISTER_CUDA_OPERATOR(Sum, SumCudaOp);

// (dC, A, B) -> (dA, dB): dA = dC and dB = dC (Add) or -dC (Sub), each summed over the dims its
// operand broadcasts.
template <bool kNegateB>
class AddSubGradientCudaOp final : public CudaOperator {
 public:
  AddSubGradientCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : CudaOperator(def, ws), bargs_(ReadBroadcastArgs(def, args())) {
    // At construction, as the CPU kernel checks it.
    elementwise_grad::CheckDistinctOutputs(def, label());
    scratch_.emplace_back(device());
    scratch_.emplace_back(device());
  }

  void Run() override {
    InferOutputs();
    const Tensor& dc = FloatInput(0);
    const Tensor& a = FloatInput(1);
    const Tensor& b = FloatInput(2);
    BinaryDims(bargs_, a.dims(), b.dims(), label(), &out_dims_, &b_plan_);
    const float* pdc = dc.data<float>();
    const std::vector<int64_t> a_dims = a.dims(), b_dims = b.dims();
    // An output over an input (dA or dB in place of dC) is computed aside and copied over once
    // both are done, so every input is read intact.
    Tensor* results[2] = {nullptr, nullptr};
    for (int i = 0; i < OutputSize(); ++i) {
      bool aside = false;
      for (int j = 0; j < InputSize(); ++j) aside = aside || OutputBlob(i) == InputBlob(j);
      results[i] = aside ? &scratch_[i] : DeviceOutput(i);
    }
    Reduce(pdc, a_dims, a_dims, false, results[0]);
    if (OutputSize() > 1) Reduce(pdc, b_dims, b_plan_, kNegateB, results[1]);
    for (int i = 0; i < OutputSize(); ++i) {
      if (results[i] == &scratch_[i]) CopyTensor(scratch_[i], DeviceOutput(i));
    }
  }

 private:
  // y (dims `dims`; `plan` as the broadcast sees them) = dC summed over the broadcast dims,
  // negated if `negate`.
  void Reduce(const float* dc, const std::vector<int64_t>& dims, const std::vector<int64_t>& plan,
              bool negate, Tensor* y) {
    y->Resize(dims);
    float* py = y->mutable_data<float>();
    const int64_t n = y->numel();
    if (n == Numel(out_dims_)) {
      // No broadcast copies: the derivative itself, as the CPU assigns it.
      if (negate) {
        kernels::UnaryFloat(kernels::Unary::kNeg, dc, py, n, stream());
      } else if (py != dc && n > 0) {
        CudaCheck(cudaMemcpyAsync(py, dc, n * sizeof(float), cudaMemcpyDeviceToDevice, stream()),
                  "cudaMemcpyAsync");
      }
    } else {
      int64_t count = 0;
      const kernels::ReduceGeometry g = BroadcastReduceGeometryOf(label(), out_dims_, plan, &count);
      kernels::ReduceSumFloat(dc, py, n, count, false, g, stream());
      if (negate) kernels::UnaryFloat(kernels::Unary::kNeg, py, py, n, stream());
    }
    CheckLaunch();
  }

  const BroadcastArgs bargs_;
  std::vector<int64_t> out_dims_;
  std::vector<int64_t> b_plan_;
  std::vector<Tensor> scratch_;
};

PARITY_REGISTER_CUDA_OPERATOR(AddGradient, AddSubGradientCudaOp<false>);
PARITY_REGISTER_CUDA_OPERATOR(SubGradient, AddSubGradientCudaOp<true>);

}  // namespace
}  // namespace parity::gpu
