// Mod (Caffe2's, caffe2/operators/mod_op.cc, extended for ONNX's Mod): the remainder of A / B.
//
// Caffe2's form: Mod(X) with the integer argument `divisor` (non-zero), int32 / int64. ONNX's: a
// second input B broadcast against A as numpy does. parity takes both, over float, double, int8,
// int16, int32, int64, uint8 and uint16 (A and B of one dtype).
//
// The remainder's sign: with sign_follow_divisor = 0 (Caffe2's default) that of A, C's % and fmod
// (ONNX fmod = 1); with 1 that of B, Python's % (ONNX fmod = 0): a non-zero remainder of the
// other sign gets B added. INT_MIN % -1 is 0 (C++ leaves it undefined). An integer B of 0 is an
// error naming the element (C++ and Caffe2 would crash); a floating one gives NaN (fmod).
//
// Gradient (floats; makers.cc): dA = dC, dB = -dC times the integer quotient, away from the jumps
// at multiples of B (Caffe2's Mod, an integer op, had none).
#include <cmath>
#include <type_traits>

#include "core/operator.h"
#include "core/ops/elementwise/binary.h"
#include "core/schema.h"

namespace parity {
namespace {

template <typename T, bool kSignFollowsDivisor>
struct Remainder {
  T operator()(T a, T b) const {
    T r;
    if constexpr (std::is_floating_point_v<T>) {
      r = std::fmod(a, b);
    } else if constexpr (std::is_signed_v<T>) {
      r = b == T(-1) ? T(0) : static_cast<T>(a % b);
    } else {
      r = static_cast<T>(a % b);
    }
    if constexpr (kSignFollowsDivisor && std::is_signed_v<T>) {
      if (r != T(0) && ((r < T(0)) != (b < T(0)))) r = static_cast<T>(r + b);
    }
    return r;
  }
};

template <bool kSignFollowsDivisor>
struct ModFn {
  template <typename T>
  static constexpr bool kSupports =
      elementwise::kIsOneOf<T, float, double, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t>;
  template <typename T>
  using Out = T;
  template <typename T, typename X, typename Y>
  static auto Apply(const X& x, const Y& y) {
    return x.binaryExpr(y, Remainder<T, kSignFollowsDivisor>());
  }
  template <typename T>
  static void Check(const T* b, int64_t count, const std::string& label) {
    if constexpr (std::is_integral_v<T>) {
      for (int64_t i = 0; i < count; ++i) {
        PARITY_ENFORCE(b[i] != T(0), ErrorKind::kBadArgument, label,
                       ": integer modulo by zero (element ", i, " of B is 0)");
      }
    }
  }
};

void CheckModArity(int inputs, const ArgumentHelper& args) {
  PARITY_ENFORCE(inputs == 2 || args.Has("divisor"), ErrorKind::kBadArgument, args.op_label(),
                 ": with one input the argument 'divisor' is required");
  PARITY_ENFORCE(inputs == 1 || !args.Has("divisor"), ErrorKind::kBadArgument, args.op_label(),
                 ": takes the divisor either as input 1 or as the argument 'divisor', not both");
  PARITY_ENFORCE(inputs == 2 || args.Get<int64_t>("divisor") != 0, ErrorKind::kBadArgument,
                 args.op_label(), ": argument 'divisor' must not be 0");
}

class ModOp final : public Operator {
 public:
  ModOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws), sign_follows_divisor_(Arg<bool>("sign_follow_divisor")) {
    CheckModArity(InputSize(), args());
    if (InputSize() == 1) divisor_ = Arg<int64_t>("divisor");
  }

  void Run() override {
    const Tensor& a = Input(0);
    const Tensor* b = InputSize() == 2 ? &Input(1) : nullptr;
    if (b == nullptr) {
      // Caffe2's divisor as a scalar B of A's dtype, broadcast like an ONNX B of dims [].
      const DataType dtype = a.dtype();
      if (divisor_tensor_.dtype() != dtype || divisor_tensor_.numel() != 1) {
        divisor_tensor_ = Tensor(dtype, {});
        elementwise::VisitType(dtype, [&](auto zero) {
          using T = decltype(zero);
          *divisor_tensor_.mutable_data<T>() = static_cast<T>(divisor_);
        });
      }
      b = &divisor_tensor_;
    }
    const bool out_is_a = OutputBlob(0) == InputBlob(0);
    const bool out_is_b = InputSize() == 2 && OutputBlob(0) == InputBlob(1);
    if (sign_follows_divisor_) {
      python_.Compute(label(), BroadcastArgs{}, a, *b, Output(0), out_is_a, out_is_b);
    } else {
      c_.Compute(label(), BroadcastArgs{}, a, *b, Output(0), out_is_a, out_is_b);
    }
  }

 private:
  const bool sign_follows_divisor_;
  int64_t divisor_ = 0;
  Tensor divisor_tensor_;
  BinaryKernel<ModFn<false>> c_;
  BinaryKernel<ModFn<true>> python_;
};

PARITY_OP_SCHEMA(Mod)
    .NumInputs(1, 2)
    .NumOutputs(1)
    .Arg("divisor", ArgType::kInt, std::monostate{},
         "Caffe2's divisor when there is no second input (required then, non-zero).")
    .Arg("sign_follow_divisor", ArgType::kInt, int64_t{0},
         "0: the remainder has A's sign (C's %, ONNX fmod=1); 1: B's (Python's %, ONNX fmod=0).")
    .AllowInplace({{0, 0}})
    .DifferentiableInputs({0, 1})
    .ShapeInference([](const caffe2::OperatorDef& def, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) {
      CheckModArity(def.input_size(), args);
      TensorType out = in[0];
      if (in.size() == 2) {
        CheckBinaryTypes<ModFn<false>>(in[0], in[1], args.op_label());
        out.dims = BroadcastShapes(in[0].dims, in[1].dims, args.op_label());
        if (def.output(0) == def.input(0)) {
          CheckInPlaceDims(args.op_label(), "A", in[0].dims, out.dims);
        }
      } else {
        CheckBinaryTypes<ModFn<false>>(in[0], in[0], args.op_label());
      }
      return std::vector<TensorType>{out};
    })
    .InputDoc(0, "A", "Dividend: float, double, int8, int16, int32, int64, uint8 or uint16.")
    .InputDoc(1, "B", "Optional divisor of A's dtype, broadcast against A (numpy).")
    .OutputDoc(0, "C", "The remainder, in the broadcast shape.")
    .Doc("C = A mod B (or mod the `divisor` argument), the remainder's sign A's (default) or B's.");
PARITY_REGISTER_CPU_OPERATOR(Mod, ModOp);

}  // namespace
}  // namespace parity
