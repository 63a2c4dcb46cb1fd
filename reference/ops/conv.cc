// 2-D NCHW convolution and pooling (and their gradients), written as direct sums over windows.
//
// Geometry follows Caffe2's ConvPoolOpBase spellings: kernel | kernel_h+kernel_w | kernels,
// stride | stride_h+stride_w | strides, pad | pad_t,pad_l,pad_b,pad_r | pads (t, l, b, r),
// dilation | dilation_h+dilation_w | dilations. Output size per dim is
// (in + pad_head + pad_tail - (dilation*(kernel-1)+1)) / stride + 1, rounded down.
// Pooling ignores padded positions (MaxPool takes the max of the real inputs in the window;
// AveragePool divides by the real inputs unless count_include_pad, which counts taps inside the
// padded extent). A window without any real input has no defined value: kBadArgument.
#include <cmath>
#include <limits>

#include "reference/ops/util.h"

namespace parity::reference {
namespace {

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
  const bool has_stride = GetPair(c, "stride", "stride_h", "stride_w", "strides", &g.sh, &g.sw);
  const bool has_dil =
      GetPair(c, "dilation", "dilation_h", "dilation_w", "dilations", &g.dh, &g.dw);
  bool has_pad = false;
  if (c.args.Has("pad")) {
    g.pt = g.pl = g.pb = g.pr = c.args.Int("pad");
    has_pad = true;
  } else if (c.args.Has("pads")) {
    const std::vector<int64_t> p = c.args.Ints("pads");
    PARITY_ENFORCE(p.size() == 4, ErrorKind::kBadArgument, "'pads' must be (t, l, b, r)");
    g.pt = p[0], g.pl = p[1], g.pb = p[2], g.pr = p[3];
    has_pad = true;
  } else {
    for (const char* name : {"pad_t", "pad_l", "pad_b", "pad_r"}) has_pad |= c.args.Has(name);
    g.pt = c.args.Int("pad_t"), g.pl = c.args.Int("pad_l");
    g.pb = c.args.Int("pad_b"), g.pr = c.args.Int("pad_r");
  }
  if (global) {
    PARITY_ENFORCE(!has_kernel && !has_stride && !has_pad && !has_dil, ErrorKind::kBadArgument,
                   "global_pooling excludes kernel, stride, pad and dilation arguments");
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

int64_t OutSize(int64_t in, int64_t head, int64_t tail, int64_t k, int64_t d, int64_t s) {
  const int64_t span = in + head + tail - (d * (k - 1) + 1);
  PARITY_ENFORCE(span >= 0, ErrorKind::kShapeMismatch, "dilated kernel ", d * (k - 1) + 1,
                 " is larger than the padded input ", in + head + tail);
  return span / s + 1;
}

Dims OutDims(const Dims& x, int64_t channels, const ConvGeometry& g) {
  return {x[0], channels, OutSize(x[2], g.pt, g.pb, g.kh, g.dh, g.sh),
          OutSize(x[3], g.pl, g.pr, g.kw, g.dw, g.sw)};
}

const ArgTable& ConvArgs() {
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
ArgTable WithArgs(ArgTable base, const ArgTable& extra) {
  base.insert(base.end(), extra.begin(), extra.end());
  return base;
}

struct ConvShape {
  int64_t n, c, h, w, m, oh, ow, group, cg, mg;
};

template <typename T>
ConvShape CheckConv(const OpContext<T>& c, const Value<T>& x, const Value<T>& f,
                    const ConvGeometry& g) {
  ConvShape s;
  s.n = x.dims[0], s.c = x.dims[1], s.h = x.dims[2], s.w = x.dims[3];
  s.m = f.dims[0];
  s.group = c.args.Int("group");
  PARITY_ENFORCE(s.group > 0 && s.c % s.group == 0 && s.m % s.group == 0, ErrorKind::kShapeMismatch,
                 "group ", s.group, " must divide input channels ", s.c, " and output channels ",
                 s.m);
  s.cg = s.c / s.group;
  s.mg = s.m / s.group;
  PARITY_ENFORCE(f.dims[1] == s.cg, ErrorKind::kShapeMismatch, "filter ", ShapeString(f.dims),
                 " needs ", s.cg, " input channels per group for X ", ShapeString(x.dims));
  const Dims od = OutDims(x.dims, s.m, g);
  s.oh = od[2];
  s.ow = od[3];
  return s;
}

// Calls fn(xi, fi, yi) for every (output element, filter tap) pair whose input is not padding.
template <typename F>
void ForEachConvTap(const ConvShape& s, const ConvGeometry& g, F fn) {
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t m = 0; m < s.m; ++m) {
      const int64_t grp = m / s.mg;
      for (int64_t oy = 0; oy < s.oh; ++oy)
        for (int64_t ox = 0; ox < s.ow; ++ox) {
          const int64_t yi = ((n * s.m + m) * s.oh + oy) * s.ow + ox;
          for (int64_t ci = 0; ci < s.cg; ++ci)
            for (int64_t ky = 0; ky < g.kh; ++ky)
              for (int64_t kx = 0; kx < g.kw; ++kx) {
                const int64_t iy = oy * g.sh - g.pt + ky * g.dh;
                const int64_t ix = ox * g.sw - g.pl + kx * g.dw;
                if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w) continue;
                const int64_t xi = ((n * s.c + grp * s.cg + ci) * s.h + iy) * s.w + ix;
                const int64_t fi = ((m * s.cg + ci) * g.kh + ky) * g.kw + kx;
                fn(xi, fi, yi);
              }
        }
    }
}

template <typename T>
void Conv(OpContext<T>& c) {
  const Value<T>& x = c.RealInput(0);
  const Value<T>& f = c.RealInput(1);
  const ConvGeometry g = ParseGeometry(c, x, &f);
  const ConvShape s = CheckConv(c, x, f, g);
  Value<T> y = c.NewReal({s.n, s.m, s.oh, s.ow});
  ForEachConvTap(s, g,
                 [&](int64_t xi, int64_t fi, int64_t yi) { y.r()[yi] += x.r()[xi] * f.r()[fi]; });
  if (c.InputSize() == 3) {
    const Value<T>& b = c.RealInput(2);
    RequireShape(c, b, 2, {s.m});
    for (int64_t k = 0; k < y.size(); ++k) y.r()[k] += b.r()[(k / (s.oh * s.ow)) % s.m];
  }
  c.SetOutput(0, std::move(y));
}

// ConvGradient(X, W, dY) -> (dW, db, [dX]) or, with no_bias=1, (dW, [dX]).
template <typename T>
void ConvGradient(OpContext<T>& c) {
  const Value<T>& x = c.RealInput(0);
  const Value<T>& f = c.RealInput(1);
  const Value<T>& dy = c.RealInput(2);
  const ConvGeometry g = ParseGeometry(c, x, &f);
  const ConvShape s = CheckConv(c, x, f, g);
  RequireShape(c, dy, 2, {s.n, s.m, s.oh, s.ow});
  const bool no_bias = c.args.Bool("no_bias");
  PARITY_ENFORCE(c.OutputSize() <= (no_bias ? 2 : 3) && c.OutputSize() >= (no_bias ? 1 : 2),
                 ErrorKind::kBadArgument,
                 "ConvGradient outputs are (dW, db, [dX]), or (dW, [dX])"
                 " with no_bias");
  Value<T> dw = c.NewReal(f.dims), dx = c.NewReal(x.dims), db = c.NewReal({s.m});
  ForEachConvTap(s, g, [&](int64_t xi, int64_t fi, int64_t yi) {
    dw.r()[fi] += x.r()[xi] * dy.r()[yi];
    dx.r()[xi] += f.r()[fi] * dy.r()[yi];
  });
  for (int64_t k = 0; k < dy.size(); ++k) db.r()[(k / (s.oh * s.ow)) % s.m] += dy.r()[k];
  c.SetOutput(0, std::move(dw));
  int next = 1;
  if (!no_bias) c.SetOutput(next++, std::move(db));
  if (c.OutputSize() > next) c.SetOutput(next, std::move(dx));
}

// Pooling windows: fn(window index yi, list of input indices) with padding taps left out;
// `padded_count` is the number of taps inside the padded extent (count_include_pad).
template <typename T, typename F>
void ForEachWindow(const OpContext<T>& c, const Value<T>& x, const ConvGeometry& g, F fn) {
  const Dims od = OutDims(x.dims, x.dims[1], g);
  const int64_t h = x.dims[2], w = x.dims[3];
  std::vector<int64_t> taps;
  for (int64_t nc = 0; nc < x.dims[0] * x.dims[1]; ++nc)
    for (int64_t oy = 0; oy < od[2]; ++oy)
      for (int64_t ox = 0; ox < od[3]; ++ox) {
        taps.clear();
        int64_t padded_count = 0;
        for (int64_t ky = 0; ky < g.kh; ++ky)
          for (int64_t kx = 0; kx < g.kw; ++kx) {
            const int64_t iy = oy * g.sh - g.pt + ky * g.dh;
            const int64_t ix = ox * g.sw - g.pl + kx * g.dw;
            if (iy < h + g.pb && ix < w + g.pr) ++padded_count;
            if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
            taps.push_back((nc * h + iy) * w + ix);
          }
        PARITY_ENFORCE(!taps.empty(), ErrorKind::kBadArgument, "pooling window (", oy, ", ", ox,
                       ") covers only padding of ", Describe(c, 0));
        fn((nc * od[2] + oy) * od[3] + ox, taps, padded_count);
      }
}

template <typename T>
void MaxPool(OpContext<T>& c) {
  const Value<T>& x = c.RealInput(0);
  const ConvGeometry g = ParseGeometry<T>(c, x, nullptr);
  Value<T> y = c.NewReal(OutDims(x.dims, x.dims[1], g));
  ForEachWindow(c, x, g, [&](int64_t yi, const std::vector<int64_t>& taps, int64_t) {
    T best = x.r()[taps[0]];
    for (int64_t t : taps) {
      if (std::isnan(x.r()[t]) || x.r()[t] > best) best = x.r()[t];
      if (std::isnan(best)) break;
    }
    y.r()[yi] = best;
  });
  c.SetOutput(0, std::move(y));
}

template <typename T>
void AveragePool(OpContext<T>& c) {
  const Value<T>& x = c.RealInput(0);
  const ConvGeometry g = ParseGeometry<T>(c, x, nullptr);
  const bool include_pad = c.args.Bool("count_include_pad");
  Value<T> y = c.NewReal(OutDims(x.dims, x.dims[1], g));
  ForEachWindow(c, x, g, [&](int64_t yi, const std::vector<int64_t>& taps, int64_t padded) {
    T sum = 0;
    for (int64_t t : taps) sum += x.r()[t];
    y.r()[yi] = sum / static_cast<T>(include_pad ? padded : static_cast<int64_t>(taps.size()));
  });
  c.SetOutput(0, std::move(y));
}

// MaxPoolGradient(X, Y, dY) -> dX: every input equal to its window's max receives that window's
// dY (ties all receive it, as Caffe2's CPU kernel compares X == Y).
template <typename T>
void MaxPoolGradient(OpContext<T>& c) {
  const Value<T>& x = c.RealInput(0);
  const Value<T>& y = c.RealInput(1);
  const Value<T>& dy = c.RealInput(2);
  const ConvGeometry g = ParseGeometry<T>(c, x, nullptr);
  const Dims od = OutDims(x.dims, x.dims[1], g);
  RequireShape(c, y, 1, od);
  RequireShape(c, dy, 2, od);
  Value<T> dx = c.NewReal(x.dims);
  ForEachWindow(c, x, g, [&](int64_t yi, const std::vector<int64_t>& taps, int64_t) {
    for (int64_t t : taps) {
      if (x.r()[t] == y.r()[yi]) dx.r()[t] += dy.r()[yi];
    }
  });
  c.SetOutput(0, std::move(dx));
}

template <typename T>
void AveragePoolGradient(OpContext<T>& c) {
  const Value<T>& x = c.RealInput(0);
  const Value<T>& dy = c.RealInput(2);
  const ConvGeometry g = ParseGeometry<T>(c, x, nullptr);
  const Dims od = OutDims(x.dims, x.dims[1], g);
  RequireShape(c, dy, 2, od);
  const bool include_pad = c.args.Bool("count_include_pad");
  Value<T> dx = c.NewReal(x.dims);
  ForEachWindow(c, x, g, [&](int64_t yi, const std::vector<int64_t>& taps, int64_t padded) {
    const T n = static_cast<T>(include_pad ? padded : static_cast<int64_t>(taps.size()));
    for (int64_t t : taps) dx.r()[t] += dy.r()[yi] / n;
  });
  c.SetOutput(0, std::move(dx));
}

}  // namespace

void RegisterConvOps(Registry* r) {
  const ArgTable conv = WithArgs(ConvArgs(), {{"group", "1"}});
  const ArgTable conv_grad = WithArgs(conv, {{"no_bias", "0"}});
  const ArgTable max_pool = WithArgs(ConvArgs(), {{"global_pooling", "0"}});
  const ArgTable average_pool = WithArgs(max_pool, {{"count_include_pad", "0"}});
  r->Add({"Conv", 2, 3, 1, 1, conv, PARITY_REF_KERNEL(Conv)});
  r->Add({"ConvGradient", 3, 3, 1, 3, conv_grad, PARITY_REF_KERNEL(ConvGradient)});
  r->Add({"MaxPool", 1, 1, 1, 1, max_pool, PARITY_REF_KERNEL(MaxPool)});
  r->Add({"AveragePool", 1, 1, 1, 1, average_pool, PARITY_REF_KERNEL(AveragePool)});
  r->Add({"MaxPoolGradient", 3, 3, 1, 1, max_pool, PARITY_REF_KERNEL(MaxPoolGradient)});
  r->Add({"AveragePoolGradient", 3, 3, 1, 1, average_pool, PARITY_REF_KERNEL(AveragePoolGradient)});
}

PARITY_REFERENCE_FAMILY(RegisterConvOps);

}  // namespace parity::reference
