// Gradient kernels of the indexing shape ops (conventions in core/ops/GRADIENTS.md; makers in core/ops/shape/makers.cc):
//   SliceGradient  (X, [starts, ends], dY) -> dX     dY written into the sliced box of zeros
//   GatherGradient (DATA, INDICES, dY)     -> dDATA  dense scatter-add: repeated indices add up
//   TileGradient   (dY, [tiles, axis])     -> dX     the sum of the `tiles` copies
// The forward op's arguments are copied onto the gradient op, so each schema re-declares them and
// applies the same rules (shape_index.h). X / DATA are read for their dims only; the gradient has
// the dtype of dY (float or double). The other shape ops' gradients are forward ops (Reshape,
// Transpose, Split/Concat, ResizeLike, ExpandDims/Squeeze) and need no kernel here.
#include <algorithm>
#include <cstring>

#include "core/operator.h"
#include "core/ops/shape/shape_index.h"
#include "core/ops/common/shape_util.h"
#include "core/schema.h"

namespace parity {
namespace shape_index {

void ExpectDims(const Tensor& t, const std::vector<int64_t>& dims, const std::string& label,
                const std::string& blob, const char* why) {
  PARITY_ENFORCE(t.dims() == dims, ErrorKind::kShapeMismatch, label, ": gradient '", blob, "' ",
                 t.DebugString(), " must have dims ", ShapeString(dims), " (", why, ")");
}

std::vector<int64_t> UntileDims(std::vector<int64_t> dims, int64_t tiles, int64_t axis,
                                const std::string& label) {
  PARITY_ENFORCE(tiles > 0, ErrorKind::kBadArgument, label, ": tiles ", tiles,
                 " must be positive for the gradient (with 0 copies X's dim is lost)");
  const int a = shape_util::CanonicalAxis(axis, static_cast<int>(dims.size()), label, "axis", dims);
  PARITY_ENFORCE(dims[a] % tiles == 0, ErrorKind::kShapeMismatch, label, ": dY ",
                 ShapeString(dims), " has ", dims[a], " entries on axis ", a,
                 ", not a multiple of tiles ", tiles);
  dims[a] /= tiles;
  return dims;
}

}  // namespace shape_index

namespace {

using shape_util::CanonicalAxis;
using shape_util::SizeFromDim;
using shape_util::SizeToDim;

// The gradient's dtype: that of dY, which must be float or double.
DataType GradDtype(const TensorType& dy, const ArgumentHelper& args, const std::string& blob) {
  PARITY_ENFORCE(dy.dtype == DataType::kFloat || dy.dtype == DataType::kDouble,
                 ErrorKind::kShapeMismatch, args.op_label(), ": gradient '", blob,
                 "' must be float or double, got ", TensorTypeString(dy));
  return dy.dtype;
}

using shape_index::ExpectDims;

// ---------------------------------------------------------------------------------------------
// SliceGradient

class SliceGradientOp final : public Operator {
 public:
  SliceGradientOp(const caffe2::OperatorDef& def, Workspace* ws) : Operator(def, ws) {
    if (InputSize() == 2) {
      PARITY_ENFORCE(args().Has("starts") && args().Has("ends"), ErrorKind::kBadArgument, label(),
                     ": needs arguments 'starts' and 'ends' (or inputs 1 and 2)");
      starts_ = Args<int64_t>("starts");
      ends_ = Args<int64_t>("ends");
    }
  }

  void Run() override {
    const Tensor& x = Input(0);
    const int dy_index = InputSize() - 1;
    const Tensor& dy = Input(dy_index);
    const std::vector<int64_t>* starts = &starts_;
    const std::vector<int64_t>* ends = &ends_;
    if (InputSize() == 4) {
      for (int i = 1; i <= 2; ++i) {
        PARITY_ENFORCE(Input(i).ndim() == 1, ErrorKind::kShapeMismatch, label(), ": input '",
                       InputName(i), "' must be 1-D, got ", Input(i).DebugString());
      }
      input_starts_ = shape_util::ReadIndexTensor(Input(1), label(), InputName(1));
      input_ends_ = shape_util::ReadIndexTensor(Input(2), label(), InputName(2));
      starts = &input_starts_;
      ends = &input_ends_;
    }
    const shape_index::SlicePlan plan = shape_index::PlanSlice(x.dims(), *starts, *ends, label());
    ExpectDims(dy, plan.out_dims, label(), InputName(dy_index), "the dims of the slice");
    shape_util::DispatchFloating(dy, label(), InputName(dy_index), [&](auto zero) {
      using T = decltype(zero);
      const std::vector<int64_t> x_dims = x.dims();  // dX may be X (in place).
      Tensor* dx = Output(0);
      dx->Resize(x_dims);
      T* out = dx->template mutable_data<T>();
      std::fill(out, out + dx->numel(), T(0));
      shape_index::CopyBox(reinterpret_cast<char*>(out),
                           const_cast<char*>(static_cast<const char*>(dy.raw_data())), x_dims,
                           plan, sizeof(T), /*to_box=*/false);
    });
  }

 private:
  std::vector<int64_t> starts_;
  std::vector<int64_t> ends_;
  std::vector<int64_t> input_starts_;  // Kept across runs (no allocation once sized).
  std::vector<int64_t> input_ends_;
};

PARITY_OP_SCHEMA(SliceGradient)
    .NumInputs(2, 4)
    .NumOutputs(1)
    .NumInputsOutputs([](int in, int) { return in != 3; },
                      "(X, dY) or (X, starts, ends, dY)")
    .Arg("starts", ArgType::kInts, std::monostate{}, "Slice's starts (copied from the forward op).")
    .Arg("ends", ArgType::kInts, std::monostate{}, "Slice's ends (copied from the forward op).")
    .NotDifferentiable()
    .ShapeInference([](const caffe2::OperatorDef& def, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) {
      TensorType out = in[0];
      out.dtype = GradDtype(in.back(), args, def.input(def.input_size() - 1));
      return std::vector<TensorType>{out};
    })
    .InputDoc(0, "X", "Slice's input (read for its dims).")
    .InputDoc(1, "starts", "Optional: Slice's starts input.")
    .InputDoc(2, "ends", "Optional: Slice's ends input.")
    .InputDoc(3, "dY", "The gradient of the slice (last input), float/double.")
    .OutputDoc(0, "dX", "Zeros of X's dims with dY in the sliced box.")
    .Doc("Gradient of Slice: scatters dY into the sliced box of a zero tensor shaped like X.");
PARITY_REGISTER_CPU_OPERATOR(SliceGradient, SliceGradientOp);

// ---------------------------------------------------------------------------------------------
// GatherGradient

class GatherGradientOp final : public Operator {
 public:
  GatherGradientOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws), axis_(Arg<int64_t>("axis")) {
    wrap_ = shape_index::GatherWraps(args(), axis_);
  }

  void Run() override {
    shape_util::DispatchIndex(Input(1), label(), InputName(1), "INDICES",
                              [&](const auto* idx) { Dispatch(idx); });
  }

 private:
  template <typename Index>
  void Dispatch(const Index* idx) {
    shape_util::DispatchFloating(Input(2), label(), InputName(2),
                                 [&](auto zero) { RunWith<decltype(zero)>(idx); });
  }

  template <typename T, typename Index>
  void RunWith(const Index* idx) {
    const std::vector<int64_t> data_dims = Input(0).dims();  // dDATA may be DATA (in place).
    const Tensor& dy = Input(2);
    const int64_t n = Input(1).numel();
    const int axis = shape_index::GatherAxis(data_dims, axis_, label());
    const int64_t bound = data_dims[axis];
    ExpectDims(dy, shape_index::GatherDims(data_dims, Input(1).dims(), axis), label(),
               InputName(2), "Gather's output dims: DATA[:axis] + INDICES + DATA[axis+1:]");
    shape_index::CheckGatherIndices(idx, n, bound, wrap_, axis, label(), ShapeString(data_dims));
    const T* g = dy.data<T>();
    Tensor* out = Output(0);
    out->Resize(data_dims);
    T* dx = out->template mutable_data<T>();
    std::fill(dx, dx + out->numel(), T(0));
    if (bound == 0 || out->numel() == 0) return;
    const int64_t outer = SizeToDim(data_dims, axis);
    const int64_t block = SizeFromDim(data_dims, axis + 1);
    for (int64_t o = 0; o < outer; ++o) {
      T* dst_row = dx + o * bound * block;
      const T* src_row = g + o * n * block;
      for (int64_t i = 0; i < n; ++i) {
        int64_t v = idx[i];
        if (v < 0) v += bound;
        T* dst = dst_row + v * block;
        const T* src = src_row + i * block;
        for (int64_t k = 0; k < block; ++k) dst[k] += src[k];
      }
    }
  }

  int64_t axis_;
  bool wrap_;
};

PARITY_OP_SCHEMA(GatherGradient)
    .NumInputs(3)
    .NumOutputs(1)
    .Arg("axis", ArgType::kInt, int64_t{0}, "Gather's axis (copied from the forward op).")
    .Arg("wrap_indices", ArgType::kInt, std::monostate{},
         "Gather's rule for negative indices: default 1 on axis 0, 0 elsewhere (Caffe2).")
    .NotDifferentiable()
    .ShapeInference([](const caffe2::OperatorDef& def, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) {
      PARITY_ENFORCE(in[1].dtype == DataType::kInt32 || in[1].dtype == DataType::kInt64,
                     ErrorKind::kShapeMismatch, args.op_label(), ": INDICES '", def.input(1),
                     "' must be int32 or int64, got ", TensorTypeString(in[1]));
      shape_index::GatherAxis(in[0].dims, args.Get<int64_t>("axis"), args.op_label());
      TensorType out = in[0];
      out.dtype = GradDtype(in[2], args, def.input(2));
      return std::vector<TensorType>{out};
    })
    .InputDoc(0, "DATA", "Gather's DATA (read for its dims).")
    .InputDoc(1, "INDICES", "Gather's int32/int64 INDICES.")
    .InputDoc(2, "dY", "The gradient of Gather's output, float/double.")
    .OutputDoc(0, "dDATA", "Dense gradient of DATA: dY rows added at their indices.")
    .Doc("Gradient of Gather as a dense scatter-add (repeated indices accumulate). Caffe2 makes a "
         "sparse GradientSlice instead; parity's backward pass is dense only.");
PARITY_REGISTER_CPU_OPERATOR(GatherGradient, GatherGradientOp);

// ---------------------------------------------------------------------------------------------
// TileGradient

using shape_index::UntileDims;

class TileGradientOp final : public Operator {
 public:
  TileGradientOp(const caffe2::OperatorDef& def, Workspace* ws) : Operator(def, ws) {
    shape_index::CheckTileArgs(args(), InputSize(), label());
    if (InputSize() < 2) tiles_ = Arg<int64_t>("tiles");
    if (InputSize() < 3) axis_ = Arg<int64_t>("axis");
  }

  void Run() override {
    const Tensor& dy = Input(0);
    const int64_t tiles =
        InputSize() >= 2 ? shape_index::ScalarFromInput(Input(1), label(), InputName(1)) : tiles_;
    const int64_t axis =
        InputSize() == 3 ? shape_index::ScalarFromInput(Input(2), label(), InputName(2)) : axis_;
    const std::vector<int64_t> dx_dims = UntileDims(dy.dims(), tiles, axis, label());
    const int a = CanonicalAxis(axis, dy.ndim(), label(), "axis", dy.dims());
    shape_util::DispatchFloating(dy, label(), InputName(0), [&](auto zero) {
      using T = decltype(zero);
      Tensor* dx = Output(0);
      dx->Resize(dx_dims);
      T* out = dx->template mutable_data<T>();
      if (dx->numel() == 0) return;
      const T* g = dy.data<T>();
      const int64_t outer = SizeToDim(dx_dims, a);
      const int64_t block = SizeFromDim(dx_dims, a);
      for (int64_t o = 0; o < outer; ++o) {
        T* dst = out + o * block;
        const T* src = g + o * tiles * block;
        std::copy(src, src + block, dst);
        for (int64_t t = 1; t < tiles; ++t) {
          const T* s = src + t * block;
          for (int64_t k = 0; k < block; ++k) dst[k] += s[k];
        }
      }
    });
  }

 private:
  int64_t tiles_ = 1;
  int64_t axis_ = 0;
};

PARITY_OP_SCHEMA(TileGradient)
    .NumInputs(1, 3)
    .NumOutputs(1)
    .Arg("tiles", ArgType::kInt, std::monostate{},
         "Tile's copies (copied from the forward op; required unless given as input 1).")
    .Arg("axis", ArgType::kInt, std::monostate{},
         "Tile's axis (copied from the forward op; required unless given as input 2).")
    .NotDifferentiable()
    .ShapeInference([](const caffe2::OperatorDef& def, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) {
      TensorType out = in[0];
      out.dtype = GradDtype(in[0], args, def.input(0));
      if (def.input_size() > 1) {
        out.known = false;
      } else {
        PARITY_ENFORCE(args.Has("tiles") && args.Has("axis"), ErrorKind::kBadArgument,
                       args.op_label(), ": needs arguments 'tiles' and 'axis' (or inputs 1, 2)");
        out.dims = UntileDims(in[0].dims, args.Get<int64_t>("tiles"), args.Get<int64_t>("axis"),
                              args.op_label());
      }
      return std::vector<TensorType>{out};
    })
    .InputDoc(0, "dY", "The gradient of Tile's output, float/double.")
    .InputDoc(1, "tiles", "Optional: Tile's tiles input.")
    .InputDoc(2, "axis", "Optional: Tile's axis input.")
    .OutputDoc(0, "dX", "dY summed over the `tiles` copies along the axis.")
    .Doc("Gradient of Tile: sums the copies back into the input's shape.");
PARITY_REGISTER_CPU_OPERATOR(TileGradient, TileGradientOp);

}  // namespace
}  // namespace parity
