// Unary elementwise ops: Relu LeakyRelu Elu Sigmoid Tanh Softsign Exp Log Sqrt Sqr Abs Neg
// Reciprocal Sin Cos Tan Asin Acos Atan Sinh Cosh Asinh Atanh Erf Ceil Floor Round Sign Clip Scale
// (float, double; Neg and Abs also int32, int64), Cast, StopGradient.
// Caffe2 semantics (caffe2/operators/*_op.cc); every math op may run in place ({0, 0}).
//
// NaN propagates through every op (Relu(NaN) = NaN, Clip(NaN) = NaN), so a NaN sits at the same
// position as in a naive reference.
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <tuple>
#include <type_traits>

#include "core/operator.h"
#include "core/ops/common/avx2_exp.h"  // defines PARITY_AVX2_EXP where it builds
#include "core/ops/common/eigen_maps.h"
#include "core/ops/common/elementwise.h"
#include "core/ops/common/sigmoid.h"
#include "core/ops/common/size_paths.h"
#include "core/schema.h"

namespace parity {
namespace {

using elementwise::Array;
using elementwise::ConstMap;
using elementwise::kIsOneOf;
using elementwise::Map;

struct FloatTypes {
  template <typename T>
  static constexpr bool kSupports = kIsOneOf<T, float, double>;
};

// A functor without arguments.
struct NoArgs {
  explicit NoArgs(const ArgumentHelper&) {}
};

// Whether Fn has `static bool Direct(const float* in, float* out, int64_t n)`.
template <class Fn, class = void>
struct HasDirect : std::false_type {};
template <class Fn>
struct HasDirect<Fn, std::void_t<decltype(&Fn::Direct)>> : std::true_type {};
// Fn's own float kernel if it has one (false: use the generic path). A template of its own, so
// the call is only instantiated for functors that have Direct (clang checks discarded branches
// that do not depend on the enclosing lambda's parameters).
template <class Fn>
bool TryDirect(const float* in, float* out, int64_t n) {
  if constexpr (HasDirect<Fn>::value) {
    return Fn::Direct(in, out, n);
  } else {
    return false;
  }
}

// Whether Fn has `void CheckDtype(DataType, const std::string& label) const`: arguments that are
// valid for some dtypes only (Clip's bounds on integers).
template <class Fn, class = void>
struct HasCheckDtype : std::false_type {};
template <class Fn>
struct HasCheckDtype<Fn, std::void_t<decltype(&Fn::CheckDtype)>> : std::true_type {};

// X is Tensor (kernels) or TensorType (shape inference).
template <class Fn, class X>
void CheckUnaryType(const Fn& fn, const X& x, const std::string& label) {
  PARITY_ENFORCE(elementwise::Supports<Fn>(elementwise::DtypeOf(x)), ErrorKind::kShapeMismatch,
                 label, ": unsupported dtype of X (", elementwise::Describe(x),
                 "); supported: ", elementwise::SupportedTypes<Fn>());
  if constexpr (HasCheckDtype<Fn>::value) fn.CheckDtype(elementwise::DtypeOf(x), label);
}

// Y = Fn(X), same dims and dtype. Fn is built from the op's arguments once, at construction.
template <class Fn>
class UnaryOp final : public Operator {
 public:
  UnaryOp(const caffe2::OperatorDef& def, Workspace* ws) : Operator(def, ws), fn_(args()) {}

  void Run() override {
    const Tensor& x = Input(0);
    CheckUnaryType(fn_, x, label());
    Tensor* y = Output(0);
    elementwise::ResizeTo(y, x.dims());
    const int64_t n = x.numel();
    elementwise::VisitType(x.dtype(), [&](auto zero) {
      using T = decltype(zero);
      if constexpr (Fn::template kSupports<T>) {
        T* out = y->template mutable_data<T>();
        const T* in = x.template data<T>();
        // A partial overlap (views of one buffer) is computed aside; exact in place is fine.
        // Large tensors are split across threads by element range (bit-identical for any count).
        auto compute = [&](T* dst) {
          elementwise::ParallelElementwise(dst, n, 1, [&](int64_t begin, int64_t end) {
            // A functor may bring its own float kernel (Sigmoid's AVX2 path); else Eigen.
            if constexpr (std::is_same_v<T, float>) {
              if (TryDirect<Fn>(in + begin, dst + begin, end - begin)) return;
            }
            // Packets start at `begin` whatever the addresses (eigen_maps.h): Eigen's vector
            // sin, cos, log, tanh round otherwise than its scalar head.
            AssignIndexAligned<T>(dst + begin, end - begin, [&](int64_t b, int64_t len) {
              return fn_.template Apply<T>(ConstMap<T>(in + begin + b, len));
            });
          });
        };
        if (elementwise::UnsafeOverlap(out, n * sizeof(T), in, n * sizeof(T), true)) {
          scratch_.Resize(x.dims());
          T* tmp = scratch_.template mutable_data<T>();
          compute(tmp);
          std::memcpy(out, tmp, n * sizeof(T));
        } else {
          compute(out);
        }
      }
    });
  }

 private:
  Fn fn_;
  Tensor scratch_;
};

template <class Fn>
std::vector<TensorType> UnaryShape(const caffe2::OperatorDef&, const ArgumentHelper& args,
                                   const std::vector<TensorType>& in) {
  Fn check_arguments(args);  // argument errors (e.g. Clip's min > max) surface here too
  CheckUnaryType(check_arguments, in[0], args.op_label());
  return {in[0]};
}

// ---------------------------------------------------------------------------------------------
// Functors: Apply<T>(x) maps an Eigen array expression of T to one of T.

struct ReluFn : FloatTypes, NoArgs {
  using NoArgs::NoArgs;
  template <typename T, typename X>
  auto Apply(const X& x) const {
    return elementwise::ReluExpr<T>(x);  // doubles; shared with FCRelu / ConvRelu
  }
  // Floats: a select 8 wide (Eigen's NaN-propagating max is several times slower); shared with
  // FCRelu / ConvRelu through ReluInPlace.
  static bool Direct(const float* in, float* out, int64_t n) {
    simd::Relu(in, out, n);
    return true;
  }
};

struct LeakyReluFn : FloatTypes {
  explicit LeakyReluFn(const ArgumentHelper& args) : alpha(args.Get<double>("alpha")) {}
  // max(x, 0) + alpha * min(x, 0): x where x > 0, alpha * x elsewhere, vectorized.
  template <typename T, typename X>
  auto Apply(const X& x) const {
    const auto zero = Array<T>::Constant(x.size(), T(0));
    return x.binaryExpr(zero, elementwise::MaxNaN<T>()) +
           static_cast<T>(alpha) * x.binaryExpr(zero, elementwise::MinNaN<T>());
  }
  double alpha;
};

struct EluFn : FloatTypes {
  explicit EluFn(const ArgumentHelper& args) : alpha(args.Get<double>("alpha")) {}
  // x where x > 0, alpha * (exp(x) - 1) elsewhere (expm1 keeps precision near 0).
  template <typename T, typename X>
  auto Apply(const X& x) const {
    return (x > T(0)).select(x, static_cast<T>(alpha) * x.expm1());
  }
  double alpha;
};

#ifdef PARITY_AVX2_EXP
// SigmoidScalarOp's algorithm on 8 floats with AVX2 + FMA. The build targets baseline x86-64
// (SSE2), where Sigmoid is compute-bound at several times memcpy; CPUs with AVX2 (checked at run
// time) take this path. Results may differ from the SSE2 path by an ulp (fused multiply-adds).
// Its exp of -|x| repeats Exp8's steps (avx2_exp.h) on purpose: calling Exp8 gives the same bits
// (checked on every third float) but its full-range handling (two-step scaling, the overflow and
// NaN blends) made Sigmoid 1.5x slower (1M floats, one thread: 505 -> 775 us).
__attribute__((target("avx2,fma"))) inline __m256 Sigmoid8(__m256 x) {
  const __m256 lo = _mm256_set1_ps(-87.3365478515625f);
  const __m256 magic = _mm256_set1_ps(12582912.0f);
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256 neg_abs = _mm256_or_ps(x, _mm256_set1_ps(-0.0f));
  const __m256 a = _mm256_max_ps(neg_abs, lo);
  const __m256 k =
      _mm256_sub_ps(_mm256_fmadd_ps(a, _mm256_set1_ps(1.44269504088896341f), magic), magic);
  __m256 r = _mm256_fnmadd_ps(k, _mm256_set1_ps(0.693359375f), a);
  r = _mm256_fnmadd_ps(k, _mm256_set1_ps(-2.12194440e-4f), r);
  const __m256 r2 = _mm256_mul_ps(r, r);
  __m256 p = _mm256_set1_ps(1.9875691500e-4f);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
  p = _mm256_fmadd_ps(p, r2, _mm256_add_ps(r, one));
  const __m256i bits =
      _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvttps_epi32(k), _mm256_set1_epi32(127)), 23);
  __m256 e = _mm256_mul_ps(p, _mm256_castsi256_ps(bits));
  e = _mm256_and_ps(e, _mm256_cmp_ps(neg_abs, lo, _CMP_GE_OQ));
  const __m256 inv = _mm256_div_ps(one, _mm256_add_ps(one, e));
  const __m256 sigma = _mm256_blendv_ps(_mm256_mul_ps(e, inv), inv,
                                        _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_GE_OQ));
  return _mm256_blendv_ps(x, sigma, _mm256_cmp_ps(x, x, _CMP_ORD_Q));  // NaN stays NaN
}

__attribute__((target("avx2,fma"))) void SigmoidAvx2(const float* in, float* out, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(out + i, Sigmoid8(_mm256_loadu_ps(in + i)));
  if (i < n) {
    // The tail goes through the same code, padded, so every element rounds alike.
    float buffer[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    std::memcpy(buffer, in + i, (n - i) * sizeof(float));
    _mm256_storeu_ps(buffer, Sigmoid8(_mm256_loadu_ps(buffer)));
    std::memcpy(out + i, buffer, (n - i) * sizeof(float));
  }
}

#endif  // PARITY_AVX2_EXP

struct SigmoidFn : FloatTypes, NoArgs {
  using NoArgs::NoArgs;
  template <typename T, typename X>
  auto Apply(const X& x) const {
    return x.unaryExpr(SigmoidScalarOp<T>());
  }
  static bool Direct(const float* in, float* out, int64_t n) {
#ifdef PARITY_AVX2_EXP
    if (UseAvx2Fma()) {
      SigmoidAvx2(in, out, n);
      return true;
    }
#endif
    return false;
  }
};

#define PARITY_SIMPLE_FN(Name, expr)     \
  struct Name##Fn : FloatTypes, NoArgs { \
    using NoArgs::NoArgs;                \
    template <typename T, typename X>    \
    auto Apply(const X& x) const {       \
      return expr;                       \
    }                                    \
  };
PARITY_SIMPLE_FN(Tanh, x.tanh())
PARITY_SIMPLE_FN(Softsign, x / (T(1) + x.abs()))
// Exp: Eigen's, or on CPUs with AVX2 + FMA the 8-wide Exp8 (avx2_exp.h), about 4x faster here.
struct ExpFn : FloatTypes, NoArgs {
  using NoArgs::NoArgs;
  template <typename T, typename X>
  auto Apply(const X& x) const {
    return x.exp();
  }
  static bool Direct(const float* in, float* out, int64_t n) {
#ifdef PARITY_AVX2_EXP
    if (UseAvx2Fma()) {
      ExpAvx2(in, out, n);
      return true;
    }
#endif
    return false;
  }
};
PARITY_SIMPLE_FN(Log, x.log())
PARITY_SIMPLE_FN(Sqrt, x.sqrt())
PARITY_SIMPLE_FN(Sqr, x* x)
PARITY_SIMPLE_FN(Reciprocal, x.inverse())
PARITY_SIMPLE_FN(Sin, x.sin())
PARITY_SIMPLE_FN(Cos, x.cos())
#undef PARITY_SIMPLE_FN

// Ops from ONNX's set (and Caffe2's acos_op.cc, asin_op.cc, atan_op.cc, tan_op.cc, sinh_op.cc,
// cosh_op.cc, erf_op.cc, ceil_op.cc, floor_op.cc, sign_op.cc), each through the C library's
// function of the element type: float and double, like the ops above.
#define PARITY_LIBM_FN(Name, fn)                                   \
  struct Name##Fn : FloatTypes, NoArgs {                           \
    using NoArgs::NoArgs;                                          \
    template <typename T, typename X>                              \
    auto Apply(const X& x) const {                                 \
      return x.unaryExpr([](T v) -> T { return std::fn(v); });     \
    }                                                              \
  };
PARITY_LIBM_FN(Tan, tan)
PARITY_LIBM_FN(Asin, asin)
PARITY_LIBM_FN(Acos, acos)
PARITY_LIBM_FN(Atan, atan)
PARITY_LIBM_FN(Sinh, sinh)
PARITY_LIBM_FN(Cosh, cosh)
PARITY_LIBM_FN(Asinh, asinh)
PARITY_LIBM_FN(Atanh, atanh)
PARITY_LIBM_FN(Erf, erf)
PARITY_LIBM_FN(Ceil, ceil)
PARITY_LIBM_FN(Floor, floor)
// Halves to even (ONNX's Round, numpy's round): nearbyint in the default rounding mode.
PARITY_LIBM_FN(Round, nearbyint)
#undef PARITY_LIBM_FN

// -1, 0 or 1 by the sign; 0 and -0 stay as they are, NaN stays NaN (numpy's sign).
struct SignFn : FloatTypes, NoArgs {
  using NoArgs::NoArgs;
  template <typename T, typename X>
  auto Apply(const X& x) const {
    return x.unaryExpr([](T v) -> T { return v > T(0) ? T(1) : (v < T(0) ? T(-1) : v); });
  }
};

// -x; integers negate in the unsigned type so that -INT_MIN wraps to INT_MIN (Neg and Abs).
template <typename T, typename X>
auto WrappingNegation(const X& x) {
  return elementwise::FromWrapping<T>(-elementwise::AsWrapping<T>(x));
}

struct NegFn : NoArgs {
  using NoArgs::NoArgs;
  template <typename T>
  static constexpr bool kSupports = kIsOneOf<T, float, double, int32_t, int64_t>;
  template <typename T, typename X>
  auto Apply(const X& x) const {
    return WrappingNegation<T>(x);
  }
};

// Abs also takes int32 / int64 (ONNX's Abs; the reference agrees): |INT_MIN| wraps to INT_MIN,
// as two's complement negation does.
struct AbsFn : NoArgs {
  using NoArgs::NoArgs;
  template <typename T>
  static constexpr bool kSupports = kIsOneOf<T, float, double, int32_t, int64_t>;
  template <typename T, typename X>
  auto Apply(const X& x) const {
    if constexpr (std::is_integral_v<T>) {
      return (x < T(0)).select(WrappingNegation<T>(x), x);
    } else {
      return x.abs();
    }
  }
};

// Clip takes float, double and the integer dtypes (ONNX's Clip; Caffe2's was float only). The
// bounds are float arguments: on an integer X each given bound must be a whole number (a
// fractional bound has no integer result to clamp to), and one outside X's range saturates to it
// (int8 with min = -1000 has no effective lower bound).
struct ClipFn {
  template <typename T>
  static constexpr bool kSupports =
      kIsOneOf<T, float, double, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t>;
  explicit ClipFn(const ArgumentHelper& args)
      : has_min(args.Has("min")),
        has_max(args.Has("max")),
        min(args.Get<double>("min")),
        max(args.Get<double>("max")) {
    PARITY_ENFORCE(!(min > max), ErrorKind::kBadArgument, args.op_label(),
                   ": argument 'min' = ", min, " is greater than 'max' = ", max);
  }
  void CheckDtype(DataType dtype, const std::string& label) const {
    if (IsFloatingDataType(dtype)) return;
    for (const auto& [given, name, value] :
         {std::tuple{has_min, "min", min}, std::tuple{has_max, "max", max}}) {
      PARITY_ENFORCE(!given || std::floor(value) == value, ErrorKind::kBadArgument, label,
                     ": argument '", name, "' = ", value, " is not a whole number, but X is ",
                     DataTypeName(dtype));
    }
  }
  // A whole-number bound in T's range (saturated), or T's own limit for an absent bound.
  template <typename T>
  static T Bound(bool given, double value, T absent) {
    if (!given || std::is_floating_point_v<T>) return given ? static_cast<T>(value) : absent;
    if (value <= static_cast<double>(std::numeric_limits<T>::lowest())) {
      return std::numeric_limits<T>::lowest();
    }
    // int64's max rounds up to 2^63 as a double: >= catches it before the cast would overflow.
    if (value >= static_cast<double>(std::numeric_limits<T>::max())) {
      return std::numeric_limits<T>::max();
    }
    return static_cast<T>(value);
  }
  // min(max(x, lo), hi); an absent bound is the dtype's lowest / largest value (Caffe2's
  // numeric_limits defaults, which the schema states for float).
  template <typename T, typename X>
  auto Apply(const X& x) const {
    const T lo = Bound<T>(has_min, min, std::numeric_limits<T>::lowest());
    const T hi = Bound<T>(has_max, max, std::numeric_limits<T>::max());
    return x.binaryExpr(Array<T>::Constant(x.size(), lo), elementwise::MaxNaN<T>())
        .binaryExpr(Array<T>::Constant(x.size(), hi), elementwise::MinNaN<T>());
  }
  bool has_min;
  bool has_max;
  double min;
  double max;
};

struct ScaleFn : FloatTypes {
  explicit ScaleFn(const ArgumentHelper& args) : scale(args.Get<double>("scale")) {}
  template <typename T, typename X>
  auto Apply(const X& x) const {
    return x * static_cast<T>(scale);
  }
  double scale;
};

OpSchema& UnaryOpSchema(OpSchema& schema) {
  return schema.NumInputs(1)
      .NumOutputs(1)
      .AllowInplace({{0, 0}})
      .DifferentiableInputs({0})
      .InputDoc(0, "X", "Input tensor (float or double).")
      .OutputDoc(0, "Y", "Output tensor, same shape and dtype as X.");
}

#define PARITY_UNARY_OP(Name, doc)                                                           \
  PARITY_OP_SCHEMA(Name).Apply(UnaryOpSchema).ShapeInference(UnaryShape<Name##Fn>).Doc(doc); \
  PARITY_REGISTER_CPU_OPERATOR(Name, UnaryOp<Name##Fn>)

PARITY_UNARY_OP(Relu, "Y = max(X, 0) elementwise.");
PARITY_UNARY_OP(Sigmoid, "Y = 1 / (1 + exp(-X)) elementwise.");
#ifdef PARITY_AVX2_EXP
// The elements of X: the measure of the vector paths (Relu, Sigmoid, Exp).
int64_t NumelOfX(const caffe2::OperatorDef&, const InputDims& in) {
  if (in.empty()) return -1;
  int64_t n = 1;
  for (int64_t d : in[0]) n *= d;
  return n;
}
PARITY_SIZE_PATH(Relu, "AVX2 select over 16 floats, scalar tail", 16, 16, NumelOfX);
PARITY_SIZE_PATH(Sigmoid, "AVX2 + FMA loop over 8 floats, tail padded to 8", 8, 8, NumelOfX);
#endif
PARITY_UNARY_OP(Tanh, "Y = tanh(X) elementwise.");
PARITY_UNARY_OP(Softsign, "Y = X / (1 + |X|) elementwise.");
PARITY_UNARY_OP(Exp, "Y = exp(X) elementwise.");
#ifdef PARITY_AVX2_EXP
PARITY_SIZE_PATH(Exp, "AVX2 + FMA Exp8 over 8 floats, tail padded to 8", 8, 8, NumelOfX);
#endif
PARITY_UNARY_OP(Log, "Y = ln(X) elementwise (NaN below 0, -inf at 0).");
PARITY_UNARY_OP(Sqrt, "Y = sqrt(X) elementwise (NaN below 0).");
PARITY_UNARY_OP(Sqr, "Y = X * X elementwise.");
PARITY_UNARY_OP(Abs, "Y = |X| elementwise.");
PARITY_UNARY_OP(Reciprocal, "Y = 1 / X elementwise.");
PARITY_UNARY_OP(Sin, "Y = sin(X) elementwise.");
PARITY_UNARY_OP(Cos, "Y = cos(X) elementwise.");
PARITY_UNARY_OP(Tan, "Y = tan(X) elementwise.");
PARITY_UNARY_OP(Asin, "Y = asin(X) elementwise (NaN outside [-1, 1]).");
PARITY_UNARY_OP(Acos, "Y = acos(X) elementwise (NaN outside [-1, 1]).");
PARITY_UNARY_OP(Atan, "Y = atan(X) elementwise.");
PARITY_UNARY_OP(Sinh, "Y = sinh(X) elementwise.");
PARITY_UNARY_OP(Cosh, "Y = cosh(X) elementwise.");
PARITY_UNARY_OP(Asinh, "Y = asinh(X) elementwise.");
PARITY_UNARY_OP(Atanh, "Y = atanh(X) elementwise (NaN outside [-1, 1], ±inf at ±1).");
PARITY_UNARY_OP(Erf, "Y = erf(X) elementwise.");
PARITY_UNARY_OP(Ceil, "Y = ceil(X) elementwise.");
PARITY_UNARY_OP(Floor, "Y = floor(X) elementwise.");
PARITY_UNARY_OP(Round, "Y = X rounded to the nearest integer, halves to even, elementwise.");
PARITY_UNARY_OP(Sign, "Y = -1, 0 or 1 by the sign of X elementwise (0 and NaN kept).");
PARITY_UNARY_OP(Neg, "Y = -X elementwise (also int32 and int64, which wrap at the minimum).");

PARITY_OP_SCHEMA(LeakyRelu)
    .Apply(UnaryOpSchema)
    .Arg("alpha", ArgType::kFloat, 0.01, "Slope for X < 0.")
    .ShapeInference(UnaryShape<LeakyReluFn>)
    .Doc("Y = X where X > 0, alpha * X elsewhere.");
PARITY_REGISTER_CPU_OPERATOR(LeakyRelu, UnaryOp<LeakyReluFn>);

PARITY_OP_SCHEMA(Elu)
    .Apply(UnaryOpSchema)
    .Arg("alpha", ArgType::kFloat, 1.0, "Scale of the negative part.")
    .ShapeInference(UnaryShape<EluFn>)
    .Doc("Y = X where X > 0, alpha * (exp(X) - 1) elsewhere.");
PARITY_REGISTER_CPU_OPERATOR(Elu, UnaryOp<EluFn>);

PARITY_OP_SCHEMA(Clip)
    .Apply(UnaryOpSchema)
    .Arg("min", ArgType::kFloat, static_cast<double>(-FLT_MAX),
         "Lower bound (absent: the lowest value of X's dtype).")
    .Arg("max", ArgType::kFloat, static_cast<double>(FLT_MAX),
         "Upper bound (absent: the largest value of X's dtype).")
    .ShapeInference(UnaryShape<ClipFn>)
    .Doc("Y = min(max(X, min), max) elementwise; min > max is an error. Float, double and the "
         "integer dtypes (int8, int16, int32, int64, uint8, uint16); on integers a bound must be "
         "a whole number and saturates to X's range.");
PARITY_REGISTER_CPU_OPERATOR(Clip, UnaryOp<ClipFn>);

PARITY_OP_SCHEMA(Scale)
    .Apply(UnaryOpSchema)
    .Arg("scale", ArgType::kFloat, 1.0, "The factor.")
    .ShapeInference(UnaryShape<ScaleFn>)
    .Doc("Y = scale * X elementwise.");
PARITY_REGISTER_CPU_OPERATOR(Scale, UnaryOp<ScaleFn>);

// ---------------------------------------------------------------------------------------------
// Cast: to a TensorProto.DataType. Conversions are C++'s, except where C++ leaves them undefined:
// floating point to an integer type saturates at the type's limits and maps NaN to 0.

template <typename To, typename From>
To CastValue(From v) {
  if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To> &&
                !std::is_same_v<To, bool>) {
    if (std::isnan(v)) return To(0);
    // The limits of To as From: exact for the minimum (a power of two or 0); the maximum rounds up
    // to a power of two for wide types, hence ">=".
    constexpr From kLow = static_cast<From>(std::numeric_limits<To>::lowest());
    constexpr From kHigh = static_cast<From>(std::numeric_limits<To>::max());
    if (v <= kLow) return std::numeric_limits<To>::lowest();
    if (v >= kHigh) return std::numeric_limits<To>::max();
    return static_cast<To>(v);
  } else {
    return static_cast<To>(v);
  }
}

// The dtype `to` names, or kBadArgument for values Cast cannot produce.
DataType CastTarget(const ArgumentHelper& args) {
  const int64_t to = DataTypeArgument(args, "to");
  DataType dtype = DataType::kUndefined;
  const bool known = DataTypeFromProtoValue(to, &dtype);
  // BYTE is read back as uint8, as Caffe2 does.
  if (known && dtype == DataType::kByte) dtype = DataType::kUint8;
  const bool ok = known && dtype != DataType::kUndefined && dtype != DataType::kString &&
                  dtype != DataType::kFloat16;
  PARITY_ENFORCE(ok, ErrorKind::kBadArgument, args.op_label(), ": argument 'to' = ", to, " (",
                 known ? DataTypeName(dtype) : "not a DataType",
                 ") is not a dtype Cast can produce (float, double, int32, int64, bool, uint8, "
                 "int8, int16, uint16)");
  return dtype;
}

template <class X>
void CheckCastInput(const X& x, const std::string& label) {
  PARITY_ENFORCE(elementwise::VisitType(elementwise::DtypeOf(x), [](auto) {}),
                 ErrorKind::kShapeMismatch, label, ": cannot cast input X (",
                 elementwise::Describe(x),
                 "); supported: float, double, int32, int64, "
                 "bool, uint8, int8, int16, uint16");
}

class CastOp final : public Operator {
 public:
  CastOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws), to_(CastTarget(args())) {}

  void Run() override {
    const Tensor& x = Input(0);
    CheckCastInput(x, label());
    Tensor* y = Output(0);
    y->Resize(x.dims());
    const int64_t n = x.numel();
    elementwise::VisitType(x.dtype(), [&](auto from_zero) {
      using From = decltype(from_zero);
      elementwise::VisitType(to_, [&](auto to_zero) {
        using To = decltype(to_zero);
        const From* in = x.template data<From>();
        To* out = y->template mutable_data<To>();
        for (int64_t i = 0; i < n; ++i) out[i] = CastValue<To>(in[i]);
      });
    });
  }

 private:
  DataType to_;
};

PARITY_OP_SCHEMA(Cast)
    .NumInputs(1)
    .NumOutputs(1)
    .Arg("to", ArgType::kDataType, int64_t{1},
         "Target TensorProto.DataType, as a number or a name in any case (\"float\"): FLOAT=1, "
         "INT32=2, BYTE=3 (as uint8), BOOL=5, UINT8=6, "
         "INT8=7, UINT16=8, INT16=9, INT64=10, DOUBLE=13.")
    .ShapeInference([](const caffe2::OperatorDef&, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) {
      CheckCastInput(in[0], args.op_label());
      TensorType out = in[0];
      out.dtype = CastTarget(args);
      return std::vector<TensorType>{out};
    })
    .InputDoc(0, "X", "Any numeric or bool tensor.")
    .OutputDoc(0, "Y", "X converted to dtype `to`, same shape.")
    .Doc(
        "Converts X to the dtype `to`. Floating point to integer saturates (NaN -> 0); to bool "
        "is X != 0. A gradient flows back only when X and `to` are floating point.");
PARITY_REGISTER_CPU_OPERATOR(Cast, CastOp);

// ---------------------------------------------------------------------------------------------
// StopGradient: the identity forward; the backward pass stops here.

class StopGradientOp final : public Operator {
 public:
  using Operator::Operator;
  void Run() override {
    if (OutputBlob(0) == InputBlob(0)) return;
    Output(0)->CopyFrom(Input(0));
  }
};

PARITY_OP_SCHEMA(StopGradient)
    .NumInputs(1)
    .NumOutputs(1)
    .AllowInplace({{0, 0}})
    .ShapeInference(IdentityShape)
    .NotDifferentiable()
    .InputDoc(0, "X", "Any tensor.")
    .OutputDoc(0, "Y", "A copy of X (or X itself in place).")
    .Doc("Y = X; no gradient flows through this op.");
PARITY_REGISTER_CPU_OPERATOR(StopGradient, StopGradientOp);

}  // namespace
}  // namespace parity
