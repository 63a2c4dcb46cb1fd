// 2-D NCHW max and average pooling (MaxPool also on int8 / uint8) and their gradients, written as loops over windows (geometry
// in conv_geometry.h). Pooling ignores padded positions (MaxPool takes the max of the real inputs
// in the window; AveragePool divides by the real inputs unless count_include_pad, which counts
// taps inside the padded extent). A window without any real input has no defined value:
// kBadArgument.
#include <cmath>
#include <limits>

#include "reference/ops/conv_geometry.h"

namespace parity::reference {
namespace {

using namespace conv_geometry;  // NOLINT: the family's own helpers

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

// MaxPool also takes int8 and uint8 (ONNX's MaxPool): the maximum of the window's integers. The
// optional output 1 (ONNX's Indices) is the flat index in X (N * C * H * W, row-major) of the
// window's first maximal element in tap order (rows, then columns), or of its first NaN.
template <typename T>
void MaxPool(OpContext<T>& c) {
  const Value<T>& x = c.Input(0);
  PARITY_ENFORCE(x.is_real() || x.dtype == DType::kInt8 || x.dtype == DType::kUInt8,
                 ErrorKind::kShapeMismatch, "MaxPool takes floating, int8 or uint8 tensors, got ",
                 Describe(c, 0));
  const ConvGeometry g = ParseGeometry<T>(c, x, nullptr);
  const Dims out_dims = OutDims(x.dims, x.dims[1], g);
  Value<T> y = c.NewTensor(x.dtype, out_dims);
  Value<T> indices = c.NewTensor(DType::kInt64, c.OutputSize() == 2 ? out_dims : Dims{0});
  ForEachWindow(c, x, g, [&](int64_t yi, const std::vector<int64_t>& taps, int64_t) {
    int64_t best = taps[0];
    for (int64_t t : taps) {
      if (x.is_real()) {
        if (std::isnan(x.r()[best])) break;
        if (std::isnan(x.r()[t]) || x.r()[t] > x.r()[best]) best = t;
      } else if (x.i()[t] > x.i()[best]) {
        best = t;
      }
    }
    y.CopyElem(yi, x, best);
    if (c.OutputSize() == 2) indices.i()[yi] = best;
  });
  c.SetOutput(0, std::move(y));
  if (c.OutputSize() == 2) c.SetOutput(1, std::move(indices));
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

void RegisterPoolOps(Registry* r) {
  const ArgTable max_pool = WithArgs(ConvArgs(), {{"global_pooling", "0"}});
  const ArgTable average_pool = WithArgs(max_pool, {{"count_include_pad", "0"}});
  r->Add({"MaxPool", 1, 1, 1, 2, max_pool, PARITY_REF_KERNEL(MaxPool)});
  r->Add({"AveragePool", 1, 1, 1, 1, average_pool, PARITY_REF_KERNEL(AveragePool)});
  r->Add({"MaxPoolGradient", 3, 3, 1, 1, max_pool, PARITY_REF_KERNEL(MaxPoolGradient)});
  r->Add({"AveragePoolGradient", 3, 3, 1, 1, average_pool, PARITY_REF_KERNEL(AveragePoolGradient)});
}

PARITY_REFERENCE_FAMILY(RegisterPoolOps);

}  // namespace parity::reference
