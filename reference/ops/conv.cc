// 2-D NCHW convolution and its gradient, written as direct sums over the filter's taps (geometry
// in conv_geometry.h). Groups split input and output channels alike; a bias adds per output
// channel. ConvRelu is Conv's kernel, then max(y, 0) on each output (NaN stays NaN).
// ConvTranspose is written from its definition as a scatter: input pixel (iy, ix) adds
// x * w[tap] onto output (iy * stride - pad_head + tap * dilation), never as a Conv.
#include <cmath>
#include <limits>

#include "reference/ops/conv_geometry.h"

namespace parity::reference {
namespace {

using namespace conv_geometry;  // NOLINT: the family's own helpers

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

template <typename T>
void ConvRelu(OpContext<T>& c) {
  Conv(c);
  ReluOutput(c, 0);
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

// ConvTranspose(X [N, C, H, W], W [C, M / group, kh, kw], [b [M]]) -> Y [N, M, oh, ow],
// oh = (H - 1) * sh - pt - pb + dh * (kh - 1) + 1 + adj_h (likewise ow); adj in [0, stride).
template <typename T>
void ConvTranspose(OpContext<T>& c) {
  const Value<T>& x = c.RealInput(0);
  const Value<T>& f = c.RealInput(1);
  const ConvGeometry g = ParseGeometry(c, x, &f);
  const int64_t n = x.dims[0], ch = x.dims[1], h = x.dims[2], w = x.dims[3];
  const int64_t group = c.args.Int("group");
  int64_t adj_h = 0, adj_w = 0;
  GetPair(c, "adj", "adj_h", "adj_w", "adjs", &adj_h, &adj_w);
  PARITY_ENFORCE(adj_h >= 0 && adj_w >= 0 && adj_h < g.sh && adj_w < g.sw,
                 ErrorKind::kBadArgument, "adj_h ", adj_h, " and adj_w ", adj_w,
                 " must be in [0, stride)");
  PARITY_ENFORCE(group > 0 && ch % group == 0 && f.dims[0] == ch, ErrorKind::kShapeMismatch,
                 "filter ", ShapeString(f.dims), " needs X's ", ch,
                 " channels in dim 0, divisible by group ", group);
  const int64_t cg = ch / group, mg = f.dims[1], m = mg * group;
  const int64_t oh = (h - 1) * g.sh - g.pt - g.pb + g.dh * (g.kh - 1) + 1 + adj_h;
  const int64_t ow = (w - 1) * g.sw - g.pl - g.pr + g.dw * (g.kw - 1) + 1 + adj_w;
  PARITY_ENFORCE(h > 0 && w > 0 && oh > 0 && ow > 0, ErrorKind::kShapeMismatch,
                 "empty output ", oh, "x", ow, " for X ", ShapeString(x.dims));
  Value<T> y = c.NewReal({n, m, oh, ow});
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ci = 0; ci < ch; ++ci) {
      const int64_t grp = ci / cg;
      for (int64_t iy = 0; iy < h; ++iy)
        for (int64_t ix = 0; ix < w; ++ix) {
          const T xv = x.r()[((b * ch + ci) * h + iy) * w + ix];
          for (int64_t mo = 0; mo < mg; ++mo)
            for (int64_t ky = 0; ky < g.kh; ++ky)
              for (int64_t kx = 0; kx < g.kw; ++kx) {
                const int64_t oy = iy * g.sh - g.pt + ky * g.dh;
                const int64_t ox = ix * g.sw - g.pl + kx * g.dw;
                if (oy < 0 || oy >= oh || ox < 0 || ox >= ow) continue;
                const int64_t mi = grp * mg + mo;
                y.r()[((b * m + mi) * oh + oy) * ow + ox] +=
                    xv * f.r()[((ci * mg + mo) * g.kh + ky) * g.kw + kx];
              }
        }
    }
  if (c.InputSize() == 3) {
    const Value<T>& bias = c.RealInput(2);
    RequireShape(c, bias, 2, {m});
    for (int64_t k = 0; k < y.size(); ++k) y.r()[k] += bias.r()[(k / (oh * ow)) % m];
  }
  c.SetOutput(0, std::move(y));
}

}  // namespace

void RegisterConvOps(Registry* r) {
  const ArgTable conv = WithArgs(ConvArgs(), {{"group", "1"}});
  const ArgTable conv_grad = WithArgs(conv, {{"no_bias", "0"}});
  r->Add({"Conv", 2, 3, 1, 1, conv, PARITY_REF_KERNEL(Conv)});
  r->Add({"ConvRelu", 2, 3, 1, 1, conv, PARITY_REF_KERNEL(ConvRelu)});
  r->Add({"ConvGradient", 3, 3, 1, 3, conv_grad, PARITY_REF_KERNEL(ConvGradient)});
  r->Add({"ConvTranspose", 2, 3, 1, 1, WithArgs(conv, {{"adj", "0"}, {"adj_h", "0"}, {"adj_w", "0"}, {"adjs", "[]"}}),
          PARITY_REF_KERNEL(ConvTranspose)});
}

PARITY_REFERENCE_FAMILY(RegisterConvOps);

}  // namespace parity::reference
