// Elementwise binary and variadic ops: Add Sub Mul Div Pow, LT LE GT GE EQ NE, And Or Xor Not,
// Max Min Sum Mean, Mod, Where.
//
// Binary ops broadcast as numpy does unless `broadcast=1`, which selects Caffe2's legacy form
// (B matched against A's dims from `axis`, or from the position of `axis_str` in `order`).
// Arithmetic keeps its input dtype: floating or any integer dtype (Caffe2's NumericTypes were
// floating, int32 and int64; ONNX adds int8, int16, uint8, uint16); integer results are computed
// exactly in int64 and wrapped to the dtype's width, as two's-complement arithmetic (and numpy)
// do, and integer division truncates toward zero (a zero divisor is an error: it is undefined
// behaviour in C++, so no ground truth exists). Pow on int32 / int64 is the exact power wrapped
// likewise; a negative integer exponent is an error, as in numpy (the result is no integer).
#include <algorithm>
#include <cmath>

#include "reference/ops/util.h"

namespace parity::reference {
namespace {

enum class Arith { kAdd, kSub, kMul, kDiv };

int64_t IntArith(Arith op, int64_t x, int64_t y) {
  const uint64_t ux = static_cast<uint64_t>(x), uy = static_cast<uint64_t>(y);
  switch (op) {
    case Arith::kAdd:
      return static_cast<int64_t>(ux + uy);
    case Arith::kSub:
      return static_cast<int64_t>(ux - uy);
    case Arith::kMul:
      return static_cast<int64_t>(ux * uy);
    case Arith::kDiv:
      PARITY_ENFORCE(y != 0, ErrorKind::kBadArgument, "integer division by zero");
      if (y == -1) return static_cast<int64_t>(uint64_t{0} - ux);  // INT64_MIN / -1 wraps.
      return x / y;
  }
  return 0;
}

template <typename T>
T RealArith(Arith op, T x, T y) {
  switch (op) {
    case Arith::kAdd:
      return x + y;
    case Arith::kSub:
      return x - y;
    case Arith::kMul:
      return x * y;
    case Arith::kDiv:
      return x / y;
  }
  return 0;
}

template <typename T, Arith kOp>
void ArithKernel(OpContext<T>& c) {
  const Value<T>& a = c.Input(0);
  const Value<T>& b = c.Input(1);
  RequireSameDtype(c, a, b, 1);
  PARITY_ENFORCE(a.dtype != DType::kBool, ErrorKind::kShapeMismatch,
                 "arithmetic needs floating or integer inputs, got ", Describe(c, 0));
  const Broadcast m = BinaryMap(c, a, b);
  RequireInPlaceKeepsShape(c, m.dims);
  Value<T> y = c.NewTensor(a.dtype, m.dims);
  for (size_t k = 0; k < m.a.size(); ++k) {
    if (a.is_real()) {
      y.r()[k] = RealArith(kOp, a.r()[m.a[k]], b.r()[m.b[k]]);
    } else {
      y.i()[k] = WrapInt(a.dtype, IntArith(kOp, a.i()[m.a[k]], b.i()[m.b[k]]));
    }
  }
  c.SetOutput(0, std::move(y));
}

template <typename T>
void Add(OpContext<T>& c) {
  ArithKernel<T, Arith::kAdd>(c);
}
template <typename T>
void Sub(OpContext<T>& c) {
  ArithKernel<T, Arith::kSub>(c);
}
template <typename T>
void Mul(OpContext<T>& c) {
  ArithKernel<T, Arith::kMul>(c);
}
template <typename T>
void Div(OpContext<T>& c) {
  ArithKernel<T, Arith::kDiv>(c);
}

// x^e for integers, e >= 0, wrapped to the dtype's width: the low 64 bits of the exact power by
// binary exponentiation in uint64 (exponents reach 2^63, too many for e multiplications), then
// wrapped to the dtype (the low bits of a product depend only on the low bits of its factors).
int64_t IntPow(DType dtype, int64_t x, int64_t e) {
  PARITY_ENFORCE(e >= 0, ErrorKind::kBadArgument, "Pow: integer ", x,
                 " to the negative integer power ", e, " (numpy refuses it too)");
  uint64_t result = 1, power = static_cast<uint64_t>(x);
  for (uint64_t bits = static_cast<uint64_t>(e); bits != 0; bits >>= 1) {
    if (bits & 1) result *= power;
    power *= power;
  }
  return WrapInt(dtype, static_cast<int64_t>(result));
}

// Pow: the exponent is the second input (broadcast like the other binary ops) or the `exponent`
// argument, never both. Integer bases (int32, int64) take an exponent input of their dtype.
template <typename T>
void Pow(OpContext<T>& c) {
  const Value<T>& in0 = c.Input(0);
  if (c.InputSize() == 2 && (in0.dtype == DType::kInt32 || in0.dtype == DType::kInt64)) {
    PARITY_ENFORCE(!c.args.Has("exponent"), ErrorKind::kBadArgument,
                   "Pow takes the exponent from input 1 or the 'exponent' argument, not both");
    const Value<T>& e = c.Input(1);
    RequireSameDtype(c, in0, e, 1);
    const Broadcast m = BinaryMap(c, in0, e);
    RequireInPlaceKeepsShape(c, m.dims);
    Value<T> y = c.NewTensor(in0.dtype, m.dims);
    for (size_t k = 0; k < m.a.size(); ++k) {
      y.i()[k] = IntPow(in0.dtype, in0.i()[m.a[k]], e.i()[m.b[k]]);
    }
    c.SetOutput(0, std::move(y));
    return;
  }
  const Value<T>& x = c.RealInput(0);
  if (c.InputSize() == 1) {
    PARITY_ENFORCE(c.args.Has("exponent"), ErrorKind::kBadArgument,
                   "Pow with one input needs the 'exponent' argument");
    const T e = static_cast<T>(c.args.Float("exponent"));
    Value<T> y = c.NewReal(x.dims);
    for (int64_t k = 0; k < x.size(); ++k) y.r()[k] = std::pow(x.r()[k], e);
    c.SetOutput(0, std::move(y));
    return;
  }
  PARITY_ENFORCE(!c.args.Has("exponent"), ErrorKind::kBadArgument,
                 "Pow takes the exponent from input 1 or the 'exponent' argument, not both");
  const Value<T>& e = c.RealInput(1);
  const Broadcast m = BinaryMap(c, x, e);
  RequireInPlaceKeepsShape(c, m.dims);
  Value<T> y = c.NewReal(m.dims);
  for (size_t k = 0; k < m.a.size(); ++k) y.r()[k] = std::pow(x.r()[m.a[k]], e.r()[m.b[k]]);
  c.SetOutput(0, std::move(y));
}

enum class Cmp { kLT, kLE, kGT, kGE, kEQ, kNE };

template <typename V>
bool Compare(Cmp op, V x, V y) {
  switch (op) {
    case Cmp::kLT:
      return x < y;
    case Cmp::kLE:
      return x <= y;
    case Cmp::kGT:
      return x > y;
    case Cmp::kGE:
      return x >= y;
    case Cmp::kEQ:
      return x == y;
    case Cmp::kNE:
      return x != y;
  }
  return false;
}

template <typename T, Cmp kOp>
void CompareKernel(OpContext<T>& c) {
  const Value<T>& a = c.Input(0);
  const Value<T>& b = c.Input(1);
  RequireSameDtype(c, a, b, 1);
  PARITY_ENFORCE(a.is_real() || a.dtype == DType::kBool || a.dtype == DType::kInt32 ||
                     a.dtype == DType::kInt64,
                 ErrorKind::kShapeMismatch, "comparison needs bool, int32, int64 or float, got ",
                 Describe(c, 0));
  const Broadcast m = BinaryMap(c, a, b);
  RequireInPlaceKeepsShape(c, m.dims);
  Value<T> y = c.NewTensor(DType::kBool, m.dims);
  for (size_t k = 0; k < m.a.size(); ++k) {
    y.i()[k] = a.is_real() ? Compare(kOp, a.r()[m.a[k]], b.r()[m.b[k]])
                           : Compare(kOp, a.i()[m.a[k]], b.i()[m.b[k]]);
  }
  c.SetOutput(0, std::move(y));
}

template <typename T>
void LT(OpContext<T>& c) {
  CompareKernel<T, Cmp::kLT>(c);
}
template <typename T>
void LE(OpContext<T>& c) {
  CompareKernel<T, Cmp::kLE>(c);
}
template <typename T>
void GT(OpContext<T>& c) {
  CompareKernel<T, Cmp::kGT>(c);
}
template <typename T>
void GE(OpContext<T>& c) {
  CompareKernel<T, Cmp::kGE>(c);
}
template <typename T>
void EQ(OpContext<T>& c) {
  CompareKernel<T, Cmp::kEQ>(c);
}
template <typename T>
void NE(OpContext<T>& c) {
  CompareKernel<T, Cmp::kNE>(c);
}

enum class Logic { kAnd, kOr, kXor };

template <typename T, Logic kOp>
void LogicKernel(OpContext<T>& c) {
  const Value<T>& a = c.Input(0);
  const Value<T>& b = c.Input(1);
  PARITY_ENFORCE(a.dtype == DType::kBool && b.dtype == DType::kBool, ErrorKind::kShapeMismatch,
                 "logical ops need bool inputs: ", Describe(c, 0), ", ", Describe(c, 1));
  const Broadcast m = BinaryMap(c, a, b);
  RequireInPlaceKeepsShape(c, m.dims);
  Value<T> y = c.NewTensor(DType::kBool, m.dims);
  for (size_t k = 0; k < m.a.size(); ++k) {
    const bool x = a.i()[m.a[k]] != 0, z = b.i()[m.b[k]] != 0;
    y.i()[k] = kOp == Logic::kAnd ? (x && z) : kOp == Logic::kOr ? (x || z) : (x != z);
  }
  c.SetOutput(0, std::move(y));
}

template <typename T>
void And(OpContext<T>& c) {
  LogicKernel<T, Logic::kAnd>(c);
}
template <typename T>
void Or(OpContext<T>& c) {
  LogicKernel<T, Logic::kOr>(c);
}
template <typename T>
void Xor(OpContext<T>& c) {
  LogicKernel<T, Logic::kXor>(c);
}

template <typename T>
void Not(OpContext<T>& c) {
  const Value<T>& a = c.Input(0);
  PARITY_ENFORCE(a.dtype == DType::kBool, ErrorKind::kShapeMismatch, "Not needs a bool input, got ",
                 Describe(c, 0));
  Value<T> y = c.NewTensor(DType::kBool, a.dims);
  for (int64_t k = 0; k < a.size(); ++k) y.i()[k] = !a.i()[k];
  c.SetOutput(0, std::move(y));
}

// Variadic ops: every input has input 0's shape and dtype (no broadcasting, as Caffe2).
enum class Fold { kSum, kMean, kMax, kMin };

template <typename T, Fold kOp>
void FoldKernel(OpContext<T>& c) {
  const Value<T>& a = c.Input(0);
  if (kOp == Fold::kMean) c.RealInput(0);
  // Max / Min take every integer dtype (ONNX's); Sum keeps Caffe2's float, int32, int64.
  if (kOp == Fold::kSum) {
    PARITY_ENFORCE(a.is_real() || a.dtype == DType::kInt32 || a.dtype == DType::kInt64,
                   ErrorKind::kShapeMismatch, "needs float, int32 or int64 inputs, got ",
                   Describe(c, 0));
  } else {
    PARITY_ENFORCE(a.dtype != DType::kBool, ErrorKind::kShapeMismatch,
                   "needs floating or integer inputs, got ", Describe(c, 0));
  }
  Value<T> y = a.Clone();
  for (int i = 1; i < c.InputSize(); ++i) {
    const Value<T>& b = c.Input(i);
    RequireSameDtype(c, a, b, i);
    // Max and Min broadcast as numpy's maximum / minimum (production's choice; where Caffe2
    // accepts the inputs, equal shapes, it is the same); Sum and Mean take one shape.
    constexpr bool kBroadcasts = kOp == Fold::kMax || kOp == Fold::kMin;
    Broadcast m;
    if constexpr (kBroadcasts) {
      m = NumpyBroadcast(y.dims, b.dims);
      c.CheckAlloc(m.dims);
      Value<T> wide = c.NewTensor(y.dtype, m.dims);
      for (size_t k = 0; k < m.a.size(); ++k) {
        if (y.is_real()) {
          wide.r()[k] = y.r()[m.a[k]];
        } else {
          wide.i()[k] = y.i()[m.a[k]];
        }
      }
      y = std::move(wide);
    } else {
      RequireSameShape(c, a, b, i);
    }
    for (int64_t k = 0; k < y.size(); ++k) {
      const int64_t j = kBroadcasts ? m.b[k] : k;  // b's element under y's element k
      if (a.is_real()) {
        T& acc = y.r()[k];
        const T x = b.r()[j];
        // NaN propagates through Max/Min (std::max would keep the first operand).
        if (kOp == Fold::kMax)
          acc = (std::isnan(acc) || std::isnan(x)) ? NAN : std::max(acc, x);
        else if (kOp == Fold::kMin)
          acc = (std::isnan(acc) || std::isnan(x)) ? NAN : std::min(acc, x);
        else
          acc += x;
      } else {
        int64_t& acc = y.i()[k];
        const int64_t x = b.i()[j];
        if (kOp == Fold::kMax)
          acc = std::max(acc, x);
        else if (kOp == Fold::kMin)
          acc = std::min(acc, x);
        else
          acc = WrapInt(a.dtype, IntArith(Arith::kAdd, acc, x));
      }
    }
  }
  if (kOp == Fold::kMean) {
    for (T& v : y.r()) v /= static_cast<T>(c.InputSize());
  }
  c.SetOutput(0, std::move(y));
}

template <typename T>
void Sum(OpContext<T>& c) {
  FoldKernel<T, Fold::kSum>(c);
}
template <typename T>
void Mean(OpContext<T>& c) {
  FoldKernel<T, Fold::kMean>(c);
}
template <typename T>
void Max(OpContext<T>& c) {
  FoldKernel<T, Fold::kMax>(c);
}
template <typename T>
void Min(OpContext<T>& c) {
  FoldKernel<T, Fold::kMin>(c);
}

// Mod: the remainder of A / B (B input 1, broadcast numpy-style, or the `divisor` argument), with
// A's sign (C's %, std::fmod) or, with sign_follow_divisor, B's (Python's %). Integers exactly in
// int64 (x % -1 is 0); an integer divisor of 0 is an error.
template <typename T>
void Mod(OpContext<T>& c) {
  const Value<T>& a = c.Input(0);
  PARITY_ENFORCE(a.dtype != DType::kBool, ErrorKind::kShapeMismatch, "Mod needs numbers, got ",
                 Describe(c, 0));
  Value<T> divisor;
  const Value<T>* b = nullptr;
  if (c.InputSize() == 2) {
    PARITY_ENFORCE(!c.args.Has("divisor"), ErrorKind::kBadArgument,
                   "divisor given both as input 1 and as argument 'divisor'");
    b = &c.Input(1);
    RequireSameDtype(c, a, *b, 1);
  } else {
    PARITY_ENFORCE(c.args.Has("divisor") && c.args.Int("divisor") != 0, ErrorKind::kBadArgument,
                   "one input needs a non-zero argument 'divisor'");
    divisor = c.NewTensor(a.dtype, {});
    if (a.is_real()) {
      divisor.r()[0] = static_cast<T>(c.args.Int("divisor"));
    } else {
      divisor.i()[0] = WrapInt(a.dtype, c.args.Int("divisor"));
    }
    b = &divisor;
  }
  const bool python = c.args.Bool("sign_follow_divisor");
  const Broadcast m = NumpyBroadcast(a.dims, b->dims);
  c.CheckAlloc(m.dims);
  RequireInPlaceKeepsShape(c, m.dims);
  Value<T> y = c.NewTensor(a.dtype, m.dims);
  for (size_t k = 0; k < m.a.size(); ++k) {
    if (a.is_real()) {
      const T x = a.r()[m.a[k]], d = b->r()[m.b[k]];
      T r = std::fmod(x, d);
      if (python && r != 0 && ((r < 0) != (d < 0))) r += d;
      y.r()[k] = r;
    } else {
      const int64_t x = a.i()[m.a[k]], d = b->i()[m.b[k]];
      PARITY_ENFORCE(d != 0, ErrorKind::kBadArgument, "integer modulo by zero (element ", m.b[k],
                     " of B)");
      int64_t r = d == -1 ? 0 : x % d;
      if (python && r != 0 && ((r < 0) != (d < 0))) r += d;
      y.i()[k] = WrapInt(a.dtype, r);
    }
  }
  c.SetOutput(0, std::move(y));
}

// Where: Z = C ? X : Y per element of the broadcast (MapWhere), in X's dtype.
template <typename T>
void Where(OpContext<T>& c) {
  const Value<T>& cond = c.Input(0);
  const Value<T>& x = c.Input(1);
  const Value<T>& y = c.Input(2);
  const WhereMap m = MapWhere(c);
  Value<T> z = c.NewTensor(x.dtype, m.dims);
  for (size_t k = 0; k < m.c.size(); ++k) {
    if (cond.i()[m.c[k]] != 0) {
      z.CopyElem(k, x, m.x[k]);
    } else {
      z.CopyElem(k, y, m.y[k]);
    }
  }
  c.SetOutput(0, std::move(z));
}

}  // namespace

void RegisterElementwiseOps(Registry* r) {
  r->Add({"Mod", 1, 2, 1, 1, {{"divisor", ""}, {"sign_follow_divisor", "0"}},
          PARITY_REF_KERNEL(Mod)})
      .inplace = {{0, 0}};
  r->Add({"Where", 3, 3, 1, 1, {{"broadcast_on_rows", "0"}}, PARITY_REF_KERNEL(Where)});
  r->Add({"Add", 2, 2, 1, 1, BinaryArgs(), PARITY_REF_KERNEL(Add)}).inplace = {{0, 0}, {1, 0}};
  r->Add({"Sub", 2, 2, 1, 1, BinaryArgs(), PARITY_REF_KERNEL(Sub)}).inplace = {{0, 0}, {1, 0}};
  r->Add({"Mul", 2, 2, 1, 1, BinaryArgs(), PARITY_REF_KERNEL(Mul)}).inplace = {{0, 0}, {1, 0}};
  r->Add({"Div", 2, 2, 1, 1, BinaryArgs(), PARITY_REF_KERNEL(Div)}).inplace = {{0, 0}};
  ArgTable pow_args = BinaryArgs();
  pow_args.push_back({"exponent", ""});
  r->Add({"Pow", 1, 2, 1, 1, pow_args, PARITY_REF_KERNEL(Pow)}).inplace = {{0, 0}, {1, 0}};
  r->Add({"LT", 2, 2, 1, 1, BinaryArgs(), PARITY_REF_KERNEL(LT)});
  r->Add({"LE", 2, 2, 1, 1, BinaryArgs(), PARITY_REF_KERNEL(LE)});
  r->Add({"GT", 2, 2, 1, 1, BinaryArgs(), PARITY_REF_KERNEL(GT)});
  r->Add({"GE", 2, 2, 1, 1, BinaryArgs(), PARITY_REF_KERNEL(GE)});
  r->Add({"EQ", 2, 2, 1, 1, BinaryArgs(), PARITY_REF_KERNEL(EQ)});
  r->Add({"NE", 2, 2, 1, 1, BinaryArgs(), PARITY_REF_KERNEL(NE)});
  r->Add({"And", 2, 2, 1, 1, BinaryArgs(), PARITY_REF_KERNEL(And)}).inplace = {{0, 0}};
  r->Add({"Or", 2, 2, 1, 1, BinaryArgs(), PARITY_REF_KERNEL(Or)}).inplace = {{0, 0}};
  r->Add({"Xor", 2, 2, 1, 1, BinaryArgs(), PARITY_REF_KERNEL(Xor)}).inplace = {{0, 0}};
  r->Add({"Not", 1, 1, 1, 1, {}, PARITY_REF_KERNEL(Not)});
  r->Add({"Sum", 1, -1, 1, 1, {}, PARITY_REF_KERNEL(Sum)}).inplace = {{0, 0}};
  r->Add({"Mean", 1, -1, 1, 1, {}, PARITY_REF_KERNEL(Mean)}).inplace = {{0, 0}};
  r->Add({"Max", 1, -1, 1, 1, {}, PARITY_REF_KERNEL(Max)}).inplace = {{0, 0}};
  r->Add({"Min", 1, -1, 1, 1, {}, PARITY_REF_KERNEL(Min)}).inplace = {{0, 0}};
}

PARITY_REFERENCE_FAMILY(RegisterElementwiseOps);

}  // namespace parity::reference
