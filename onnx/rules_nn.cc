// Neural-network ONNX ops: Gemm, MatMul, 1-D and 2-D Conv, ConvTranspose and pools (3-D pools as
// two 2-D ones; 3-D Conv and ConvTranspose in rules_conv3d.cc), BatchNormalization,
// LayerNormalization, InstanceNormalization and MeanVarianceNormalization (composed), Softmax /
// LogSoftmax, Dropout (inference), NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss.
#include <algorithm>
#include <numeric>

#include "onnx/rules.h"

namespace parity::onnx {
namespace {

// Gemm: Y = alpha * op(A) @ op(B) + beta * C = MatMul(trans_a, trans_b) [, Scale(alpha)]
// [, Scale(C, beta)], Add (C broadcast numpy-style; optional from opset 11).
void Gemm(ImportContext& ctx, const Node& node) {
  const double alpha = node.Float("alpha", 1.0f), beta = node.Float("beta", 1.0f);
  const bool has_c = node.HasIn(2);
  std::string y = alpha != 1.0 || has_c ? ctx.Temp(node.Out(0)) : node.Out(0);
  ctx.Emit("MatMul", {node.In(0), node.In(1)}, {y})
      .Int("trans_a", node.Int("transA", 0))
      .Int("trans_b", node.Int("transB", 0));
  if (alpha != 1.0) {
    const std::string scaled = has_c ? ctx.Temp(node.Out(0)) : node.Out(0);
    ctx.Emit("Scale", {y}, {scaled}).Float("scale", alpha);
    y = scaled;
  }
  if (!has_c) return;
  std::string c = node.In(2);
  if (beta != 1.0) {
    const std::string scaled = ctx.Temp(c);
    ctx.Emit("Scale", {c}, {scaled}).Float("scale", beta);
    c = scaled;
  }
  ctx.Emit("Add", {y, c}, {node.Out(0)});
}

// numpy matmul: parity's MatMul for two matrices, else BatchMatMul with broadcasting.
// numpy's matmul: two vectors give a scalar, where Caffe2's BatchMatMul gives [1] (squeezed).
void MatMul(ImportContext& ctx, const Node& node) {
  const int a_rank = ctx.Rank(node.In(0)), b_rank = ctx.Rank(node.In(1));
  if (a_rank == 2 && b_rank == 2) {
    ctx.Emit("MatMul", {node.In(0), node.In(1)}, {node.Out(0)});
  } else if (a_rank == 1 && b_rank == 1) {
    const std::string dot = ctx.Temp(node.Out(0));
    ctx.Emit("BatchMatMul", {node.In(0), node.In(1)}, {dot}).Int("broadcast", 1);
    ctx.Emit("Squeeze", {dot}, {node.Out(0)}).Ints("dims", {0});
    ctx.Note("MatMul of two vectors: BatchMatMul's [1] squeezed to a scalar");
  } else {
    ctx.Emit("BatchMatMul", {node.In(0), node.In(1)}, {node.Out(0)}).Int("broadcast", 1);
  }
}

// parity's Conv and pools are 2-D (NCHW). A 1-D one runs as 2-D with a unit width: ExpandDims
// of the input (and of Conv's weight), each spatial attribute widened with a neutral entry, and a
// Squeeze of the output. Returns the spatial rank (1 or 2).
int SpatialRank(ImportContext& ctx, const Node& node) {
  const int rank = ctx.Rank(node.In(0));
  PARITY_ENFORCE(rank == 3 || rank == 4, ErrorKind::kBadArgument, rank - 2,
                 "-D input (parity's Conv and pools are 2-D; 1-D ones run as 2-D)");
  return rank - 2;
}

// The kernel's extent read from the weight W [M, C / group, k...] when kernel_shape is absent.
std::vector<int64_t> KernelFromWeight(ImportContext& ctx, const Node& node, int spatial_rank) {
  const auto dims = ctx.Dims(node.In(1));
  PARITY_ENFORCE(static_cast<int>(dims.size()) == spatial_rank + 2, ErrorKind::kShapeMismatch,
                 node.type(), ": weight ", node.In(1), " ", ShapeString(dims), " has rank ",
                 dims.size(), " for ", spatial_rank, " spatial dims (", spatial_rank + 2,
                 " expected)");
  return std::vector<int64_t>(dims.begin() + 2, dims.end());
}

std::vector<int64_t> IntsOr(const Node& node, const std::string& name, int64_t fill, size_t n) {
  std::vector<int64_t> values = node.Ints(name);
  return values.empty() ? std::vector<int64_t>(n, fill) : values;
}

// Kernel, strides, dilations and pads [begins..., ends...] of the 2-D op.
struct Window {
  std::vector<int64_t> kernel, strides, dilations, pads;
};

// A 1-D window as 2-D: a second axis of extent 1, stride 1, no padding.
Window Widen(Window w) {
  w.kernel.push_back(1);
  w.strides.push_back(1);
  w.dilations.push_back(1);
  w.pads = {w.pads[0], 0, w.pads[1], 0};
  return w;
}

std::string WithUnitWidth(ImportContext& ctx, const std::string& name) {
  const std::string wide = ctx.Temp(name);
  ctx.Emit("ExpandDims", {name}, {wide}).Ints("dims", {3});
  return wide;
}

// Emits `type` over `inputs` with the window (1-D widened, output squeezed) and returns the op.
caffe2::OperatorDef* EmitSpatial(ImportContext& ctx, const Node& node, const std::string& type,
                                 std::vector<std::string> inputs, const Window& window,
                                 int spatial_rank, int widened_inputs) {
  if (spatial_rank == 2) {
    return ctx.Emit(type, inputs, {node.Out(0)})
        .Ints("kernels", window.kernel)
        .Ints("strides", window.strides)
        .Ints("pads", window.pads)
        .def();
  }
  for (int i = 0; i < widened_inputs; ++i) inputs[i] = WithUnitWidth(ctx, inputs[i]);
  const Window wide = Widen(window);
  const std::string out = ctx.Temp(node.Out(0));
  caffe2::OperatorDef* def = ctx.Emit(type, inputs, {out})
                                 .Ints("kernels", wide.kernel)
                                 .Ints("strides", wide.strides)
                                 .Ints("pads", wide.pads)
                                 .def();
  ctx.Emit("Squeeze", {out}, {node.Out(0)}).Ints("dims", {3});
  ctx.Note("1-D " + node.type() + ": 2-D with a unit width");
  return def;
}

void Conv(ImportContext& ctx, const Node& node) {
  if (ctx.Rank(node.In(0)) == 5) {
    Conv3d(ctx, node);
    return;
  }
  const int n = SpatialRank(ctx, node);
  Window w;
  w.kernel = node.Ints("kernel_shape");
  if (w.kernel.empty()) w.kernel = KernelFromWeight(ctx, node, n);
  w.strides = IntsOr(node, "strides", 1, n);
  w.dilations = IntsOr(node, "dilations", 1, n);
  w.pads = SpatialPads(ctx, node, w.kernel, w.strides, w.dilations);
  caffe2::OperatorDef* def = EmitSpatial(ctx, node, "Conv", node.Inputs(), w, n, 2);
  OpBuilder(def)
      .Ints("dilations", n == 1 ? Widen(w).dilations : w.dilations)
      .Int("group", node.Int("group", 1));
}

// ConvTranspose (1-D as 2-D; W [C, M / group, k...] widened like Conv's). ONNX's output_padding
// is Caffe2's adj. output_shape (or auto_pad SAME_*, whose output is input * stride) fixes the
// total padding, total = stride * (in - 1) + output_padding + dilated kernel - output, split as
// ONNX's reference does (floor halves: SAME_UPPER puts the odd one at the end, otherwise at the
// start); a negative end pad (an output longer than the kernels reach) becomes adj instead.
void ConvTranspose(ImportContext& ctx, const Node& node) {
  if (ctx.Rank(node.In(0)) == 5) {
    ConvTranspose3d(ctx, node);
    return;
  }
  const int n = SpatialRank(ctx, node);
  const auto x_dims = ctx.Dims(node.In(0));
  Window w;
  w.kernel = node.Ints("kernel_shape");
  if (w.kernel.empty()) w.kernel = KernelFromWeight(ctx, node, n);
  w.strides = IntsOr(node, "strides", 1, n);
  w.dilations = IntsOr(node, "dilations", 1, n);
  std::vector<int64_t> adj = IntsOr(node, "output_padding", 0, n);
  w.pads = IntsOr(node, "pads", 0, 2 * n);
  CheckWindowLengths(ctx, node, w.kernel, w.strides, w.dilations);
  PARITY_ENFORCE(
      adj.size() == static_cast<size_t>(n) && w.pads.size() == 2 * static_cast<size_t>(n),
      ErrorKind::kBadArgument, "ConvTranspose: attributes 'output_padding' = ", ShapeString(adj),
      " and 'pads' = ", ShapeString(w.pads), " for ", n, " spatial dims (", n, " and ", 2 * n,
      " values expected)");
  const std::string auto_pad = node.String("auto_pad", "NOTSET");
  PARITY_ENFORCE(auto_pad == "NOTSET" || auto_pad == "VALID" || auto_pad == "SAME_UPPER" ||
                     auto_pad == "SAME_LOWER",
                 ErrorKind::kBadArgument, "auto_pad '", auto_pad, "'");
  std::vector<int64_t> out = node.Ints("output_shape");
  if (out.empty() && (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER")) {
    for (int i = 0; i < n; ++i) out.push_back(x_dims[2 + i] * w.strides[i]);
  }
  if (auto_pad == "VALID") w.pads.assign(2 * n, 0);
  if (!out.empty()) {
    PARITY_ENFORCE(static_cast<int>(out.size()) == n, ErrorKind::kBadArgument, "output_shape of ",
                   out.size(), " dims for ", n, " spatial dims");
    for (int i = 0; i < n; ++i) {
      const int64_t total = w.strides[i] * (x_dims[2 + i] - 1) + adj[i] +
                            (w.kernel[i] - 1) * w.dilations[i] + 1 - out[i];
      // Python's floor division, as ONNX's reference computes the halves.
      const int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);
      w.pads[i] = auto_pad == "SAME_UPPER" ? half : total - half;
      w.pads[n + i] = auto_pad == "SAME_UPPER" ? total - half : half;
      if (w.pads[n + i] < 0) {
        adj[i] -= w.pads[n + i];
        w.pads[n + i] = 0;
      }
      PARITY_ENFORCE(w.pads[i] >= 0, ErrorKind::kBadArgument, "output_shape ", out[i],
                     " needs a negative start pad on spatial dim ", i);
    }
  }
  caffe2::OperatorDef* def = EmitSpatial(ctx, node, "ConvTranspose", node.Inputs(), w, n, 2);
  OpBuilder(def)
      .Ints("dilations", n == 1 ? Widen(w).dilations : w.dilations)
      .Int("group", node.Int("group", 1))
      .Int("adj_h", adj[0])
      .Int("adj_w", n == 1 ? 0 : adj[1]);
}

// ceil_mode=1 rounds the output size up; parity's pools round down, so the end padding grows
// until the last (partial) window fits. Those extra cells are ignored by MaxPool and by an
// AveragePool that does not count padding; one that does would count them (ONNX does not).
void AddCeilModePadding(ImportContext& ctx, const Node& node, Window* w) {
  PARITY_ENFORCE(node.type() == "MaxPool" || node.Int("count_include_pad", 0) == 0,
                 ErrorKind::kBadArgument,
                 "attribute 'ceil_mode' = 1 with count_include_pad = 1 (the cells added to "
                 "round up would be counted)");
  const auto dims = ctx.Dims(node.In(0));
  const size_t n = w->kernel.size();
  for (size_t i = 0; i < n; ++i) {
    const int64_t extent = (w->kernel[i] - 1) * w->dilations[i] + 1;
    const int64_t padded = dims[2 + i] + w->pads[i] + w->pads[n + i];
    const int64_t span = padded - extent;
    if (span < 0 || span % w->strides[i] == 0) continue;
    const int64_t out = span / w->strides[i] + 2;  // ceil(span / stride) + 1
    w->pads[n + i] += (out - 1) * w->strides[i] + extent - padded;
  }
  ctx.Note("ceil_mode=1: end padding that fits the last window");
}

// A 0-d int64 constant.
std::string Int64Scalar(ImportContext& ctx, int64_t value) {
  Tensor scalar(DataType::kInt64, {});
  *scalar.mutable_data<int64_t>() = value;
  const std::string name = ctx.Temp("const");
  ctx.EmitFill(name, scalar);
  ctx.SetConstant(name, scalar);
  return name;
}

// MaxPool's Indices (output 1): parity's MaxPool gives the flat row-major index in X
// (plane * H * W + h * W + w), ONNX's storage_order 0. storage_order 1 numbers each plane column by
// column: plane * H * W + w * H + h, recomposed from the row-major index f with q = f mod HW,
// h = q / W, w = q mod W (integer ops on non-negative values). A 1-D pool's index into
// [N, C, L, 1] is already its index into [N, C, L] (either order), squeezed like Y.
void MaxPoolIndices(ImportContext& ctx, const Node& node, caffe2::OperatorDef* pool, int n,
                    int64_t storage_order) {
  const std::string indices = node.Out(1);
  const bool column_major = storage_order == 1 && n == 2;
  const std::string row_major = n == 1 || column_major ? ctx.Temp(indices) : indices;
  pool->add_output(row_major);
  if (n == 1) {
    ctx.Emit("Squeeze", {row_major}, {indices}).Ints("dims", {3});
    return;
  }
  if (!column_major) return;
  const auto dims = ctx.Dims(node.In(0));
  const int64_t h_size = dims[2], w_size = dims[3];
  const std::string plane = Int64Scalar(ctx, h_size * w_size);
  const std::string width = Int64Scalar(ctx, w_size);
  const std::string q = ctx.Temp(indices), start = ctx.Temp(indices), h = ctx.Temp(indices),
                    w = ctx.Temp(indices), w_times_h = ctx.Temp(indices),
                    offset = ctx.Temp(indices);
  ctx.Emit("Mod", {row_major, plane}, {q});
  ctx.Emit("Sub", {row_major, q}, {start});
  ctx.Emit("Div", {q, width}, {h});
  ctx.Emit("Mod", {q, width}, {w});
  ctx.Emit("Mul", {w, Int64Scalar(ctx, h_size)}, {w_times_h});
  ctx.Emit("Add", {w_times_h, h}, {offset});
  ctx.Emit("Add", {start, offset}, {indices});
  ctx.Note("MaxPool storage_order=1: column-major Indices recomposed from the row-major ones");
}

// A 3-D pool as two 2-D pools, by separability: a box window's maximum is the maximum over its
// depth of the (height, width) maxima, and its mean the depth mean of the (height, width) means,
// since the window's clipped height and width extents are the same at every depth (so sum / (cd ·
// ch · cw) is the mean over cd of sums / (ch · cw); with count_include_pad the divisors are kh ·
// kw, then kd). X [N, C, D, H, W]: Reshape [N, C·D, H, W], pool (kh, kw), Reshape [N, C, D, H'·W'],
// pool (kd, 1), Reshape [N, C, D', H', W']. Padding never contributes to a maximum.
void Pool3d(ImportContext& ctx, const Node& node, const Window& w) {
  PARITY_ENFORCE(!node.HasOut(1), ErrorKind::kBadArgument, "output 1 (Indices) of a 3-D MaxPool");
  const auto x = ctx.Dims(node.In(0));
  auto out_size = [&](int i) {
    const int64_t padded = x[2 + i] + w.pads[i] + w.pads[3 + i];
    return (padded - ((w.kernel[i] - 1) * w.dilations[i] + 1)) / w.strides[i] + 1;
  };
  const int64_t od = out_size(0), oh = out_size(1), ow = out_size(2);
  const std::string planes = ctx.Temp(node.In(0)), by_depth = ctx.Temp(node.Out(0)),
                    pooled_hw = ctx.Temp(node.Out(0)), pooled = ctx.Temp(node.Out(0));
  ctx.Emit("Reshape", {node.In(0)}, {planes, ctx.Temp("old_shape")})
      .Ints("shape", {x[0], x[1] * x[2], x[3], x[4]});
  OpBuilder hw(ctx.Emit(node.type(), {planes}, {pooled_hw})
                   .Ints("kernels", {w.kernel[1], w.kernel[2]})
                   .Ints("strides", {w.strides[1], w.strides[2]})
                   .Ints("pads", {w.pads[1], w.pads[2], w.pads[4], w.pads[5]})
                   .def());
  ctx.Emit("Reshape", {pooled_hw}, {by_depth, ctx.Temp("old_shape")})
      .Ints("shape", {x[0], x[1], x[2], oh * ow});
  OpBuilder depth(ctx.Emit(node.type(), {by_depth}, {pooled})
                      .Ints("kernels", {w.kernel[0], 1})
                      .Ints("strides", {w.strides[0], 1})
                      .Ints("pads", {w.pads[0], 0, w.pads[3], 0})
                      .def());
  ctx.Emit("Reshape", {pooled}, {node.Out(0), ctx.Temp("old_shape")})
      .Ints("shape", {x[0], x[1], od, oh, ow});
  if (node.type() == "MaxPool") {
    if (node.HasAttr("dilations")) {
      hw.Ints("dilations", {w.dilations[1], w.dilations[2]});
      depth.Ints("dilations", {w.dilations[0], 1});
    }
  } else {
    hw.Int("count_include_pad", node.Int("count_include_pad", 0));
    depth.Int("count_include_pad", node.Int("count_include_pad", 0));
  }
  ctx.Note("3-D " + node.type() + ": a 2-D pool over (H, W), then one over D");
}

void Pool(ImportContext& ctx, const Node& node) {
  const int n = ctx.Rank(node.In(0)) == 5 ? 3 : SpatialRank(ctx, node);
  const int64_t storage_order = node.type() == "MaxPool" ? node.Int("storage_order", 0) : 0;
  PARITY_ENFORCE(storage_order == 0 || storage_order == 1, ErrorKind::kBadArgument,
                 "attribute 'storage_order' = ", storage_order, " (0 or 1)");
  Window w;
  w.kernel = node.RequiredInts("kernel_shape");
  w.strides = IntsOr(node, "strides", 1, n);
  w.dilations = IntsOr(node, "dilations", 1, n);
  w.pads = SpatialPads(ctx, node, w.kernel, w.strides, w.dilations);
  if (node.Int("ceil_mode", 0) == 1) AddCeilModePadding(ctx, node, &w);
  if (n == 3) {
    Pool3d(ctx, node, w);
    return;
  }
  caffe2::OperatorDef* pool = EmitSpatial(ctx, node, node.type(), {node.In(0)}, w, n, 1);
  OpBuilder op(pool);
  if (node.type() == "MaxPool") {
    // Only when given: production's MaxPool refuses the argument altogether.
    if (node.HasAttr("dilations")) op.Ints("dilations", n == 1 ? Widen(w).dilations : w.dilations);
    if (node.HasOut(1)) MaxPoolIndices(ctx, node, pool, n, storage_order);
  } else {
    op.Int("count_include_pad", node.Int("count_include_pad", 0));
  }
}

void GlobalPool(ImportContext& ctx, const Node& node) {
  const int n = SpatialRank(ctx, node);
  const std::string ours = node.type() == "GlobalMaxPool" ? "MaxPool" : "AveragePool";
  if (n == 2) {
    ctx.Emit(ours, {node.In(0)}, {node.Out(0)}).Int("global_pooling", 1);
    return;
  }
  const std::string out = ctx.Temp(node.Out(0));
  ctx.Emit(ours, {WithUnitWidth(ctx, node.In(0))}, {out}).Int("global_pooling", 1);
  ctx.Emit("Squeeze", {out}, {node.Out(0)}).Ints("dims", {3});
}

// Inference: SpatialBN is_test=1. Training (training_mode=1, opset >= 14): SpatialBN is_test=0
// gives Y and the running mean as ONNX defines them, but updates the running variance with the
// unbiased batch variance (Caffe2) where ONNX uses the biased one; so running_var is recomposed
// from saved_inv_std: momentum * var + (1 - momentum) * (1 / saved_inv_std^2 - epsilon).
void BatchNormalization(ImportContext& ctx, const Node& node) {
  const double epsilon = node.Float("epsilon", 1e-5f), momentum = node.Float("momentum", 0.9f);
  PARITY_ENFORCE(node.opset() >= 9 || node.Int("spatial", 1) == 1, ErrorKind::kBadArgument,
                 "attribute 'spatial' = 0 (per-activation statistics; parity's SpatialBN is "
                 "per channel)");
  PARITY_ENFORCE(node.opset() >= 7 || node.Int("is_test", 0) == 1, ErrorKind::kBadArgument,
                 "attribute 'is_test' = 0 at opset ", node.opset(),
                 " (training with the old outputs; only opset >= 14's training_mode is "
                 "translated)");
  const bool training = node.opset() >= 14 && node.Int("training_mode", 0) == 1;
  if (!training) {
    PARITY_ENFORCE(!node.HasOut(1), ErrorKind::kBadArgument, "training outputs at opset ",
                   node.opset(), " (only opset >= 14's training_mode is translated)");
    ctx.Emit("SpatialBN", node.Inputs(), {node.Out(0)}).Int("is_test", 1).Float("epsilon", epsilon);
    return;
  }
  const std::string x = node.In(0);
  const std::string mean = ctx.Temp("running_mean"), var = ctx.Temp("running_var");
  const std::string saved_mean = ctx.Temp("saved_mean"), inv_std = ctx.Temp("saved_inv_std");
  ctx.Emit("Copy", {node.In(3)}, {mean});
  ctx.Emit("Copy", {node.In(4)}, {var});
  ctx.Emit("SpatialBN", {x, node.In(1), node.In(2), mean, var},
           {node.Out(0), mean, var, saved_mean, inv_std})
      .Int("is_test", 0)
      .Float("epsilon", epsilon)
      .Float("momentum", momentum);
  if (node.HasOut(1)) ctx.Emit("Copy", {mean}, {node.Out(1)});
  if (!node.HasOut(2)) return;
  const std::string sq = ctx.Temp("inv_var"), batch_plus = ctx.Temp("var_eps"),
                    batch_var = ctx.Temp("batch_var"), new_part = ctx.Temp("var_new"),
                    old_part = ctx.Temp("var_old");
  ctx.Emit("Sqr", {inv_std}, {sq});
  ctx.Emit("Reciprocal", {sq}, {batch_plus});
  ctx.Emit("Sub", {batch_plus, ctx.ScalarLike(epsilon, x)}, {batch_var});
  ctx.Emit("Scale", {batch_var}, {new_part}).Float("scale", 1.0 - momentum);
  ctx.Emit("Scale", {node.In(4)}, {old_part}).Float("scale", momentum);
  ctx.Emit("Add", {old_part, new_part}, {node.Out(2)});
  ctx.Note("BatchNormalization training: running_var from the biased batch variance");
}

// LayerNorm(axis, epsilon) gives Y, mean and std with the leading dims; ONNX's Mean and InvStdDev
// keep X's rank (1s from axis on), and InvStdDev = 1 / std. A scale without bias gets a zero bias.
void LayerNormalization(ImportContext& ctx, const Node& node) {
  PARITY_ENFORCE(node.Int("stash_type", 1) == 1, ErrorKind::kBadArgument,
                 "attribute 'stash_type' = ", node.Int("stash_type", 1),
                 " (parity computes the statistics in the input's dtype)");
  const std::string x = node.In(0);
  const auto dims = ctx.Dims(x);
  const int64_t rank = dims.size();
  const int64_t axis = NormalizeAxis(node.Int("axis", -1), rank, "attribute 'axis'");
  std::vector<std::string> inputs = {x};
  if (node.HasIn(1)) {
    inputs.push_back(node.In(1));
    if (node.HasIn(2)) {
      inputs.push_back(node.In(2));
    } else {
      const std::string zeros = ctx.Temp("bias");
      ctx.Emit("ConstantFill", {node.In(1)}, {zeros})
          .Float("value", 0.0)
          .Int("dtype", static_cast<int>(ctx.Dtype(node.In(1))));
      inputs.push_back(zeros);
    }
  }
  const std::string mean = ctx.Temp("mean"), std_dev = ctx.Temp("std");
  ctx.Emit("LayerNorm", inputs, {node.Out(0), mean, std_dev})
      .Int("axis", axis)
      .Float("epsilon", node.Float("epsilon", 1e-5f))
      .Int("elementwise_affine", inputs.size() == 3 ? 1 : 0);
  std::vector<int64_t> stat_shape(dims.begin(), dims.begin() + axis);
  stat_shape.resize(rank, 1);
  if (node.HasOut(1)) {
    ctx.Emit("Reshape", {mean}, {node.Out(1), ctx.Temp("old_shape")}).Ints("shape", stat_shape);
  }
  if (node.HasOut(2)) {
    const std::string inv = ctx.Temp("inv_std");
    ctx.Emit("Reciprocal", {std_dev}, {inv});
    ctx.Emit("Reshape", {inv}, {node.Out(2), ctx.Temp("old_shape")}).Ints("shape", stat_shape);
  }
}

// (x - mean) / sqrt(var + epsilon) * scale[c] + bias[c], the statistics over the spatial axes of
// each (n, c): ReduceMean, Sub, Sqr, ReduceMean, Add, Sqrt, Div, and scale / bias reshaped to
// [C, 1, ...] for numpy broadcasting.
void InstanceNormalization(ImportContext& ctx, const Node& node) {
  const std::string x = node.In(0);
  const int64_t rank = ctx.Rank(x);
  PARITY_ENFORCE(rank >= 3, ErrorKind::kBadArgument, "input of rank ", rank, ", expected >= 3");
  std::vector<int64_t> axes, channel_shape = {-1};
  for (int64_t i = 2; i < rank; ++i) {
    axes.push_back(i);
    channel_shape.push_back(1);
  }
  const std::string mean = ctx.Temp("mean"), centered = ctx.Temp(x), sq = ctx.Temp(x),
                    var = ctx.Temp("var"), var_eps = ctx.Temp("var"), std_dev = ctx.Temp("std"),
                    normalized = ctx.Temp(x), scale = ctx.Temp("scale"), bias = ctx.Temp("bias"),
                    scaled = ctx.Temp(x);
  ctx.Emit("ReduceMean", {x}, {mean}).Ints("axes", axes).Int("keepdims", 1);
  ctx.Emit("Sub", {x, mean}, {centered});
  ctx.Emit("Sqr", {centered}, {sq});
  ctx.Emit("ReduceMean", {sq}, {var}).Ints("axes", axes).Int("keepdims", 1);
  ctx.Emit("Add", {var, ctx.ScalarLike(node.Float("epsilon", 1e-5f), x)}, {var_eps});
  ctx.Emit("Sqrt", {var_eps}, {std_dev});
  ctx.Emit("Div", {centered, std_dev}, {normalized});
  ctx.Emit("Reshape", {node.In(1)}, {scale, ctx.Temp("old_shape")}).Ints("shape", channel_shape);
  ctx.Emit("Reshape", {node.In(2)}, {bias, ctx.Temp("old_shape")}).Ints("shape", channel_shape);
  ctx.Emit("Mul", {normalized, scale}, {scaled});
  ctx.Emit("Add", {scaled, bias}, {node.Out(0)});
  ctx.Note("InstanceNormalization composed (ReduceMean, Sub, Sqr, Sqrt, Div, Mul, Add)");
}

// ONNX's own function body: (X - E[X]) / (sqrt(E[X^2] - E[X]^2) + 1e-9) over `axes` (default
// [0, 2, 3]).
void MeanVarianceNormalization(ImportContext& ctx, const Node& node) {
  const std::string x = node.In(0);
  std::vector<int64_t> axes = node.Ints("axes");
  if (!node.HasAttr("axes")) axes = {0, 2, 3};
  axes = NormalizeAxes(axes, ctx.Rank(x), "axis");
  std::sort(axes.begin(), axes.end());
  const std::string mean = ctx.Temp("mean"), mean_sq = ctx.Temp("mean_sq"), sq = ctx.Temp(x),
                    sq_mean = ctx.Temp("sq_mean"), var = ctx.Temp("var"), std_dev = ctx.Temp("std"),
                    std_eps = ctx.Temp("std"), centered = ctx.Temp(x);
  ctx.Emit("ReduceMean", {x}, {mean}).Ints("axes", axes).Int("keepdims", 1);
  ctx.Emit("Sqr", {mean}, {mean_sq});
  ctx.Emit("Sqr", {x}, {sq});
  ctx.Emit("ReduceMean", {sq}, {sq_mean}).Ints("axes", axes).Int("keepdims", 1);
  ctx.Emit("Sub", {sq_mean, mean_sq}, {var});
  ctx.Emit("Sqrt", {var}, {std_dev});
  ctx.Emit("Add", {std_dev, ctx.ScalarLike(1e-9, x)}, {std_eps});
  ctx.Emit("Sub", {x, mean}, {centered});
  ctx.Emit("Div", {centered, std_eps}, {node.Out(0)});
  ctx.Note("MeanVarianceNormalization composed as ONNX's function body");
}

// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (12; 13 adds bfloat16): parity's ops of
// the same names and attributes (reduction, ignore_index when given); SoftmaxCrossEntropyLoss's
// optional log_prob output is the op's output 1.
void ClassLoss(ImportContext& ctx, const Node& node) {
  std::vector<std::string> outputs = {node.Out(0)};
  if (node.HasOut(1)) outputs.push_back(node.Out(1));
  OpBuilder op = ctx.Emit(node.type(), node.Inputs(), outputs)
                     .String("reduction", node.String("reduction", "mean"));
  if (node.HasAttr("ignore_index")) op.Int("ignore_index", node.Int("ignore_index", 0));
}

// Opset < 13: Softmax coerces X to 2-D at `axis` (default 1), as parity's Softmax does. Opset >=
// 13: one axis (default -1): the same op when it is the last axis, else Transpose it to the end
// and back. LogSoftmax = Log(Softmax). Hardmax likewise with parity's Hardmax (the same 2-D view).
void Softmax(ImportContext& ctx, const Node& node) {
  const std::string x = node.In(0);
  const int64_t rank = ctx.Rank(x);
  const int64_t axis =
      NormalizeAxis(node.Int("axis", node.opset() < 13 ? 1 : -1), rank, "attribute 'axis'");
  const bool log = node.type() == "LogSoftmax";
  const std::string op = node.type() == "Hardmax" ? "Hardmax" : "Softmax";
  const std::string y = log ? ctx.Temp(node.Out(0)) : node.Out(0);
  if (node.opset() < 13 || axis == rank - 1) {
    ctx.Emit(op, {x}, {y}).Int("axis", axis);
  } else {
    std::vector<int64_t> perm;
    for (int64_t i = 0; i < rank; ++i) {
      if (i != axis) perm.push_back(i);
    }
    perm.push_back(axis);
    std::vector<int64_t> inverse(rank);
    for (int64_t i = 0; i < rank; ++i) inverse[perm[i]] = i;
    const std::string xt = ctx.Temp(x), yt = ctx.Temp(x);
    ctx.Emit("Transpose", {x}, {xt}).Ints("axes", perm);
    ctx.Emit(op, {xt}, {yt}).Int("axis", rank - 1);
    ctx.Emit("Transpose", {yt}, {y}).Ints("axes", inverse);
    ctx.Note(op + " opset >= 13 on an inner axis: Transpose around it");
  }
  if (log) {
    ctx.Emit("Log", {y}, {node.Out(0)});
    ctx.Note("LogSoftmax = Log(Softmax)");
  }
}

// Inference (or ratio 0) is the identity; the mask is all true. Training with ratio > 0 is random.
void Dropout(ImportContext& ctx, const Node& node) {
  bool training = node.opset() < 7 && node.Int("is_test", 0) == 0;
  double ratio = node.Float("ratio", 0.5f);
  if (node.opset() >= 12) {
    training = node.HasIn(2) && ctx.ConstantScalar(node.In(2), "Dropout's training_mode") != 0;
    if (node.HasIn(1)) ratio = ctx.ConstantScalar(node.In(1), "Dropout's ratio");
  }
  PARITY_ENFORCE(!training || ratio == 0, ErrorKind::kBadArgument, "training mode with ratio ",
                 ratio, " (random: no deterministic result)");
  ctx.Emit("Copy", {node.In(0)}, {node.Out(0)});
  if (node.HasOut(1)) {
    // Opset >= 10 masks are bool; before, the mask has X's type.
    const DataType mask_type = ctx.HasDtype(node.Out(1)) ? ctx.Dtype(node.Out(1))
                               : node.opset() >= 10      ? DataType::kBool
                                                         : ctx.Dtype(node.In(0));
    ctx.Emit("ConstantFill", {node.In(0)}, {node.Out(1)})
        .Float("value", 1.0)
        .Int("dtype", static_cast<int>(mask_type));
  }
}

}  // namespace

void CheckWindowLengths(ImportContext& ctx, const Node& node, const std::vector<int64_t>& kernel,
                        const std::vector<int64_t>& strides,
                        const std::vector<int64_t>& dilations) {
  // Every rule reads the input's spatial dims (dims[2 + i]) for each kernel entry, and the
  // strides and dilations beside it: a model whose attributes disagree with the input's rank
  // is refused here, before any of them is read.
  const auto dims = ctx.Dims(node.In(0));
  const size_t spatial = dims.size() >= 2 ? dims.size() - 2 : 0;
  const std::string where = node.type() + " over " + node.In(0) + " " + ShapeString(dims);
  PARITY_ENFORCE(kernel.size() == spatial, ErrorKind::kBadArgument, where, ": kernel ",
                 ShapeString(kernel), " has ", kernel.size(), " dims for ", spatial,
                 " spatial dims");
  PARITY_ENFORCE(strides.size() == spatial, ErrorKind::kBadArgument, where,
                 ": attribute 'strides' = ", ShapeString(strides), " has ", strides.size(),
                 " values for ", spatial, " spatial dims");
  PARITY_ENFORCE(dilations.size() == spatial, ErrorKind::kBadArgument, where,
                 ": attribute 'dilations' = ", ShapeString(dilations), " has ", dilations.size(),
                 " values for ", spatial, " spatial dims");
}

std::vector<int64_t> SpatialPads(ImportContext& ctx, const Node& node,
                                 const std::vector<int64_t>& kernel,
                                 const std::vector<int64_t>& strides,
                                 const std::vector<int64_t>& dilations) {
  const std::string auto_pad = node.String("auto_pad", "NOTSET");
  const size_t n = kernel.size();
  CheckWindowLengths(ctx, node, kernel, strides, dilations);
  if (auto_pad == "NOTSET" || auto_pad.empty()) {
    // ONNX [x1_begin, x2_begin, x1_end, x2_end] is parity's [t, l, b, r].
    std::vector<int64_t> pads = node.Ints("pads");
    PARITY_ENFORCE(pads.empty() || pads.size() == 2 * n, ErrorKind::kBadArgument, node.type(),
                   ": attribute 'pads' = ", ShapeString(pads), " has ", pads.size(), " values for ",
                   n, " spatial dims (", 2 * n, " expected)");
    return pads.empty() ? std::vector<int64_t>(2 * n, 0) : pads;
  }
  if (auto_pad == "VALID") return std::vector<int64_t>(2 * n, 0);
  PARITY_ENFORCE(auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER", ErrorKind::kBadArgument,
                 "attribute 'auto_pad' = '", auto_pad, "'");
  // Output size ceil(in / stride); the total padding that needs, split with the odd one at the
  // end (SAME_UPPER) or at the beginning (SAME_LOWER).
  const auto dims = ctx.Dims(node.In(0));
  std::vector<int64_t> begin(n), end(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t in = dims[2 + i];
    const int64_t out = (in + strides[i] - 1) / strides[i];
    const int64_t total =
        std::max<int64_t>(0, (out - 1) * strides[i] + (kernel[i] - 1) * dilations[i] + 1 - in);
    const int64_t small = total / 2, big = total - total / 2;
    begin[i] = auto_pad == "SAME_UPPER" ? small : big;
    end[i] = auto_pad == "SAME_UPPER" ? big : small;
  }
  ctx.Note("auto_pad " + auto_pad + ": explicit pads from the static input shape");
  begin.insert(begin.end(), end.begin(), end.end());
  return begin;
}

void AddNnRules(RuleTable* table) {
  (*table)["Gemm"] = {Gemm, {"alpha", "beta", "transA", "transB", "broadcast"}};
  (*table)["MatMul"] = {MatMul, {}};
  (*table)["Conv"] = {Conv, {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"}};
  (*table)["ConvTranspose"] = {ConvTranspose,
                               {"auto_pad", "dilations", "group", "kernel_shape", "output_padding",
                                "output_shape", "pads", "strides"}};
  (*table)["AveragePool"] = {
      Pool, {"auto_pad", "ceil_mode", "count_include_pad", "kernel_shape", "pads", "strides"}};
  (*table)["MaxPool"] = {
      Pool,
      {"auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "storage_order", "strides"}};
  (*table)["GlobalAveragePool"] = {GlobalPool, {}};
  (*table)["GlobalMaxPool"] = {GlobalPool, {}};
  (*table)["BatchNormalization"] = {BatchNormalization,
                                    {"epsilon", "momentum", "spatial", "is_test", "training_mode"}};
  (*table)["LayerNormalization"] = {LayerNormalization, {"axis", "epsilon", "stash_type"}};
  (*table)["InstanceNormalization"] = {InstanceNormalization, {"epsilon"}};
  (*table)["MeanVarianceNormalization"] = {MeanVarianceNormalization, {"axes"}};
  (*table)["NegativeLogLikelihoodLoss"] = {ClassLoss, {"reduction", "ignore_index"}};
  (*table)["SoftmaxCrossEntropyLoss"] = {ClassLoss, {"reduction", "ignore_index"}};
  (*table)["Softmax"] = {Softmax, {"axis"}};
  (*table)["LogSoftmax"] = {Softmax, {"axis"}};
  (*table)["Hardmax"] = {Softmax, {"axis"}};
  (*table)["Dropout"] = {Dropout, {"ratio", "seed", "is_test"}};
}

}  // namespace parity::onnx
