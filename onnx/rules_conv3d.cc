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

}  // namespace parity::onnx
