// Test specs of Dropout and DropoutGrad.
//
// Dropout's training mode draws its mask from each half's own generator, so two halves agree on
// it only where the draw is certain: ratio 0 keeps every element (a keep probability read the
// wrong way round, 1 - p for p, drops them all). The cases are therefore test mode (Y = X, mask
// all true) with any ratio, and training mode with ratio 0, both exact in every oracle. Training
// with 0 < ratio < 1 is checked by relation to the mask and statistically
// (tests/ops/dropout_test.cc, tests/reference/dropout_test.cc); DropoutGrad, given a mask, is
// exact for every ratio and fuzzed on its own below.
#include <rapidcheck.h>

#include "fuzz/spec.h"

namespace parity::fuzz {
namespace {

PARITY_OP_SPEC(Dropout).Tolerance("exact").ConsumesIntermediates(true).Make(
    [](const Primary* p) -> std::optional<OpInstance> {
      const bool training = *rc::gen::inRange(0, 4) == 0;
      const bool with_mask = training || *rc::gen::arbitrary<bool>();
      OpInstance op("Dropout", with_mask ? 2 : 1);
      op.Input(p ? *p : AnyDims());
      if (training) {
        op.Arg("ratio", 0.0f);
        if (*rc::gen::arbitrary<bool>()) op.Arg("is_test", int64_t{0});  // else the default
      } else {
        op.Arg("is_test", int64_t{1});
        // Absent: the default 0.5.
        if (*rc::gen::arbitrary<bool>()) op.Arg("ratio", *rc::gen::element(0.0f, 0.3f, 0.9f));
      }
      return op;
    });

// dX = dY * mask / (1 - ratio) in training, dY in test mode (mask given or not).
PARITY_OP_SPEC(DropoutGrad)
    .Tolerance("default")
    .Skip("gradient", "a gradient op: Caffe2 registers no gradient for DropoutGrad")
    .Make([](const Primary* p) -> std::optional<OpInstance> {
      const std::vector<int64_t> dims = p ? *p : AnyDims();
      const bool is_test = *rc::gen::inRange(0, 4) == 0;
      const bool with_mask = !is_test || *rc::gen::arbitrary<bool>();
      OpInstance op("DropoutGrad");
      op.Input(dims);
      if (with_mask) op.NotDifferentiable(op.Input(dims, Domain::kBool, DataType::kBool));
      if (is_test) op.Arg("is_test", int64_t{1});
      if (*rc::gen::arbitrary<bool>()) op.Arg("ratio", *rc::gen::element(0.0f, 0.3f, 0.75f));
      return op;
    });

}  // namespace
}  // namespace parity::fuzz
