// Binary elementwise ops: Add Sub Mul Div Pow, comparisons LT LE GT GE EQ NE (-> bool), logical
// And Or Xor (bool), and Not. Caffe2 semantics (caffe2/operators/elementwise_ops_schema.cc,
// elementwise_ops.h, pow_op.cc); broadcasting rules in elementwise_binary.h.
//
// Arithmetic takes float, double and every integer dtype parity stores (int8, int16, int32, int64,
// uint8, uint16: ONNX's Add / Sub / Mul / Div; Caffe2 registered float, double, int32, int64).
// Integer arithmetic wraps on overflow (two's complement, numpy's result: uint8 200 + 100 = 44)
// rather than being undefined; integer division truncates toward zero as in C++ (for unsigned
// operands that is numpy's floor division, ONNX's expected values), INT_MIN / -1 wraps to INT_MIN,
// and division by zero is an error (Caffe2 would crash with SIGFPE).
//
// Pow also takes int32 and int64 (ONNX's Pow) with an exponent input of the same dtype, exactly:
// repeated squaring with wrap-around (numpy's integer power: 3^21 in int32 is 3^21 mod 2^32); a
// negative integer exponent is an error, as in numpy (its result is no integer).
#include "core/ops/elementwise/binary.h"

#include <cmath>
#include <functional>

#include "core/operator.h"
#include "core/ops/common/size_paths.h"
#include "core/schema.h"

namespace parity {

using elementwise::FromWrapping;
using elementwise::AsWrapping;
using elementwise::kIsOneOf;

BroadcastArgs ReadBroadcastArgs(const caffe2::OperatorDef& def, const ArgumentHelper& args) {
  const std::string& label = args.op_label();
  BroadcastArgs out;
  out.legacy = args.Get<int64_t>("broadcast") != 0;
  // As in the newer Caffe2, axis and axis_str mean nothing without broadcast=1 and are ignored.
  if (!out.legacy) return out;
  out.axis = args.Get<int64_t>("axis");
  const std::string axis_str = args.Get<std::string>("axis_str");
  if (!axis_str.empty()) {
    PARITY_ENFORCE(out.axis == -1, ErrorKind::kBadArgument, label,
                   ": arguments 'axis' and 'axis_str' cannot be used together");
    const std::string order = args.Get<std::string>("order");
    const size_t pos = axis_str.size() == 1 ? order.find(axis_str) : std::string::npos;
    PARITY_ENFORCE(pos != std::string::npos, ErrorKind::kBadArgument, label,
                   ": argument 'axis_str' = \"", axis_str, "\" is not one letter of order \"",
                   order, "\"");
    out.axis = static_cast<int64_t>(pos);
  }
  PARITY_ENFORCE(def.input_size() < 2 || def.output_size() < 1 || def.input(1) != def.output(0),
                 ErrorKind::kBadArgument, label, ": with broadcast=1 only input 0 may be written ",
                 "in place, but input 1 and output 0 are both '", def.output(0), "'");
  return out;
}

OpSchema& BroadcastArgsSchema(OpSchema& schema) {
  return schema
      .Arg("broadcast", ArgType::kInt, int64_t{0},
           "1: Caffe2's legacy broadcast of B over A (see axis), output shaped like A. "
           "0: numpy broadcasting.")
      .Arg("axis", ArgType::kInt, int64_t{-1},
           "With broadcast=1: the dim of A where B's dims start; -1 matches B to A's trailing "
           "dims. Ignored with broadcast=0.")
      .Arg("axis_str", ArgType::kString, std::string(),
           "With broadcast=1: the axis as a letter of `order` (e.g. \"C\"); not with axis.")
      .Arg("order", ArgType::kString, std::string("NCHW"), "Dim letters for axis_str.");
}

void BinaryDims(const BroadcastArgs& bargs, const std::vector<int64_t>& a,
                const std::vector<int64_t>& b, const std::string& label,
                std::vector<int64_t>* out, std::vector<int64_t>* b_plan) {
  if (bargs.legacy) {
    *b_plan = LegacyBroadcastDims(a, b, bargs.axis, label);
    *out = a;
  } else {
    *out = BroadcastShapes(a, b, label);
    *b_plan = b;
  }
}

void CheckInPlaceDims(const std::string& label, const std::string& name,
                      const std::vector<int64_t>& input, const std::vector<int64_t>& output) {
  PARITY_ENFORCE(input == output, ErrorKind::kShapeMismatch, label, ": the output ",
                 ShapeString(output), " cannot be written in place of input ", name, " ",
                 ShapeString(input), " (in place needs the output to keep the input's shape)");
}

namespace {

// ---------------------------------------------------------------------------------------------
// Functors (see BinaryKernel for the interface).

template <typename... Ts>
struct Types {
  template <typename T>
  static constexpr bool kSupports = kIsOneOf<T, Ts...>;
};
using ArithmeticTypes =
    Types<float, double, int32_t, int64_t, int8_t, int16_t, uint8_t, uint16_t>;

struct AddFn : ArithmeticTypes, NoDataCheck {
  static constexpr simd::BinaryKind kSimd = simd::BinaryKind::kAdd;
  template <typename T>
  using Out = T;
  template <typename T, typename X, typename Y>
  static auto Apply(const X& x, const Y& y) {
    return FromWrapping<T>(AsWrapping<T>(x) + AsWrapping<T>(y));
  }
};

struct SubFn : ArithmeticTypes, NoDataCheck {
  static constexpr simd::BinaryKind kSimd = simd::BinaryKind::kSub;
  template <typename T>
  using Out = T;
  template <typename T, typename X, typename Y>
  static auto Apply(const X& x, const Y& y) {
    return FromWrapping<T>(AsWrapping<T>(x) - AsWrapping<T>(y));
  }
};

struct MulFn : ArithmeticTypes, NoDataCheck {
  static constexpr simd::BinaryKind kSimd = simd::BinaryKind::kMul;
  template <typename T>
  using Out = T;
  template <typename T, typename X, typename Y>
  static auto Apply(const X& x, const Y& y) {
    return FromWrapping<T>(AsWrapping<T>(x) * AsWrapping<T>(y));
  }
};

template <typename T>
struct IntDivide {
  T operator()(T x, T y) const {
    if constexpr (std::is_signed_v<T>) {
      // x / -1 is the one quotient that overflows (INT_MIN / -1): negate with wrap-around instead.
      using U = elementwise::WrappingType<T>;
      if (y == T(-1)) return static_cast<T>(U(0) - static_cast<U>(x));
    }
    return static_cast<T>(x / y);
  }
};

struct DivFn : ArithmeticTypes {
  static constexpr simd::BinaryKind kSimd = simd::BinaryKind::kDiv;
  template <typename T>
  using Out = T;
  template <typename T, typename X, typename Y>
  static auto Apply(const X& x, const Y& y) {
    if constexpr (std::is_integral_v<T>) {
      return x.binaryExpr(y, IntDivide<T>());
    } else {
      return x / y;
    }
  }
  template <typename T>
  static void Check(const T* b, int64_t count, const std::string& label) {
    if constexpr (std::is_integral_v<T>) {
      for (int64_t i = 0; i < count; ++i) {
        PARITY_ENFORCE(b[i] != 0, ErrorKind::kBadArgument, label,
                       ": integer division by zero (element ", i, " of B is 0)");
      }
    }
  }
};

template <typename T>
struct PowOf {
  T operator()(T x, T y) const {
    if constexpr (std::is_integral_v<T>) {
      // Square-and-multiply in the unsigned type: the low bits of the exact power (wrap-around).
      // y >= 0 here (PowFn::Check).
      using U = elementwise::WrappingType<T>;
      U base = static_cast<U>(x), result = 1;
      for (T e = y; e > 0; e /= 2) {
        if (e % 2 == 1) result *= base;
        base *= base;
      }
      return static_cast<T>(result);
    } else {
      return std::pow(x, y);
    }
  }
};

struct PowFn : Types<float, double, int32_t, int64_t> {
  template <typename T>
  using Out = T;
  template <typename T, typename X, typename Y>
  static auto Apply(const X& x, const Y& y) {
    return x.binaryExpr(y, PowOf<T>());
  }
  template <typename T>
  static void Check(const T* b, int64_t count, const std::string& label) {
    if constexpr (std::is_integral_v<T>) {
      for (int64_t i = 0; i < count; ++i) {
        PARITY_ENFORCE(b[i] >= 0, ErrorKind::kBadArgument, label,
                       ": integer to a negative integer power (element ", i, " of B is ", b[i],
                       "); numpy refuses it too");
      }
    }
  }
};

using ComparableTypes = Types<bool, int32_t, int64_t, float, double>;

// Comparisons use Eigen's vectorized operators, except on bool where a plain functor is used
// (Eigen has no ordered comparison of bool packets).
#define PARITY_COMPARISON_FN(Name, op, StdFn)                       \
  struct Name##Fn : ComparableTypes, NoDataCheck {                  \
    template <typename T>                                           \
    using Out = bool;                                               \
    template <typename T, typename X, typename Y>                   \
    static auto Apply(const X& x, const Y& y) {                     \
      if constexpr (std::is_same_v<T, bool>) {                      \
        return x.binaryExpr(y, StdFn<bool>());                      \
      } else {                                                      \
        return x op y;                                              \
      }                                                             \
    }                                                               \
  };
PARITY_COMPARISON_FN(LT, <, std::less)
PARITY_COMPARISON_FN(LE, <=, std::less_equal)
PARITY_COMPARISON_FN(GT, >, std::greater)
PARITY_COMPARISON_FN(GE, >=, std::greater_equal)
PARITY_COMPARISON_FN(EQ, ==, std::equal_to)
PARITY_COMPARISON_FN(NE, !=, std::not_equal_to)
#undef PARITY_COMPARISON_FN

#define PARITY_LOGICAL_FN(Name, StdFn)                  \
  struct Name##Fn : Types<bool>, NoDataCheck {          \
    template <typename T>                               \
    using Out = bool;                                   \
    template <typename T, typename X, typename Y>       \
    static auto Apply(const X& x, const Y& y) {         \
      return x.binaryExpr(y, StdFn());                  \
    }                                                   \
  };
PARITY_LOGICAL_FN(And, std::logical_and<bool>)
PARITY_LOGICAL_FN(Or, std::logical_or<bool>)
PARITY_LOGICAL_FN(Xor, std::not_equal_to<bool>)
#undef PARITY_LOGICAL_FN

// ---------------------------------------------------------------------------------------------
// Operators.

template <class Fn>
class BinaryOp final : public Operator {
 public:
  BinaryOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws), bargs_(ReadBroadcastArgs(def, args())) {}

  void Run() override {
    kernel_.Compute(label(), bargs_, Input(0), Input(1), Output(0), OutputBlob(0) == InputBlob(0),
                    OutputBlob(0) == InputBlob(1));
  }

 private:
  BroadcastArgs bargs_;
  BinaryKernel<Fn> kernel_;
};

template <class Fn>
std::vector<TensorType> BinaryShape(const caffe2::OperatorDef& def, const ArgumentHelper& args,
                                    const std::vector<TensorType>& in) {
  const std::string& label = args.op_label();
  CheckBinaryTypes<Fn>(in[0], in[1], label);
  const BroadcastArgs bargs = ReadBroadcastArgs(def, args);
  TensorType out;
  out.dtype = elementwise::OutputType<Fn>(in[0].dtype);
  std::vector<int64_t> b_plan;
  BinaryDims(bargs, in[0].dims, in[1].dims, label, &out.dims, &b_plan);
  if (def.output(0) == def.input(0)) CheckInPlaceDims(label, "A", in[0].dims, out.dims);
  if (def.output(0) == def.input(1)) CheckInPlaceDims(label, "B", in[1].dims, out.dims);
  return {out};
}

OpSchema& BinaryOpSchema(OpSchema& schema) {
  return schema.NumInputs(2)
      .NumOutputs(1)
      .Apply(BroadcastArgsSchema)
      .InputDoc(0, "A", "First operand.")
      .InputDoc(1, "B", "Second operand, broadcast against A (same dtype).")
      .OutputDoc(0, "C", "Result, in the broadcast shape (A's shape with broadcast=1).");
}

#define PARITY_ARITHMETIC_OP(Name, inplace, doc)                                  \
  PARITY_OP_SCHEMA(Name)                                                          \
      .Apply(BinaryOpSchema)                                                      \
      .AllowInplace(inplace)                                                      \
      .DifferentiableInputs({0, 1})                                               \
      .ShapeInference(BinaryShape<Name##Fn>)                                      \
      .Doc(doc " Dtypes float, double, int8, int16, int32, int64, uint8, uint16 (integers " \
           "wrap on overflow); output dtype = input dtype.");                          \
  PARITY_REGISTER_CPU_OPERATOR(Name, BinaryOp<Name##Fn>)

// Caffe2: Add, Sub and Mul may write over either input, Div only over A.
PARITY_ARITHMETIC_OP(Add, (std::vector<std::pair<int, int>>{{0, 0}, {1, 0}}),
                     "C = A + B elementwise with broadcasting.");
PARITY_ARITHMETIC_OP(Sub, (std::vector<std::pair<int, int>>{{0, 0}, {1, 0}}),
                     "C = A - B elementwise with broadcasting.");
PARITY_ARITHMETIC_OP(Mul, (std::vector<std::pair<int, int>>{{0, 0}, {1, 0}}),
                     "C = A * B elementwise with broadcasting.");
PARITY_ARITHMETIC_OP(Div, (std::vector<std::pair<int, int>>{{0, 0}}),
                     "C = A / B elementwise with broadcasting; integer division truncates toward "
                     "zero and division by zero is an error.");
#undef PARITY_ARITHMETIC_OP

#ifdef PARITY_AVX2_EXP
// Same shapes: the float kernel (simd::Binary) takes 16 floats per step, then a scalar tail.
// (Broadcasts take it per contiguous piece of at least 32; tests/ops/simd_kernels_test.cc covers
// every length and operand pattern of the kernel itself.)
int64_t SameShapeNumel(const caffe2::OperatorDef&, const InputDims& in) {
  if (in.size() != 2 || in[0] != in[1]) return -1;
  int64_t n = 1;
  for (int64_t d : in[0]) n *= d;
  return n;
}
PARITY_SIZE_PATH(Add, "AVX2 loop over 16 floats, scalar tail", 16, 16, SameShapeNumel);
PARITY_SIZE_PATH(Sub, "AVX2 loop over 16 floats, scalar tail", 16, 16, SameShapeNumel);
PARITY_SIZE_PATH(Mul, "AVX2 loop over 16 floats, scalar tail", 16, 16, SameShapeNumel);
PARITY_SIZE_PATH(Div, "AVX2 loop over 16 floats, scalar tail", 16, 16, SameShapeNumel);
#endif

#define PARITY_COMPARISON_OP(Name, symbol)                                                  \
  PARITY_OP_SCHEMA(Name)                                                                    \
      .Apply(BinaryOpSchema)                                                                \
      .ShapeInference(BinaryShape<Name##Fn>)                                                \
      .NotDifferentiable()                                                                  \
      .Doc("C = (A " symbol " B) elementwise with broadcasting, as bool. Dtypes bool, int32, " \
           "int64, float, double (both inputs alike).");                                    \
  PARITY_REGISTER_CPU_OPERATOR(Name, BinaryOp<Name##Fn>)

PARITY_COMPARISON_OP(LT, "<");
PARITY_COMPARISON_OP(LE, "<=");
PARITY_COMPARISON_OP(GT, ">");
PARITY_COMPARISON_OP(GE, ">=");
PARITY_COMPARISON_OP(EQ, "==");
PARITY_COMPARISON_OP(NE, "!=");
#undef PARITY_COMPARISON_OP

#define PARITY_LOGICAL_OP(Name, what)                                                       \
  PARITY_OP_SCHEMA(Name)                                                                    \
      .Apply(BinaryOpSchema)                                                                \
      .AllowInplace({{0, 0}})                                                               \
      .ShapeInference(BinaryShape<Name##Fn>)                                                \
      .NotDifferentiable()                                                                  \
      .Doc("C = A " what " B elementwise on bool tensors, with broadcasting.");             \
  PARITY_REGISTER_CPU_OPERATOR(Name, BinaryOp<Name##Fn>)

PARITY_LOGICAL_OP(And, "and");
PARITY_LOGICAL_OP(Or, "or");
PARITY_LOGICAL_OP(Xor, "xor");
#undef PARITY_LOGICAL_OP

// ---------------------------------------------------------------------------------------------
// Pow: X ^ exponent, the exponent either the argument (one input) or a broadcast second input.

// The one-input form's dtypes: its exponent is a float argument.
using PowArgumentTypes = Types<float, double>;

void CheckPowArity(int inputs, const ArgumentHelper& args) {
  PARITY_ENFORCE(inputs == 2 || args.Has("exponent"), ErrorKind::kBadArgument, args.op_label(),
                 ": with one input the argument 'exponent' is required");
  PARITY_ENFORCE(inputs == 1 || !args.Has("exponent"), ErrorKind::kBadArgument, args.op_label(),
                 ": takes the exponent either as input 1 or as the argument 'exponent', not both");
}

class PowOp final : public Operator {
 public:
  PowOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws), bargs_(ReadBroadcastArgs(def, args())) {
    CheckPowArity(InputSize(), args());
    if (InputSize() == 1) exponent_ = Arg<double>("exponent");
  }

  void Run() override {
    if (InputSize() == 2) {
      kernel_.Compute(label(), bargs_, Input(0), Input(1), Output(0),
                      OutputBlob(0) == InputBlob(0), OutputBlob(0) == InputBlob(1));
      return;
    }
    const Tensor& x = Input(0);
    PARITY_ENFORCE(elementwise::Supports<PowArgumentTypes>(x.dtype()), ErrorKind::kShapeMismatch,
                   label(), ": unsupported dtype of X (", x.DebugString(),
                   ") with the 'exponent' argument; supported: ",
                   elementwise::SupportedTypes<PowArgumentTypes>());
    Tensor* y = Output(0);
    y->Resize(x.dims());
    const int64_t n = x.numel();
    auto compute = [&](auto zero) {
      using T = decltype(zero);
      T* out = y->mutable_data<T>();
      const T e = static_cast<T>(exponent_);
      const T* px = x.data<T>();
      elementwise::ParallelElementwise(out, n, 1, [&](int64_t begin, int64_t end) {
        auto in = elementwise::ConstMap<T>(px + begin, end - begin);
        elementwise::Map<T> y(out + begin, end - begin);
        // x^2 as a product (exact, and what pow returns anyway); everything else through std::pow.
        if (e == T(2)) {
          y = in * in;
        } else {
          y = in.unaryExpr([e](T v) { return std::pow(v, e); });
        }
      });
    };
    if (x.dtype() == DataType::kFloat) {
      compute(float{});
    } else {
      compute(double{});
    }
  }

 private:
  BroadcastArgs bargs_;
  double exponent_ = 0;
  BinaryKernel<PowFn> kernel_;
};

PARITY_OP_SCHEMA(Pow)
    .NumInputs(1, 2)
    .NumOutputs(1)
    .Apply(BroadcastArgsSchema)
    .Arg("exponent", ArgType::kFloat, std::monostate{},
         "The exponent when there is no second input (required then, forbidden otherwise).")
    .AllowInplace({{0, 0}, {1, 0}})
    .DifferentiableInputs({0, 1})
    .ShapeInference([](const caffe2::OperatorDef& def, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) {
      CheckPowArity(def.input_size(), args);
      if (in.size() == 2) return BinaryShape<PowFn>(def, args, in);
      PARITY_ENFORCE(elementwise::Supports<PowArgumentTypes>(in[0].dtype),
                     ErrorKind::kShapeMismatch, args.op_label(), ": unsupported dtype of X (",
                     TensorTypeString(in[0]), ") with the 'exponent' argument; supported: ",
                     elementwise::SupportedTypes<PowArgumentTypes>());
      return std::vector<TensorType>{in[0]};
    })
    .InputDoc(0, "X", "Base: float or double; int32 or int64 with an exponent input.")
    .InputDoc(1, "exponent", "Optional exponent tensor, broadcast against X like Add's B.")
    .OutputDoc(0, "Y", "X raised to the exponent elementwise.")
    .Doc("Y = X ^ exponent elementwise (std::pow); the exponent is the `exponent` argument or a "
         "second input broadcast as in Add. Integer powers (int32, int64, exponent input of the "
         "same dtype) are exact with wrap-around; a negative integer exponent is an error.");
PARITY_REGISTER_CPU_OPERATOR(Pow, PowOp);

// ---------------------------------------------------------------------------------------------
// Not.

class NotOp final : public Operator {
 public:
  using Operator::Operator;
  void Run() override {
    const Tensor& x = Input(0);
    PARITY_ENFORCE(x.dtype() == DataType::kBool, ErrorKind::kShapeMismatch, label(),
                   ": input X must be bool, got ", x.DebugString());
    Tensor* y = Output(0);
    y->Resize(x.dims());
    const int64_t n = x.numel();
    elementwise::Map<bool>(y->mutable_data<bool>(), n) =
        elementwise::ConstMap<bool>(x.data<bool>(), n).unaryExpr(std::logical_not<bool>());
  }
};

PARITY_OP_SCHEMA(Not)
    .NumInputs(1)
    .NumOutputs(1)
    .ShapeInference([](const caffe2::OperatorDef&, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) {
      PARITY_ENFORCE(in[0].dtype == DataType::kBool, ErrorKind::kShapeMismatch, args.op_label(),
                     ": input X must be bool, got ", TensorTypeString(in[0]));
      return std::vector<TensorType>{in[0]};
    })
    .NotDifferentiable()
    .InputDoc(0, "X", "A bool tensor.")
    .OutputDoc(0, "Y", "Its elementwise negation.")
    .Doc("Y = not X elementwise on a bool tensor.");
PARITY_REGISTER_CPU_OPERATOR(Not, NotOp);

}  // namespace
}  // namespace parity
