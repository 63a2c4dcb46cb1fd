// Shape and indexing ONNX ops: Reshape, Flatten, Squeeze / Unsqueeze, Concat, Split, Transpose,
// Gather, Tile, Slice, Shape, Size, Expand, DepthToSpace / SpaceToDepth, Pad. Where ONNX moved a
// parameter from an attribute to an input (Reshape 5, Tile 6, Slice 10, Squeeze / Unsqueeze /
// Split 13), the input must be a constant at import time unless parity's op takes it as an input
// too (Reshape).
#include <algorithm>
#include <limits>

#include "onnx/rules.h"

namespace parity::onnx {
namespace {

// Caffe2's Reshape writes the old shape as a second output; the reference insists on it.
void EmitReshape(ImportContext& ctx, const std::string& x, const std::vector<int64_t>& shape,
                 const std::string& out) {
  ctx.Emit("Reshape", {x}, {out, ctx.Temp("old_shape")}).Ints("shape", shape);
}

// Caffe2's 0 copies the input's dim, as ONNX's default allowzero=0. allowzero=1 (opset 14) takes a
// 0 literally, and ONNX then forbids a -1, so the shape is explicit and holds no elements: one 0
// becomes Caffe2's -1 (inferred as 0 from the empty input, or refused by the engine when the
// input is not empty, as ONNX refuses it); several need no inference: the input must be empty
// and the output is an empty fill of the shape.
void Reshape(ImportContext& ctx, const Node& node) {
  const bool allowzero = node.Int("allowzero", 0) == 1;
  if (node.opset() < 5) {
    EmitReshape(ctx, node.In(0), node.RequiredInts("shape"), node.Out(0));
    return;
  }
  if (ctx.Constant(node.In(1)) == nullptr) {
    PARITY_ENFORCE(!allowzero, ErrorKind::kBadArgument,
                   "allowzero=1 with a shape that is not a constant at import time");
    ctx.Emit("Reshape", {node.In(0), node.In(1)}, {node.Out(0), ctx.Temp("old_shape")});
    return;
  }
  auto shape = ctx.ConstantInts(node.In(1), "Reshape's shape (input 1)");
  const auto zeros = std::count(shape.begin(), shape.end(), 0);
  if (!allowzero || zeros == 0) {
    EmitReshape(ctx, node.In(0), shape, node.Out(0));
    return;
  }
  PARITY_ENFORCE(std::count(shape.begin(), shape.end(), -1) == 0, ErrorKind::kBadArgument,
                 "allowzero=1 with both a 0 and a -1 in the shape (ONNX forbids it)");
  if (zeros == 1) {
    *std::find(shape.begin(), shape.end(), 0) = -1;
    EmitReshape(ctx, node.In(0), shape, node.Out(0));
    ctx.Note("Reshape: allowzero=1's one 0 as -1");
    return;
  }
  int64_t count = 1;
  for (int64_t d : ctx.Dims(node.In(0))) count *= d;
  PARITY_ENFORCE(count == 0, ErrorKind::kBadArgument, "Reshape of ", count,
                 " elements to a shape holding none (allowzero=1)");
  ctx.Emit("ConstantFill", {}, {node.Out(0)})
      .Ints("shape", shape)
      .Float("value", 0.0)
      .Int("dtype", static_cast<int>(ctx.Dtype(node.In(0))));
  ctx.Note("Reshape: allowzero=1 with several 0s as an empty fill");
}

// ONNX accepts axis in [-r, r]; Caffe2's Flatten only [0, r].
void Flatten(ImportContext& ctx, const Node& node) {
  int64_t axis = node.Int("axis", 1);
  if (axis < 0) axis += ctx.Rank(node.In(0));
  ctx.Emit("Flatten", {node.In(0)}, {node.Out(0)}).Int("axis", axis);
}

// Opset < 13: `axes` attribute; >= 13: optional input 1. No axes: every dim of size 1.
void Squeeze(ImportContext& ctx, const Node& node) {
  const auto dims = ctx.Dims(node.In(0));
  std::vector<int64_t> axes;
  if (node.opset() < 13) {
    axes = node.Ints("axes");
  } else if (node.HasIn(1)) {
    axes = ctx.ConstantInts(node.In(1), "Squeeze's axes (input 1)");
  }
  if (!node.HasAttr("axes") && !node.HasIn(1)) {
    for (size_t i = 0; i < dims.size(); ++i) {
      if (dims[i] == 1) axes.push_back(i);
    }
  }
  axes = NormalizeAxes(axes, dims.size(), "Squeeze axis");
  std::sort(axes.begin(), axes.end());
  ctx.Emit("Squeeze", {node.In(0)}, {node.Out(0)}).Ints("dims", axes);
}

// Axes count in the output's rank.
void Unsqueeze(ImportContext& ctx, const Node& node) {
  std::vector<int64_t> axes = node.opset() < 13
                                  ? node.RequiredInts("axes")
                                  : ctx.ConstantInts(node.In(1), "Unsqueeze's axes (input 1)");
  const int64_t rank = ctx.Rank(node.In(0)) + axes.size();
  axes = NormalizeAxes(axes, rank, "Unsqueeze axis");
  std::sort(axes.begin(), axes.end());
  ctx.Emit("ExpandDims", {node.In(0)}, {node.Out(0)}).Ints("dims", axes);
}

void Concat(ImportContext& ctx, const Node& node) {
  ctx.Emit("Concat", node.Inputs(), {node.Out(0), ctx.Temp("split_info")})
      .Int("axis", node.opset() < 4 ? node.Int("axis", 1) : node.RequiredInt("axis"));
}

// ONNX's default axis is 0, Caffe2's 1: always explicit. Opset < 13: `split` attribute; >= 13:
// optional input 1. Without sizes the outputs are equal parts, as in Caffe2; from opset 18 the
// `num_outputs` attribute may ask for parts of ceil(d / n), the last one smaller.
void Split(ImportContext& ctx, const Node& node) {
  const int64_t axis = NormalizeAxis(node.Int("axis", 0), ctx.Rank(node.In(0)), "attribute 'axis'");
  std::vector<std::string> outputs;
  for (int i = 0; i < node.num_outputs(); ++i) outputs.push_back(node.Out(i));
  OpBuilder op = ctx.Emit("Split", {node.In(0)}, outputs).Int("axis", axis);
  if (node.opset() < 13 && node.HasAttr("split")) op.Ints("split", node.Ints("split"));
  if (node.opset() >= 13 && node.HasIn(1)) {
    PARITY_ENFORCE(!node.HasAttr("num_outputs"), ErrorKind::kBadArgument,
                   "both input 1 (split) and attribute 'num_outputs'");
    op.Ints("split", ctx.ConstantInts(node.In(1), "Split's split (input 1)"));
  } else if (node.HasAttr("num_outputs")) {
    PARITY_ENFORCE(node.opset() >= 18, ErrorKind::kBadArgument,
                   "attribute 'num_outputs' before opset 18");
    const int64_t n = node.Int("num_outputs", 0);
    PARITY_ENFORCE(n == node.num_outputs(), ErrorKind::kBadArgument, "num_outputs = ", n,
                   " for a node with ", node.num_outputs(), " outputs");
    const int64_t d = ctx.Dims(node.In(0))[axis];
    const int64_t part = (d + n - 1) / n;
    PARITY_ENFORCE(part * (n - 1) < d || (d == 0 && part == 0), ErrorKind::kBadArgument,
                   "num_outputs = ", n, " parts of ", part, " leave nothing for the last of axis ",
                   axis, " (size ", d, ")");
    std::vector<int64_t> sizes(n, part);
    sizes.back() = d - part * (n - 1);
    op.Ints("split", sizes);
  }
}

void Transpose(ImportContext& ctx, const Node& node) {
  std::vector<int64_t> perm = node.Ints("perm");
  if (!node.HasAttr("perm")) {
    for (int64_t i = ctx.Rank(node.In(0)) - 1; i >= 0; --i) perm.push_back(i);
  }
  ctx.Emit("Transpose", {node.In(0)}, {node.Out(0)}).Ints("axes", perm);
}

// ONNX's indices may be negative on any axis: wrap_indices.
void Gather(ImportContext& ctx, const Node& node) {
  ctx.Emit("Gather", {node.In(0), node.In(1)}, {node.Out(0)})
      .Int("axis", node.Int("axis", 0))
      .Int("wrap_indices", 1);
}

// GatherElements (11; 13 adds bfloat16): the same op; ONNX's axis default 0 is parity's.
void GatherElements(ImportContext& ctx, const Node& node) {
  ctx.Emit("GatherElements", {node.In(0), node.In(1)}, {node.Out(0)})
      .Int("axis", node.Int("axis", 0));
}

// ONNX repeats every axis at once; Caffe2's Tile one axis: one Tile per repeated axis.
void Tile(ImportContext& ctx, const Node& node) {
  PARITY_ENFORCE(node.opset() >= 6, ErrorKind::kBadArgument, "opset ", node.opset(),
                 "'s Tile(input, tiles, axis) form");
  const auto repeats = ctx.ConstantInts(node.In(1), "Tile's repeats (input 1)");
  std::vector<std::pair<int64_t, int64_t>> repeated_axes;
  for (size_t axis = 0; axis < repeats.size(); ++axis) {
    if (repeats[axis] != 1) repeated_axes.emplace_back(axis, repeats[axis]);
  }
  if (repeated_axes.empty()) {
    ctx.Emit("Copy", {node.In(0)}, {node.Out(0)});
    return;
  }
  std::string current = node.In(0);
  for (size_t i = 0; i < repeated_axes.size(); ++i) {
    const std::string out = i + 1 == repeated_axes.size() ? node.Out(0) : ctx.Temp(node.Out(0));
    ctx.Emit("Tile", {current}, {out}).Int("tiles", repeated_axes[i].second).Int("axis", repeated_axes[i].first);
    current = out;
  }
}

// x[..., start:end, ...] on `axis` (0 <= start <= end <= dim): Caffe2's Slice over the leading
// dims up to `axis`, -1 ends meaning the whole dim.
std::string SliceAxis(ImportContext& ctx, const std::string& x, int64_t axis, int64_t start,
                      int64_t end, const std::string& out = "") {
  std::vector<int64_t> starts(axis + 1, 0), ends(axis + 1, -1);
  starts[axis] = start;
  ends[axis] = end;
  const std::string name = out.empty() ? ctx.Temp(x) : out;
  ctx.Emit("Slice", {x}, {name}).Ints("starts", starts).Ints("ends", ends);
  return name;
}

// Slice with starts / ends computed by the net (opset >= 10; axes constant, steps 1), one axis at
// a time: parity's Slice in its input form (starts, ends as tensors over the leading axes).
// ONNX's bounds are normalized by ops to what that form reads literally: a negative v becomes
// v + d, both are clamped to [0, d], and an end before the start becomes the start (ONNX's empty
// slice, which Caffe2's Slice would refuse as reversed). Axes before the cut one take 0 and -1
// (Caffe2's whole axis).
void DynamicSlice(ImportContext& ctx, const Node& node) {
  const std::string x = node.In(0);
  const auto dims = ctx.Dims(x);
  const int64_t rank = dims.size();
  PARITY_ENFORCE(!node.HasIn(4) || [&] {
    for (int64_t step : ctx.ConstantInts(node.In(4), "Slice's steps (input 4)")) {
      if (step != 1) return false;
    }
    return true;
  }(), ErrorKind::kBadArgument, "Slice with bounds computed by the net and steps other than 1");
  const DataType dtype = ctx.Dtype(node.In(1));
  PARITY_ENFORCE(ctx.Dtype(node.In(2)) == dtype, ErrorKind::kBadArgument,
                 "Slice's starts and ends of different dtypes");
  const std::vector<int64_t> bound_dims = ctx.Dims(node.In(1));
  PARITY_ENFORCE(bound_dims.size() == 1, ErrorKind::kBadArgument, "Slice's starts of rank ",
                 bound_dims.size());
  const int64_t count = bound_dims[0];
  std::vector<int64_t> axes;
  if (node.HasIn(3)) {
    axes = ctx.ConstantInts(node.In(3), "Slice's axes (input 3)");
  } else {
    for (int64_t i = 0; i < count; ++i) axes.push_back(i);
  }
  PARITY_ENFORCE(static_cast<int64_t>(axes.size()) == count, ErrorKind::kBadArgument, count,
                 " starts but ", axes.size(), " axes");
  auto constant = [&](const std::vector<int64_t>& values, const std::vector<int64_t>& shape) {
    Tensor t(dtype, shape);
    DispatchNumeric(dtype, "Slice bound", [&](auto zero) {
      using T = decltype(zero);
      for (size_t i = 0; i < values.size(); ++i) t.mutable_data<T>()[i] = static_cast<T>(values[i]);
    });
    const std::string name = ctx.Temp("slice_bound");
    ctx.EmitFill(name, t);
    ctx.SetConstant(name, t);
    return name;
  };
  // Element i of a bounds input, as ONNX reads it, made literal for the axis of size d.
  auto bound = [&](const std::string& bounds, int64_t i, int64_t d) {
    const std::string v = ctx.Temp(bounds), negative = ctx.Temp(bounds), wrapped = ctx.Temp(bounds),
                      picked = ctx.Temp(bounds), low = ctx.Temp(bounds), clamped = ctx.Temp(bounds);
    const std::string zero = constant({0}, {}), size = constant({d}, {});
    ctx.Emit("Gather", {bounds, constant({i}, {})}, {v}).Int("axis", 0);
    ctx.Emit("LT", {v, zero}, {negative});
    ctx.Emit("Add", {v, size}, {wrapped});
    ctx.Emit("Where", {negative, wrapped, v}, {picked});
    ctx.Emit("Max", {picked, zero}, {low});
    ctx.Emit("Min", {low, size}, {clamped});
    return clamped;
  };
  std::string current = x;
  for (int64_t i = 0; i < count; ++i) {
    const int64_t axis = NormalizeAxis(axes[i], rank, "Slice axis");
    const int64_t d = dims[axis];
    const std::string start = bound(node.In(1), i, d);
    const std::string end_raw = bound(node.In(2), i, d), end = ctx.Temp(node.In(2));
    ctx.Emit("Max", {end_raw, start}, {end});
    std::string starts = ctx.Temp("slice_starts"), ends = ctx.Temp("slice_ends");
    const std::string start_1d = ctx.Temp(start), end_1d = ctx.Temp(end);
    ctx.Emit("ExpandDims", {start}, {start_1d}).Ints("dims", {0});
    ctx.Emit("ExpandDims", {end}, {end_1d}).Ints("dims", {0});
    if (axis == 0) {
      starts = start_1d;
      ends = end_1d;
    } else {
      ctx.Emit("Concat", {constant(std::vector<int64_t>(axis, 0), {axis}), start_1d},
               {starts, ctx.Temp("split_info")})
          .Int("axis", 0);
      ctx.Emit("Concat", {constant(std::vector<int64_t>(axis, -1), {axis}), end_1d},
               {ends, ctx.Temp("split_info")})
          .Int("axis", 0);
    }
    const std::string out = i + 1 == count ? node.Out(0) : ctx.Temp(node.Out(0));
    ctx.Emit("Slice", {current, starts, ends}, {out});
    current = out;
  }
  ctx.Note("Slice: bounds computed by the net, normalized by ops, parity's Slice input form");
}

// Caffe2's Slice cuts leading dims with starts/ends where a negative end v means dim + 1 + v, and
// no steps; the reference (like Caffe2) cuts one dim per op. So ONNX's starts/ends are clamped
// with the static shape and each cut axis gets its own Slice. An axis with a step other than 1
// (opset 10) takes the indices it picks, known at import time, through a Gather instead.
void Slice(ImportContext& ctx, const Node& node) {
  const std::string x = node.In(0);
  const auto dims = ctx.Dims(x);
  const int64_t rank = dims.size();
  std::vector<int64_t> starts, ends, axes, steps;
  if (node.opset() < 10) {
    starts = node.RequiredInts("starts");
    ends = node.RequiredInts("ends");
    axes = node.Ints("axes");
  } else {
    if (ctx.Constant(node.In(1)) == nullptr || ctx.Constant(node.In(2)) == nullptr) {
      DynamicSlice(ctx, node);
      return;
    }
    starts = ctx.ConstantInts(node.In(1), "Slice's starts (input 1)");
    ends = ctx.ConstantInts(node.In(2), "Slice's ends (input 2)");
    if (node.HasIn(3)) axes = ctx.ConstantInts(node.In(3), "Slice's axes (input 3)");
    if (node.HasIn(4)) steps = ctx.ConstantInts(node.In(4), "Slice's steps (input 4)");
  }
  PARITY_ENFORCE(starts.size() == ends.size(), ErrorKind::kBadArgument, starts.size(),
                 " starts but ", ends.size(), " ends");
  if (axes.empty()) {
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(i);
  }
  if (steps.empty()) steps.assign(starts.size(), 1);
  PARITY_ENFORCE(axes.size() == starts.size() && steps.size() == starts.size(),
                 ErrorKind::kBadArgument, starts.size(), " starts but ", axes.size(), " axes and ",
                 steps.size(), " steps");
  std::vector<std::pair<int64_t, int64_t>> box(rank);
  std::vector<bool> cut(rank, false);
  // Per stepped axis, the indices ONNX's loop visits: start, start + step, ... before end.
  std::vector<std::pair<int64_t, std::vector<int64_t>>> picks;
  for (size_t i = 0; i < axes.size(); ++i) {
    const int64_t axis = NormalizeAxis(axes[i], rank, "Slice axis");
    const int64_t d = dims[axis], step = steps[i];
    PARITY_ENFORCE(step != 0, ErrorKind::kBadArgument, "Slice step 0 on axis ", axis);
    int64_t start = starts[i] < 0 ? starts[i] + d : starts[i];
    int64_t end = ends[i] < 0 ? ends[i] + d : ends[i];
    if (step != 1) {
      // ONNX clamps a backward slice to [0, d - 1] for start and [-1, d - 1] for end, so that
      // end -1 means "through index 0".
      start = step > 0 ? std::clamp<int64_t>(start, 0, d) : std::clamp<int64_t>(start, 0, d - 1);
      end = step > 0 ? std::clamp<int64_t>(end, 0, d) : std::clamp<int64_t>(end, -1, d - 1);
      std::vector<int64_t> indices;
      for (int64_t j = start; step > 0 ? j < end : j > end; j += step) indices.push_back(j);
      picks.emplace_back(axis, std::move(indices));
      continue;
    }
    start = std::clamp<int64_t>(start, 0, d);
    end = std::clamp<int64_t>(end, 0, d);
    box[axis] = {start, std::max(start, end)};
    cut[axis] = box[axis] != std::make_pair<int64_t, int64_t>(0, int64_t{d});
  }
  std::vector<int64_t> cut_axes;
  for (int64_t axis = 0; axis < rank; ++axis) {
    if (cut[axis]) cut_axes.push_back(axis);
  }
  if (cut_axes.empty() && picks.empty()) {
    ctx.Emit("Copy", {x}, {node.Out(0)});
    return;
  }
  const size_t ops = cut_axes.size() + picks.size();
  size_t emitted = 0;
  auto next_out = [&]() {
    return ++emitted == ops ? node.Out(0) : ctx.Temp(node.Out(0));
  };
  std::string current = x;
  for (int64_t axis : cut_axes) {
    current = SliceAxis(ctx, current, axis, box[axis].first, box[axis].second, next_out());
  }
  for (const auto& [axis, indices] : picks) {
    Tensor index_tensor(DataType::kInt64, {static_cast<int64_t>(indices.size())});
    std::copy(indices.begin(), indices.end(), index_tensor.mutable_data<int64_t>());
    const std::string index_name = ctx.Temp("slice_indices");
    ctx.EmitFill(index_name, index_tensor);
    ctx.SetConstant(index_name, index_tensor);
    const std::string out = next_out();
    ctx.Emit("Gather", {current, index_name}, {out}).Int("axis", axis);
    current = out;
  }
  if (!picks.empty()) ctx.Note("Slice: a Gather of the picked indices per stepped axis");
  if (cut_axes.size() > 1) ctx.Note("Slice: one Slice per cut axis");
}

// Opset 15's start/end pick a range of dims: Shape(axes).
void Shape(ImportContext& ctx, const Node& node) {
  const int64_t rank = ctx.Rank(node.In(0));
  auto clamp = [&](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + rank : v, 0, rank); };
  const int64_t start = clamp(node.Int("start", 0)), end = clamp(node.Int("end", rank));
  OpBuilder op = ctx.Emit("Shape", {node.In(0)}, {node.Out(0)});
  if (start != 0 || end != rank) {
    std::vector<int64_t> axes;
    for (int64_t i = start; i < end; ++i) axes.push_back(i);
    op.Ints("axes", axes);
  }
}

// parity has no Size op: the element count of the static shape, as an int64 constant.
void Size(ImportContext& ctx, const Node& node) {
  int64_t count = 1;
  for (int64_t d : ctx.Dims(node.In(0))) count *= d;
  Tensor value(DataType::kInt64, {});
  *value.mutable_data<int64_t>() = count;
  ctx.EmitFill(node.Out(0), value);
  ctx.SetConstant(node.Out(0), value);
  ctx.Note("Size: the element count of the static shape");
}

// Expand = Mul by ones of the given shape (numpy broadcasting both ways, as Expand's).
void Expand(ImportContext& ctx, const Node& node) {
  const auto shape = ctx.ConstantInts(node.In(1), "Expand's shape (input 1)");
  const std::string ones = ctx.Temp("ones");
  ctx.Emit("ConstantFill", {}, {ones})
      .Ints("shape", shape)
      .Float("value", 1.0)
      .Int("dtype", static_cast<int>(ctx.Dtype(node.In(0))));
  ctx.Emit("Mul", {node.In(0), ones}, {node.Out(0)});
  ctx.Note("Expand = Mul by ones");
}

// Reshape to 6-D, Transpose, Reshape back (ONNX's own definition of both ops).
void DepthSpace(ImportContext& ctx, const Node& node) {
  const auto dims = ctx.Dims(node.In(0));
  PARITY_ENFORCE(dims.size() == 4, ErrorKind::kBadArgument, "input of rank ", dims.size(),
                 ", expected 4");
  const int64_t b = dims[0], c = dims[1], h = dims[2], w = dims[3];
  const int64_t bs = node.RequiredInt("blocksize");
  // A zero blocksize divided by zero (SIGFPE); one that does not divide the dims would reshape
  // to a shape of another element count.
  PARITY_ENFORCE(bs > 0, ErrorKind::kBadArgument, "attribute 'blocksize' = ", bs,
                 " must be positive");
  if (node.type() == "DepthToSpace") {
    // c % bs, then (c / bs) % bs: bs * bs itself could overflow for a huge blocksize.
    PARITY_ENFORCE(c % bs == 0 && (c / bs) % bs == 0, ErrorKind::kShapeMismatch, "input ",
                   ShapeString(dims), " has ", c, " channels, not divisible by blocksize^2 (",
                   "blocksize ", bs, ")");
  } else {
    PARITY_ENFORCE(h % bs == 0 && w % bs == 0, ErrorKind::kShapeMismatch, "input ",
                   ShapeString(dims), ": height and width are not divisible by blocksize ", bs);
  }
  std::vector<int64_t> s1, perm, s2;
  if (node.type() == "DepthToSpace") {
    const std::string mode = node.String("mode", "DCR");
    PARITY_ENFORCE(mode == "DCR" || mode == "CRD", ErrorKind::kBadArgument, "attribute 'mode' = '",
                   mode, "'");
    if (mode == "DCR") {
      s1 = {b, bs, bs, c / (bs * bs), h, w};
      perm = {0, 3, 4, 1, 5, 2};
    } else {
      s1 = {b, c / (bs * bs), bs, bs, h, w};
      perm = {0, 1, 4, 2, 5, 3};
    }
    s2 = {b, c / (bs * bs), h * bs, w * bs};
  } else {
    s1 = {b, c, h / bs, bs, w / bs, bs};
    perm = {0, 3, 5, 1, 2, 4};
    s2 = {b, c * bs * bs, h / bs, w / bs};
  }
  const std::string r = ctx.Temp(node.In(0)), t = ctx.Temp(node.In(0));
  EmitReshape(ctx, node.In(0), s1, r);
  ctx.Emit("Transpose", {r}, {t}).Ints("axes", perm);
  EmitReshape(ctx, t, s2, node.Out(0));
  ctx.Note(node.type() + " = Reshape . Transpose . Reshape");
}

// Pad (parity has no Pad op; Caffe2's backend used PadImage, which parity lacks): with the static
// shape, axis by axis, a negative pad is a Slice and a positive one a Concat of the input with
// the new rows: a ConstantFill (constant), the edge row tiled (edge), or the mirrored rows one by
// one (reflect). Opset < 11: `pads`, `mode`, `value` attributes; >= 11: inputs 1 (pads) and 2
// (constant_value), constants at import time.
void Pad(ImportContext& ctx, const Node& node) {
  const std::string x = node.In(0);
  std::vector<int64_t> dims = ctx.Dims(x);
  const int64_t rank = dims.size();
  const std::string mode = node.String("mode", "constant");
  PARITY_ENFORCE(mode == "constant" || mode == "edge" || mode == "reflect", ErrorKind::kBadArgument,
                 "attribute 'mode' = '", mode, "'");
  std::vector<int64_t> pads;
  double value = 0;
  if (node.opset() < 11) {
    pads = node.RequiredInts("pads");
    value = node.Float("value", 0);
  } else {
    pads = ctx.ConstantInts(node.In(1), "Pad's pads (input 1)");
    if (node.HasIn(2)) value = ctx.ConstantScalar(node.In(2), "Pad's constant_value (input 2)");
  }
  if (node.HasIn(3)) {
    // Opset 18's axes: pads [begins..., ends...] for those axes only, 0 for the others.
    PARITY_ENFORCE(node.opset() >= 18, ErrorKind::kBadArgument, "input 3 (axes) before opset 18");
    const std::vector<int64_t> axes =
        NormalizeAxes(ctx.ConstantInts(node.In(3), "Pad's axes (input 3)"), rank, "axis");
    const int64_t k = static_cast<int64_t>(axes.size());
    PARITY_ENFORCE(static_cast<int64_t>(pads.size()) == 2 * k, ErrorKind::kBadArgument,
                   pads.size(), " pads for ", k, " axes, expected ", 2 * k);
    std::vector<int64_t> full(2 * rank, 0);
    for (int64_t i = 0; i < k; ++i) {
      PARITY_ENFORCE(std::count(axes.begin(), axes.end(), axes[i]) == 1, ErrorKind::kBadArgument,
                     "axis ", axes[i], " given twice in Pad's axes (input 3)");
      full[axes[i]] = pads[i];
      full[rank + axes[i]] = pads[k + i];
    }
    pads = full;
  }
  PARITY_ENFORCE(static_cast<int64_t>(pads.size()) == 2 * rank, ErrorKind::kBadArgument,
                 pads.size(), " pads for rank ", rank, ", expected ", 2 * rank);
  const DataType dtype = ctx.Dtype(x);
  std::string current = x;
  std::vector<int64_t> padded_axes;
  for (int64_t axis = 0; axis < rank; ++axis) {
    if (pads[axis] != 0 || pads[rank + axis] != 0) padded_axes.push_back(axis);
  }
  if (padded_axes.empty()) {
    ctx.Emit("Copy", {x}, {node.Out(0)});
    return;
  }
  for (size_t t = 0; t < padded_axes.size(); ++t) {
    const int64_t axis = padded_axes[t];
    const std::string out = t + 1 == padded_axes.size() ? node.Out(0) : ctx.Temp(node.Out(0));
    int64_t begin = pads[axis], end = pads[rank + axis];
    // Negative pads crop first.
    if (begin < 0 || end < 0) {
      const int64_t from = std::max<int64_t>(0, -begin),
                    to = dims[axis] - std::max<int64_t>(0, -end);
      PARITY_ENFORCE(from <= to, ErrorKind::kBadArgument, "pads crop axis ", axis, " of size ",
                     dims[axis], " below zero");
      const bool last = begin <= 0 && end <= 0;
      current = SliceAxis(ctx, current, axis, from, to, last ? out : "");
      dims[axis] = to - from;
      begin = std::max<int64_t>(0, begin);
      end = std::max<int64_t>(0, end);
      if (last) continue;
    }
    PARITY_ENFORCE(mode != "reflect" || (begin < dims[axis] && end < dims[axis]),
                   ErrorKind::kBadArgument, "reflect pads ", begin, " and ", end,
                   " need more than that many rows on axis ", axis, " (size ", dims[axis], ")");
    PARITY_ENFORCE(mode == "constant" || dims[axis] > 0, ErrorKind::kBadArgument, mode,
                   " padding of an empty axis ", axis);
    auto rows = [&](int64_t count, bool before) {
      std::vector<std::string> pieces;
      if (count == 0) return pieces;
      if (mode == "constant") {
        std::vector<int64_t> shape = dims;
        shape[axis] = count;
        const std::string fill = ctx.Temp("pad");
        ctx.Emit("ConstantFill", {}, {fill})
            .Ints("shape", shape)
            .Float("value", value)
            .Int("dtype", static_cast<int>(dtype));
        pieces.push_back(fill);
      } else if (mode == "edge") {
        const int64_t row = before ? 0 : dims[axis] - 1;
        const std::string edge = SliceAxis(ctx, current, axis, row, row + 1);
        const std::string tiled = ctx.Temp(edge);
        ctx.Emit("Tile", {edge}, {tiled}).Int("tiles", count).Int("axis", axis);
        pieces.push_back(tiled);
      } else {  // reflect: x[count], ..., x[1] before; x[d-2], ..., x[d-1-count] after
        for (int64_t i = 0; i < count; ++i) {
          const int64_t row = before ? count - i : dims[axis] - 2 - i;
          pieces.push_back(SliceAxis(ctx, current, axis, row, row + 1));
        }
      }
      return pieces;
    };
    std::vector<std::string> parts = rows(begin, true);
    parts.push_back(current);
    for (const auto& piece : rows(end, false)) parts.push_back(piece);
    ctx.Emit("Concat", parts, {out, ctx.Temp("split_info")}).Int("axis", axis);
    current = out;
    dims[axis] += begin + end;
  }
  ctx.Note("Pad (" + mode + ") = Concat of the input and " +
           (mode == "constant" ? "ConstantFills"
            : mode == "edge"   ? "tiled edge rows"
                               : "mirrored rows"));
}

}  // namespace

void AddShapeRules(RuleTable* table) {
  (*table)["Reshape"] = {Reshape, {"allowzero", "shape"}};
  (*table)["Flatten"] = {Flatten, {"axis"}};
  (*table)["Squeeze"] = {Squeeze, {"axes"}};
  (*table)["Unsqueeze"] = {Unsqueeze, {"axes"}};
  (*table)["Concat"] = {Concat, {"axis"}};
  (*table)["Split"] = {Split, {"axis", "split", "num_outputs"}};
  (*table)["Transpose"] = {Transpose, {"perm"}};
  (*table)["Gather"] = {Gather, {"axis"}};
  (*table)["GatherElements"] = {GatherElements, {"axis"}};
  (*table)["Tile"] = {Tile, {}};
  (*table)["Slice"] = {Slice, {"starts", "ends", "axes"}};
  (*table)["Shape"] = {Shape, {"start", "end"}};
  (*table)["Size"] = {Size, {}};
  (*table)["Expand"] = {Expand, {}};
  (*table)["DepthToSpace"] = {DepthSpace, {"blocksize", "mode"}};
  (*table)["SpaceToDepth"] = {DepthSpace, {"blocksize"}};
  (*table)["Pad"] = {Pad, {"mode", "pads", "value"}};
}

}  // namespace parity::onnx
