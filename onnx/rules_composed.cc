// ONNX ops parity has no op for, composed from ops it has where the composition is exact:
// GatherND (flat indices and one Gather), OneHot (EQ against a constant range, Where), LRN (an
// AveragePool over the channels of x^2), Compress and ReverseSequence (Gathers of constant
// positions). Each rule's comment gives its construction.
#include <algorithm>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "onnx/rules.h"

namespace parity::onnx {
namespace {

// GatherND: each index tuple (the last axis of INDICES, k long) picks a slice of DATA's axes
// [b, b + k) within its batch (the first b = batch_dims axes, shared by DATA and INDICES). Its
// flat position in DATA viewed as [d0 * ... * d(b+k-1), rest...] is the batch's linear number
// times the slice count d(b) * ... * d(b+k-1), plus the dot product of the (wrapped, when
// negative) tuple with those axes' row-major strides: Mul by the constant strides, ReduceSum over
// the last axis, Add of a constant batch offset, then one Gather on axis 0.
void GatherNd(ImportContext& ctx, const Node& node) {
  const int64_t b = node.Int("batch_dims", 0);
  const std::string data = node.In(0), indices = node.In(1);
  const std::vector<int64_t> dims = ctx.Dims(data), index_dims = ctx.Dims(indices);
  PARITY_ENFORCE(!index_dims.empty(), ErrorKind::kBadArgument, "GatherND of 0-d indices");
  const int64_t k = index_dims.back(), index_rank = static_cast<int64_t>(index_dims.size());
  PARITY_ENFORCE(b >= 0 && b < index_rank && k >= 1 &&
                     b + k <= static_cast<int64_t>(dims.size()),
                 ErrorKind::kBadArgument, "index tuples of ", k, " after ", b,
                 " batch dims for data of rank ", dims.size());
  PARITY_ENFORCE(ctx.Dtype(indices) == DataType::kInt64, ErrorKind::kBadArgument,
                 "GatherND indices of ", DataTypeName(ctx.Dtype(indices)));
  std::vector<int64_t> strides(k), sizes(dims.begin() + b, dims.begin() + b + k);
  int64_t stride = 1;
  for (int64_t j = k - 1; j >= 0; --j) {
    strides[j] = stride;
    stride *= dims[b + j];
  }
  int64_t batches = 1;
  for (int64_t j = 0; j < b; ++j) batches *= dims[j];
  auto int64_constant = [&](const std::vector<int64_t>& v,
                            std::vector<int64_t> shape = std::vector<int64_t>()) {
    if (shape.empty()) shape = {static_cast<int64_t>(v.size())};
    Tensor t(DataType::kInt64, shape);
    std::copy(v.begin(), v.end(), t.mutable_data<int64_t>());
    const std::string name = ctx.Temp("gather_nd");
    ctx.EmitFill(name, t);
    ctx.SetConstant(name, t);
    return name;
  };
  const std::string negative = ctx.Temp(indices), shifted = ctx.Temp(indices),
                    wrapped = ctx.Temp(indices), scaled = ctx.Temp(indices),
                    flat_index = ctx.Temp(indices), flat_data = ctx.Temp(data);
  Tensor zero(DataType::kInt64, {});
  *zero.mutable_data<int64_t>() = 0;
  const std::string zero_name = ctx.Temp("zero");
  ctx.EmitFill(zero_name, zero);
  ctx.SetConstant(zero_name, zero);
  ctx.Emit("LT", {indices, zero_name}, {negative});
  ctx.Emit("Add", {indices, int64_constant(sizes)}, {shifted});
  ctx.Emit("Where", {negative, shifted, indices}, {wrapped});
  ctx.Emit("Mul", {wrapped, int64_constant(strides)}, {scaled});
  std::string within = flat_index;
  if (b > 0) within = ctx.Temp(indices);
  ctx.Emit("ReduceSum", {scaled}, {within}).Ints("axes", {index_rank - 1}).Int("keepdims", 0);
  if (b > 0) {
    // Batch n's offset n * stride, laid over INDICES' batch axes (1s after them).
    std::vector<int64_t> offsets(batches), offset_shape(index_dims.begin(), index_dims.begin() + b);
    for (int64_t n = 0; n < batches; ++n) offsets[n] = n * stride;
    offset_shape.resize(index_rank - 1, 1);
    ctx.Emit("Add", {within, int64_constant(offsets, offset_shape)}, {flat_index});
  }
  std::vector<int64_t> flat_dims = {batches * stride};
  flat_dims.insert(flat_dims.end(), dims.begin() + b + k, dims.end());
  ctx.Emit("Reshape", {data}, {flat_data, ctx.Temp("old_shape")}).Ints("shape", flat_dims);
  ctx.Emit("Gather", {flat_data, flat_index}, {node.Out(0)}).Int("axis", 0);
  ctx.Note("GatherND: flat indices (Mul by strides, ReduceSum), Gather of DATA reshaped");
}

// OneHot: EQ of the (wrapped) indices, given a unit axis at `axis`, against the constant
// 0..depth-1 laid along that axis, then Where(on, off). Negative indices count from depth; any
// other index outside [0, depth) matches nothing (all off), as ONNX says; non-integer indices
// are cast to int64 first.
void OneHot(ImportContext& ctx, const Node& node) {
  const std::string indices = node.In(0), values = node.In(2);
  const int64_t depth = static_cast<int64_t>(ctx.ConstantScalar(node.In(1), "OneHot's depth"));
  PARITY_ENFORCE(depth > 0, ErrorKind::kBadArgument, "OneHot depth ", depth);
  const int64_t rank = ctx.Rank(indices) + 1;
  const int64_t axis = NormalizeAxis(node.Int("axis", -1), rank, "attribute 'axis'");
  std::string ids = indices;
  if (ctx.Dtype(indices) != DataType::kInt64) {
    ids = ctx.Temp(indices);
    ctx.Emit("Cast", {indices}, {ids}).Int("to", static_cast<int>(DataType::kInt64));
  }
  const std::string negative = ctx.Temp(indices), shifted = ctx.Temp(indices),
                    wrapped = ctx.Temp(indices), column = ctx.Temp(indices),
                    hot = ctx.Temp(indices), on = ctx.Temp(values), off = ctx.Temp(values);
  auto int64_constant = [&](const std::vector<int64_t>& v, const std::vector<int64_t>& shape) {
    Tensor t(DataType::kInt64, shape);
    std::copy(v.begin(), v.end(), t.mutable_data<int64_t>());
    const std::string name = ctx.Temp("one_hot");
    ctx.EmitFill(name, t);
    ctx.SetConstant(name, t);
    return name;
  };
  ctx.Emit("LT", {ids, int64_constant({0}, {})}, {negative});
  ctx.Emit("Add", {ids, int64_constant({depth}, {})}, {shifted});
  ctx.Emit("Where", {negative, shifted, ids}, {wrapped});
  ctx.Emit("ExpandDims", {wrapped}, {column}).Ints("dims", {axis});
  std::vector<int64_t> range(depth), range_shape(rank, 1);
  for (int64_t i = 0; i < depth; ++i) range[i] = i;
  range_shape[axis] = depth;
  ctx.Emit("EQ", {column, int64_constant(range, range_shape)}, {hot});
  ctx.Emit("Gather", {values, int64_constant({1}, {})}, {on}).Int("axis", 0);
  ctx.Emit("Gather", {values, int64_constant({0}, {})}, {off}).Int("axis", 0);
  ctx.Emit("Where", {hot, on, off}, {node.Out(0)});
  ctx.Note("OneHot: EQ against 0..depth-1 along the axis, then Where(on, off)");
}

// LRN: y = x / (bias + alpha / size * sum of x^2 over the channel window)^beta, the window
// [c - floor((size - 1) / 2), c + ceil((size - 1) / 2)] clipped to the channels. The window sum
// is an AveragePool over the channel axis of x^2 viewed as [N, 1, C, rest] with zero padding
// counted (count_include_pad: the mean of `size` taps is the sum / size, exactly alpha's scale).
void Lrn(ImportContext& ctx, const Node& node) {
  const std::string x = node.In(0);
  const std::vector<int64_t> dims = ctx.Dims(x);
  PARITY_ENFORCE(dims.size() >= 3, ErrorKind::kBadArgument, "LRN of a rank-", dims.size(),
                 " input");
  const int64_t size = node.RequiredInt("size");
  PARITY_ENFORCE(size > 0, ErrorKind::kBadArgument, "attribute 'size' = ", size);
  int64_t rest = 1;
  for (size_t i = 2; i < dims.size(); ++i) rest *= dims[i];
  const std::string squares = ctx.Temp(x), planes = ctx.Temp(x), means = ctx.Temp(x),
                    window = ctx.Temp(x), scaled = ctx.Temp(x), shifted = ctx.Temp(x),
                    denominator = ctx.Temp(x);
  ctx.Emit("Sqr", {x}, {squares});
  ctx.Emit("Reshape", {squares}, {planes, ctx.Temp("old_shape")})
      .Ints("shape", {dims[0], 1, dims[1], rest});
  ctx.Emit("AveragePool", {planes}, {means})
      .Ints("kernels", {size, 1})
      .Ints("strides", {1, 1})
      .Ints("pads", {(size - 1) / 2, 0, size / 2, 0})
      .Int("count_include_pad", 1);
  ctx.Emit("Reshape", {means}, {window, ctx.Temp("old_shape")}).Ints("shape", dims);
  ctx.Emit("Scale", {window}, {scaled}).Float("scale", node.Float("alpha", 1e-4f));
  ctx.Emit("Add", {scaled, ctx.ScalarLike(node.Float("bias", 1.0f), x)}, {shifted});
  ctx.Emit("Pow", {shifted}, {denominator}).Float("exponent", node.Float("beta", 0.75f));
  ctx.Emit("Div", {x, denominator}, {node.Out(0)});
  ctx.Note("LRN: an AveragePool of x^2 over the channels (count_include_pad), Scale, Add, Pow, Div");
}

// An int64 index constant of `dims` (Gather's indices).
std::string IndexConstant(ImportContext& ctx, const std::vector<int64_t>& values,
                          const std::vector<int64_t>& dims) {
  Tensor t(DataType::kInt64, dims);
  std::copy(values.begin(), values.end(), t.mutable_data<int64_t>());
  const std::string name = ctx.Temp("indices");
  ctx.EmitFill(name, t);
  ctx.SetConstant(name, t);
  return name;
}

// Compress: the condition (a parameter slot: a constant at import time) names the kept positions
// along `axis` (or of the flattened input without one; positions past the condition's end are
// dropped), so it is a Gather of those constant indices.
void Compress(ImportContext& ctx, const Node& node) {
  const Tensor* constant = ctx.Constant(node.In(1));
  PARITY_ENFORCE(constant != nullptr, ErrorKind::kBadArgument, "Compress's condition '",
                 node.In(1), "' is not a constant at import time (an initializer, a Constant or a "
                 "bound input)");
  std::vector<int64_t> condition(constant->numel());
  DispatchNumeric(constant->dtype(), "Compress's condition", [&](auto zero) {
    using T = decltype(zero);
    for (int64_t i = 0; i < constant->numel(); ++i) condition[i] = constant->data<T>()[i] != T(0);
  });
  std::vector<int64_t> kept;
  for (size_t i = 0; i < condition.size(); ++i) {
    if (condition[i] != 0) kept.push_back(static_cast<int64_t>(i));
  }
  std::string x = node.In(0);
  int64_t axis = 0;
  if (node.HasAttr("axis")) {
    axis = NormalizeAxis(node.Int("axis", 0), ctx.Rank(x), "attribute 'axis'");
    PARITY_ENFORCE(static_cast<int64_t>(condition.size()) <= ctx.Dims(x)[axis],
                   ErrorKind::kBadArgument, "a condition of ", condition.size(),
                   " for an axis of ", ctx.Dims(x)[axis]);
  } else {
    int64_t count = 1;
    for (int64_t d : ctx.Dims(x)) count *= d;
    const std::string flat = ctx.Temp(x);
    ctx.Emit("Reshape", {x}, {flat, ctx.Temp("old_shape")}).Ints("shape", {count});
    x = flat;
  }
  ctx.Emit("Gather", {x, IndexConstant(ctx, kept, {static_cast<int64_t>(kept.size())})},
           {node.Out(0)})
      .Int("axis", axis);
  ctx.Note("Compress: a Gather of the condition's true positions (a constant)");
}

// ReverseSequence: sequence_lens (a parameter slot: a constant at import time) fixes, for every
// (time, batch) position, the time it reads: t < len[b] reads len[b] - 1 - t, the rest their own.
// X viewed as [T * B, rest...] (time-major; batch-major input transposed first) is Gathered at
// those constant flat positions.
void ReverseSequence(ImportContext& ctx, const Node& node) {
  const std::vector<int64_t> lengths = ctx.ConstantInts(node.In(1), "ReverseSequence's lengths");
  const int64_t time_axis = node.Int("time_axis", 0), batch_axis = node.Int("batch_axis", 1);
  PARITY_ENFORCE((time_axis == 0 && batch_axis == 1) || (time_axis == 1 && batch_axis == 0),
                 ErrorKind::kBadArgument, "time_axis ", time_axis, " and batch_axis ", batch_axis);
  const std::string x = node.In(0);
  const std::vector<int64_t> dims = ctx.Dims(x);
  // Rank 1 would read dims[1] out of bounds (it once reported "a batch of 0").
  PARITY_ENFORCE(dims.size() >= 2, ErrorKind::kShapeMismatch, "input '", x, "' ",
                 ShapeString(dims), " has rank ", dims.size(),
                 "; ReverseSequence takes [time, batch, ...] or [batch, time, ...] of rank >= 2");
  const int64_t t_len = dims[time_axis], b_len = dims[batch_axis];
  PARITY_ENFORCE(static_cast<int64_t>(lengths.size()) == b_len, ErrorKind::kShapeMismatch,
                 lengths.size(), " sequence lengths for input '", x, "' ", ShapeString(dims),
                 " with a batch of ", b_len);
  // The constant positions (int64 each) and the Gather's output are sized before anything is
  // allocated: a huge input is a resource-limit error here, not an out-of-memory after seconds.
  const int64_t positions = CheckedNumElements({t_len, b_len});
  PARITY_ENFORCE(positions <= MaxAllocationBytes() / static_cast<int64_t>(sizeof(int64_t)),
                 ErrorKind::kResourceLimit, "ReverseSequence over '", x, "' ", ShapeString(dims),
                 " needs ", positions, " int64 positions, over the cap of ", MaxAllocationBytes(),
                 " bytes (PARITY_MAX_ALLOC_BYTES)");
  int64_t rest = 1;
  for (size_t i = 2; i < dims.size(); ++i) rest *= dims[i];
  // Positions in the [T, B] (time-major) or [B, T] layout of the input itself.
  std::vector<int64_t> picks(t_len * b_len);
  for (int64_t t = 0; t < t_len; ++t) {
    for (int64_t b = 0; b < b_len; ++b) {
      PARITY_ENFORCE(lengths[b] >= 0 && lengths[b] <= t_len, ErrorKind::kBadArgument,
                     "sequence length ", lengths[b], " outside [0, ", t_len, "]");
      const int64_t source = t < lengths[b] ? lengths[b] - 1 - t : t;
      const int64_t out = time_axis == 0 ? t * b_len + b : b * t_len + t;
      picks[out] = time_axis == 0 ? source * b_len + b : b * t_len + source;
    }
  }
  const std::string flat = ctx.Temp(x), gathered = ctx.Temp(x);
  ctx.Emit("Reshape", {x}, {flat, ctx.Temp("old_shape")}).Ints("shape", {t_len * b_len, rest});
  ctx.Emit("Gather", {flat, IndexConstant(ctx, picks, {t_len * b_len})}, {gathered})
      .Int("axis", 0);
  ctx.Emit("Reshape", {gathered}, {node.Out(0), ctx.Temp("old_shape")}).Ints("shape", dims);
  ctx.Note("ReverseSequence: a Gather of constant flat positions");
}

}  // namespace

void AddComposedRules(RuleTable* table) {
  (*table)["GatherND"] = {GatherNd, {"batch_dims"}};
  (*table)["OneHot"] = {OneHot, {"axis"}};
  (*table)["LRN"] = {Lrn, {"alpha", "beta", "bias", "size"}};
  (*table)["Compress"] = {Compress, {"axis"}};
  (*table)["ReverseSequence"] = {ReverseSequence, {"batch_axis", "time_axis"}};
}

}  // namespace parity::onnx
