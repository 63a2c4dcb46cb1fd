// Gradient kernels of the elementwise family: Max/Min (select), the broadcasting arithmetic ops,
// Mod and Where.
// Conventions are Caffe2's and are tabulated in interpreter.h.
#include <cmath>

#include "reference/ops/util.h"

namespace parity::reference {
namespace {

// MaxGradient / MinGradient(Y, dY, X0, X1, ...) -> (dX0, dX1, ...): every input equal to the
// selected value gets dY (ties all receive it, as Caffe2's SelectGradient does), summed over the
// copies of an input the forward op broadcast.
template <typename T>
void SelectGradient(OpContext<T>& c) {
  const Value<T>& y = c.RealInput(0);
  const Value<T>& dy = c.RealInput(1);
  RequireSameShape(c, y, dy, 1);
  PARITY_ENFORCE(c.OutputSize() == c.InputSize() - 2, ErrorKind::kBadArgument,
                 "one gradient output per forward input expected");
  for (int i = 2; i < c.InputSize(); ++i) {
    const Value<T>& x = c.RealInput(i);
    // An input Max broadcast (numpy rules) gets dY summed over its copies.
    const Broadcast m = NumpyBroadcast(x.dims, y.dims);
    PARITY_ENFORCE(m.dims == y.dims, ErrorKind::kShapeMismatch, Describe(c, i),
                   " does not broadcast to Y ", ShapeString(y.dims));
    Value<T> dx = c.NewReal(x.dims);
    for (size_t k = 0; k < m.a.size(); ++k) {
      if (x.r()[m.a[k]] == y.r()[k]) dx.r()[m.a[k]] += dy.r()[k];
    }
    c.SetOutput(i - 2, std::move(dx));
  }
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

// PowGradient(dY, X, Y) -> dX with the `exponent` argument e: dX = dY * e * X^(e-1) (0 for
// e = 0). PowGradient(dY, X, E, Y) -> (dX, dE) with the exponent as a broadcast input:
// dX = dY * E * X^(E-1) and dE = dY * Y * ln X, each summed over the broadcast copies of its
// input (ln X is NaN below 0 and -inf at 0, as the math says).
template <typename T>
void PowGradient(OpContext<T>& c) {
  const Value<T>& dy = c.RealInput(0);
  const Value<T>& x = c.RealInput(1);
  if (c.InputSize() == 3) {
    PARITY_ENFORCE(c.OutputSize() == 1 && c.args.Has("exponent"), ErrorKind::kBadArgument,
                   "(dY, X, Y) -> dX needs the 'exponent' argument and one output");
    const Value<T>& y = c.RealInput(2);
    RequireShape(c, dy, 0, x.dims);
    RequireShape(c, y, 2, x.dims);
    const T e = static_cast<T>(c.args.Float("exponent"));
    Value<T> dx = c.NewReal(x.dims);
    for (int64_t k = 0; k < x.size(); ++k) {
      dx.r()[k] = e == T(0) ? T(0) : dy.r()[k] * e * std::pow(x.r()[k], e - T(1));
    }
    c.SetOutput(0, std::move(dx));
    return;
  }
  PARITY_ENFORCE(c.OutputSize() == 2 && !c.args.Has("exponent"), ErrorKind::kBadArgument,
                 "(dY, X, E, Y) -> (dX, dE) takes no 'exponent' argument and has two outputs");
  const Value<T>& e = c.RealInput(2);
  const Value<T>& y = c.RealInput(3);
  const Broadcast m = BinaryMap(c, x, e);
  RequireShape(c, dy, 0, m.dims);
  RequireShape(c, y, 3, m.dims);
  Value<T> dx = c.NewReal(x.dims), de = c.NewReal(e.dims);
  for (size_t k = 0; k < m.a.size(); ++k) {
    const T xv = x.r()[m.a[k]], ev = e.r()[m.b[k]], g = dy.r()[k];
    dx.r()[m.a[k]] += ev == T(0) ? T(0) : g * ev * std::pow(xv, ev - T(1));
    de.r()[m.b[k]] += g * y.r()[k] * std::log(xv);
  }
  c.SetOutput(0, std::move(dx));
  c.SetOutput(1, std::move(de));
}

// MeanGradient(dY) -> (dX0, ..., dXn-1): the mean of n inputs passes dY / n to each.
template <typename T>
void MeanGradient(OpContext<T>& c) {
  const Value<T>& dy = c.RealInput(0);
  const T n = static_cast<T>(c.OutputSize());
  for (int i = 0; i < c.OutputSize(); ++i) {
    Value<T> dx = c.NewReal(dy.dims);
    for (int64_t k = 0; k < dy.size(); ++k) dx.r()[k] = dy.r()[k] / n;
    c.SetOutput(i, std::move(dx));
  }
}

// ModGradient(dC, A, B, C) -> (dA, dB): A mod B = A - q * B with q = trunc(A / B), or floor(A / B)
// with sign_follow_divisor, so dA = dC and dB = -dC * q, summed over broadcast copies. (C, the
// forward output, is checked for its dims only: q comes from the definition.)
template <typename T>
void ModGradient(OpContext<T>& c) {
  const Value<T>& dc = c.RealInput(0);
  const Value<T>& a = c.RealInput(1);
  const Value<T>& b = c.RealInput(2);
  const Broadcast m = BinaryMap(c, a, b);
  RequireShape(c, dc, 0, m.dims);
  RequireShape(c, c.RealInput(3), 3, m.dims);
  const bool floored = c.args.Bool("sign_follow_divisor");
  Value<T> da = c.NewReal(a.dims), db = c.NewReal(b.dims);
  for (size_t k = 0; k < m.a.size(); ++k) {
    const T ratio = a.r()[m.a[k]] / b.r()[m.b[k]];
    const T q = floored ? std::floor(ratio) : std::trunc(ratio);
    da.r()[m.a[k]] += dc.r()[k];
    db.r()[m.b[k]] -= dc.r()[k] * q;
  }
  c.SetOutput(0, std::move(da));
  if (c.OutputSize() > 1) c.SetOutput(1, std::move(db));
}

// WhereGradient(C, X, Y, dZ) -> (dX, dY): dZ where C holds added to X's element it read, elsewhere
// to Y's, so each gradient has its input's shape (X and Y are read for their dims).
template <typename T>
void WhereGradient(OpContext<T>& c) {
  const Value<T>& cond = c.Input(0);
  const WhereMap m = MapWhere(c);
  const Value<T>& dz = c.RealInput(3);
  RequireShape(c, dz, 3, m.dims);
  Value<T> dx = c.NewReal(c.Input(1).dims), dy = c.NewReal(c.Input(2).dims);
  for (size_t k = 0; k < m.c.size(); ++k) {
    if (cond.i()[m.c[k]] != 0) {
      dx.r()[m.x[k]] += dz.r()[k];
    } else {
      dy.r()[m.y[k]] += dz.r()[k];
    }
  }
  c.SetOutput(0, std::move(dx));
  c.SetOutput(1, std::move(dy));
}

}  // namespace

void RegisterElementwiseGradientOps(Registry* r) {
  ArgTable mod_args = BinaryArgs();
  mod_args.push_back({"sign_follow_divisor", "0"});
  r->Add({"ModGradient", 4, 4, 1, 2, mod_args, PARITY_REF_KERNEL(ModGradient)}).inplace = {{0, 0}};
  r->Add({"WhereGradient", 4, 4, 2, 2, {{"broadcast_on_rows", "0"}},
          PARITY_REF_KERNEL(WhereGradient)});
  r->Add({"MaxGradient", 3, -1, 1, -1, {}, PARITY_REF_KERNEL(SelectGradient)});
  ArgTable pow_args = BinaryArgs();
  pow_args.push_back({"exponent", ""});
  r->Add({"PowGradient", 3, 4, 1, 2, pow_args, PARITY_REF_KERNEL(PowGradient)}).inplace = {{0, 0}};
  r->Add({"MeanGradient", 1, 1, 1, -1, {}, PARITY_REF_KERNEL(MeanGradient)}).inplace = {{0, 0}};
  r->Add({"MinGradient", 3, -1, 1, -1, {}, PARITY_REF_KERNEL(SelectGradient)});
  r->Add({"AddGradient", 3, 3, 1, 2, BinaryArgs(), PARITY_REF_KERNEL(AddGradient)}).inplace = {
      {0, 0}, {0, 1}};
  r->Add({"SubGradient", 3, 3, 1, 2, BinaryArgs(), PARITY_REF_KERNEL(SubGradient)}).inplace = {
      {0, 0}, {0, 1}};
  r->Add({"MulGradient", 3, 3, 1, 2, BinaryArgs(), PARITY_REF_KERNEL(MulGradient)}).inplace = {
      {0, 0}, {0, 1}};
  r->Add({"DivGradient", 3, 4, 1, 2, BinaryArgs(), PARITY_REF_KERNEL(DivGradient)}).inplace = {
      {0, 0}};
}

PARITY_REFERENCE_FAMILY(RegisterElementwiseGradientOps);

}  // namespace parity::reference
