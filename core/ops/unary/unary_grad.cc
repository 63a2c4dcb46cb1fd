// Gradient kernels of the unary elementwise ops, in the conventions of the makers
// (core/ops/unary/makers.cc), after Caffe2's *_op.cc / *GradientFunctor:
//
//   from the forward output Y:  (Y, dY) -> dX
//     ReluGradient        dX = dY where Y > 0, else 0
//     LeakyReluGradient   dX = dY where Y > 0, else alpha * dY               (alpha copied)
//     EluGradient         dX = dY where Y > 0, else dY * (Y + alpha)         (alpha copied)
//     SigmoidGradient     dX = dY * Y * (1 - Y)
//     TanhGradient        dX = dY * (1 - Y^2)
//     ReciprocalGradient  dX = -dY * Y^2
//     ClipGradient        dX = dY where min < Y < max (strict, as Caffe2's ClipGradientOp), else 0;
//                         so the gradient is 0 where X sat exactly on a bound. An absent bound is
//                         the dtype's lowest / largest value, as in the forward op.
//   from the forward input X:  (X, dY) -> dX
//     SoftsignGradient    dX = dY / (1 + |X|)^2
//     AbsGradient         dX = dY * sign(X), 0 at X = 0
//     SinGradient         dX = dY * cos(X)
//     CosGradient         dX = -dY * sin(X)
//
// Float or double, both inputs of one dtype and one shape; dX has dY's dims. dX may be written in
// place of dY (Caffe2's AllowInplace({{1, 0}})); other overlaps (views) are computed aside. A NaN
// in Y fails every `Y > 0` test, so Relu-like gradients give 0 there (as the reference does).
// The gradients of Exp, Log, Neg, Scale, Sqrt, Sqr and Cast are forward ops (see the makers).
#include <cfloat>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "core/operator.h"
#include "core/ops/common/elementwise.h"
#include "core/schema.h"

namespace parity {
namespace {

using elementwise::ConstMap;
using elementwise::Map;

struct NoArgs {
  explicit NoArgs(const ArgumentHelper&) {}
};

// Functors: Apply<T>(v, dy) maps the Eigen array expressions of input 0 (Y or X) and dY to dX.
struct ReluGradFn : NoArgs {
  using NoArgs::NoArgs;
  template <typename T, class V, class D>
  auto Apply(const V& y, const D& dy) const {
    return (y > T(0)).select(dy, T(0));
  }
};

struct LeakyReluGradFn {
  explicit LeakyReluGradFn(const ArgumentHelper& args) : alpha(args.Get<double>("alpha")) {}
  template <typename T, class V, class D>
  auto Apply(const V& y, const D& dy) const {
    return (y > T(0)).select(dy, static_cast<T>(alpha) * dy);
  }
  double alpha;
};

struct EluGradFn {
  explicit EluGradFn(const ArgumentHelper& args) : alpha(args.Get<double>("alpha")) {}
  // For X <= 0, Y = alpha (e^X - 1), so dY/dX = alpha e^X = Y + alpha.
  template <typename T, class V, class D>
  auto Apply(const V& y, const D& dy) const {
    return (y > T(0)).select(dy, dy * (y + static_cast<T>(alpha)));
  }
  double alpha;
};

struct SigmoidGradFn : NoArgs {
  using NoArgs::NoArgs;
  template <typename T, class V, class D>
  auto Apply(const V& y, const D& dy) const {
    return dy * y * (T(1) - y);
  }
};

struct TanhGradFn : NoArgs {
  using NoArgs::NoArgs;
  template <typename T, class V, class D>
  auto Apply(const V& y, const D& dy) const {
    return dy * (T(1) - y * y);
  }
};

struct ReciprocalGradFn : NoArgs {
  using NoArgs::NoArgs;
  template <typename T, class V, class D>
  auto Apply(const V& y, const D& dy) const {
    return -(dy * y * y);
  }
};

struct ClipGradFn {
  explicit ClipGradFn(const ArgumentHelper& args)
      : has_min(args.Has("min")),
        has_max(args.Has("max")),
        min(args.Get<double>("min")),
        max(args.Get<double>("max")) {
    PARITY_ENFORCE(!(min > max), ErrorKind::kBadArgument, args.op_label(), ": argument 'min' = ",
                   min, " is greater than 'max' = ", max);
  }
  template <typename T, class V, class D>
  auto Apply(const V& y, const D& dy) const {
    const T lo = has_min ? static_cast<T>(min) : std::numeric_limits<T>::lowest();
    const T hi = has_max ? static_cast<T>(max) : std::numeric_limits<T>::max();
    return ((y > lo) && (y < hi)).select(dy, T(0));
  }
  bool has_min;
  bool has_max;
  double min;
  double max;
};

struct SoftsignGradFn : NoArgs {
  using NoArgs::NoArgs;
  template <typename T, class V, class D>
  auto Apply(const V& x, const D& dy) const {
    return dy / (T(1) + x.abs()).square();
  }
};

struct AbsGradFn : NoArgs {
  using NoArgs::NoArgs;
  template <typename T, class V, class D>
  auto Apply(const V& x, const D& dy) const {
    return (x > T(0)).select(dy, (x < T(0)).select(-dy, T(0)));
  }
};

struct SinGradFn : NoArgs {
  using NoArgs::NoArgs;
  template <typename T, class V, class D>
  auto Apply(const V& x, const D& dy) const {
    return dy * x.cos();
  }
};

struct CosGradFn : NoArgs {
  using NoArgs::NoArgs;
  template <typename T, class V, class D>
  auto Apply(const V& x, const D& dy) const {
    return -(dy * x.sin());
  }
};

// dX = dY * f'(X) for the ONNX-set math ops, f' through the C library of the element type.
#define PARITY_DERIVATIVE_FN(Name, derivative)                                    \
  struct Name##GradFn : NoArgs {                                                  \
    using NoArgs::NoArgs;                                                         \
    template <typename T, class V, class D>                                       \
    auto Apply(const V& x, const D& dy) const {                                   \
      return x.binaryExpr(dy, [](T v, T d) -> T { return d * (derivative); });    \
    }                                                                             \
  };
PARITY_DERIVATIVE_FN(Tan, T(1) / (std::cos(v) * std::cos(v)))
PARITY_DERIVATIVE_FN(Asin, T(1) / std::sqrt(T(1) - v * v))
PARITY_DERIVATIVE_FN(Acos, T(-1) / std::sqrt(T(1) - v * v))
PARITY_DERIVATIVE_FN(Atan, T(1) / (T(1) + v * v))
PARITY_DERIVATIVE_FN(Sinh, std::cosh(v))
PARITY_DERIVATIVE_FN(Cosh, std::sinh(v))
PARITY_DERIVATIVE_FN(Asinh, T(1) / std::sqrt(v * v + T(1)))
PARITY_DERIVATIVE_FN(Atanh, T(1) / (T(1) - v * v))
// 2 / sqrt(pi) * exp(-x^2).
PARITY_DERIVATIVE_FN(Erf, T(1.1283791670955126) * std::exp(-v * v))
#undef PARITY_DERIVATIVE_FN

// Both inputs float or double, of one dtype and one shape. X is Tensor or TensorType.
template <class X>
void CheckUnaryGradientInputs(const X& v, const X& dy, const char* v_name,
                              const std::string& label) {
  using elementwise::Describe;
  using elementwise::DtypeOf;
  PARITY_ENFORCE(DtypeOf(v) == DataType::kFloat || DtypeOf(v) == DataType::kDouble,
                 ErrorKind::kShapeMismatch, label, ": unsupported dtype of ", v_name, " (",
                 Describe(v), "); supported: float, double");
  PARITY_ENFORCE(DtypeOf(dy) == DtypeOf(v), ErrorKind::kShapeMismatch, label, ": dY (",
                 Describe(dy), ") must have the dtype of ", v_name, " (", Describe(v), ")");
}

void CheckUnaryGradientDims(const std::vector<int64_t>& v, const std::vector<int64_t>& dy,
                            const char* v_name, const std::string& label) {
  PARITY_ENFORCE(elementwise::SameDims(v, dy), ErrorKind::kShapeMismatch, label, ": dY ",
                 ShapeString(dy), " must have the dims of ", v_name, " ", ShapeString(v));
}

// dX = Fn(input 0, dY). Fn is built from the op's arguments once, at construction.
template <class Fn, bool kFromOutput>
class UnaryGradientOp final : public Operator {
 public:
  static constexpr const char* kName = kFromOutput ? "Y" : "X";

  UnaryGradientOp(const caffe2::OperatorDef& def, Workspace* ws) : Operator(def, ws), fn_(args()) {}

  void Run() override {
    const Tensor& v = Input(0);
    const Tensor& dy = Input(1);
    CheckUnaryGradientInputs(v, dy, kName, label());
    CheckUnaryGradientDims(v.dims(), dy.dims(), kName, label());
    if (v.dtype() == DataType::kFloat) {
      Compute<float>(v, dy);
    } else {
      Compute<double>(v, dy);
    }
  }

 private:
  template <typename T>
  void Compute(const Tensor& v, const Tensor& dy) {
    const int64_t n = v.numel();
    const T* pv = v.data<T>();
    const T* pdy = dy.data<T>();
    // Exactly in place of dY (or Y) is coefficient-wise safe: checked before resizing, since the
    // output may be one of the inputs.
    Tensor* dx = Output(0);
    elementwise::ResizeTo(dx, dy.dims());
    T* out = dx->mutable_data<T>();
    const size_t bytes = static_cast<size_t>(n) * sizeof(T);
    const bool aside = elementwise::UnsafeOverlap(out, bytes, pv, bytes, true) ||
                       elementwise::UnsafeOverlap(out, bytes, pdy, bytes, true);
    T* dst = out;
    if (aside) {
      elementwise::ResizeTo(&scratch_, dy.dims());
      dst = scratch_.mutable_data<T>();
    }
    Map<T>(dst, n) = fn_.template Apply<T>(ConstMap<T>(pv, n), ConstMap<T>(pdy, n));
    if (aside && n > 0) std::memcpy(out, dst, bytes);
  }

  Fn fn_;
  Tensor scratch_;
};

template <class Fn, bool kFromOutput>
std::vector<TensorType> UnaryGradientShape(const caffe2::OperatorDef&, const ArgumentHelper& args,
                                           const std::vector<TensorType>& in) {
  const char* name = kFromOutput ? "Y" : "X";
  CheckUnaryGradientInputs(in[0], in[1], name, args.op_label());
  CheckUnaryGradientDims(in[0].dims, in[1].dims, name, args.op_label());
  Fn check_arguments(args);  // argument errors (Clip's min > max) surface here too
  (void)check_arguments;
  return {in[1]};
}

template <bool kFromOutput>
OpSchema& UnaryGradientSchema(OpSchema& schema) {
  return schema.NumInputs(2)
      .NumOutputs(1)
      .AllowInplace({{1, 0}})
      .InputDoc(0, kFromOutput ? "Y" : "X",
                kFromOutput ? "The forward output (float or double)."
                            : "The forward input (float or double).")
      .InputDoc(1, "dY", "Gradient of the forward output, same dims and dtype.")
      .OutputDoc(0, "dX", "Gradient of the forward input, dY's dims (may replace dY in place).");
}

#define PARITY_UNARY_GRADIENT(Name, from_output, doc)                          \
  PARITY_OP_SCHEMA(Name##Gradient)                                             \
      .Apply(UnaryGradientSchema<from_output>)                                 \
      .ShapeInference(UnaryGradientShape<Name##GradFn, from_output>)           \
      .Doc(doc);                                                               \
  PARITY_REGISTER_CPU_OPERATOR(Name##Gradient, UnaryGradientOp<Name##GradFn, from_output>)

PARITY_UNARY_GRADIENT(Relu, true, "Gradient of Relu: (Y, dY) -> dX = dY where Y > 0, else 0.");
PARITY_UNARY_GRADIENT(Sigmoid, true, "Gradient of Sigmoid: (Y, dY) -> dX = dY * Y * (1 - Y).");
PARITY_UNARY_GRADIENT(Tanh, true, "Gradient of Tanh: (Y, dY) -> dX = dY * (1 - Y^2).");
PARITY_UNARY_GRADIENT(Reciprocal, true, "Gradient of Reciprocal: (Y, dY) -> dX = -dY * Y^2.");
PARITY_UNARY_GRADIENT(Softsign, false,
                      "Gradient of Softsign: (X, dY) -> dX = dY / (1 + |X|)^2.");
PARITY_UNARY_GRADIENT(Abs, false, "Gradient of Abs: (X, dY) -> dX = dY * sign(X) (0 at X = 0).");
PARITY_UNARY_GRADIENT(Sin, false, "Gradient of Sin: (X, dY) -> dX = dY * cos(X).");
PARITY_UNARY_GRADIENT(Cos, false, "Gradient of Cos: (X, dY) -> dX = -dY * sin(X).");
PARITY_UNARY_GRADIENT(Tan, false, "Gradient of Tan: (X, dY) -> dX = dY / cos(X)^2.");
PARITY_UNARY_GRADIENT(Asin, false, "Gradient of Asin: (X, dY) -> dX = dY / sqrt(1 - X^2).");
PARITY_UNARY_GRADIENT(Acos, false, "Gradient of Acos: (X, dY) -> dX = -dY / sqrt(1 - X^2).");
PARITY_UNARY_GRADIENT(Atan, false, "Gradient of Atan: (X, dY) -> dX = dY / (1 + X^2).");
PARITY_UNARY_GRADIENT(Sinh, false, "Gradient of Sinh: (X, dY) -> dX = dY * cosh(X).");
PARITY_UNARY_GRADIENT(Cosh, false, "Gradient of Cosh: (X, dY) -> dX = dY * sinh(X).");
PARITY_UNARY_GRADIENT(Asinh, false, "Gradient of Asinh: (X, dY) -> dX = dY / sqrt(X^2 + 1).");
PARITY_UNARY_GRADIENT(Atanh, false, "Gradient of Atanh: (X, dY) -> dX = dY / (1 - X^2).");
PARITY_UNARY_GRADIENT(Erf, false,
                      "Gradient of Erf: (X, dY) -> dX = dY * 2 / sqrt(pi) * exp(-X^2).");
#undef PARITY_UNARY_GRADIENT

PARITY_OP_SCHEMA(LeakyReluGradient)
    .Apply(UnaryGradientSchema<true>)
    .Arg("alpha", ArgType::kFloat, 0.01, "The forward slope for X < 0.")
    .ShapeInference(UnaryGradientShape<LeakyReluGradFn, true>)
    .Doc("Gradient of LeakyRelu: (Y, dY) -> dX = dY where Y > 0, else alpha * dY.");
PARITY_REGISTER_CPU_OPERATOR(LeakyReluGradient, UnaryGradientOp<LeakyReluGradFn, true>);

PARITY_OP_SCHEMA(EluGradient)
    .Apply(UnaryGradientSchema<true>)
    .Arg("alpha", ArgType::kFloat, 1.0, "The forward scale of the negative part.")
    .ShapeInference(UnaryGradientShape<EluGradFn, true>)
    .Doc("Gradient of Elu: (Y, dY) -> dX = dY where Y > 0, else dY * (Y + alpha) (= dY * alpha * "
         "exp(X)).");
PARITY_REGISTER_CPU_OPERATOR(EluGradient, UnaryGradientOp<EluGradFn, true>);

PARITY_OP_SCHEMA(ClipGradient)
    .Apply(UnaryGradientSchema<true>)
    .Arg("min", ArgType::kFloat, static_cast<double>(-FLT_MAX),
         "The forward lower bound (absent: the lowest value of the dtype).")
    .Arg("max", ArgType::kFloat, static_cast<double>(FLT_MAX),
         "The forward upper bound (absent: the largest value of the dtype).")
    .ShapeInference(UnaryGradientShape<ClipGradFn, true>)
    .Doc("Gradient of Clip: (Y, dY) -> dX = dY where min < Y < max (strictly, as Caffe2), else 0: "
         "no gradient where X was clipped or sat exactly on a bound. min > max is an error.");
PARITY_REGISTER_CPU_OPERATOR(ClipGradient, UnaryGradientOp<ClipGradFn, true>);

}  // namespace
}  // namespace parity
