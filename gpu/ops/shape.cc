// Shape ops on the device: the view-like reshapes (Reshape, Flatten, FlattenToVec, ExpandDims,
// Squeeze, ResizeLike: a device copy with new dims), Transpose and Slice (strided copies), Concat
// and Split (band copies) and Gather (indices checked on a host copy, as the CPU checks them,
// before the launch). Any dtype moves, as bits. Output dims come from the ops' shape inference,
// which runs the CPU kernels' own shape functions (core/ops/shape), so both devices raise the same
// errors; data-dependent shapes (a shape, split or slice bounds given as an input) are read from a
// host copy of that input and checked by the same functions.
#include <vector>

#include "core/ops/common/shape_util.h"
#include "core/ops/shape/shape_index.h"
#include "core/ops/shape/shape_rules.h"
#include "core/schema.h"
#include "gpu/cuda_operator.h"
#include "gpu/device.h"
#include "gpu/kernels/shape.h"

namespace parity::gpu {
namespace {

// The element size the kernels move (words of 1, 2, 4 or 8 bytes).
size_t WordSize(const Operator& op, const Tensor& t) {
  const size_t esize = DataTypeSize(t.dtype());
  PARITY_ENFORCE(esize == 1 || esize == 2 || esize == 4 || esize == 8, ErrorKind::kUnknownOp,
                 op.label(), ": the CUDA kernel moves elements of 1, 2, 4 or 8 bytes, not ",
                 t.DebugString(), " (run the op on the CPU)");
  return esize;
}

std::vector<int64_t> Strides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (int a = static_cast<int>(dims.size()) - 2; a >= 0; --a) {
    strides[a] = strides[a + 1] * dims[a + 1];
  }
  return strides;
}

void CheckRank(const Operator& op, size_t rank) {
  PARITY_ENFORCE(rank <= static_cast<size_t>(kernels::kMaxShapeRank), ErrorKind::kUnknownOp,
                 op.label(), ": the CUDA kernel handles rank <= ", kernels::kMaxShapeRank,
                 ", got rank ", rank, " (run the op on the CPU)");
}

// ---------------------------------------------------------------------------------------------
// Reshape, Flatten, FlattenToVec, ExpandDims, Squeeze, ResizeLike

class ViewCudaOp final : public CudaOperator {
 public:
  using CudaOperator::CudaOperator;

  void Run() override {
    const Tensor& in = DeviceInput(0);
    const std::vector<int64_t> old_dims = in.dims();  // in place, the output is the input
    std::vector<int64_t> new_dims;
    if (type() == "Reshape" && InputSize() == 2) {
      // The new shape is data: the CPU kernel's check of its rank, then the shape function on a
      // copy of the op with the shape as its argument.
      const Tensor shape = ToCpu(Input(1));
      PARITY_ENFORCE(shape.ndim() == 1, ErrorKind::kShapeMismatch, label(), ": input '",
                     InputName(1), "' (the new shape) must be 1-D, got ", shape.DebugString());
      caffe2::OperatorDef with_arg = def();
      with_arg.mutable_input()->RemoveLast();
      caffe2::Argument* arg = with_arg.add_arg();
      arg->set_name("shape");
      for (int64_t d : shape_util::ReadIndexTensor(shape, label(), InputName(1))) arg->add_ints(d);
      new_dims = InferOutputs(with_arg)[0].dims;
    } else {
      if (type() == "ResizeLike") {
        // The CPU kernel's own check (its shape function words it differently).
        const Tensor& like = Input(1);
        PARITY_ENFORCE(in.numel() == like.numel(), ErrorKind::kShapeMismatch, label(),
                       ": input ", in.DebugString(), " has ", in.numel(),
                       " elements but the shape source ", like.DebugString(), " has ",
                       like.numel());
      }
      new_dims = InferOutputs()[0].dims;
    }
    Tensor* out = DeviceOutput(0);
    if (out != &in) CopyTensor(in, out);
    out->Reshape(new_dims);
    if (type() == "Reshape" && OutputSize() == 2) {
      // old_shape on the host, as Caffe2's CUDA Reshape writes it: shapes are read on the CPU.
      Tensor* old_shape = OutputOn(1, Device{});
      old_shape->Resize({static_cast<int64_t>(old_dims.size())});
      int64_t* values = old_shape->mutable_data<int64_t>();
      for (size_t i = 0; i < old_dims.size(); ++i) values[i] = old_dims[i];
    }
  }
};

PARITY_REGISTER_CUDA_OPERATOR(Reshape, ViewCudaOp);
PARITY_REGISTER_CUDA_OPERATOR(Flatten, ViewCudaOp);
PARITY_REGISTER_CUDA_OPERATOR(FlattenToVec, ViewCudaOp);
PARITY_REGISTER_CUDA_OPERATOR(ExpandDims, ViewCudaOp);
PARITY_REGISTER_CUDA_OPERATOR(Squeeze, ViewCudaOp);
// The gradient of Flatten / FlattenToVec: input 1 gives the dims only (it may live anywhere).
PARITY_REGISTER_CUDA_OPERATOR(ResizeLike, ViewCudaOp);

// ---------------------------------------------------------------------------------------------
// Transpose, Slice

class TransposeCudaOp final : public CudaOperator {
 public:
  TransposeCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : CudaOperator(def, ws), axes_(Args<int64_t>("axes")) {}

  void Run() override {
    const Tensor& in = DeviceInput(0);
    const std::vector<int64_t> out_dims = InferOutputs()[0].dims;
    const std::vector<int> perm = shape_rules::TransposeAxes(axes_, in.dims(), label());
    CheckRank(*this, perm.size());
    const size_t esize = WordSize(*this, in);
    const std::vector<int64_t> in_strides = Strides(in.dims());
    kernels::StridedGeometry g;
    g.rank = static_cast<int>(perm.size());
    for (int a = 0; a < g.rank; ++a) {
      g.out_dims[a] = out_dims[a];
      g.strides[a] = in_strides[perm[a]];
    }
    Tensor* out = DeviceOutput(0);
    out->Resize(out_dims);
    kernels::StridedCopy(in.raw_data(), out->raw_mutable_data(in.dtype()), out->numel(), esize, g,
                         stream());
    CheckLaunch();
  }

 private:
  const std::vector<int64_t> axes_;
};

PARITY_REGISTER_CUDA_OPERATOR(Transpose, TransposeCudaOp);

class SliceCudaOp final : public CudaOperator {
 public:
  SliceCudaOp(const caffe2::OperatorDef& def, Workspace* ws) : CudaOperator(def, ws) {
    if (InputSize() == 1) {
      PARITY_ENFORCE(args().Has("starts") && args().Has("ends"), ErrorKind::kBadArgument, label(),
                     ": needs arguments 'starts' and 'ends' (or inputs 1 and 2)");
      starts_ = Args<int64_t>("starts");
      ends_ = Args<int64_t>("ends");
    }
  }

  void Run() override {
    const Tensor& in = DeviceInput(0);
    std::vector<int64_t> starts = starts_;
    std::vector<int64_t> ends = ends_;
    if (InputSize() == 3) {  // inputs take precedence over arguments, as on the CPU
      for (int i = 1; i <= 2; ++i) {
        PARITY_ENFORCE(Input(i).ndim() == 1, ErrorKind::kShapeMismatch, label(), ": input '",
                       InputName(i), "' must be 1-D, got ", Input(i).DebugString());
      }
      starts = shape_util::ReadIndexTensor(ToCpu(Input(1)), label(), InputName(1));
      ends = shape_util::ReadIndexTensor(ToCpu(Input(2)), label(), InputName(2));
    }
    const shape_index::SlicePlan plan = shape_index::PlanSlice(in.dims(), starts, ends, label());
    CheckRank(*this, in.dims().size());
    const size_t esize = WordSize(*this, in);
    const std::vector<int64_t> in_strides = Strides(in.dims());
    kernels::StridedGeometry g;
    g.rank = static_cast<int>(in.dims().size());
    for (int a = 0; a < g.rank; ++a) {
      g.out_dims[a] = plan.out_dims[a];
      g.strides[a] = in_strides[a];
      g.base += plan.begin[a] * in_strides[a];
    }
    Tensor* out = DeviceOutput(0);
    out->Resize(plan.out_dims);
    kernels::StridedCopy(in.raw_data(), out->raw_mutable_data(in.dtype()), out->numel(), esize, g,
                         stream());
    CheckLaunch();
  }

 private:
  std::vector<int64_t> starts_;
  std::vector<int64_t> ends_;
};

PARITY_REGISTER_CUDA_OPERATOR(Slice, SliceCudaOp);

// ---------------------------------------------------------------------------------------------
// Concat, Split

class ConcatCudaOp final : public CudaOperator {
 public:
  ConcatCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : CudaOperator(def, ws), spec_(shape_rules::ConcatSplitAxis(args())) {}

  void Run() override {
    for (int i = 0; i < InputSize(); ++i) DeviceInput(i);
    const std::vector<int64_t> out_dims = InferOutputs()[0].dims;
    const Tensor& first = Input(0);
    const int rank = static_cast<int>(first.ndim());
    const int axis = shape_util::CanonicalAxis(spec_.axis, rank + (spec_.add_axis ? 1 : 0),
                                               label(), "axis", first.dims());
    const size_t esize = WordSize(*this, first);
    Tensor* out = DeviceOutput(0);
    out->Resize(out_dims);
    void* dst = out->raw_mutable_data(first.dtype());
    const int64_t outer = shape_util::SizeToDim(out_dims, axis);
    const int64_t inner = shape_util::SizeFromDim(out_dims, axis + 1);
    const int64_t out_row = shape_util::SizeFromDim(out_dims, axis);
    std::vector<int64_t> sizes;
    int64_t column = 0;
    for (int i = 0; i < InputSize(); ++i) {
      sizes.push_back(spec_.add_axis ? 1 : Input(i).dims()[axis]);
      kernels::BandGeometry g;
      g.width = sizes.back() * inner;
      g.src_row = g.width;
      g.dst_row = out_row;
      g.dst_col = column;
      if (g.width > 0) kernels::BandCopy(Input(i).raw_data(), dst, outer, esize, g, stream());
      column += g.width;
    }
    CheckLaunch();
    if (OutputSize() == 2) {
      // split_info on the host, as Caffe2's CUDA Concat writes it.
      Tensor* split_info = OutputOn(1, Device{});
      split_info->Resize({static_cast<int64_t>(sizes.size())});
      int32_t* info = split_info->mutable_data<int32_t>();
      for (size_t i = 0; i < sizes.size(); ++i) info[i] = static_cast<int32_t>(sizes[i]);
    }
  }

 private:
  const shape_rules::AxisSpec spec_;
};

PARITY_REGISTER_CUDA_OPERATOR(Concat, ConcatCudaOp);

class SplitCudaOp final : public CudaOperator {
 public:
  SplitCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : CudaOperator(def, ws), spec_(shape_rules::ConcatSplitAxis(args())) {
    // The CPU kernel's constructor checks (the count of 'split' is the shape function's too).
    PARITY_ENFORCE(!(InputSize() == 2 && args().Has("split")), ErrorKind::kBadArgument, label(),
                   ": the split sizes come from input 1 or from argument 'split', not both");
  }

  void Run() override {
    const Tensor& in = DeviceInput(0);
    std::vector<TensorType> outs;
    if (InputSize() == 2) {
      const std::vector<int64_t> sizes =
          shape_util::ReadIndexTensor(ToCpu(Input(1)), label(), InputName(1));
      PARITY_ENFORCE(static_cast<int>(sizes.size()) == OutputSize(), ErrorKind::kBadArgument,
                     label(), ": input '", InputName(1), "' holds ", sizes.size(),
                     " split sizes for ", OutputSize(), " outputs");
      caffe2::OperatorDef with_arg = def();
      with_arg.mutable_input()->RemoveLast();
      caffe2::Argument* arg = with_arg.add_arg();
      arg->set_name("split");
      for (int64_t s : sizes) arg->add_ints(s);
      outs = InferOutputs(with_arg);
    } else {
      outs = InferOutputs();
    }
    const int axis = shape_util::CanonicalAxis(spec_.axis, in.ndim(), label(), "axis", in.dims());
    const size_t esize = WordSize(*this, in);
    const int64_t outer = shape_util::SizeToDim(in.dims(), axis);
    const int64_t inner = shape_util::SizeFromDim(in.dims(), axis + 1);
    const int64_t in_row = in.dims()[axis] * inner;
    int64_t column = 0;
    for (int i = 0; i < OutputSize(); ++i) {
      const int64_t size = spec_.add_axis ? 1 : outs[i].dims[axis];
      Tensor* out = DeviceOutput(i);
      out->Resize(outs[i].dims);
      kernels::BandGeometry g;
      g.width = size * inner;
      g.src_row = in_row;
      g.src_col = column;
      g.dst_row = g.width;
      void* dst = out->raw_mutable_data(in.dtype());
      if (g.width > 0) kernels::BandCopy(in.raw_data(), dst, outer, esize, g, stream());
      column += g.width;
    }
    CheckLaunch();
  }

 private:
  const shape_rules::AxisSpec spec_;
};

PARITY_REGISTER_CUDA_OPERATOR(Split, SplitCudaOp);

// ---------------------------------------------------------------------------------------------
// Gather

class GatherCudaOp final : public CudaOperator {
 public:
  GatherCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : CudaOperator(def, ws),
        axis_(Arg<int64_t>("axis")),
        wrap_(shape_index::GatherWraps(args(), axis_)) {}

  void Run() override {
    const Tensor& data = DeviceInput(0);
    const Tensor& indices = DeviceInput(1);
    // The CPU's check, on a host copy of the indices, before anything is written: an index out of
    // range is the same kBadArgument on both devices (a device-side flag could only say "some").
    // In the CPU kernel's order: the indices' dtype, DATA's axis, then every index.
    const Tensor host_indices = ToCpu(indices);
    const int64_t n = indices.numel();
    int axis = 0;
    int64_t bound = 0;
    shape_util::DispatchIndex(host_indices, label(), InputName(1), "INDICES", [&](const auto* idx) {
      axis = shape_index::GatherAxis(data.dims(), axis_, label());
      bound = data.dims()[axis];
      shape_index::CheckGatherIndices(idx, n, bound, wrap_, axis, label(), data.DebugString());
    });
    const size_t esize = WordSize(*this, data);
    Tensor* out = DeviceOutput(0);
    out->Resize(shape_index::GatherDims(data.dims(), indices.dims(), axis));
    void* dst = out->raw_mutable_data(data.dtype());
    if (out->numel() == 0) return;
    kernels::Gather(data.raw_data(), indices.raw_data(), indices.dtype() == DataType::kInt64,
                    shape_util::SizeToDim(data.dims(), axis), n, bound,
                    shape_util::SizeFromDim(data.dims(), axis + 1), esize, dst, stream());
    CheckLaunch();
  }

 private:
  const int64_t axis_;
  const bool wrap_;
};

PARITY_REGISTER_CUDA_OPERATOR(Gather, GatherCudaOp);

// ---------------------------------------------------------------------------------------------
// Tile

class TileCudaOp final : public CudaOperator {
 public:
  TileCudaOp(const caffe2::OperatorDef& def, Workspace* ws) : CudaOperator(def, ws) {
    shape_index::CheckTileArgs(args(), InputSize(), label());
    if (InputSize() < 2) tiles_ = Arg<int64_t>("tiles");
    if (InputSize() < 3) axis_ = Arg<int64_t>("axis");
  }

  void Run() override {
    const Tensor& in = DeviceInput(0);
    // tiles and axis given as inputs are read from host copies (they may live on either device).
    const int64_t tiles =
        InputSize() >= 2 ? shape_index::ScalarFromInput(ToCpu(Input(1)), label(), InputName(1))
                         : tiles_;
    const int64_t axis =
        InputSize() == 3 ? shape_index::ScalarFromInput(ToCpu(Input(2)), label(), InputName(2))
                         : axis_;
    const std::vector<int64_t> out_dims = shape_index::TileDims(in.dims(), tiles, axis, label());
    const int a = shape_util::CanonicalAxis(axis, in.ndim(), label(), "axis", in.dims());
    const size_t esize = WordSize(*this, in);
    Tensor* out = DeviceOutput(0);
    out->Resize(out_dims);
    void* dst = out->raw_mutable_data(in.dtype());
    if (out->numel() == 0) return;
    kernels::Tile(in.raw_data(), dst, shape_util::SizeToDim(in.dims(), a), tiles,
                  shape_util::SizeFromDim(in.dims(), a), esize, stream());
    CheckLaunch();
  }

 private:
  int64_t tiles_ = 1;
  int64_t axis_ = 0;
};

PARITY_REGISTER_CUDA_OPERATOR(Tile, TileCudaOp);

}  // namespace
}  // namespace parity::gpu
