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
  PARITY_ENFORCE(dy.size() == M * N, ErrorKind::kShapeMismatch, Describe(c, 2), " must hold ",
                 M, "x", N, " values");
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
void FCGradient(OpContext<T>& c) { FcGradientKernel<T, false>(c); }
template <typename T>
void FCTransposedGradient(OpContext<T>& c) { FcGradientKernel<T, true>(c); }

}  // namespace

void RegisterGradientOps(Registry* r) {
  r->Add({"ReluGradient", 2, 2, 1, 1, {}, PARITY_REF_KERNEL(ReluGradient)});
  r->Add({"LeakyReluGradient", 2, 2, 1, 1, {{"alpha", "0.01"}},
          PARITY_REF_KERNEL(LeakyReluGradient)});
  r->Add({"EluGradient", 2, 2, 1, 1, {{"alpha", "1.0"}}, PARITY_REF_KERNEL(EluGradient)});
  r->Add({"SigmoidGradient", 2, 2, 1, 1, {}, PARITY_REF_KERNEL(SigmoidGradient)});
  r->Add({"TanhGradient", 2, 2, 1, 1, {}, PARITY_REF_KERNEL(TanhGradient)});
  r->Add({"SoftsignGradient", 2, 2, 1, 1, {}, PARITY_REF_KERNEL(SoftsignGradient)});
  r->Add({"AbsGradient", 2, 2, 1, 1, {}, PARITY_REF_KERNEL(AbsGradient)});
  r->Add({"ReciprocalGradient", 2, 2, 1, 1, {}, PARITY_REF_KERNEL(ReciprocalGradient)});
  r->Add({"SinGradient", 2, 2, 1, 1, {}, PARITY_REF_KERNEL(SinGradient)});
  r->Add({"CosGradient", 2, 2, 1, 1, {}, PARITY_REF_KERNEL(CosGradient)});
  r->Add({"ClipGradient", 2, 2, 1, 1,
          {{"min", "-3.4028234663852886e+38"}, {"max", "3.4028234663852886e+38"}},
          PARITY_REF_KERNEL(ClipGradient)});
  r->Add({"MaxGradient", 3, -1, 1, -1, {}, PARITY_REF_KERNEL(SelectGradient)});
  r->Add({"MinGradient", 3, -1, 1, -1, {}, PARITY_REF_KERNEL(SelectGradient)});
  const ArgTable fc_args = {{"axis", "1"}, {"axis_w", "1"}, {"float16_compute", "0"}};
  r->Add({"FCGradient", 3, 3, 2, 3, fc_args, PARITY_REF_KERNEL(FCGradient)});
  r->Add({"FCTransposedGradient", 3, 3, 2, 3, fc_args, PARITY_REF_KERNEL(FCTransposedGradient)});
}

}  // namespace parity::reference
