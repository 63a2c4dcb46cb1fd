// Gradient kernels of the unary family: (Y or X, dY) -> dX, elementwise. Conventions are Caffe2's
// and are tabulated in interpreter.h.
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

// The ONNX-set math ops: dX = dY * f'(X), from the textbook derivatives.
#define PARITY_REF_DERIVATIVE(Name, derivative)                      \
  template <typename T>                                              \
  void Name##Gradient(OpContext<T>& c) {                             \
    UnaryGradient(c, [](T x, T dy) { return dy * (derivative); });   \
  }
PARITY_REF_DERIVATIVE(Tan, T(1) + std::tan(x) * std::tan(x))
PARITY_REF_DERIVATIVE(Asin, T(1) / std::sqrt(T(1) - x * x))
PARITY_REF_DERIVATIVE(Acos, -T(1) / std::sqrt(T(1) - x * x))
PARITY_REF_DERIVATIVE(Atan, T(1) / (T(1) + x * x))
PARITY_REF_DERIVATIVE(Sinh, std::cosh(x))
PARITY_REF_DERIVATIVE(Cosh, std::sinh(x))
PARITY_REF_DERIVATIVE(Asinh, T(1) / std::sqrt(x * x + T(1)))
PARITY_REF_DERIVATIVE(Atanh, T(1) / (T(1) - x * x))
PARITY_REF_DERIVATIVE(Erf, T(2) / std::sqrt(T(M_PI)) * std::exp(-x * x))
#undef PARITY_REF_DERIVATIVE

template <typename T>
void ClipGradient(OpContext<T>& c) {
  const T lo = static_cast<T>(c.args.Float("min"));
  const T hi = static_cast<T>(c.args.Float("max"));
  PARITY_ENFORCE(!(c.args.Float("min") > c.args.Float("max")), ErrorKind::kBadArgument,
                 "argument 'min' = ", c.args.Float("min"),
                 " is greater than 'max' = ", c.args.Float("max"));
  UnaryGradient(c, [lo, hi](T y, T dy) { return (y > lo && y < hi) ? dy : T(0); });
}

}  // namespace

void RegisterUnaryGradientOps(Registry* r) {
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
  r->Add({"TanGradient", 2, 2, 1, 1, {}, PARITY_REF_KERNEL(TanGradient)}).inplace = {{1, 0}};
  r->Add({"AsinGradient", 2, 2, 1, 1, {}, PARITY_REF_KERNEL(AsinGradient)}).inplace = {{1, 0}};
  r->Add({"AcosGradient", 2, 2, 1, 1, {}, PARITY_REF_KERNEL(AcosGradient)}).inplace = {{1, 0}};
  r->Add({"AtanGradient", 2, 2, 1, 1, {}, PARITY_REF_KERNEL(AtanGradient)}).inplace = {{1, 0}};
  r->Add({"SinhGradient", 2, 2, 1, 1, {}, PARITY_REF_KERNEL(SinhGradient)}).inplace = {{1, 0}};
  r->Add({"CoshGradient", 2, 2, 1, 1, {}, PARITY_REF_KERNEL(CoshGradient)}).inplace = {{1, 0}};
  r->Add({"AsinhGradient", 2, 2, 1, 1, {}, PARITY_REF_KERNEL(AsinhGradient)}).inplace = {{1, 0}};
  r->Add({"AtanhGradient", 2, 2, 1, 1, {}, PARITY_REF_KERNEL(AtanhGradient)}).inplace = {{1, 0}};
  r->Add({"ErfGradient", 2, 2, 1, 1, {}, PARITY_REF_KERNEL(ErfGradient)}).inplace = {{1, 0}};
  r->Add({"ClipGradient",
          2,
          2,
          1,
          1,
          {{"min", "-3.4028234663852886e+38"}, {"max", "3.4028234663852886e+38"}},
          PARITY_REF_KERNEL(ClipGradient)})
      .inplace = {{1, 0}};
}

PARITY_REFERENCE_FAMILY(RegisterUnaryGradientOps);

}  // namespace parity::reference
