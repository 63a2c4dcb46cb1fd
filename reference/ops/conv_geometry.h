// 2-D NCHW window geometry shared by the reference's Conv and pooling kernels, written from
// Caffe2's ConvPoolOpBase spellings: kernel | kernel_h+kernel_w | kernels, stride |
// stride_h+stride_w | strides, pad | pad_t,pad_l,pad_b,pad_r | pads (t, l, b, r), dilation |
// dilation_h+dilation_w | dilations. Output size per dim is
// (in + pad_head + pad_tail - (dilation*(kernel-1)+1)) / stride + 1, rounded down.
#ifndef PARITY_REFERENCE_OPS_CONV_GEOMETRY_H_
#define PARITY_REFERENCE_OPS_CONV_GEOMETRY_H_

#include <cmath>
#include <limits>

#include "reference/ops/util.h"

namespace parity::reference::conv_geometry {

template <typename T>
bool GetPair(const OpContext<T>& c, const char* single, const char* h, const char* w,
             const char* list, int64_t* vh, int64_t* vw) {
  if (c.args.Has(single)) {
    *vh = *vw = c.args.Int(single);
    return true;
  }
  if (c.args.Has(h) || c.args.Has(w)) {
    PARITY_ENFORCE(c.args.Has(h) && c.args.Has(w), ErrorKind::kBadArgument, "give both '", h,
                   "' and '", w, "'");
    *vh = c.args.Int(h);
    *vw = c.args.Int(w);
    return true;
  }
  if (c.args.Has(list)) {
    const std::vector<int64_t> v = c.args.Ints(list);
    PARITY_ENFORCE(v.size() == 2, ErrorKind::kBadArgument, "'", list,
                   "' must have 2 entries for 2-D, got ", v.size());
    *vh = v[0];
    *vw = v[1];
    return true;
  }
  return false;
}

// Parses the geometry; `x` is the NCHW input. For Conv (`filter` given) the kernel must be given
// and match the filter's spatial dims.
template <typename T>
ConvGeometry ParseGeometry(const OpContext<T>& c, const Value<T>& x, const Value<T>* filter) {
  PARITY_ENFORCE(c.args.Str("order") == "NCHW", ErrorKind::kBadArgument,
                 "the reference implements order NCHW only, got '", c.args.Str("order"), "'");
  PARITY_ENFORCE(c.args.Int("legacy_pad") == 0, ErrorKind::kBadArgument,
                 "legacy_pad is not supported by the reference");
  PARITY_ENFORCE(x.dims.size() == 4, ErrorKind::kShapeMismatch, "2-D NCHW needs a 4-D ",
                 Describe(c, 0));
  ConvGeometry g;
  // Only the pools take global_pooling (filter == nullptr); Conv has no such argument.
  const bool global = filter == nullptr && c.args.Bool("global_pooling");
  const bool has_kernel = GetPair(c, "kernel", "kernel_h", "kernel_w", "kernels", &g.kh, &g.kw);
  GetPair(c, "stride", "stride_h", "stride_w", "strides", &g.sh, &g.sw);
  GetPair(c, "dilation", "dilation_h", "dilation_w", "dilations", &g.dh, &g.dw);
  if (c.args.Has("pad")) {
    g.pt = g.pl = g.pb = g.pr = c.args.Int("pad");
  } else if (c.args.Has("pads")) {
    const std::vector<int64_t> p = c.args.Ints("pads");
    PARITY_ENFORCE(p.size() == 4, ErrorKind::kBadArgument, "'pads' must be (t, l, b, r)");
    g.pt = p[0], g.pl = p[1], g.pb = p[2], g.pr = p[3];
  } else {
    g.pt = c.args.Int("pad_t"), g.pl = c.args.Int("pad_l");
    g.pb = c.args.Int("pad_b"), g.pr = c.args.Int("pad_r");
  }
  if (global) {
    // Caffe2's ConvPoolOpBase: with global_pooling every pad must be 0 and every stride and
    // dilation 1, whether given or defaulted (densenet121 gives kernel 0, stride 1, pad 0); a
    // given kernel must be non-negative, as every kernel, and is replaced by the image's H x W.
    PARITY_ENFORCE(!has_kernel || (g.kh >= 0 && g.kw >= 0), ErrorKind::kBadArgument, "kernel ",
                   g.kh, "x", g.kw, " must not be negative");
    PARITY_ENFORCE(g.sh == 1 && g.sw == 1 && g.dh == 1 && g.dw == 1 && g.pt == 0 && g.pl == 0 &&
                       g.pb == 0 && g.pr == 0,
                   ErrorKind::kBadArgument,
                   "global_pooling needs stride 1, dilation 1 and pads 0 (given or not)");
    g.kh = x.dims[2];
    g.kw = x.dims[3];
  } else if (filter != nullptr) {
    // Caffe2's ConvPoolOpBase enforces "If you are doing convolution or pooling, you will need to
    // set explicitly the kernel size": the filter's dims are checked against it, never read as it.
    PARITY_ENFORCE(has_kernel, ErrorKind::kBadArgument,
                   "Conv needs a kernel size (kernel, kernel_h + kernel_w or kernels)");
    PARITY_ENFORCE(filter->dims.size() == 4, ErrorKind::kShapeMismatch, "filter ",
                   ShapeString(filter->dims), " must be 4-D");
    PARITY_ENFORCE(g.kh == filter->dims[2] && g.kw == filter->dims[3], ErrorKind::kShapeMismatch,
                   "kernel ", g.kh, "x", g.kw, " does not match filter ",
                   ShapeString(filter->dims));
  } else {
    PARITY_ENFORCE(has_kernel, ErrorKind::kBadArgument, "pooling needs a kernel size");
  }
  PARITY_ENFORCE(g.kh > 0 && g.kw > 0 && g.sh > 0 && g.sw > 0 && g.dh > 0 && g.dw > 0,
                 ErrorKind::kBadArgument, "kernel, stride and dilation must be positive");
  PARITY_ENFORCE(g.pt >= 0 && g.pl >= 0 && g.pb >= 0 && g.pr >= 0, ErrorKind::kBadArgument,
                 "pads must be non-negative");
  // Keeps every window coordinate far from int64 overflow.
  const int64_t kBig = int64_t{1} << 31;
  for (int64_t v : {g.kh, g.kw, g.sh, g.sw, g.dh, g.dw, g.pt, g.pl, g.pb, g.pr}) {
    PARITY_ENFORCE(v < kBig, ErrorKind::kBadArgument, "kernel/stride/dilation/pad value ", v,
                   " is too large");
  }
  return g;
}

inline int64_t OutSize(int64_t in, int64_t head, int64_t tail, int64_t k, int64_t d, int64_t s) {
  const int64_t span = in + head + tail - (d * (k - 1) + 1);
  PARITY_ENFORCE(span >= 0, ErrorKind::kShapeMismatch, "dilated kernel ", d * (k - 1) + 1,
                 " is larger than the padded input ", in + head + tail);
  return span / s + 1;
}

inline Dims OutDims(const Dims& x, int64_t channels, const ConvGeometry& g) {
  return {x[0], channels, OutSize(x[2], g.pt, g.pb, g.kh, g.dh, g.sh),
          OutSize(x[3], g.pl, g.pr, g.kw, g.dw, g.sw)};
}

inline const ArgTable& ConvArgs() {
  static const ArgTable args = {
      {"kernel", ""},      {"kernel_h", ""},    {"kernel_w", ""},  {"kernels", "[]"},
      {"stride", "1"},     {"stride_h", "1"},   {"stride_w", "1"}, {"strides", "[]"},
      {"pad", "0"},        {"pad_t", "0"},      {"pad_l", "0"},    {"pad_b", "0"},
      {"pad_r", "0"},      {"pads", "[]"},      {"dilation", "1"}, {"dilation_h", "1"},
      {"dilation_w", "1"}, {"dilations", "[]"}, {"order", "NCHW"}, {"legacy_pad", "0"}};
  return args;
}

// Each op's table: the shared geometry plus what that op reads (so a stray argument, such as
// global_pooling on Conv, is not silently honored by one half only).
inline ArgTable WithArgs(ArgTable base, const ArgTable& extra) {
  base.insert(base.end(), extra.begin(), extra.end());
  return base;
}

}  // namespace parity::reference::conv_geometry

#endif  // PARITY_REFERENCE_OPS_CONV_GEOMETRY_H_
