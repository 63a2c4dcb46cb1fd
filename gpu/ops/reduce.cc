// Softmax, ReduceSum and ReduceMean on the device (float). Axes, output dims and errors come from
// the CPU kernels' helpers (core/ops/reduce/reduce.h), so both devices agree on what is valid.
#include <climits>
#include <vector>

#include "core/ops/common/shape_util.h"
#include "core/ops/reduce/reduce.h"
#include "gpu/cuda_operator.h"
#include "gpu/kernel_geometry.h"
#include "gpu/kernels/kernels.h"

namespace parity::gpu {
namespace {

class SoftmaxCudaOp final : public CudaOperator {
 public:
  SoftmaxCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : CudaOperator(def, ws), axis_(Arg<int64_t>("axis")) {}

  void Run() override {
    const Tensor& x = FloatInput(0);
    const int axis = reduce_util::SoftmaxAxis(axis_, x.dims(), label());
    const int64_t rows = shape_util::SizeToDim(x.dims(), axis);
    PARITY_ENFORCE(rows <= INT_MAX, ErrorKind::kResourceLimit, label(), ": ", rows,
                   " rows exceed the CUDA kernel's grid (one block per row)");
    Tensor* y = DeviceOutput(0);
    y->Resize(x.dims());
    kernels::SoftmaxRows(x.data<float>(), y->mutable_data<float>(), rows,
                         shape_util::SizeFromDim(x.dims(), axis), stream());
    CheckLaunch();
  }

 private:
  const int64_t axis_;
};

PARITY_REGISTER_CUDA_OPERATOR(Softmax, SoftmaxCudaOp);

template <bool kMean>
class ReduceSumCudaOp final : public CudaOperator {
 public:
  ReduceSumCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : CudaOperator(def, ws), axes_(Args<int64_t>("axes")), keepdims_(Arg<bool>("keepdims")) {}

  void Run() override {
    const Tensor& x = FloatInput(0);
    const reduce_util::ReducePlan plan = reduce_util::PlanReduce(x.dims(), axes_, keepdims_,
                                                                 label());
    const kernels::ReduceGeometry g = ReduceGeometryOf(label(), x.dims(), plan.reduced);
    Tensor* y = DeviceOutput(0);
    y->Resize(plan.out_dims);
    kernels::ReduceSumFloat(x.data<float>(), y->mutable_data<float>(), y->numel(), plan.count,
                            kMean, g, stream());
    CheckLaunch();
  }

 private:
  const std::vector<int64_t> axes_;
  const bool keepdims_;
};

PARITY_REGISTER_CUDA_OPERATOR(ReduceSum, ReduceSumCudaOp<false>);
PARITY_REGISTER_CUDA_OPERATOR(ReduceMean, ReduceSumCudaOp<true>);

}  // namespace
}  // namespace parity::gpu
