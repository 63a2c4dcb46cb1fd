// Gradient kernels of the elementwise and linear-algebra families (the others live next to their
// forward op: norm.cc, loss.cc, conv.cc, rnn_unit.cc, reduce.cc, shape.cc). Conventions are
// Caffe2's and are tabulated in interpreter.h.
#include <cmath>

#include "reference/ops/util.h"

namespace parity::reference {
namespace {

template <typename T>
void ReluGradient(OpContext<T>& c) {
  UnaryGradient(c, [](T y, T dy) { return y > 0 ? dy : T(0); });
}

template <typename T>
void LeakyReluGradient(OpContext<T>& c) {
  const T alpha = static_cast<T>(c.args.Float("alpha"));
  UnaryGradient(c, [alpha](T y, T dy) { return y > 0 ? dy : alpha * dy; });
}

template <typename T>
void EluGradient(OpContext<T>& c) {
  const T alpha = static_cast<T>(c.args.Float("alpha"));
  UnaryGradient(c, [alpha](T y, T dy) { return y > 0 ? dy : dy * (y + alpha); });
}

template <typename T>
void SigmoidGradient(OpContext<T>& c) {
  UnaryGradient(c, [](T y, T dy) { return dy * y * (T(1) - y); });
}

template <typename T>
void TanhGradient(OpContext<T>& c) {
  UnaryGradient(c, [](T y, T dy) { return dy * (T(1) - y * y); });
}

template <typename T>
void SoftsignGradient(OpContext<T>& c) {
  UnaryGradient(c, [](T x, T dy) { return dy / ((T(1) + std::abs(x)) * (T(1) + std::abs(x))); });
}

template <typename T>
void AbsGradient(OpContext<T>& c) {
  UnaryGradient(c, [](T x, T dy) { return x > 0 ? dy : (x < 0 ? -dy : T(0)); });
}

template <typename T>
void ReciprocalGradient(OpContext<T>& c) {
  UnaryGradient(c, [](T y, T dy) { return -dy * y * y; });
}

template <typename T>
void SinGradient(OpContext<T>& c) {
  UnaryGradient(c, [](T x, T dy) { return dy * std::cos(x); });
}

template <typename T>
void CosGradient(OpContext<T>& c) {
  UnaryGradient(c, [](T x, T dy) { return -dy * std::sin(x); });
}

template <typename T>
void ClipGradient(OpContext<T>& c) {
  const T lo = static_cast<T>(c.args.Float("min"));
  const T hi = static_cast<T>(c.args.Float("max"));
  PARITY_ENFORCE(!(c.args.Float("min") > c.args.Float("max")), ErrorKind::kBadArgument,
                 "argument 'min' = ", c.args.Float("min"),
                 " is greater than 'max' = ", c.args.Float("max"));
  UnaryGradient(c, [lo, hi](T y, T dy) { return (y > lo && y < hi) ? dy : T(0); });
}

// MaxGradient / MinGradient(Y, dY, X0, X1, ...) -> (dX0, dX1, ...): every input equal to the
// selected value gets dY (ties all receive it, as Caffe2's SelectGradient does).
template <typename T>
void SelectGradient(OpContext<T>& c) {
  const Value<T>& y = c.RealInput(0);
  const Value<T>& dy = c.RealInput(1);
  RequireSameShape(c, y, dy, 1);
  PARITY_ENFORCE(c.OutputSize() == c.InputSize() - 2, ErrorKind::kBadArgument,
                 "one gradient output per forward input expected");
  for (int i = 2; i < c.InputSize(); ++i) {
    const Value<T>& x = c.RealInput(i);
    RequireShape(c, x, i, y.dims);
    Value<T> dx = c.NewReal(x.dims);
    for (int64_t k = 0; k < x.size(); ++k) dx.r()[k] = x.r()[k] == y.r()[k] ? dy.r()[k] : T(0);
    c.SetOutput(i - 2, std::move(dx));
  }
}

// FCGradient(X, W, dY) -> (dW, db[, dX]) with X viewed as M x K at `axis` and W as N x K
// (FCTransposedGradient: W is K x N): dW = dY^T X (or X^T dY), db = column sums of dY,
// dX = dY W (or dY W^T).
template <typename T, bool kTransposed>
void FcGradientKernel(OpContext<T>& c) {
  const Value<T>& x = c.RealInput(0);
  const Value<T>& w = c.RealInput(1);
  const Value<T>& dy = c.RealInput(2);
  const int64_t axis = CanonicalAxis(c.args.Int("axis"), x.dims.size(), "axis");
  const int64_t axis_w = CanonicalAxis(c.args.Int("axis_w"), w.dims.size(), "axis_w");
  const int64_t M = SizeToDim(x.dims, axis), K = SizeFromDim(x.dims, axis);
  const int64_t N = kTransposed ? SizeFromDim(w.dims, axis_w) : SizeToDim(w.dims, axis_w);
  const int64_t wk = kTransposed ? SizeToDim(w.dims, axis_w) : SizeFromDim(w.dims, axis_w);
  PARITY_ENFORCE(wk == K, ErrorKind::kShapeMismatch, "inner dimensions differ: X ",
                 ShapeString(x.dims), " vs W ", ShapeString(w.dims));
  PARITY_ENFORCE(dy.size() == M * N, ErrorKind::kShapeMismatch, Describe(c, 2), " must hold ", M,
                 "x", N, " values");
  Value<T> dw = c.NewReal(w.dims), db = c.NewReal({N}), dx = c.NewReal(x.dims);
  for (int64_t m = 0; m < M; ++m) {
    for (int64_t n = 0; n < N; ++n) {
      const T g = dy.r()[m * N + n];
      db.r()[n] += g;
      for (int64_t k = 0; k < K; ++k) {
        const int64_t wi = kTransposed ? k * N + n : n * K + k;
        dw.r()[wi] += g * x.r()[m * K + k];
        dx.r()[m * K + k] += g * w.r()[wi];
      }
    }
  }
  c.SetOutput(0, std::move(dw));
  c.SetOutput(1, std::move(db));
  if (c.OutputSize() > 2) c.SetOutput(2, std::move(dx));
}

template <typename T>
void FCGradient(OpContext<T>& c) {
  FcGradientKernel<T, false>(c);
}
template <typename T>
void FCTransposedGradient(OpContext<T>& c) {
  FcGradientKernel<T, true>(c);
}

// Add/Sub/MulGradient(dC, A, B) -> (dA, dB) and DivGradient(dC, A, B, C) -> (dA, dB) (also the
// legacy DivGradient(B, C, dC)): the elementwise derivative summed over every broadcast copy,
// so dA has A's shape and dB has B's shape.
enum class Bin { kAdd, kSub, kMul, kDiv };

template <typename T, Bin kOp>
void BinaryGradient(OpContext<T>& c) {
  const bool legacy_div = kOp == Bin::kDiv && c.InputSize() == 3;
  const Value<T>& dc = c.RealInput(legacy_div ? 2 : 0);
  const Value<T>& b = c.RealInput(legacy_div ? 0 : 2);
  // The legacy Div form has no A; C (same shape as A) stands in for its shape.
  const Value<T>& a = c.RealInput(1);
  const Value<T>* out = kOp == Bin::kDiv ? &c.RealInput(legacy_div ? 1 : 3) : nullptr;
  const Broadcast m = BinaryMap(c, a, b);
  RequireShape(c, dc, legacy_div ? 2 : 0, m.dims);
  if (out) RequireShape(c, *out, legacy_div ? 1 : 3, m.dims);
  Value<T> da = c.NewReal(a.dims), db = c.NewReal(b.dims);
  for (size_t k = 0; k < m.a.size(); ++k) {
    const T g = dc.r()[k];
    switch (kOp) {
      case Bin::kAdd:
        da.r()[m.a[k]] += g;
        db.r()[m.b[k]] += g;
        break;
      case Bin::kSub:
        da.r()[m.a[k]] += g;
        db.r()[m.b[k]] -= g;
        break;
      case Bin::kMul:
        da.r()[m.a[k]] += g * b.r()[m.b[k]];
        db.r()[m.b[k]] += g * a.r()[m.a[k]];
        break;
      case Bin::kDiv:
        da.r()[m.a[k]] += g / b.r()[m.b[k]];
        db.r()[m.b[k]] -= g * out->r()[k] / b.r()[m.b[k]];
        break;
    }
  }
  c.SetOutput(0, std::move(da));
  if (c.OutputSize() > 1) c.SetOutput(1, std::move(db));
}

template <typename T>
void AddGradient(OpContext<T>& c) {
  BinaryGradient<T, Bin::kAdd>(c);
}
template <typename T>
void SubGradient(OpContext<T>& c) {
  BinaryGradient<T, Bin::kSub>(c);
}
template <typename T>
void MulGradient(OpContext<T>& c) {
  BinaryGradient<T, Bin::kMul>(c);
}
template <typename T>
void DivGradient(OpContext<T>& c) {
  BinaryGradient<T, Bin::kDiv>(c);
}

// Reduce{Sum,Mean,Max,Min}Gradient(dY, X, Y) -> dX [axes, keepdims]: dY spread back over the
// reduced axes (divided by the count for Mean; only onto elements equal to Y for Max/Min, ties
// all receiving it).
enum class RedG { kSum, kMean, kMax, kMin };

template <typename T, RedG kOp>
void ReduceGradient(OpContext<T>& c) {
  const Value<T>& dy = c.RealInput(0);
  const Value<T>& x = c.RealInput(1);
  const Value<T>& y = c.RealInput(2);
  const int64_t rank = x.dims.size();
  std::vector<bool> reduced(rank, c.args.Ints("axes").empty());
  for (int64_t a : c.args.Ints("axes")) reduced[CanonicalAxis(a, rank, "axes entry")] = true;
  Dims kept(rank);
  int64_t count = 1;
  for (int64_t k = 0; k < rank; ++k) {
    kept[k] = reduced[k] ? 1 : x.dims[k];
    if (reduced[k]) count *= x.dims[k];
  }
  PARITY_ENFORCE(dy.size() == Numel(kept) && y.size() == Numel(kept), ErrorKind::kShapeMismatch,
                 "dY and Y must hold ", Numel(kept), " values for X ", ShapeString(x.dims));
  const Dims ks = Strides(kept);
  Value<T> dx = c.NewReal(x.dims);
  int64_t flat = 0;
  ForEachIndex(x.dims, [&](const Dims& idx) {
    int64_t o = 0;
    for (int64_t k = 0; k < rank; ++k) {
      if (!reduced[k]) o += idx[k] * ks[k];
    }
    T g = dy.r()[o];
    if (kOp == RedG::kMean) g /= static_cast<T>(count);
    if ((kOp == RedG::kMax || kOp == RedG::kMin) && x.r()[flat] != y.r()[o]) g = 0;
    dx.r()[flat++] = g;
  });
  c.SetOutput(0, std::move(dx));
}

template <typename T>
void ReduceSumGradient(OpContext<T>& c) {
  ReduceGradient<T, RedG::kSum>(c);
}
template <typename T>
void ReduceMeanGradient(OpContext<T>& c) {
  ReduceGradient<T, RedG::kMean>(c);
}
template <typename T>
void ReduceMaxGradient(OpContext<T>& c) {
  ReduceGradient<T, RedG::kMax>(c);
}
template <typename T>
void ReduceMinGradient(OpContext<T>& c) {
  ReduceGradient<T, RedG::kMin>(c);
}

// TileGradient(dY[, tiles, axis]) -> dX: the `tiles` copies along `axis` summed.
template <typename T>
void TileGradient(OpContext<T>& c) {
  const Value<T>& dy = c.RealInput(0);
  int64_t tiles = c.args.Int("tiles"), axis = c.args.Int("axis");
  if (c.InputSize() > 1) tiles = IntValues(c, 1).at(0);
  if (c.InputSize() > 2) axis = IntValues(c, 2).at(0);
  axis = CanonicalAxis(axis, dy.dims.size());
  PARITY_ENFORCE(tiles > 0 && dy.dims[axis] % tiles == 0, ErrorKind::kShapeMismatch, "dimension ",
                 axis, " of dY ", ShapeString(dy.dims), " is not a multiple of ", tiles, " tiles");
  Dims xdims = dy.dims;
  xdims[axis] /= tiles;
  const int64_t outer = SizeToDim(xdims, axis), block = SizeFromDim(xdims, axis);
  Value<T> dx = c.NewReal(xdims);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t t = 0; t < tiles; ++t)
      for (int64_t j = 0; j < block; ++j) {
        dx.r()[o * block + j] += dy.r()[(o * tiles + t) * block + j];
      }
  c.SetOutput(0, std::move(dx));
}

}  // namespace

void RegisterGradientOps(Registry* r) {
  r->Add({"ReluGradient", 2, 2, 1, 1, {}, PARITY_REF_KERNEL(ReluGradient)}).inplace = {{1, 0}};
  r->Add(
       {"LeakyReluGradient", 2, 2, 1, 1, {{"alpha", "0.01"}}, PARITY_REF_KERNEL(LeakyReluGradient)})
      .inplace = {{1, 0}};
  r->Add({"EluGradient", 2, 2, 1, 1, {{"alpha", "1.0"}}, PARITY_REF_KERNEL(EluGradient)})
      .inplace = {{1, 0}};
  r->Add({"SigmoidGradient", 2, 2, 1, 1, {}, PARITY_REF_KERNEL(SigmoidGradient)}).inplace = {
      {1, 0}};
  r->Add({"TanhGradient", 2, 2, 1, 1, {}, PARITY_REF_KERNEL(TanhGradient)}).inplace = {{1, 0}};
  r->Add({"SoftsignGradient", 2, 2, 1, 1, {}, PARITY_REF_KERNEL(SoftsignGradient)}).inplace = {
      {1, 0}};
  r->Add({"AbsGradient", 2, 2, 1, 1, {}, PARITY_REF_KERNEL(AbsGradient)}).inplace = {{1, 0}};
  r->Add({"ReciprocalGradient", 2, 2, 1, 1, {}, PARITY_REF_KERNEL(ReciprocalGradient)}).inplace = {
      {1, 0}};
  r->Add({"SinGradient", 2, 2, 1, 1, {}, PARITY_REF_KERNEL(SinGradient)}).inplace = {{1, 0}};
  r->Add({"CosGradient", 2, 2, 1, 1, {}, PARITY_REF_KERNEL(CosGradient)}).inplace = {{1, 0}};
  r->Add({"ClipGradient",
          2,
          2,
          1,
          1,
          {{"min", "-3.4028234663852886e+38"}, {"max", "3.4028234663852886e+38"}},
          PARITY_REF_KERNEL(ClipGradient)})
      .inplace = {{1, 0}};
  r->Add({"MaxGradient", 3, -1, 1, -1, {}, PARITY_REF_KERNEL(SelectGradient)});
  r->Add({"MinGradient", 3, -1, 1, -1, {}, PARITY_REF_KERNEL(SelectGradient)});
  const ArgTable fc_args = {{"axis", "1"}, {"axis_w", "1"}};
  r->Add({"FCGradient", 3, 3, 2, 3, fc_args, PARITY_REF_KERNEL(FCGradient)});
  r->Add({"AddGradient", 3, 3, 1, 2, BinaryArgs(), PARITY_REF_KERNEL(AddGradient)}).inplace = {
      {0, 0}, {0, 1}};
  r->Add({"SubGradient", 3, 3, 1, 2, BinaryArgs(), PARITY_REF_KERNEL(SubGradient)}).inplace = {
      {0, 0}, {0, 1}};
  r->Add({"MulGradient", 3, 3, 1, 2, BinaryArgs(), PARITY_REF_KERNEL(MulGradient)}).inplace = {
      {0, 0}, {0, 1}};
  r->Add({"DivGradient", 3, 4, 1, 2, BinaryArgs(), PARITY_REF_KERNEL(DivGradient)}).inplace = {
      {0, 0}};
  const ArgTable red = {{"axes", "[]"}, {"keepdims", "1"}};
  r->Add({"ReduceSumGradient", 3, 3, 1, 1, red, PARITY_REF_KERNEL(ReduceSumGradient)});
  r->Add({"ReduceMeanGradient", 3, 3, 1, 1, red, PARITY_REF_KERNEL(ReduceMeanGradient)});
  r->Add({"ReduceMaxGradient", 3, 3, 1, 1, red, PARITY_REF_KERNEL(ReduceMaxGradient)});
  r->Add({"ReduceMinGradient", 3, 3, 1, 1, red, PARITY_REF_KERNEL(ReduceMinGradient)});
  r->Add({"TileGradient",
          1,
          3,
          1,
          1,
          {{"tiles", "1"}, {"axis", "0"}},
          PARITY_REF_KERNEL(TileGradient)});
  r->Add({"FCTransposedGradient", 3, 3, 2, 3, fc_args, PARITY_REF_KERNEL(FCTransposedGradient)});
}

PARITY_REFERENCE_FAMILY(RegisterGradientOps);

}  // namespace parity::reference
