// ArgMax, ArgMin, CumSum and Hardmax on the device (float input; ArgMax / ArgMin write int64
// indices, as on the CPU). Arguments, dtypes, axes, output dims and their errors come from the ops'
// schemas (core/ops/reduce/arg.cc, cumsum.cc, hardmax.cc) through InferOutputs, and the axis is
// canonicalized by the CPU's own shape_util::CanonicalAxis, so both devices accept and reject the
// same nets. Each kernel scans in the CPU's order (gpu/kernels/arg_body.h): the same indices,
// ties and NaN, and CumSum's running sums in the same order, so the same bits.
#include "gpu/kernels/arg.h"

#include <vector>

#include "core/ops/common/shape_util.h"
#include "gpu/cuda_operator.h"

namespace parity::gpu {
namespace {

template <bool kMax>
class ArgCudaOp final : public CudaOperator {
 public:
  ArgCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : CudaOperator(def, ws), axis_(Arg<int64_t>("axis")), last_(Arg<bool>("select_last_index")) {}

  void Run() override {
    const std::vector<int64_t> out = InferOutputs()[0].dims;
    const Tensor& x = FloatInput(0);
    const std::vector<int64_t>& dims = x.dims();
    const int axis = shape_util::CanonicalAxis(axis_, x.ndim(), label(), "axis", dims);
    Tensor* y = DeviceOutput(0);
    y->Resize(out);
    kernels::ArgFloat(kMax, last_, x.data<float>(), y->mutable_data<int64_t>(),
                      shape_util::SizeToDim(dims, axis), dims[axis],
                      shape_util::SizeFromDim(dims, axis + 1), stream());
    CheckLaunch();
  }

 private:
  const int64_t axis_;
  const bool last_;
};

PARITY_REGISTER_CUDA_OPERATOR(ArgMax, ArgCudaOp<true>);
PARITY_REGISTER_CUDA_OPERATOR(ArgMin, ArgCudaOp<false>);

class CumSumCudaOp final : public CudaOperator {
 public:
  CumSumCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : CudaOperator(def, ws),
        axis_(Arg<int64_t>("axis")),
        exclusive_(Arg<bool>("exclusive")),
        reverse_(Arg<bool>("reverse")) {}

  void Run() override {
    InferOutputs();
    const Tensor& x = FloatInput(0);
    const std::vector<int64_t> dims = x.dims();
    const int axis = shape_util::CanonicalAxis(axis_, x.ndim(), label(), "axis", dims);
    const float* px = x.data<float>();
    // In place (the schema's) the body reads each element before writing it.
    Tensor* y = DeviceOutput(0);
    y->Resize(dims);
    kernels::CumSumFloat(px, y->mutable_data<float>(), shape_util::SizeToDim(dims, axis),
                         dims[axis], shape_util::SizeFromDim(dims, axis + 1), exclusive_, reverse_,
                         stream());
    CheckLaunch();
  }

 private:
  const int64_t axis_;
  const bool exclusive_;
  const bool reverse_;
};

PARITY_REGISTER_CUDA_OPERATOR(CumSum, CumSumCudaOp);

class HardmaxCudaOp final : public CudaOperator {
 public:
  HardmaxCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : CudaOperator(def, ws), axis_(Arg<int64_t>("axis")) {}

  void Run() override {
    InferOutputs();
    const Tensor& x = FloatInput(0);
    const std::vector<int64_t> dims = x.dims();
    const int axis = shape_util::CanonicalAxis(axis_, x.ndim(), label(), "axis", dims);
    const float* px = x.data<float>();
    // In place (the schema's) each row is read whole before it is written.
    Tensor* y = DeviceOutput(0);
    y->Resize(dims);
    kernels::HardmaxFloat(px, y->mutable_data<float>(), shape_util::SizeToDim(dims, axis),
                          shape_util::SizeFromDim(dims, axis), stream());
    CheckLaunch();
  }

 private:
  const int64_t axis_;
};

PARITY_REGISTER_CUDA_OPERATOR(Hardmax, HardmaxCudaOp);

}  // namespace
}  // namespace parity::gpu
