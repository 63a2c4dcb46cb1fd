// 3-D Conv and ConvTranspose on parity's 2-D ones (ConvTranspose3d below).
//
// 3-D Conv on parity's 2-D Conv, by folding each output depth's slab of input depths into the
// channels. Output depth od reads the input depths od * sd - pd_begin + k * dd, k in [0, kd): a
// Gather of those depths (after zero depth padding) gives [N, C, D' * kd, H, W]; Reshape
// [N, C, D', kd, H, W], Transpose to [N, D', C, kd, H, W] and Reshape [N * D', C * kd, H, W] make
// each (output depth, image) a batch item whose channels are (c, k), c-major. W [M, C / g, kd, kh,
// kw] reshaped to [M, C / g * kd, kh, kw] has its input channels in the same (c, k) order, and a
// group of C / g channels stays a contiguous run of C / g * kd folded ones, so the 2-D Conv (kh,
// kw, the H and W strides, pads and dilations, group g, bias) sums exactly the 3-D window. Its
// [N * D', M, H', W'] output is reshaped to [N, D', M, H', W'] and transposed to [N, M, D', H',
// W'].
#include <algorithm>
#include <string>
#include <vector>

#include "onnx/rules.h"

namespace parity::onnx {

void Conv3d(ImportContext& ctx, const Node& node) {
  const std::vector<int64_t> x = ctx.Dims(node.In(0)), w = ctx.Dims(node.In(1));
  PARITY_ENFORCE(w.size() == 5, ErrorKind::kBadArgument, "3-D Conv weight of rank ", w.size());
  std::vector<int64_t> kernel = node.Ints("kernel_shape");
  if (kernel.empty()) kernel.assign(w.begin() + 2, w.end());
  std::vector<int64_t> strides = node.Ints("strides"), dilations = node.Ints("dilations");
  if (strides.empty()) strides.assign(3, 1);
  if (dilations.empty()) dilations.assign(3, 1);
  const std::vector<int64_t> pads = SpatialPads(ctx, node, kernel, strides, dilations);
  PARITY_ENFORCE(kernel.size() == 3 && strides.size() == 3 && dilations.size() == 3 &&
                     pads.size() == 6,
                 ErrorKind::kBadArgument, "3-D Conv attributes of the wrong length");
  const int64_t n = x[0], c = x[1], d = x[2], h = x[3], wd = x[4], m = w[0];
  const DataType dtype = ctx.Dtype(node.In(0));

  // Zero depth padding, as slabs of zeros on either side.
  auto zeros = [&](int64_t count) {
    const std::string name = ctx.Temp("depth_pad");
    ctx.Emit("ConstantFill", {}, {name})
        .Ints("shape", {n, c, count, h, wd})
        .Float("value", 0.0)
        .Int("dtype", static_cast<int>(dtype));
    return name;
  };
  std::string padded = node.In(0);
  if (pads[0] > 0 || pads[3] > 0) {
    std::vector<std::string> parts;
    if (pads[0] > 0) parts.push_back(zeros(pads[0]));
    parts.push_back(node.In(0));
    if (pads[3] > 0) parts.push_back(zeros(pads[3]));
    padded = ctx.Temp(node.In(0));
    ctx.Emit("Concat", parts, {padded, ctx.Temp("split_info")}).Int("axis", 2);
  }
  const int64_t span = d + pads[0] + pads[3] - ((kernel[0] - 1) * dilations[0] + 1);
  PARITY_ENFORCE(span >= 0, ErrorKind::kBadArgument, "3-D Conv kernel deeper than the input");
  const int64_t out_d = span / strides[0] + 1;

  Tensor depths(DataType::kInt64, {out_d * kernel[0]});
  int64_t* index = depths.mutable_data<int64_t>();
  for (int64_t od = 0; od < out_d; ++od) {
    for (int64_t k = 0; k < kernel[0]; ++k) *index++ = od * strides[0] + k * dilations[0];
  }
  const std::string depth_index = ctx.Temp("depth_index");
  ctx.EmitFill(depth_index, depths);
  ctx.SetConstant(depth_index, depths);
  const std::string slabs = ctx.Temp(node.In(0)), split = ctx.Temp(node.In(0)),
                    moved = ctx.Temp(node.In(0)), folded = ctx.Temp(node.In(0));
  ctx.Emit("Gather", {padded, depth_index}, {slabs}).Int("axis", 2);
  ctx.Emit("Reshape", {slabs}, {split, ctx.Temp("old_shape")})
      .Ints("shape", {n, c, out_d, kernel[0], h, wd});
  ctx.Emit("Transpose", {split}, {moved}).Ints("axes", {0, 2, 1, 3, 4, 5});
  ctx.Emit("Reshape", {moved}, {folded, ctx.Temp("old_shape")})
      .Ints("shape", {n * out_d, c * kernel[0], h, wd});
  const std::string weights = ctx.Temp(node.In(1));
  ctx.Emit("Reshape", {node.In(1)}, {weights, ctx.Temp("old_shape")})
      .Ints("shape", {m, w[1] * kernel[0], kernel[1], kernel[2]});

  std::vector<std::string> inputs = {folded, weights};
  if (node.HasIn(2)) inputs.push_back(node.In(2));
  const std::string planes = ctx.Temp(node.Out(0));
  ctx.Emit("Conv", inputs, {planes})
      .Ints("kernels", {kernel[1], kernel[2]})
      .Ints("strides", {strides[1], strides[2]})
      .Ints("pads", {pads[1], pads[2], pads[4], pads[5]})
      .Ints("dilations", {dilations[1], dilations[2]})
      .Int("group", node.Int("group", 1));
  auto out_size = [&](int i, int64_t in) {
    return (in + pads[i] + pads[3 + i] - ((kernel[i] - 1) * dilations[i] + 1)) / strides[i] + 1;
  };
  const std::string by_depth = ctx.Temp(node.Out(0));
  ctx.Emit("Reshape", {planes}, {by_depth, ctx.Temp("old_shape")})
      .Ints("shape", {n, out_d, m, out_size(1, h), out_size(2, wd)});
  ctx.Emit("Transpose", {by_depth}, {node.Out(0)}).Ints("axes", {0, 2, 1, 3, 4});
  ctx.Note("3-D Conv: each output depth's input slab folded into the channels of a 2-D Conv");
}

// 3-D ConvTranspose on parity's 2-D ConvTranspose: input depth id and kernel depth k reach output
// depth id * sd + k * dd - pd_begin, and every (id, k) pair's contribution is a 2-D transposed
// convolution of input slice id with the kernel's depth slice k. So: X as [N * D, C, H, W] (each
// depth slice an image), one 2-D ConvTranspose per kernel depth k with W[:, :, k] (the H, W
// geometry, output_padding, group; no bias), their [N, D, M * H' * W'] results concatenated to
// [N, kd * D, F], and the placement in depth as one matrix product with a constant 0/1 matrix P
// [D', kd * D] (P[od][k * D + id] = 1 where od = id * sd + k * dd - pd_begin): BatchMatMul gives
// [N, D', F], reshaped [N, D', M, H', W'], transposed to [N, M, D', H', W'], plus the bias.
// Explicit pads and output_padding only (output_shape and auto_pad SAME_* are refused).
void ConvTranspose3d(ImportContext& ctx, const Node& node) {
  const std::vector<int64_t> x = ctx.Dims(node.In(0)), w = ctx.Dims(node.In(1));
  PARITY_ENFORCE(w.size() == 5, ErrorKind::kBadArgument, "3-D ConvTranspose weight of rank ",
                 w.size());
  PARITY_ENFORCE(node.Ints("output_shape").empty(), ErrorKind::kBadArgument,
                 "attribute 'output_shape' of a 3-D ConvTranspose");
  const std::string auto_pad = node.String("auto_pad", "NOTSET");
  PARITY_ENFORCE(auto_pad == "NOTSET" || auto_pad == "VALID", ErrorKind::kBadArgument,
                 "attribute 'auto_pad' = '", auto_pad, "' of a 3-D ConvTranspose");
  std::vector<int64_t> kernel = node.Ints("kernel_shape");
  if (kernel.empty()) kernel.assign(w.begin() + 2, w.end());
  auto ints_or = [&](const char* name, int64_t fill, size_t n) {
    std::vector<int64_t> v = node.Ints(name);
    return v.empty() ? std::vector<int64_t>(n, fill) : v;
  };
  const std::vector<int64_t> strides = ints_or("strides", 1, 3),
                             dilations = ints_or("dilations", 1, 3),
                             adj = ints_or("output_padding", 0, 3);
  std::vector<int64_t> pads = ints_or("pads", 0, 6);
  if (auto_pad == "VALID") pads.assign(6, 0);
  PARITY_ENFORCE(kernel.size() == 3 && strides.size() == 3 && dilations.size() == 3 &&
                     adj.size() == 3 && pads.size() == 6,
                 ErrorKind::kBadArgument, "3-D ConvTranspose attributes of the wrong length");
  const int64_t n = x[0], c = x[1], d = x[2], h = x[3], wd = x[4];
  const int64_t group = node.Int("group", 1), m = w[1] * group;
  auto out_size = [&](int i, int64_t in) {
    return strides[i] * (in - 1) + adj[i] + (kernel[i] - 1) * dilations[i] + 1 - pads[i] -
           pads[3 + i];
  };
  const int64_t out_d = out_size(0, d), out_h = out_size(1, h), out_w = out_size(2, wd);
  PARITY_ENFORCE(out_d > 0 && out_h > 0 && out_w > 0, ErrorKind::kBadArgument,
                 "3-D ConvTranspose output of no elements");
  const DataType dtype = ctx.Dtype(node.In(0));

  const std::string moved = ctx.Temp(node.In(0)), slices = ctx.Temp(node.In(0));
  ctx.Emit("Transpose", {node.In(0)}, {moved}).Ints("axes", {0, 2, 1, 3, 4});
  ctx.Emit("Reshape", {moved}, {slices, ctx.Temp("old_shape")}).Ints("shape", {n * d, c, h, wd});
  std::vector<std::string> parts;
  for (int64_t k = 0; k < kernel[0]; ++k) {
    Tensor index(DataType::kInt64, {});
    *index.mutable_data<int64_t>() = k;
    const std::string index_name = ctx.Temp("kernel_depth");
    ctx.EmitFill(index_name, index);
    ctx.SetConstant(index_name, index);
    const std::string w_k = ctx.Temp(node.In(1)), y_k = ctx.Temp(node.Out(0)),
                      part = ctx.Temp(node.Out(0));
    ctx.Emit("Gather", {node.In(1), index_name}, {w_k}).Int("axis", 2);
    ctx.Emit("ConvTranspose", {slices, w_k}, {y_k})
        .Ints("kernels", {kernel[1], kernel[2]})
        .Ints("strides", {strides[1], strides[2]})
        .Ints("pads", {pads[1], pads[2], pads[4], pads[5]})
        .Ints("dilations", {dilations[1], dilations[2]})
        .Int("group", group)
        .Int("adj_h", adj[1])
        .Int("adj_w", adj[2]);
    ctx.Emit("Reshape", {y_k}, {part, ctx.Temp("old_shape")})
        .Ints("shape", {n, d, m * out_h * out_w});
    parts.push_back(part);
  }
  std::string stacked = parts[0];
  if (parts.size() > 1) {
    stacked = ctx.Temp(node.Out(0));
    ctx.Emit("Concat", parts, {stacked, ctx.Temp("split_info")}).Int("axis", 1);
  }
  Tensor placement(dtype, {out_d, kernel[0] * d});
  DispatchNumeric(dtype, "3-D ConvTranspose placement", [&](auto zero) {
    using T = decltype(zero);
    T* p = placement.mutable_data<T>();
    std::fill(p, p + placement.numel(), T(0));
    for (int64_t k = 0; k < kernel[0]; ++k) {
      for (int64_t id = 0; id < d; ++id) {
        const int64_t od = id * strides[0] + k * dilations[0] - pads[0];
        if (od >= 0 && od < out_d) p[od * kernel[0] * d + k * d + id] = T(1);
      }
    }
  });
  const std::string placement_name = ctx.Temp("depth_placement");
  ctx.EmitFill(placement_name, placement);
  ctx.SetConstant(placement_name, placement);
  const std::string placed = ctx.Temp(node.Out(0)), split = ctx.Temp(node.Out(0));
  ctx.Emit("BatchMatMul", {placement_name, stacked}, {placed}).Int("broadcast", 1);
  ctx.Emit("Reshape", {placed}, {split, ctx.Temp("old_shape")})
      .Ints("shape", {n, out_d, m, out_h, out_w});
  const std::string y = node.HasIn(2) ? ctx.Temp(node.Out(0)) : node.Out(0);
  ctx.Emit("Transpose", {split}, {y}).Ints("axes", {0, 2, 1, 3, 4});
  if (node.HasIn(2)) {
    const std::string bias = ctx.Temp(node.In(2));
    ctx.Emit("Reshape", {node.In(2)}, {bias, ctx.Temp("old_shape")}).Ints("shape", {m, 1, 1, 1});
    ctx.Emit("Add", {y, bias}, {node.Out(0)});
  }
  ctx.Note("3-D ConvTranspose: 2-D ones per kernel depth, placed in depth by a 0/1 matrix");
}

}  // namespace parity::onnx
