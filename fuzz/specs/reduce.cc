// Test specs of the reductions: ReduceSum, ReduceMean, ReduceMax, ReduceMin, SumElements, Softmax.
#include <rapidcheck.h>

#include "fuzz/spec.h"

namespace parity::fuzz {
namespace {

// A non-empty subset of the axes (some written negative), or none (= all axes).
std::vector<int64_t> SomeAxes(int64_t rank) {
  std::vector<int64_t> axes;
  if (*rc::gen::inRange(0, 4) == 0) return axes;
  for (int64_t a = 0; a < rank; ++a) {
    if (*rc::gen::arbitrary<bool>()) axes.push_back(*rc::gen::arbitrary<bool>() ? a : a - rank);
  }
  if (axes.empty()) axes.push_back(*rc::gen::inRange<int64_t>(0, rank));
  return axes;
}

std::optional<OpInstance> MakeReduce(const std::string& type, const Primary* p, Domain domain) {
  std::vector<int64_t> x = p ? *p : AnyDims();
  OpInstance op(type);
  op.Input(x, domain);
  std::vector<int64_t> axes = SomeAxes(static_cast<int64_t>(x.size()));
  if (!axes.empty()) op.Arg("axes", axes);
  if (*rc::gen::arbitrary<bool>()) op.Arg("keepdims", int64_t{*rc::gen::arbitrary<bool>() ? 1 : 0});
  return op;
}

PARITY_OP_SPEC(ReduceSum)
    .Tolerance("accumulation")
    .ConsumesIntermediates(true)
    .Make([](const Primary* p) { return MakeReduce("ReduceSum", p, Domain::kAny); });

PARITY_OP_SPEC(ReduceMean)
    .Tolerance("accumulation")
    .ConsumesIntermediates(true)
    .Make([](const Primary* p) { return MakeReduce("ReduceMean", p, Domain::kAny); });

// Max / Min need inputs without ties (a tie is a kink): distinct values, so not intermediates.
PARITY_OP_SPEC(ReduceMax).Tolerance("exact").Make([](const Primary* p) {
  return MakeReduce("ReduceMax", p, Domain::kDistinct);
});

PARITY_OP_SPEC(ReduceMin).Tolerance("exact").Make([](const Primary* p) {
  return MakeReduce("ReduceMin", p, Domain::kDistinct);
});

PARITY_OP_SPEC(SumElements)
    .Tolerance("accumulation")
    .ConsumesIntermediates(true)
    .Make([](const Primary* p) -> std::optional<OpInstance> {
      OpInstance op("SumElements");
      op.Input(p ? *p : AnyDims());
      if (*rc::gen::arbitrary<bool>()) op.Arg("average", int64_t{1});
      return op;
    });

PARITY_OP_SPEC(Softmax)
    .Tolerance("transcendental")
    .ConsumesIntermediates(true)
    .Make([](const Primary* p) -> std::optional<OpInstance> {
      std::vector<int64_t> x = p ? *p : AnyDims();
      const int64_t rank = static_cast<int64_t>(x.size());
      OpInstance op("Softmax");
      op.Input(x, Domain::kLogits);  // logits up to 1e3: the row max must be subtracted
      if (rank > 1 || *rc::gen::arbitrary<bool>()) {
        const int64_t axis = *rc::gen::inRange<int64_t>(0, rank);
        op.Arg("axis", *rc::gen::arbitrary<bool>() ? axis : axis - rank);
      } else if (rank == 1) {
        op.Arg("axis", int64_t{0});
      }
      return op;
    });

}  // namespace
}  // namespace parity::fuzz
