// Elementwise unary ops on floating tensors (Neg, Abs, Clip, Cast and StopGradient also take
// integers).
// NaN inputs propagate to NaN outputs everywhere (Relu/Clip included): the ground truth keeps
// a NaN visible rather than depending on how a max() happens to order its operands.
#include <cmath>
#include <limits>
#include <utility>

#include "reference/ops/util.h"

namespace parity::reference {
namespace {

template <typename T>
void Relu(OpContext<T>& c) {
  UnaryReal(c, [](T x) { return ReluValue(x); });
}

template <typename T>
void LeakyRelu(OpContext<T>& c) {
  const T alpha = static_cast<T>(c.args.Float("alpha"));
  UnaryReal(c, [alpha](T x) { return x > 0 ? x : alpha * x; });
}

template <typename T>
void Elu(OpContext<T>& c) {
  const T alpha = static_cast<T>(c.args.Float("alpha"));
  UnaryReal(c, [alpha](T x) { return x > 0 ? x : alpha * (std::exp(x) - T(1)); });
}

template <typename T>
void SigmoidOp(OpContext<T>& c) {
  UnaryReal(c, [](T x) { return Sigmoid(x); });
}

template <typename T>
void Tanh(OpContext<T>& c) {
  UnaryReal(c, [](T x) { return std::tanh(x); });
}

template <typename T>
void Softsign(OpContext<T>& c) {
  UnaryReal(c, [](T x) { return x / (T(1) + std::abs(x)); });
}

template <typename T>
void Exp(OpContext<T>& c) {
  UnaryReal(c, [](T x) { return std::exp(x); });
}

template <typename T>
void Log(OpContext<T>& c) {
  UnaryReal(c, [](T x) { return std::log(x); });
}

template <typename T>
void Sqrt(OpContext<T>& c) {
  UnaryReal(c, [](T x) { return std::sqrt(x); });
}

template <typename T>
void Sqr(OpContext<T>& c) {
  UnaryReal(c, [](T x) { return x * x; });
}

template <typename T>
void Reciprocal(OpContext<T>& c) {
  UnaryReal(c, [](T x) { return T(1) / x; });
}

template <typename T>
void Sin(OpContext<T>& c) {
  UnaryReal(c, [](T x) { return std::sin(x); });
}

template <typename T>
void Cos(OpContext<T>& c) {
  UnaryReal(c, [](T x) { return std::cos(x); });
}

// The ONNX-set math ops, each its C library function in T.
#define PARITY_REF_LIBM(Name, expr) \
  template <typename T>              \
  void Name(OpContext<T>& c) {       \
    UnaryReal(c, [](T x) { return expr; }); \
  }
PARITY_REF_LIBM(Tan, std::tan(x))
PARITY_REF_LIBM(Asin, std::asin(x))
PARITY_REF_LIBM(Acos, std::acos(x))
PARITY_REF_LIBM(Atan, std::atan(x))
PARITY_REF_LIBM(Sinh, std::sinh(x))
PARITY_REF_LIBM(Cosh, std::cosh(x))
PARITY_REF_LIBM(Asinh, std::asinh(x))
PARITY_REF_LIBM(Atanh, std::atanh(x))
PARITY_REF_LIBM(Erf, std::erf(x))
PARITY_REF_LIBM(Ceil, std::ceil(x))
PARITY_REF_LIBM(Floor, std::floor(x))
// Halves to even: x - floor(x) == 0.5 goes to the even neighbour.
PARITY_REF_LIBM(Round, (x - std::floor(x) == T(0.5)
                            ? (std::fmod(std::floor(x), T(2)) == 0 ? std::floor(x) : std::ceil(x))
                            : std::floor(x + T(0.5))))
PARITY_REF_LIBM(Sign, (x > 0 ? T(1) : (x < 0 ? T(-1) : x)))
#undef PARITY_REF_LIBM

// Neg and Abs also take int32/int64 (wrapping: -INT_MIN == INT_MIN, as two's complement).
template <typename T, bool kAbs>
void SignKernel(OpContext<T>& c) {
  const Value<T>& x = c.Input(0);
  if (x.is_real()) {
    UnaryReal(c, [](T v) { return kAbs ? std::abs(v) : -v; });
    return;
  }
  PARITY_ENFORCE(x.dtype == DType::kInt32 || x.dtype == DType::kInt64, ErrorKind::kShapeMismatch,
                 "needs float, int32 or int64, got ", Describe(c, 0));
  Value<T> y = c.NewTensor(x.dtype, x.dims);
  for (int64_t k = 0; k < x.size(); ++k) {
    const int64_t v = x.i()[k];
    const int64_t neg = static_cast<int64_t>(uint64_t{0} - static_cast<uint64_t>(v));
    y.i()[k] = WrapInt(x.dtype, kAbs ? (v < 0 ? neg : v) : neg);
  }
  c.SetOutput(0, std::move(y));
}

template <typename T>
void Neg(OpContext<T>& c) {
  SignKernel<T, false>(c);
}
template <typename T>
void Abs(OpContext<T>& c) {
  SignKernel<T, true>(c);
}

// The smallest and largest value of an integer dtype.
std::pair<int64_t, int64_t> IntLimits(DType dtype) {
  switch (dtype) {
    case DType::kInt8: return {-128, 127};
    case DType::kUInt8: return {0, 255};
    case DType::kInt16: return {-32768, 32767};
    case DType::kUInt16: return {0, 65535};
    case DType::kInt32: return {std::numeric_limits<int32_t>::min(),
                                std::numeric_limits<int32_t>::max()};
    default: return {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()};
  }
}

// An integer Clip's bound: the argument, a whole number, saturated to [lo, hi]; the limit
// itself when the argument is absent.
template <typename T>
int64_t IntBound(const OpContext<T>& c, const char* name, int64_t limit, int64_t lo, int64_t hi) {
  if (!c.args.Has(name)) return limit;
  const double v = c.args.Float(name);
  PARITY_ENFORCE(std::floor(v) == v, ErrorKind::kBadArgument, "argument '", name, "' = ", v,
                 " is not a whole number, but ", Describe(c, 0), " is an integer tensor");
  // Compared in double: lo and hi are exact there except int64's max, 2^63 - 1, which rounds to
  // 2^63, so `v >= hi` sends 2^63 itself to hi.
  if (v <= static_cast<double>(lo)) return lo;
  if (v >= static_cast<double>(hi)) return hi;
  return static_cast<int64_t>(v);
}

template <typename T>
void Clip(OpContext<T>& c) {
  // Caffe2's ClipOp computes min(max(x, min), max) without a check, which for min > max is `max`
  // everywhere: never what a net means, so both halves reject it as a bad argument instead.
  PARITY_ENFORCE(!(c.args.Float("min") > c.args.Float("max")), ErrorKind::kBadArgument,
                 "argument 'min' = ", c.args.Float("min"),
                 " is greater than 'max' = ", c.args.Float("max"));
  const Value<T>& x = c.Input(0);
  if (IsIntegral(x.dtype) && x.dtype != DType::kBool) {
    // ONNX's Clip on integers: whole-number bounds, saturated to the dtype (an int8 min of -1000
    // bounds nothing).
    const auto [lowest, highest] = IntLimits(x.dtype);
    const int64_t lo = IntBound(c, "min", lowest, lowest, highest);
    const int64_t hi = IntBound(c, "max", highest, lowest, highest);
    Value<T> y = c.NewTensor(x.dtype, x.dims);
    for (int64_t k = 0; k < x.size(); ++k) y.i()[k] = std::min(std::max(x.i()[k], lo), hi);
    c.SetOutput(0, std::move(y));
    return;
  }
  const T lo = static_cast<T>(c.args.Float("min"));
  const T hi = static_cast<T>(c.args.Float("max"));
  UnaryReal(c, [lo, hi](T x) { return std::isnan(x) ? x : (x < lo ? lo : (x > hi ? hi : x)); });
}

template <typename T>
void Scale(OpContext<T>& c) {
  const T s = static_cast<T>(c.args.Float("scale"));
  UnaryReal(c, [s](T x) { return x * s; });
}

template <typename T>
void StopGradient(OpContext<T>& c) {
  c.SetOutput(0, c.Input(0).Clone());
}

// Cast(to): `to` is a TensorProto.DataType number or its name ("FLOAT", "int32", ...).
template <typename T>
void Cast(OpContext<T>& c) {
  const Value<T>& x = c.Input(0);
  const caffe2::Argument* to_arg = c.args.Raw("to");
  PARITY_ENFORCE(to_arg != nullptr, ErrorKind::kBadArgument, "Cast needs the 'to' argument");
  int to = 0;
  if (to_arg->has_s()) {
    std::string name = to_arg->s();
    for (char& ch : name) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    caffe2::TensorProto::DataType parsed;
    PARITY_ENFORCE(caffe2::TensorProto::DataType_Parse(name, &parsed), ErrorKind::kBadArgument,
                   "Cast: unknown dtype name '", to_arg->s(), "'");
    to = parsed;
  } else {
    to = static_cast<int>(c.args.Int("to"));
  }
  DType out;
  PARITY_ENFORCE(DTypeFromProto(to, &out), ErrorKind::kBadArgument, "Cast to data type ", to,
                 " is not supported");
  Value<T> y = c.NewTensor(out, x.dims);
  for (int64_t k = 0; k < x.size(); ++k) {
    if (out == DType::kReal) {
      y.r()[k] = x.AsReal(k);
    } else if (x.is_real()) {
      const T v = x.r()[k];
      if (out == DType::kBool) {
        y.i()[k] = v != T(0);
        continue;
      }
      // Float -> integer truncates toward zero; a NaN or a value outside the target range is
      // undefined behaviour in C++, so the reference refuses it instead of inventing a result.
      const double t = std::trunc(static_cast<double>(v));
      double lo_bound = -9223372036854775808.0, hi_bound = 9223372036854775808.0;  // int64
      switch (out) {
        case DType::kInt8:
          lo_bound = -128;
          hi_bound = 128;
          break;
        case DType::kUInt8:
          lo_bound = 0;
          hi_bound = 256;
          break;
        case DType::kInt16:
          lo_bound = -32768;
          hi_bound = 32768;
          break;
        case DType::kUInt16:
          lo_bound = 0;
          hi_bound = 65536;
          break;
        case DType::kInt32:
          lo_bound = -2147483648.0;
          hi_bound = 2147483648.0;
          break;
        default:
          break;
      }
      PARITY_ENFORCE(!std::isnan(t) && t >= lo_bound && t < hi_bound, ErrorKind::kBadArgument,
                     "Cast of ", static_cast<double>(v), " to ", DTypeName(out),
                     " is out of range (undefined in C++)");
      y.i()[k] = static_cast<int64_t>(t);
    } else {
      y.i()[k] = WrapInt(out, x.i()[k]);
    }
  }
  c.SetOutput(0, std::move(y));
}

}  // namespace

void RegisterUnaryOps(Registry* r) {
  r->Add({"Relu", 1, 1, 1, 1, {}, PARITY_REF_KERNEL(Relu)}).inplace = {{0, 0}};
  r->Add({"LeakyRelu", 1, 1, 1, 1, {{"alpha", "0.01"}}, PARITY_REF_KERNEL(LeakyRelu)}).inplace = {
      {0, 0}};
  r->Add({"Elu", 1, 1, 1, 1, {{"alpha", "1.0"}}, PARITY_REF_KERNEL(Elu)}).inplace = {{0, 0}};
  r->Add({"Sigmoid", 1, 1, 1, 1, {}, PARITY_REF_KERNEL(SigmoidOp)}).inplace = {{0, 0}};
  r->Add({"Tanh", 1, 1, 1, 1, {}, PARITY_REF_KERNEL(Tanh)}).inplace = {{0, 0}};
  r->Add({"Softsign", 1, 1, 1, 1, {}, PARITY_REF_KERNEL(Softsign)}).inplace = {{0, 0}};
  r->Add({"Exp", 1, 1, 1, 1, {}, PARITY_REF_KERNEL(Exp)}).inplace = {{0, 0}};
  r->Add({"Log", 1, 1, 1, 1, {}, PARITY_REF_KERNEL(Log)}).inplace = {{0, 0}};
  r->Add({"Sqrt", 1, 1, 1, 1, {}, PARITY_REF_KERNEL(Sqrt)}).inplace = {{0, 0}};
  r->Add({"Sqr", 1, 1, 1, 1, {}, PARITY_REF_KERNEL(Sqr)}).inplace = {{0, 0}};
  r->Add({"Abs", 1, 1, 1, 1, {}, PARITY_REF_KERNEL(Abs)}).inplace = {{0, 0}};
  r->Add({"Neg", 1, 1, 1, 1, {}, PARITY_REF_KERNEL(Neg)}).inplace = {{0, 0}};
  r->Add({"Reciprocal", 1, 1, 1, 1, {}, PARITY_REF_KERNEL(Reciprocal)}).inplace = {{0, 0}};
  r->Add({"Sin", 1, 1, 1, 1, {}, PARITY_REF_KERNEL(Sin)}).inplace = {{0, 0}};
  r->Add({"Cos", 1, 1, 1, 1, {}, PARITY_REF_KERNEL(Cos)}).inplace = {{0, 0}};
  r->Add({"Tan", 1, 1, 1, 1, {}, PARITY_REF_KERNEL(Tan)}).inplace = {{0, 0}};
  r->Add({"Asin", 1, 1, 1, 1, {}, PARITY_REF_KERNEL(Asin)}).inplace = {{0, 0}};
  r->Add({"Acos", 1, 1, 1, 1, {}, PARITY_REF_KERNEL(Acos)}).inplace = {{0, 0}};
  r->Add({"Atan", 1, 1, 1, 1, {}, PARITY_REF_KERNEL(Atan)}).inplace = {{0, 0}};
  r->Add({"Sinh", 1, 1, 1, 1, {}, PARITY_REF_KERNEL(Sinh)}).inplace = {{0, 0}};
  r->Add({"Cosh", 1, 1, 1, 1, {}, PARITY_REF_KERNEL(Cosh)}).inplace = {{0, 0}};
  r->Add({"Asinh", 1, 1, 1, 1, {}, PARITY_REF_KERNEL(Asinh)}).inplace = {{0, 0}};
  r->Add({"Atanh", 1, 1, 1, 1, {}, PARITY_REF_KERNEL(Atanh)}).inplace = {{0, 0}};
  r->Add({"Erf", 1, 1, 1, 1, {}, PARITY_REF_KERNEL(Erf)}).inplace = {{0, 0}};
  r->Add({"Ceil", 1, 1, 1, 1, {}, PARITY_REF_KERNEL(Ceil)}).inplace = {{0, 0}};
  r->Add({"Floor", 1, 1, 1, 1, {}, PARITY_REF_KERNEL(Floor)}).inplace = {{0, 0}};
  r->Add({"Round", 1, 1, 1, 1, {}, PARITY_REF_KERNEL(Round)}).inplace = {{0, 0}};
  r->Add({"Sign", 1, 1, 1, 1, {}, PARITY_REF_KERNEL(Sign)}).inplace = {{0, 0}};
  // Caffe2's defaults are float's lowest() and max().
  r->Add({"Clip",
          1,
          1,
          1,
          1,
          {{"min", "-3.4028234663852886e+38"}, {"max", "3.4028234663852886e+38"}},
          PARITY_REF_KERNEL(Clip)})
      .inplace = {{0, 0}};
  r->Add({"Scale", 1, 1, 1, 1, {{"scale", "1.0"}}, PARITY_REF_KERNEL(Scale)}).inplace = {{0, 0}};
  r->Add({"Cast", 1, 1, 1, 1, {{"to", ""}}, PARITY_REF_KERNEL(Cast)});
  r->Add({"StopGradient", 1, 1, 1, 1, {}, PARITY_REF_KERNEL(StopGradient)}).inplace = {{0, 0}};
}

PARITY_REFERENCE_FAMILY(RegisterUnaryOps);

}  // namespace parity::reference
