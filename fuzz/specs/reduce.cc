// Test specs of the reductions: ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd,
// SumElements, Softmax, Hardmax, CumSum.
#include <rapidcheck.h>

#include <algorithm>

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

// One fresh input in 4 has a row at the edges of the 32-wide row sum (ReduceSum / ReduceMean's
// declared path, size_paths.h): reduced whenever the axes reduce its last dim. One in 8 more than
// AnyDims's share is empty: a reduction over nothing gives its own identity (0, NaN, -inf, +inf),
// which each op defines apart and the 1-in-16 share met too rarely in a campaign's minute.
std::optional<OpInstance> MakeReduce(const std::string& type, const Primary* p, Domain domain) {
  std::vector<int64_t> x = p ? *p : Pick(4) == 0 ? BlockEdgeDims(32, 4) : AnyDims();
  if (!p && Pick(8) == 7) x[Pick(static_cast<int>(x.size()))] = 0;
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

// ReduceProd: fresh inputs of at most 64 elements (a product of intermediates can overflow f32
// where f64 does not), positive in [0.5, 2], or one case in 3 any sign (zeros included) over at
// most 16 elements.
PARITY_OP_SPEC(ReduceProd)
    .Tolerance("accumulation")
    .Make([](const Primary*) -> std::optional<OpInstance> {
      const bool signed_values = Pick(3) == 0;
      const std::vector<int64_t> x = signed_values ? AnyDims(1, 2, 4) : AnyDims(1, 3, 4);
      OpInstance op("ReduceProd");
      op.Input(x, signed_values ? Domain::kAny : Domain::kPositive);
      std::vector<int64_t> axes = SomeAxes(static_cast<int64_t>(x.size()));
      if (!axes.empty()) op.Arg("axes", axes);
      if (*rc::gen::arbitrary<bool>()) {
        op.Arg("keepdims", int64_t{*rc::gen::arbitrary<bool>() ? 1 : 0});
      }
      return op;
    });

// Hardmax: distinct values (a tie decides which element is 1), fresh inputs only (f32 and f64
// intermediates could order near-ties differently); the 2-D view at any axis.
PARITY_OP_SPEC(Hardmax)
    .Tolerance("exact")
    .Skip("gradient", "piecewise constant: no gradient")
    .Make([](const Primary*) -> std::optional<OpInstance> {
      const std::vector<int64_t> x = AnyDims();
      const int64_t rank = static_cast<int64_t>(x.size());
      OpInstance op("Hardmax");
      op.Input(x, Domain::kDistinct);
      // The default axis, 1, needs rank >= 2.
      if (rank == 1 || Pick(4) != 0) {
        const int64_t axis = Pick(static_cast<int>(rank));
        op.Arg("axis", *rc::gen::arbitrary<bool>() ? axis : axis - rank);
      }
      return op;
    });

// CumSum: any axis (sometimes negative), exclusive and reverse; one case in 4 of int64 values.
// Linear: any values, intermediates too.
PARITY_OP_SPEC(CumSum)
    .Tolerance("accumulation")
    .ConsumesIntermediates(true)
    .Make([](const Primary* p) -> std::optional<OpInstance> {
      const std::vector<int64_t> x = p ? *p : AnyDims();
      const int64_t rank = static_cast<int64_t>(x.size());
      if (rank == 0) return std::nullopt;
      OpInstance op("CumSum");
      if (!p && Pick(4) == 0) {
        op.NotDifferentiable(op.IndexInput(x, 50, DataType::kInt64));
      } else {
        op.Input(x);
      }
      const int64_t axis = Pick(static_cast<int>(rank));
      if (axis != 0 || *rc::gen::arbitrary<bool>()) {
        op.Arg("axis", *rc::gen::arbitrary<bool>() ? axis : axis - rank);
      }
      if (*rc::gen::arbitrary<bool>()) op.Arg("exclusive", int64_t{1});
      if (*rc::gen::arbitrary<bool>()) op.Arg("reverse", int64_t{1});
      return op;
    });

// Max / Min need inputs without ties (a tie is a kink): distinct values, so not intermediates.
PARITY_OP_SPEC(ReduceMax).Tolerance("exact").Make([](const Primary* p) {
  return MakeReduce("ReduceMax", p, Domain::kDistinct);
});

PARITY_OP_SPEC(ReduceMin).Tolerance("exact").Make([](const Primary* p) {
  return MakeReduce("ReduceMin", p, Domain::kDistinct);
});

// ArgMax / ArgMin: fresh inputs only (an intermediate computed in f32 and in f64 may order two
// near-equal elements differently: the index would jump). Float values distinct, or (1 case in 3)
// int64 values with ties, where select_last_index matters.
std::optional<OpInstance> MakeArg(const std::string& type) {
  OpInstance op(type);
  std::vector<int64_t> x = AnyDims();
  if (x.empty()) x = {Dim(1, 5)};
  if (*rc::gen::inRange(0, 3) == 0) {
    int64_t n = 1;
    for (int64_t d : x) n *= d;
    n = std::max<int64_t>(n, 1);
    const int input =
        op.ShapeInput(*rc::gen::container<std::vector<int64_t>>(n, rc::gen::inRange(-3, 4)),
                      DataType::kInt64);
    op.NotDifferentiable(input);
    x = {n};  // ShapeInput is 1-D
  } else {
    op.Input(x, Domain::kDistinct);
  }
  const int64_t r = static_cast<int64_t>(x.size());
  if (*rc::gen::inRange(0, 4) != 0) op.Arg("axis", *rc::gen::inRange<int64_t>(-r, r));
  if (*rc::gen::arbitrary<bool>()) op.Arg("keepdims", int64_t{*rc::gen::inRange(0, 2)});
  if (*rc::gen::inRange(0, 3) == 0) op.Arg("select_last_index", int64_t{1});
  return op;
}

PARITY_OP_SPEC(ArgMax)
    .Tolerance("exact")
    .Skip("gradient", "the output is int64 indices, not differentiable")
    .Make([](const Primary*) { return MakeArg("ArgMax"); });

PARITY_OP_SPEC(ArgMin)
    .Tolerance("exact")
    .Skip("gradient", "the output is int64 indices, not differentiable")
    .Make([](const Primary*) { return MakeArg("ArgMin"); });

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
      // One fresh input in 4 has rows at the edges of the 8-wide exp (size_paths.h).
      std::vector<int64_t> x = p ? *p : Pick(4) == 0 ? BlockEdgeDims(8) : AnyDims();
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
