#include "core/ops/common/conv_geometry.h"

#include "core/proto/error.h"

namespace parity {
namespace {

// Reads a 2-D parameter given as `single` (both dims), `list` (two values) or `h` + `w`. Returns
// false when none is given (then *out is untouched). Values are read as int, so out-of-range
// numbers fail in ArgumentHelper and the geometry arithmetic cannot overflow int64.
bool ReadPair(const ArgumentHelper& args, const char* single, const char* list, const char* h,
              const char* w, int64_t out[2]) {
  const bool has_single = args.Has(single), has_list = args.Has(list);
  const bool has_h = args.Has(h), has_w = args.Has(w);
  const int forms = int{has_single} + int{has_list} + int{has_h || has_w};
  PARITY_ENFORCE(forms <= 1, ErrorKind::kBadArgument, args.op_label(), ": give only one of '",
                 single, "', '", list, "' or '", h, "' + '", w, "'");
  PARITY_ENFORCE(has_h == has_w, ErrorKind::kBadArgument, args.op_label(), ": argument '",
                 has_h ? h : w, "' needs '", has_h ? w : h, "' as well");
  if (has_single) {
    out[0] = out[1] = args.Get<int>(single);
  } else if (has_list) {
    std::vector<int> values = args.GetVector<int>(list);
    PARITY_ENFORCE(values.size() == 2, ErrorKind::kBadArgument, args.op_label(), ": argument '",
                   list, "' has ", values.size(), " values; 2-D ops take 2 (h, w)");
    out[0] = values[0];
    out[1] = values[1];
  } else if (has_h) {
    out[0] = args.Get<int>(h);
    out[1] = args.Get<int>(w);
  } else {
    return false;
  }
  return true;
}

void ReadPads(const ArgumentHelper& args, ConvGeometry* g) {
  const char* sides[4] = {"pad_t", "pad_l", "pad_b", "pad_r"};
  int sides_given = 0;
  for (const char* side : sides) sides_given += args.Has(side);
  const int forms = int{args.Has("pad")} + int{args.Has("pads")} + int{sides_given > 0};
  PARITY_ENFORCE(forms <= 1, ErrorKind::kBadArgument, args.op_label(),
                 ": give only one of 'pad', 'pads' or 'pad_t' 'pad_l' 'pad_b' 'pad_r'");
  PARITY_ENFORCE(sides_given == 0 || sides_given == 4, ErrorKind::kBadArgument, args.op_label(),
                 ": 'pad_t', 'pad_l', 'pad_b' and 'pad_r' must be given together");
  if (args.Has("pads")) {
    std::vector<int> pads = args.GetVector<int>("pads");
    PARITY_ENFORCE(pads.size() == 4, ErrorKind::kBadArgument, args.op_label(),
                   ": argument 'pads' has ", pads.size(),
                   " values; 2-D ops take 4 (top, left, bottom, right)");
    g->pad_t = pads[0];
    g->pad_l = pads[1];
    g->pad_b = pads[2];
    g->pad_r = pads[3];
  } else if (sides_given == 4) {
    g->pad_t = args.Get<int>("pad_t");
    g->pad_l = args.Get<int>("pad_l");
    g->pad_b = args.Get<int>("pad_b");
    g->pad_r = args.Get<int>("pad_r");
  } else {
    g->pad_t = g->pad_l = g->pad_b = g->pad_r = args.Get<int>("pad");  // schema default 0
  }
}

}  // namespace

ConvGeometry ParseConvGeometry(const ArgumentHelper& args, ConvKind kind) {
  const std::string& label = args.op_label();
  const std::string order = args.Get<std::string>("order");
  PARITY_ENFORCE(order == "NCHW", ErrorKind::kBadArgument, label, ": argument 'order' = '", order,
                 "' is not supported; only \"NCHW\" is");
  const int64_t legacy_pad = args.Get<int64_t>("legacy_pad");
  PARITY_ENFORCE(legacy_pad == 0, ErrorKind::kBadArgument, label, ": argument 'legacy_pad' = ",
                 legacy_pad, " is not supported (only explicit pads, legacy_pad 0 = NOTSET)");

  ConvGeometry g;
  g.global_pooling = kind == ConvKind::kPool && args.Get<bool>("global_pooling");
  int64_t pair[2];
  const bool has_kernel = ReadPair(args, "kernel", "kernels", "kernel_h", "kernel_w", pair);
  if (has_kernel) {
    g.kernel_h = pair[0];
    g.kernel_w = pair[1];
  }
  const bool has_stride = ReadPair(args, "stride", "strides", "stride_h", "stride_w", pair);
  if (!has_stride) pair[0] = pair[1] = args.Get<int>("stride");  // schema default 1
  g.stride_h = pair[0];
  g.stride_w = pair[1];
  const bool has_dilation =
      ReadPair(args, "dilation", "dilations", "dilation_h", "dilation_w", pair);
  if (!has_dilation) pair[0] = pair[1] = args.Get<int>("dilation");  // schema default 1
  g.dilation_h = pair[0];
  g.dilation_w = pair[1];
  ReadPads(args, &g);

  if (!g.global_pooling) {
    PARITY_ENFORCE(has_kernel, ErrorKind::kBadArgument, label,
                   ": the kernel size must be set ('kernel', 'kernels' or 'kernel_h' + "
                   "'kernel_w')");
    PARITY_ENFORCE(g.kernel_h > 0 && g.kernel_w > 0, ErrorKind::kBadArgument, label, ": kernel ",
                   g.kernel_h, "x", g.kernel_w, " must be positive");
  }
  PARITY_ENFORCE(g.stride_h > 0 && g.stride_w > 0, ErrorKind::kBadArgument, label, ": stride ",
                 g.stride_h, "x", g.stride_w, " must be positive");
  PARITY_ENFORCE(g.dilation_h > 0 && g.dilation_w > 0, ErrorKind::kBadArgument, label,
                 ": dilation ", g.dilation_h, "x", g.dilation_w, " must be positive");
  PARITY_ENFORCE(g.pad_t >= 0 && g.pad_l >= 0 && g.pad_b >= 0 && g.pad_r >= 0,
                 ErrorKind::kBadArgument, label, ": pads (t, l, b, r) = (", g.pad_t, ", ", g.pad_l,
                 ", ", g.pad_b, ", ", g.pad_r, ") must not be negative");
  if (kind == ConvKind::kPool) {
    if (g.global_pooling) {
      // The kernel is replaced by the image's H x W, but a given one must still be non-negative
      // (Caffe2's ConvPoolOpBase checks every kernel >= 0; a kernel of 0 is densenet121's form).
      PARITY_ENFORCE(!has_kernel || (g.kernel_h >= 0 && g.kernel_w >= 0), ErrorKind::kBadArgument,
                     label, ": kernel ", g.kernel_h, "x", g.kernel_w, " must not be negative");
      PARITY_ENFORCE(g.pad_t == 0 && g.pad_l == 0 && g.pad_b == 0 && g.pad_r == 0 &&
                         g.stride_h == 1 && g.stride_w == 1 && g.dilation_h == 1 &&
                         g.dilation_w == 1,
                     ErrorKind::kBadArgument, label,
                     ": with global_pooling, pads, stride and dilation must not be set");
    } else {
      // Caffe2's rule (dilation 1): every window then holds at least one input element. With a
      // dilation the bound is the dilated kernel's extent, and the pool kernels check each window
      // (core/ops/pool/pool.h, EnforceWindowsCoverInput).
      const int64_t extent_h = g.dilation_h * (g.kernel_h - 1) + 1;
      const int64_t extent_w = g.dilation_w * (g.kernel_w - 1) + 1;
      PARITY_ENFORCE(g.pad_t < extent_h && g.pad_b < extent_h && g.pad_l < extent_w &&
                         g.pad_r < extent_w,
                     ErrorKind::kBadArgument, label, ": pads (t, l, b, r) = (", g.pad_t, ", ",
                     g.pad_l, ", ", g.pad_b, ", ", g.pad_r, ") must be smaller than the ",
                     g.dilation_h == 1 && g.dilation_w == 1 ? "kernel " : "dilated kernel ",
                     extent_h, "x", extent_w);
    }
  }
  return g;
}

void ConvOutputDims(const std::string& label, const std::vector<int64_t>& x, int64_t channels,
                    ConvGeometry* g, std::vector<int64_t>* y_dims) {
  PARITY_ENFORCE(x.size() == 4, ErrorKind::kShapeMismatch, label,
                 ": takes a 4-D NCHW input X, got ", ShapeString(x));
  PARITY_ENFORCE(x[1] > 0 && x[2] > 0 && x[3] > 0, ErrorKind::kShapeMismatch, label,
                 ": input X ", ShapeString(x), " has an empty channel or image dim");
  int64_t out[2];
  if (g->global_pooling) {
    g->kernel_h = x[2];
    g->kernel_w = x[3];
    out[0] = out[1] = 1;
  } else {
    const int64_t in[2] = {x[2], x[3]};
    const int64_t kernel[2] = {g->kernel_h, g->kernel_w};
    const int64_t dilation[2] = {g->dilation_h, g->dilation_w};
    const int64_t stride[2] = {g->stride_h, g->stride_w};
    const int64_t pad_head[2] = {g->pad_t, g->pad_l};
    const int64_t pad_tail[2] = {g->pad_b, g->pad_r};
    for (int d = 0; d < 2; ++d) {
      const int64_t padded = in[d] + pad_head[d] + pad_tail[d];
      const int64_t extent = dilation[d] * (kernel[d] - 1) + 1;
      PARITY_ENFORCE(padded >= extent, ErrorKind::kShapeMismatch, label, ": the kernel ",
                     g->kernel_h, "x", g->kernel_w, " (dilation ", g->dilation_h, "x",
                     g->dilation_w, ") spans ", extent, " but input X ", ShapeString(x),
                     d == 0 ? " padded in H (t, b) is only " : " padded in W (l, r) is only ",
                     padded);
      out[d] = (padded - extent) / stride[d] + 1;
    }
  }
  y_dims->assign({x[0], channels, out[0], out[1]});
}

OpSchema& ConvGeometryArgs(OpSchema& schema) {
  return schema
      .Arg("kernel", ArgType::kInt, std::monostate{}, "Kernel size for both H and W.")
      .Arg("kernels", ArgType::kInts, std::monostate{}, "Kernel size as [h, w].")
      .Arg("kernel_h", ArgType::kInt, std::monostate{}, "Kernel height (with kernel_w).")
      .Arg("kernel_w", ArgType::kInt, std::monostate{}, "Kernel width (with kernel_h).")
      .Arg("stride", ArgType::kInt, int64_t{1}, "Stride for both H and W.")
      .Arg("strides", ArgType::kInts, std::monostate{}, "Stride as [h, w].")
      .Arg("stride_h", ArgType::kInt, std::monostate{}, "Stride in H (with stride_w).")
      .Arg("stride_w", ArgType::kInt, std::monostate{}, "Stride in W (with stride_h).")
      .Arg("pad", ArgType::kInt, int64_t{0}, "Zero padding on all four sides.")
      .Arg("pads", ArgType::kInts, std::monostate{}, "Padding as [top, left, bottom, right].")
      .Arg("pad_t", ArgType::kInt, std::monostate{}, "Top padding (with pad_l, pad_b, pad_r).")
      .Arg("pad_l", ArgType::kInt, std::monostate{}, "Left padding.")
      .Arg("pad_b", ArgType::kInt, std::monostate{}, "Bottom padding.")
      .Arg("pad_r", ArgType::kInt, std::monostate{}, "Right padding.")
      .Arg("dilation", ArgType::kInt, int64_t{1}, "Dilation for both H and W.")
      .Arg("dilations", ArgType::kInts, std::monostate{}, "Dilation as [h, w].")
      .Arg("dilation_h", ArgType::kInt, std::monostate{}, "Dilation in H (with dilation_w).")
      .Arg("dilation_w", ArgType::kInt, std::monostate{}, "Dilation in W (with dilation_h).")
      .Arg("order", ArgType::kString, std::string("NCHW"), "Storage order; only \"NCHW\".")
      .Arg("legacy_pad", ArgType::kInt, int64_t{0},
           "Caffe2's legacy padding modes are not supported: only 0 (NOTSET).");
}

}  // namespace parity
