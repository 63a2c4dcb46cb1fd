// The toy op's test spec: what the generators may feed it. Registering it is all it takes for the
// op to be fuzzed by the default campaign, checked by every oracle and listed by `parity ops`.
#include <rapidcheck.h>

#include "fuzz/spec.h"

namespace parity::fuzz {
namespace {

PARITY_OP_SPEC(ToyScaleShift)
    .Tolerance("default")
    .ConsumesIntermediates(true)
    .FloatOnly("the kernel is written for float")
    .Make([](const Primary* p) -> std::optional<OpInstance> {
      OpInstance op("ToyScaleShift");
      op.Input(p ? *p : AnyDims());
      if (*rc::gen::arbitrary<bool>()) op.Arg("scale", *rc::gen::element(-1.5f, 0.5f, 3.0f));
      return op;
    });

}  // namespace
}  // namespace parity::fuzz
