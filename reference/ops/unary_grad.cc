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
