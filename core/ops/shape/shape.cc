// Shape ops, part 1: Reshape, Transpose, Concat, Split (view-like reshapes are in shape_view.cc,
// indexing ops in shape_index.cc). Caffe2 semantics (caffe2/operators/reshape_op.h,
// transpose_op.h, concat_split_op.h), newer pytorch tree.
// They move any storable dtype: kernels copy bytes (or typed words of the element's size).
//
// Each op's output shape is computed by one function used both by its kernel and by its shape
// inference, so the two raise the same errors.
//
// Deliberate differences from Caffe2, all supersets: Reshape and Concat accept a single output
// (Caffe2 requires the second, old_shape / split_info); Transpose accepts negative axes.
#include <algorithm>
#include <cstring>
#include <numeric>

#include "core/operator.h"
#include "core/ops/common/shape_util.h"
#include "core/ops/shape/shape_rules.h"
#include "core/schema.h"

namespace parity {
namespace shape_rules {

std::vector<int> TransposeAxes(const std::vector<int64_t>& axes, const std::vector<int64_t>& dims,
                               const std::string& label) {
  const int rank = static_cast<int>(dims.size());
  std::vector<int> perm(rank);
  if (axes.empty()) {
    for (int i = 0; i < rank; ++i) perm[i] = rank - 1 - i;
    return perm;
  }
  PARITY_ENFORCE(static_cast<int>(axes.size()) == rank, ErrorKind::kBadArgument, label,
                 ": argument 'axes' ", ShapeString(axes), " has ", axes.size(),
                 " entries but the input ", ShapeString(dims), " has rank ", rank);
  std::vector<bool> seen(rank, false);
  for (int i = 0; i < rank; ++i) {
    // Caffe2's Transpose takes axes in [0, rank) only (the reference agrees); a negative entry
    // is not counted from the end.
    PARITY_ENFORCE(axes[i] >= 0, ErrorKind::kBadArgument, label, ": argument 'axes' ",
                   ShapeString(axes), " has the negative entry ", axes[i],
                   "; Transpose takes axes in [0, ", rank, ") for the input ", ShapeString(dims));
    perm[i] = shape_util::CanonicalAxis(axes[i], rank, label, "'axes' entry", dims);
    PARITY_ENFORCE(!seen[perm[i]], ErrorKind::kBadArgument, label, ": argument 'axes' ",
                   ShapeString(axes), " is not a permutation (axis ", perm[i], " repeats)");
    seen[perm[i]] = true;
  }
  return perm;
}

AxisSpec ConcatSplitAxis(const ArgumentHelper& args) {
  const std::string& label = args.op_label();
  PARITY_ENFORCE(!(args.Has("axis") && args.Has("order")), ErrorKind::kBadArgument, label,
                 ": give either argument 'axis' or argument 'order', not both");
  if (args.Has("axis")) return {args.Get<int64_t>("axis"), args.Get<bool>("add_axis")};
  const std::string order = args.Get<std::string>("order");
  PARITY_ENFORCE(order == "NCHW" || order == "NHWC", ErrorKind::kBadArgument, label,
                 ": argument 'order' = \"", order, "\" should be \"NCHW\" or \"NHWC\"");
  if (!args.Has("order")) return {args.Get<int64_t>("axis"), false};
  return {order == "NHWC" ? 3 : 1, false};
}

}  // namespace shape_rules

namespace {

using shape_rules::AxisSpec;
using shape_rules::ConcatSplitAxis;
using shape_rules::TransposeAxes;

using shape_util::CanonicalAxis;
using shape_util::SizeFromDim;
using shape_util::SizeToDim;

// Rethrows a core error (e.g. from CheckedNumElements) with the op named in front.
template <typename Fn>
auto WithLabel(const std::string& label, Fn&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const Error& e) {
    if (e.detail().rfind(label, 0) == 0) throw;
    throw MakeError(e.kind(), label, ": ", e.detail());
  }
}

// ---------------------------------------------------------------------------------------------
// Reshape

// New dims for a tensor of `in_dims` from Caffe2's `shape`: 0 copies the input's dim at that
// position, one -1 is inferred from the element count.
// allowzero (ONNX's Reshape-14; Caffe2 has only the copying 0): a 0 in the shape is a dim of 0.
std::vector<int64_t> ResolveReshape(const std::vector<int64_t>& in_dims,
                                    const std::vector<int64_t>& shape, bool allowzero,
                                    const std::string& label) {
  std::vector<int64_t> out = shape;
  int unknown = -1;
  if (allowzero) {
    PARITY_ENFORCE(std::find(shape.begin(), shape.end(), 0) == shape.end() ||
                       std::find(shape.begin(), shape.end(), -1) == shape.end(),
                   ErrorKind::kBadArgument, label, ": new shape ", ShapeString(shape),
                   " has both a 0 and a -1 with allowzero=1 (the -1 could be anything)");
  }
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0 && allowzero) continue;
    if (shape[i] == 0) {
      PARITY_ENFORCE(i < in_dims.size(), ErrorKind::kBadArgument, label, ": new shape ",
                     ShapeString(shape), " has 0 (copy the input's dim) at position ", i,
                     ", but the input ", ShapeString(in_dims), " has rank ", in_dims.size());
      out[i] = in_dims[i];
    } else if (shape[i] == -1) {
      PARITY_ENFORCE(unknown == -1, ErrorKind::kBadArgument, label, ": new shape ",
                     ShapeString(shape), " has more than one -1");
      unknown = static_cast<int>(i);
      out[i] = 1;
    } else {
      PARITY_ENFORCE(shape[i] > 0, ErrorKind::kBadArgument, label, ": new shape ",
                     ShapeString(shape), " has a negative dim ", shape[i]);
    }
  }
  const int64_t total = WithLabel(label, [&] { return CheckedNumElements(in_dims); });
  const int64_t known = WithLabel(label, [&] { return CheckedNumElements(out); });
  if (unknown >= 0) {
    if (known == 0) {
      PARITY_ENFORCE(total == 0, ErrorKind::kShapeMismatch, label, ": cannot infer the -1 in ",
                     ShapeString(shape), " for input ", ShapeString(in_dims), " (", total,
                     " elements): the other dims multiply to 0");
      out[unknown] = 0;
    } else {
      PARITY_ENFORCE(total % known == 0, ErrorKind::kShapeMismatch, label, ": cannot reshape ",
                     ShapeString(in_dims), " (", total, " elements) to ", ShapeString(shape),
                     ": ", total, " is not a multiple of ", known);
      out[unknown] = total / known;
    }
  } else {
    PARITY_ENFORCE(known == total, ErrorKind::kShapeMismatch, label, ": cannot reshape ",
                   ShapeString(in_dims), " (", total, " elements) to ", ShapeString(shape), " (",
                   known, " elements)");
  }
  return out;
}

void CheckReshapeSource(int num_inputs, bool has_shape_arg, const std::string& label) {
  PARITY_ENFORCE(!(num_inputs == 2 && has_shape_arg), ErrorKind::kBadArgument, label,
                 ": the new shape comes from input 1 or from argument 'shape', not both");
  PARITY_ENFORCE(num_inputs == 2 || has_shape_arg, ErrorKind::kBadArgument, label,
                 ": needs argument 'shape' or a second input holding the new shape");
}

class ReshapeOp final : public Operator {
 public:
  ReshapeOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws), allowzero_(Arg<bool>("allowzero")) {
    CheckReshapeSource(InputSize(), args().Has("shape"), label());
    if (InputSize() == 1) shape_ = Args<int64_t>("shape");
  }

  void Run() override {
    const Tensor& in = Input(0);
    // Read before writing: in place, Output(0) is the input tensor itself.
    const std::vector<int64_t> old_dims = in.dims();
    std::vector<int64_t> shape = shape_;
    if (InputSize() == 2) {
      const Tensor& s = Input(1);
      PARITY_ENFORCE(s.ndim() == 1, ErrorKind::kShapeMismatch, label(), ": input '",
                     InputName(1), "' (the new shape) must be 1-D, got ", s.DebugString());
      shape = shape_util::ReadIndexTensor(s, label(), InputName(1));
    }
    const std::vector<int64_t> new_dims = ResolveReshape(old_dims, shape, allowzero_, label());
    shape_util::CopyAndReshape(in, Output(0), new_dims);
    if (OutputSize() == 2) {
      Tensor* old_shape = Output(1);
      old_shape->Resize({static_cast<int64_t>(old_dims.size())});
      std::copy(old_dims.begin(), old_dims.end(), old_shape->mutable_data<int64_t>());
    }
  }

 private:
  bool allowzero_;
  std::vector<int64_t> shape_;
};

std::vector<TensorType> ReshapeShape(const caffe2::OperatorDef& def, const ArgumentHelper& args,
                                     const std::vector<TensorType>& in) {
  CheckReshapeSource(def.input_size(), args.Has("shape"), args.op_label());
  std::vector<TensorType> out(def.output_size());
  out[0].dtype = in[0].dtype;
  if (def.input_size() == 2) {
    out[0].known = false;  // The new shape is data.
  } else {
    out[0].dims = ResolveReshape(in[0].dims, args.GetVector<int64_t>("shape"),
                                 args.Get<bool>("allowzero"), args.op_label());
  }
  if (out.size() == 2) {
    out[1].dtype = DataType::kInt64;
    out[1].dims = {static_cast<int64_t>(in[0].dims.size())};
  }
  return out;
}

PARITY_OP_SCHEMA(Reshape)
    .NumInputs(1, 2)
    .NumOutputs(1, 2)
    .AllowInplace({{0, 0}})
    .Arg("shape", ArgType::kInts, std::monostate{},
         "New shape; 0 copies the input's dim at that position, one -1 is inferred. Absent when "
         "the shape is input 1.")
    .Arg("allowzero", ArgType::kInt, int64_t{0},
         "If 1, a 0 in the new shape is a dim of 0, not a copy (ONNX's Reshape-14; not in "
         "Caffe2). The gradient uses it: old_shape holds real dims, 0s included.")
    .DifferentiableInputs({0})
    .ShapeInference(ReshapeShape)
    .InputDoc(0, "data", "Any tensor.")
    .InputDoc(1, "new_shape", "Optional 1-D int32/int64 tensor: the new shape (instead of 'shape').")
    .OutputDoc(0, "reshaped", "The data with the new shape (a copy unless in place).")
    .OutputDoc(1, "old_shape", "Optional: the input's dims, int64 1-D.")
    .Doc("Gives the data a new shape with the same element count (Caffe2's 0 / -1 rules).");
PARITY_REGISTER_CPU_OPERATOR(Reshape, ReshapeOp);

// ---------------------------------------------------------------------------------------------
// Transpose

std::vector<int64_t> PermutedDims(const std::vector<int64_t>& dims, const std::vector<int>& perm) {
  std::vector<int64_t> out(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) out[i] = dims[perm[i]];
  return out;
}

// dst[out index] = src[in index]: walks the output in order, the inner loop over the last output
// axis with that axis's input stride (a plain copy when it is 1).
template <typename E>
void PermuteCopy(const E* src, E* dst, const std::vector<int64_t>& in_dims,
                 const std::vector<int>& perm) {
  const int rank = static_cast<int>(perm.size());
  const std::vector<int64_t> out_dims = PermutedDims(in_dims, perm);
  const int64_t numel = SizeFromDim(out_dims, 0);
  if (numel == 0) return;
  if (rank == 0) {
    dst[0] = src[0];
    return;
  }
  std::vector<int64_t> in_strides(rank, 1);
  for (int i = rank - 2; i >= 0; --i) in_strides[i] = in_strides[i + 1] * in_dims[i + 1];
  std::vector<int64_t> stride(rank);
  for (int i = 0; i < rank; ++i) stride[i] = in_strides[perm[i]];
  const int64_t inner = out_dims[rank - 1];
  const int64_t inner_stride = stride[rank - 1];
  std::vector<int64_t> index(rank, 0);
  int64_t offset = 0;
  for (int64_t o = 0; o < numel; o += inner) {
    const E* s = src + offset;
    E* d = dst + o;
    if (inner_stride == 1) {
      std::copy(s, s + inner, d);
    } else {
      for (int64_t j = 0; j < inner; ++j) d[j] = s[j * inner_stride];
    }
    for (int a = rank - 2; a >= 0; --a) {
      if (++index[a] < out_dims[a]) {
        offset += stride[a];
        break;
      }
      offset -= stride[a] * (out_dims[a] - 1);
      index[a] = 0;
    }
  }
}

class TransposeOp final : public Operator {
 public:
  TransposeOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws), axes_(Args<int64_t>("axes")) {}

  void Run() override {
    const Tensor& in = Input(0);
    const std::vector<int> perm = TransposeAxes(axes_, in.dims(), label());
    Tensor* out = Output(0);
    out->Resize(PermutedDims(in.dims(), perm));
    void* dst = out->raw_mutable_data(in.dtype());
    const void* src = in.raw_data();
    switch (DataTypeSize(in.dtype())) {
      case 1: PermuteCopy(static_cast<const uint8_t*>(src), static_cast<uint8_t*>(dst), in.dims(), perm); break;
      case 2: PermuteCopy(static_cast<const uint16_t*>(src), static_cast<uint16_t*>(dst), in.dims(), perm); break;
      case 4: PermuteCopy(static_cast<const uint32_t*>(src), static_cast<uint32_t*>(dst), in.dims(), perm); break;
      case 8: PermuteCopy(static_cast<const uint64_t*>(src), static_cast<uint64_t*>(dst), in.dims(), perm); break;
      default:
        throw MakeError(ErrorKind::kShapeMismatch, label(), ": unsupported dtype ",
                        in.DebugString());
    }
  }

 private:
  std::vector<int64_t> axes_;
};

PARITY_OP_SCHEMA(Transpose)
    .NumInputs(1)
    .NumOutputs(1)
    .Arg("axes", ArgType::kInts, std::vector<int64_t>{},
         "Permutation of the input's axes (output axis i is input axis axes[i]); default reversed.")
    .ShapeInference([](const caffe2::OperatorDef&, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) {
      TensorType out = in[0];
      out.dims = PermutedDims(
          in[0].dims, TransposeAxes(args.GetVector<int64_t>("axes"), in[0].dims, args.op_label()));
      return std::vector<TensorType>{out};
    })
    .InputDoc(0, "data", "Any tensor.")
    .OutputDoc(0, "transposed", "The data with its axes permuted.")
    .Doc("Permutes the axes of the input (numpy.transpose).");
PARITY_REGISTER_CPU_OPERATOR(Transpose, TransposeOp);

// ---------------------------------------------------------------------------------------------
// Concat and Split

OpSchema& ConcatSplitArgs(OpSchema& schema) {
  return schema
      .Arg("axis", ArgType::kInt, int64_t{1},
           "Axis to concatenate/split on (negative counts from the end); when absent, `order` "
           "decides.")
      .Arg("add_axis", ArgType::kInt, int64_t{0},
           "If 1 (with `axis`): the pieces are slices of size 1 whose axis is added (Concat) or "
           "removed (Split).")
      .Arg("order", ArgType::kString, std::string("NCHW"),
           "Used when `axis` is absent: \"NCHW\" means axis 1, \"NHWC\" axis 3.");
}

struct ConcatPlan {
  int axis = 0;
  std::vector<int64_t> sizes;     // Each input's extent along the output axis.
  std::vector<int64_t> out_dims;
};

ConcatPlan PlanConcat(const std::vector<std::vector<int64_t>>& dims, const AxisSpec& spec,
                      const std::string& label) {
  ConcatPlan plan;
  const std::vector<int64_t>& first = dims[0];
  const int rank = static_cast<int>(first.size());
  plan.axis = CanonicalAxis(spec.axis, rank + (spec.add_axis ? 1 : 0), label, "axis", first);
  int64_t total = 0;
  for (size_t i = 0; i < dims.size(); ++i) {
    bool fits = static_cast<int>(dims[i].size()) == rank;
    for (int d = 0; fits && d < rank; ++d) {
      fits = dims[i][d] == first[d] || (!spec.add_axis && d == plan.axis);
    }
    PARITY_ENFORCE(fits, ErrorKind::kShapeMismatch, label, ": input ", i, " has shape ",
                   ShapeString(dims[i]), " but input 0 has ", ShapeString(first),
                   spec.add_axis ? " (with add_axis all shapes must be equal)"
                                 : (" (they may differ only on axis " +
                                    std::to_string(plan.axis) + ")"));
    plan.sizes.push_back(spec.add_axis ? 1 : dims[i][plan.axis]);
    total += plan.sizes.back();
  }
  plan.out_dims = first;
  if (spec.add_axis) {
    plan.out_dims.insert(plan.out_dims.begin() + plan.axis, total);
  } else {
    plan.out_dims[plan.axis] = total;
  }
  return plan;
}

class ConcatOp final : public Operator {
 public:
  ConcatOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws), spec_(ConcatSplitAxis(args())) {}

  void Run() override {
    std::vector<std::vector<int64_t>> dims;
    const DataType dtype = Input(0).dtype();
    for (int i = 0; i < InputSize(); ++i) {
      shape_util::ExpectSameDtype(Input(i), dtype, label(), InputName(i));
      dims.push_back(Input(i).dims());
    }
    const ConcatPlan plan = PlanConcat(dims, spec_, label());
    Tensor* out = Output(0);
    out->Resize(plan.out_dims);
    char* dst = static_cast<char*>(out->raw_mutable_data(dtype));
    const size_t esize = DataTypeSize(dtype);
    const int64_t outer = SizeToDim(plan.out_dims, plan.axis);
    const int64_t inner = SizeFromDim(plan.out_dims, plan.axis + 1);
    const int64_t out_row = SizeFromDim(plan.out_dims, plan.axis) * esize;
    int64_t column = 0;
    for (int i = 0; i < InputSize(); ++i) {
      const int64_t row = plan.sizes[i] * inner * esize;
      if (row > 0 && outer > 0) {
        const char* src = static_cast<const char*>(Input(i).raw_data());
        for (int64_t o = 0; o < outer; ++o) {
          std::memcpy(dst + o * out_row + column, src + o * row, row);
        }
      }
      column += row;
    }
    if (OutputSize() == 2) {
      Tensor* split_info = Output(1);
      split_info->Resize({static_cast<int64_t>(plan.sizes.size())});
      int32_t* info = split_info->mutable_data<int32_t>();
      for (size_t i = 0; i < plan.sizes.size(); ++i) info[i] = static_cast<int32_t>(plan.sizes[i]);
    }
  }

 private:
  AxisSpec spec_;
};

PARITY_OP_SCHEMA(Concat)
    .NumInputs(1, std::numeric_limits<int>::max())
    .NumOutputs(1, 2)
    .Apply(ConcatSplitArgs)
    .ShapeInference([](const caffe2::OperatorDef& def, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) {
      std::vector<std::vector<int64_t>> dims;
      for (size_t i = 0; i < in.size(); ++i) {
        PARITY_ENFORCE(in[i].dtype == in[0].dtype, ErrorKind::kShapeMismatch, args.op_label(),
                       ": input '", def.input(i), "' must be ", DataTypeName(in[0].dtype),
                       ", got ", TensorTypeString(in[i]));
        dims.push_back(in[i].dims);
      }
      ConcatPlan plan = PlanConcat(dims, ConcatSplitAxis(args), args.op_label());
      std::vector<TensorType> out(def.output_size());
      out[0].dtype = in[0].dtype;
      out[0].dims = plan.out_dims;
      if (out.size() == 2) {
        out[1].dtype = DataType::kInt32;
        out[1].dims = {static_cast<int64_t>(in.size())};
      }
      return out;
    })
    .InputDoc(0, "inputs", "Tensors of one dtype whose dims agree except on the axis.")
    .OutputDoc(0, "concat_result", "The inputs joined along the axis.")
    .OutputDoc(1, "split_info", "Optional: int32 [num_inputs], each input's extent on the axis.")
    .Doc("Concatenates the inputs along `axis` (or stacks them on a new axis with add_axis=1).");
PARITY_REGISTER_CPU_OPERATOR(Concat, ConcatOp);

// Output dims of Split given the sizes of the pieces; checks the sizes against the input.
std::vector<std::vector<int64_t>> PlanSplit(const std::vector<int64_t>& dims, int axis,
                                            const std::vector<int64_t>& sizes, bool add_axis,
                                            const std::string& label) {
  int64_t total = 0;
  for (int64_t s : sizes) {
    PARITY_ENFORCE(s >= 0, ErrorKind::kBadArgument, label, ": split sizes ", ShapeString(sizes),
                   " contain a negative size");
    PARITY_ENFORCE(!add_axis || s == 1, ErrorKind::kBadArgument, label, ": with add_axis=1 every "
                   "split size must be 1, got ", ShapeString(sizes));
    total += s;
  }
  PARITY_ENFORCE(total == dims[axis], ErrorKind::kShapeMismatch, label, ": split sizes ",
                 ShapeString(sizes), " add up to ", total, " but the input ", ShapeString(dims),
                 " has ", dims[axis], " on axis ", axis);
  std::vector<std::vector<int64_t>> out;
  for (int64_t s : sizes) {
    std::vector<int64_t> d = dims;
    if (add_axis) {
      d.erase(d.begin() + axis);
    } else {
      d[axis] = s;
    }
    out.push_back(d);
  }
  return out;
}

// Equal pieces when neither the argument nor the input gives the sizes.
std::vector<int64_t> EqualSplit(const std::vector<int64_t>& dims, int axis, int pieces,
                                const std::string& label) {
  PARITY_ENFORCE(dims[axis] % pieces == 0, ErrorKind::kShapeMismatch, label, ": cannot split ",
                 ShapeString(dims), " into ", pieces, " equal parts on axis ", axis,
                 " (give 'split' for unequal parts)");
  return std::vector<int64_t>(pieces, dims[axis] / pieces);
}

class SplitOp final : public Operator {
 public:
  SplitOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws), spec_(ConcatSplitAxis(args())), split_(Args<int64_t>("split")) {
    PARITY_ENFORCE(!(InputSize() == 2 && args().Has("split")), ErrorKind::kBadArgument, label(),
                   ": the split sizes come from input 1 or from argument 'split', not both");
    PARITY_ENFORCE(!args().Has("split") || static_cast<int>(split_.size()) == OutputSize(),
                   ErrorKind::kBadArgument, label(), ": argument 'split' ", ShapeString(split_),
                   " has ", split_.size(), " sizes for ", OutputSize(), " outputs");
  }

  void Run() override {
    const Tensor& in = Input(0);
    const int axis = CanonicalAxis(spec_.axis, in.ndim(), label(), "axis", in.dims());
    std::vector<int64_t> sizes = split_;
    if (InputSize() == 2) {
      sizes = shape_util::ReadIndexTensor(Input(1), label(), InputName(1));
      PARITY_ENFORCE(static_cast<int>(sizes.size()) == OutputSize(), ErrorKind::kBadArgument,
                     label(), ": input '", InputName(1), "' holds ", sizes.size(),
                     " split sizes for ", OutputSize(), " outputs");
    } else if (!args().Has("split")) {
      sizes = EqualSplit(in.dims(), axis, OutputSize(), label());
    }
    const auto out_dims = PlanSplit(in.dims(), axis, sizes, spec_.add_axis, label());
    const size_t esize = DataTypeSize(in.dtype());
    const int64_t outer = SizeToDim(in.dims(), axis);
    const int64_t inner = SizeFromDim(in.dims(), axis + 1);
    const int64_t in_row = in.dims()[axis] * inner * esize;
    const char* src = static_cast<const char*>(in.raw_data());
    int64_t column = 0;
    for (int i = 0; i < OutputSize(); ++i) {
      Tensor* out = Output(i);
      out->Resize(out_dims[i]);
      char* dst = static_cast<char*>(out->raw_mutable_data(in.dtype()));
      const int64_t row = sizes[i] * inner * esize;
      if (row > 0) {
        for (int64_t o = 0; o < outer; ++o) {
          std::memcpy(dst + o * row, src + o * in_row + column, row);
        }
      }
      column += row;
    }
  }

 private:
  AxisSpec spec_;
  std::vector<int64_t> split_;
};

PARITY_OP_SCHEMA(Split)
    .NumInputs(1, 2)
    .NumOutputs(1, std::numeric_limits<int>::max())
    .Apply(ConcatSplitArgs)
    .Arg("split", ArgType::kInts, std::monostate{},
         "Size of each output along the axis; default equal parts.")
    .DifferentiableInputs({0})
    .ShapeInference([](const caffe2::OperatorDef& def, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) {
      std::vector<TensorType> out(def.output_size());
      for (auto& t : out) t.dtype = in[0].dtype;
      const std::string& label = args.op_label();
      const AxisSpec spec = ConcatSplitAxis(args);
      const int rank = static_cast<int>(in[0].dims.size());
      const int axis = CanonicalAxis(spec.axis, rank, label, "axis", in[0].dims);
      if (def.input_size() == 2) {
        for (auto& t : out) t.known = false;
        return out;
      }
      std::vector<int64_t> sizes = args.GetVector<int64_t>("split");
      if (!args.Has("split")) sizes = EqualSplit(in[0].dims, axis, def.output_size(), label);
      PARITY_ENFORCE(static_cast<int>(sizes.size()) == def.output_size(),
                     ErrorKind::kBadArgument, label, ": argument 'split' ", ShapeString(sizes),
                     " has ", sizes.size(), " sizes for ", def.output_size(), " outputs");
      auto dims = PlanSplit(in[0].dims, axis, sizes, spec.add_axis, label);
      for (size_t i = 0; i < out.size(); ++i) out[i].dims = dims[i];
      return out;
    })
    .InputDoc(0, "input", "Any tensor.")
    .InputDoc(1, "split", "Optional 1-D int32/int64 tensor of sizes (instead of 'split').")
    .OutputDoc(0, "outputs", "The pieces, in order along the axis.")
    .Doc("Splits the input along `axis` into pieces of the given sizes (default equal parts).");
PARITY_REGISTER_CPU_OPERATOR(Split, SplitOp);

}  // namespace
}  // namespace parity
