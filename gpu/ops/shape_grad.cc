// SliceGradient, GatherGradient and TileGradient on the device (float dY): the CPU gradients' checks
// (core/ops/shape/shape_index.h), slice bounds and indices read from host copies. SliceGradient
// zeroes dX and scatters dY into the box; GatherGradient gives each dDATA element to one thread,
// which adds the dY rows that picked it in index order (the CPU's order; no atomics, so the sums
// of repeated indices are the same bits every run).
#include <vector>

#include "core/ops/common/shape_util.h"
#include "core/ops/shape/shape_index.h"
#include "gpu/cuda_operator.h"
#include "gpu/device.h"
#include "gpu/kernels/kernels.h"
#include "gpu/kernels/shape.h"

namespace parity::gpu {
namespace {

class SliceGradientCudaOp final : public CudaOperator {
 public:
  SliceGradientCudaOp(const caffe2::OperatorDef& def, Workspace* ws) : CudaOperator(def, ws) {
    if (InputSize() == 2) {
      PARITY_ENFORCE(args().Has("starts") && args().Has("ends"), ErrorKind::kBadArgument, label(),
                     ": needs arguments 'starts' and 'ends' (or inputs 1 and 2)");
      starts_ = Args<int64_t>("starts");
      ends_ = Args<int64_t>("ends");
    }
  }

  void Run() override {
    const Tensor& x = Input(0);  // read for its dims only: it may live anywhere
    const int dy_index = InputSize() - 1;
    const Tensor& dy = DeviceInput(dy_index);
    std::vector<int64_t> starts = starts_;
    std::vector<int64_t> ends = ends_;
    if (InputSize() == 4) {
      for (int i = 1; i <= 2; ++i) {
        PARITY_ENFORCE(Input(i).ndim() == 1, ErrorKind::kShapeMismatch, label(), ": input '",
                       InputName(i), "' must be 1-D, got ", Input(i).DebugString());
      }
      starts = shape_util::ReadIndexTensor(ToCpu(Input(1)), label(), InputName(1));
      ends = shape_util::ReadIndexTensor(ToCpu(Input(2)), label(), InputName(2));
    }
    const shape_index::SlicePlan plan = shape_index::PlanSlice(x.dims(), starts, ends, label());
    shape_index::ExpectDims(dy, plan.out_dims, label(), InputName(dy_index),
                            "the dims of the slice");
    FloatInput(dy_index);
    PARITY_ENFORCE(x.dims().size() <= static_cast<size_t>(kernels::kMaxShapeRank),
                   ErrorKind::kUnknownOp, label(), ": the CUDA kernel handles rank <= ",
                   kernels::kMaxShapeRank, ", got ", x.DebugString(), " (run the op on the CPU)");
    const std::vector<int64_t> x_dims = x.dims();  // dX may be X (in place)
    std::vector<int64_t> strides(x_dims.size(), 1);
    for (int a = static_cast<int>(x_dims.size()) - 2; a >= 0; --a) {
      strides[a] = strides[a + 1] * x_dims[a + 1];
    }
    kernels::StridedGeometry g;
    g.rank = static_cast<int>(x_dims.size());
    for (int a = 0; a < g.rank; ++a) {
      g.out_dims[a] = plan.out_dims[a];
      g.strides[a] = strides[a];
      g.base += plan.begin[a] * strides[a];
    }
    Tensor* dx = DeviceOutput(0);
    dx->Resize(x_dims);
    float* out = dx->mutable_data<float>();
    kernels::FillFloat(0.0f, out, dx->numel(), stream());
    kernels::StridedScatter(dy.raw_data(), out, dy.numel(), sizeof(float), g, stream());
    CheckLaunch();
  }

 private:
  std::vector<int64_t> starts_;
  std::vector<int64_t> ends_;
};

PARITY_REGISTER_CUDA_OPERATOR(SliceGradient, SliceGradientCudaOp);

class GatherGradientCudaOp final : public CudaOperator {
 public:
  GatherGradientCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : CudaOperator(def, ws),
        axis_(Arg<int64_t>("axis")),
        wrap_(shape_index::GatherWraps(args(), axis_)) {}

  void Run() override {
    const std::vector<int64_t> data_dims = Input(0).dims();  // dDATA may be DATA (in place)
    const Tensor& indices = DeviceInput(1);
    const Tensor& dy = DeviceInput(2);
    const Tensor host_indices = ToCpu(indices);
    const int64_t n = indices.numel();
    // In the CPU gradient's order: the indices' dtype, dY's dtype, the axis, dY's dims, every
    // index.
    shape_util::DispatchIndex(host_indices, label(), InputName(1), "INDICES", [&](const auto* idx) {
      FloatInput(2);
      const int axis = shape_index::GatherAxis(data_dims, axis_, label());
      const int64_t bound = data_dims[axis];
      shape_index::ExpectDims(dy, shape_index::GatherDims(data_dims, indices.dims(), axis),
                              label(), InputName(2),
                              "Gather's output dims: DATA[:axis] + INDICES + DATA[axis+1:]");
      shape_index::CheckGatherIndices(idx, n, bound, wrap_, axis, label(),
                                      ShapeString(data_dims));
      Tensor* out = DeviceOutput(0);
      out->Resize(data_dims);
      float* ddata = out->mutable_data<float>();
      if (out->numel() == 0) return;
      if (bound == 0) {
        kernels::FillFloat(0.0f, ddata, out->numel(), stream());
      } else {
        kernels::GatherGradientFloat(dy.data<float>(), indices.raw_data(),
                                     indices.dtype() == DataType::kInt64,
                                     shape_util::SizeToDim(data_dims, axis), n, bound,
                                     shape_util::SizeFromDim(data_dims, axis + 1), ddata,
                                     stream());
      }
      CheckLaunch();
    });
  }

 private:
  const int64_t axis_;
  const bool wrap_;
};

PARITY_REGISTER_CUDA_OPERATOR(GatherGradient, GatherGradientCudaOp);

class TileGradientCudaOp final : public CudaOperator {
 public:
  TileGradientCudaOp(const caffe2::OperatorDef& def, Workspace* ws) : CudaOperator(def, ws) {
    shape_index::CheckTileArgs(args(), InputSize(), label());
    if (InputSize() < 2) tiles_ = Arg<int64_t>("tiles");
    if (InputSize() < 3) axis_ = Arg<int64_t>("axis");
  }

  void Run() override {
    const Tensor& dy = DeviceInput(0);
    const int64_t tiles =
        InputSize() >= 2 ? shape_index::ScalarFromInput(ToCpu(Input(1)), label(), InputName(1))
                         : tiles_;
    const int64_t axis =
        InputSize() == 3 ? shape_index::ScalarFromInput(ToCpu(Input(2)), label(), InputName(2))
                         : axis_;
    const std::vector<int64_t> dx_dims = shape_index::UntileDims(dy.dims(), tiles, axis, label());
    const int a = shape_util::CanonicalAxis(axis, dy.ndim(), label(), "axis", dy.dims());
    FloatInput(0);
    Tensor* dx = DeviceOutput(0);
    dx->Resize(dx_dims);
    float* out = dx->mutable_data<float>();
    if (dx->numel() == 0) return;
    kernels::TileGradientFloat(dy.data<float>(), shape_util::SizeToDim(dx_dims, a), tiles,
                               shape_util::SizeFromDim(dx_dims, a), out, stream());
    CheckLaunch();
  }

 private:
  int64_t tiles_ = 1;
  int64_t axis_ = 0;
};

PARITY_REGISTER_CUDA_OPERATOR(TileGradient, TileGradientCudaOp);

}  // namespace
}  // namespace parity::gpu
