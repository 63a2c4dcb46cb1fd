// Softmax, ReduceSum and ReduceMean on the device (float). Axes, output dims and errors come from
// the CPU kernels' helpers (core/ops/reduce/reduce.h), so both devices agree on what is valid.
#include <climits>
#include <vector>

#include "core/ops/common/shape_util.h"
#include "core/ops/reduce/reduce.h"
#include "gpu/cuda_operator.h"
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

// The input as kept and reduced dims, each with its element strides, runs of one kind merged
// so most reductions fit kMaxRank whatever the input's rank.
kernels::ReduceGeometry Geometry(const std::string& label, const std::vector<int64_t>& dims,
                                 const std::vector<bool>& reduced) {
  std::vector<int64_t> sizes;
  std::vector<bool> kinds;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == 1) continue;  // a size-1 dim changes no offset
    if (!sizes.empty() && kinds.back() == reduced[i]) {
      sizes.back() *= dims[i];
    } else {
      sizes.push_back(dims[i]);
      kinds.push_back(reduced[i]);
    }
  }
  kernels::ReduceGeometry g;
  int64_t stride = 1;
  std::vector<std::pair<int64_t, int64_t>> kept, folded;  // (size, stride), innermost first
  for (size_t i = sizes.size(); i-- > 0;) {
    (kinds[i] ? folded : kept).push_back({sizes[i], stride});
    stride *= sizes[i];
  }
  PARITY_ENFORCE(kept.size() <= kernels::kMaxRank && folded.size() <= kernels::kMaxRank,
                 ErrorKind::kUnknownOp, label, ": the CUDA kernel reduces up to ",
                 kernels::kMaxRank, " alternating runs of axes, input ", ShapeString(dims));
  g.kept_rank = static_cast<int>(kept.size());
  for (int d = 0; d < g.kept_rank; ++d) {
    g.kept_dims[g.kept_rank - 1 - d] = kept[d].first;
    g.kept_strides[g.kept_rank - 1 - d] = kept[d].second;
  }
  g.reduced_rank = static_cast<int>(folded.size());
  for (int d = 0; d < g.reduced_rank; ++d) {
    g.reduced_dims[g.reduced_rank - 1 - d] = folded[d].first;
    g.reduced_strides[g.reduced_rank - 1 - d] = folded[d].second;
  }
  return g;
}

template <bool kMean>
class ReduceSumCudaOp final : public CudaOperator {
 public:
  ReduceSumCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : CudaOperator(def, ws), axes_(Args<int64_t>("axes")), keepdims_(Arg<bool>("keepdims")) {}

  void Run() override {
    const Tensor& x = FloatInput(0);
    const reduce_util::ReducePlan plan = reduce_util::PlanReduce(x.dims(), axes_, keepdims_,
                                                                 label());
    const kernels::ReduceGeometry g = Geometry(label(), x.dims(), plan.reduced);
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
