// Max, Min, Mean and their gradients MaxGradient, MinGradient, MeanGradient on the device (float).
// Dtypes, shapes, broadcasting, in-place rules and their errors come from the ops' own schemas
// (core/ops/elementwise/variadic.cc, variadic_grad.cc) through InferOutputs, and the CPU kernels'
// constructor checks are made here too, so both devices accept and reject the same nets.
//
// Order and bits (gpu/kernels/variadic_body.h):
//   - Max / Min fold input after input as the CPU, NaN propagated as Eigen does, and a tie of
//     +0 and -0 broken as the CPU's SSE loop breaks it for that element (packet or not): the
//     CPU's bits.
//   - Mean adds in input order (Sum's kernel, sum_body.h) and scales by float(1.0 / n): the CPU's
//     bits. MeanGradient is dY * float(1.0 / n).
//   - MaxGradient / MinGradient: each position's winner (the first input equal to Y there), then
//     each dX element sums its broadcast copies' terms in the CPU's order (serially, or run by
//     run where the CPU's plan sums a scalar-mode block first): the CPU's bits.
#include "gpu/kernels/variadic.h"

#include <algorithm>
#include <string>
#include <vector>

#include "core/ops/elementwise/binary_grad.h"
#include "gpu/cuda_operator.h"
#include "gpu/kernel_geometry.h"
#include "gpu/kernels/kernels.h"

namespace parity::gpu {
namespace {

void CheckRank(const std::string& label, const std::vector<int64_t>& out) {
  PARITY_ENFORCE(out.size() <= static_cast<size_t>(kernels::kMaxRank), ErrorKind::kUnknownOp, label,
                 ": the CUDA kernel broadcasts up to rank ", kernels::kMaxRank, ", the output is ",
                 ShapeString(out));
}

// Max (kMax) / Min: X0, X1, ... -> Y, broadcast.
template <bool kMax>
class ExtremumCudaOp final : public CudaOperator {
 public:
  using CudaOperator::CudaOperator;

  void Run() override {
    const std::vector<int64_t> out = InferOutputs()[0].dims;
    CheckRank(label(), out);
    x_.clear();
    dims_.clear();
    for (int i = 0; i < InputSize(); ++i) {
      x_.push_back(FloatInput(i).data<float>());
      dims_.push_back(Input(i).dims());
    }
    // In place of input 0 (the schema's, with the output's dims) each thread reads its element
    // before writing it; no other input may be the output (the schema refuses it).
    Tensor* y = DeviceOutput(0);
    y->Resize(out);
    float* py = y->mutable_data<float>();
    const int64_t n = y->numel();
    kernels::ForEachVariadicChunk(
        InputSize(), py,
        [&](int first, int count) {
          return kernels::MakeVariadicInputs(out, x_, dims_, first, count);
        },
        [&](const kernels::VariadicInputs& in) {
          kernels::ExtremumFloat(kMax, in, py, n, stream());
          CheckLaunch();
        });
  }

 private:
  std::vector<const float*> x_;
  std::vector<std::vector<int64_t>> dims_;
};

PARITY_REGISTER_CUDA_OPERATOR(Max, ExtremumCudaOp<true>);
PARITY_REGISTER_CUDA_OPERATOR(Min, ExtremumCudaOp<false>);

// Mean: X0, X1, ... (one shape) -> Y = (((X0 + X1) + X2) + ...) * float(1.0 / n).
class MeanCudaOp final : public CudaOperator {
 public:
  using CudaOperator::CudaOperator;

  void Run() override {
    InferOutputs();
    const int count = InputSize();
    x_.clear();
    for (int i = 0; i < count; ++i) x_.push_back(FloatInput(i).data<float>());
    const std::vector<int64_t> dims = Input(0).dims();
    // In place of input 0 only (the schema's): SumFloat reads each element before writing it.
    Tensor* y = DeviceOutput(0);
    y->Resize(dims);
    float* py = y->mutable_data<float>();
    kernels::SumFloat(x_.data(), count, py, y->numel(), stream());
    kernels::ScaleFloat(py, py, static_cast<float>(1.0 / count), y->numel(), stream());
    CheckLaunch();
  }

 private:
  std::vector<const float*> x_;
};

PARITY_REGISTER_CUDA_OPERATOR(Mean, MeanCudaOp);

// MaxGradient / MinGradient: (Y, dY, X0, ..., Xn-1) -> (dX0, ..., dXn-1).
class ExtremumGradientCudaOp final : public CudaOperator {
 public:
  ExtremumGradientCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : CudaOperator(def, ws), winner_(device()) {
    // At construction, as the CPU kernel checks it.
    elementwise_grad::CheckDistinctOutputs(def, label());
  }

  void Run() override {
    InferOutputs();
    const Tensor& y = FloatInput(0);
    const float* py = y.data<float>();
    const float* pdy = FloatInput(1).data<float>();
    const std::vector<int64_t> out = y.dims();
    CheckRank(label(), out);
    const int inputs = InputSize() - 2;
    x_.clear();
    dims_.clear();
    for (int i = 0; i < inputs; ++i) {
      x_.push_back(FloatInput(i + 2).data<float>());
      dims_.push_back(Input(i + 2).dims());
    }
    const int64_t n_out = y.numel();
    winner_.Resize(out);
    int32_t* winner = winner_.mutable_data<int32_t>();
    for (int first = 0; first < inputs; first += kernels::kMaxVariadicInputs) {
      const int count = std::min(kernels::kMaxVariadicInputs, inputs - first);
      kernels::ExtremumWinnerFloat(kernels::MakeVariadicInputs(out, x_, dims_, first, count), first,
                                   py, winner, n_out, stream());
      CheckLaunch();
    }
    // The outputs are neither inputs (the schema refuses in place) nor each other.
    for (int i = 0; i < inputs; ++i) {
      Tensor* dx = DeviceOutput(i);
      dx->Resize(dims_[i]);
      int64_t count = 0;
      const kernels::ReduceGeometry g = BroadcastReduceGeometryOf(label(), out, dims_[i], &count);
      kernels::ExtremumGradientFloat(winner, i, pdy, dx->mutable_data<float>(), dx->numel(), count,
                                     kernels::ExtremumGradientBlock(out, dims_[i]), g, stream());
      CheckLaunch();
    }
  }

 private:
  Tensor winner_;
  std::vector<const float*> x_;
  std::vector<std::vector<int64_t>> dims_;
};

PARITY_REGISTER_CUDA_OPERATOR(MaxGradient, ExtremumGradientCudaOp);
PARITY_REGISTER_CUDA_OPERATOR(MinGradient, ExtremumGradientCudaOp);

// MeanGradient: dY -> (dX0, ..., dXn-1), each dY * float(1.0 / n). dX0 may be dY (the schema's in
// place), so it is written last, after every other output has read dY.
class MeanGradientCudaOp final : public CudaOperator {
 public:
  MeanGradientCudaOp(const caffe2::OperatorDef& def, Workspace* ws) : CudaOperator(def, ws) {
    elementwise_grad::CheckDistinctOutputs(def, label());
  }

  void Run() override {
    InferOutputs();
    const Tensor& dy = FloatInput(0);
    const float* pdy = dy.data<float>();
    const std::vector<int64_t> dims = dy.dims();
    const float scale = static_cast<float>(1.0 / OutputSize());
    for (int i = OutputSize() - 1; i >= 0; --i) {
      Tensor* dx = DeviceOutput(i);
      dx->Resize(dims);
      kernels::ScaleFloat(pdy, dx->mutable_data<float>(), scale, dx->numel(), stream());
      CheckLaunch();
    }
  }
};

PARITY_REGISTER_CUDA_OPERATOR(MeanGradient, MeanGradientCudaOp);

}  // namespace
}  // namespace parity::gpu
