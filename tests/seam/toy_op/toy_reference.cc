// The toy op's reference half: the naive kernel from the op's definition, Y = scale * X + 1, in
// the interpreter's precision (f64 or f32), registered as a family of its own.
#include "reference/kernel.h"

namespace parity::reference {
namespace {

template <typename T>
void ToyScaleShift(OpContext<T>& c) {
  const Value<T>& x = c.RealInput(0);
  const T scale = static_cast<T>(c.args.Float("scale"));
  Value<T> y = c.NewReal(x.dims);
  for (int64_t k = 0; k < x.size(); ++k) y.r()[k] = scale * x.r()[k] + T(1);
  c.SetOutput(0, std::move(y));
}

void RegisterToyOps(Registry* r) {
  r->Add({"ToyScaleShift", 1, 1, 1, 1, {{"scale", "2.0"}}, PARITY_REF_KERNEL(ToyScaleShift)})
      .inplace = {{0, 0}};
}
PARITY_REFERENCE_FAMILY(RegisterToyOps);

}  // namespace
}  // namespace parity::reference
