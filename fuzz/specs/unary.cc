// Test specs of the unary elementwise ops: Relu LeakyRelu Elu Sigmoid Tanh Softsign Exp Log Sqrt
// Sqr Abs Neg Reciprocal Sin Cos Clip Scale, Cast and StopGradient. Inputs stay away from kinks
// (0 for Relu / Abs / LeakyRelu / Elu, Clip's bounds) and poles (Log, Sqrt and Reciprocal take
// positive inputs).
#include <cctype>
#include <rapidcheck.h>

#include "fuzz/spec.h"

namespace parity::fuzz {
namespace {

// One single-op case in 4 has a size at the edges of an 8-float vector loop (Sigmoid's declared
// AVX2 path; Eigen's packets of 4 or 8 for the others). One in 8 is larger than the 256 elements
// of the aligned block through which a kernel computes an output that lies off alignment
// (AssignIndexAligned, core/ops/common/eigen_maps.h), at the block's edges, and runs in place: the
// determinism oracle's views off alignment then make the output one (a `parity mutate` survivor
// read the block's input at the wrong offset).
std::optional<OpInstance> MakeUnary(const std::string& type, const Primary* primary,
                                    Domain domain) {
  OpInstance op(type);
  if (primary != nullptr) {
    op.Input(*primary, domain);
  } else if (Pick(8) == 0) {
    op.Input(BlockEdgeDims(256, 2), domain);
    op.OutputInPlace(0, 0);
    op.NotDifferentiable(0);  // most of these gradients read X, which the op overwrote
  } else {
    op.Input(*rc::gen::inRange(0, 4) == 0 ? BlockEdgeDims(8) : AnyDims(), domain);
  }
  return op;
}

#define PARITY_UNARY_SPEC(Name, tolerance, domain, intermediates) \
  PARITY_OP_SPEC(Name)                                            \
      .Tolerance(tolerance)                                       \
      .ConsumesIntermediates(intermediates)                       \
      .Make([](const Primary* p) { return MakeUnary(#Name, p, domain); })

PARITY_UNARY_SPEC(Relu, "exact", Domain::kAwayFromZero, true);
PARITY_UNARY_SPEC(Sigmoid, "transcendental", Domain::kAny, true);
PARITY_UNARY_SPEC(Tanh, "transcendental", Domain::kAny, true);
PARITY_UNARY_SPEC(Softsign, "transcendental", Domain::kAny, true);
PARITY_UNARY_SPEC(Exp, "transcendental", Domain::kAny, true);
PARITY_UNARY_SPEC(Sin, "transcendental", Domain::kAny, true);
PARITY_UNARY_SPEC(Cos, "transcendental", Domain::kAny, true);
PARITY_UNARY_SPEC(Sqr, "default", Domain::kAny, true);
PARITY_UNARY_SPEC(Log, "transcendental", Domain::kPositive, false);
PARITY_UNARY_SPEC(Sqrt, "default", Domain::kPositive, false);
PARITY_UNARY_SPEC(Reciprocal, "default", Domain::kPositive, false);
PARITY_UNARY_SPEC(Tan, "transcendental", Domain::kAny, true);
PARITY_UNARY_SPEC(Atan, "transcendental", Domain::kAny, true);
PARITY_UNARY_SPEC(Sinh, "transcendental", Domain::kAny, true);
PARITY_UNARY_SPEC(Cosh, "transcendental", Domain::kAny, true);
PARITY_UNARY_SPEC(Asinh, "transcendental", Domain::kAny, true);
PARITY_UNARY_SPEC(Erf, "transcendental", Domain::kAny, true);
// Defined on [-1, 1] with derivatives that grow towards its ends: fresh inputs in [-0.5, 0.5].
PARITY_UNARY_SPEC(Asin, "transcendental", Domain::kSmall, false);
PARITY_UNARY_SPEC(Acos, "transcendental", Domain::kSmall, false);
PARITY_UNARY_SPEC(Atanh, "transcendental", Domain::kSmall, false);
#undef PARITY_UNARY_SPEC

// Piecewise constant: exact, fresh inputs only (an intermediate computed in f32 and in f64 may fall
// on either side of an integer, or of 0), and no gradient.
#define PARITY_STEP_SPEC(Name)                                                          \
  PARITY_OP_SPEC(Name)                                                                  \
      .Tolerance("exact")                                                               \
      .Skip("gradient", "piecewise constant: no gradient")                              \
      .Make([](const Primary*) -> std::optional<OpInstance> {                          \
        OpInstance op(#Name);                                                           \
        op.Input(AnyDims(), *rc::gen::arbitrary<bool>() ? Domain::kAny : Domain::kLogits); \
        return op;                                                                      \
      })
PARITY_STEP_SPEC(Ceil);
PARITY_STEP_SPEC(Floor);
PARITY_STEP_SPEC(Round);
PARITY_STEP_SPEC(Sign);
#undef PARITY_STEP_SPEC

// Abs: float away from its kink, or (1 case in 4) int32 values of both signs.
PARITY_OP_SPEC(Abs).Tolerance("exact").ConsumesIntermediates(true).Make(
    [](const Primary* p) -> std::optional<OpInstance> {
      if (p || *rc::gen::inRange(0, 4) != 0) return MakeUnary("Abs", p, Domain::kAwayFromZero);
      OpInstance op("Abs");
      const int64_t n = *rc::gen::inRange<int64_t>(1, 13);
      op.ShapeInput(*rc::gen::container<std::vector<int64_t>>(n, rc::gen::inRange(-100, 101)),
                    DataType::kInt32);
      op.NotDifferentiable(0);
      return op;
    });

// Neg: float (any blob), or int32 (which wraps at the minimum).
PARITY_OP_SPEC(Neg).Tolerance("exact").ConsumesIntermediates(true).Make(
    [](const Primary* p) -> std::optional<OpInstance> {
      OpInstance op("Neg");
      if (!p && *rc::gen::inRange(0, 4) == 0) {
        op.IndexInput(AnyDims(), 1000, DataType::kInt32);
      } else {
        op.Input(p ? *p : AnyDims());
      }
      return op;
    });

PARITY_OP_SPEC(LeakyRelu).Tolerance("default").ConsumesIntermediates(true).Make(
    [](const Primary* p) -> std::optional<OpInstance> {
      OpInstance op("LeakyRelu");
      op.Input(p ? *p : AnyDims(), Domain::kAwayFromZero);
      if (*rc::gen::arbitrary<bool>()) op.Arg("alpha", *rc::gen::element(0.1f, 0.2f, 0.5f, 1.5f));
      return op;
    });

// Elu with alpha != 1 has a kink in its derivative at 0, hence away from 0.
PARITY_OP_SPEC(Elu)
    .Tolerance("transcendental")
    .ConsumesIntermediates(true)
    .Make([](const Primary* p) -> std::optional<OpInstance> {
      OpInstance op("Elu");
      op.Input(p ? *p : AnyDims(), Domain::kAwayFromZero);
      if (*rc::gen::arbitrary<bool>()) op.Arg("alpha", *rc::gen::element(0.5f, 2.0f, 0.1f));
      return op;
    });

PARITY_OP_SPEC(Scale).Tolerance("default").ConsumesIntermediates(true).Make(
    [](const Primary* p) -> std::optional<OpInstance> {
      OpInstance op("Scale");
      op.Input(p ? *p : AnyDims());
      if (*rc::gen::inRange(0, 4) != 0) {
        op.Arg("scale", *rc::gen::element(2.0f, -0.5f, 0.1f, 3.0f, -1.0f));
      }
      return op;
    });

// Clip: bounds 0.005 off the 0.01 grid of kDistinct values (tensors of at most 100 elements), so no
// input sits within the finite-difference steps of a bound. Either bound may be absent. One fresh
// case in 5 clips integers (every integer dtype) by whole-number bounds, sometimes beyond an int8's
// range (they saturate).
PARITY_OP_SPEC(Clip).Tolerance("exact").ConsumesIntermediates(true).Make(
    [](const Primary* p) -> std::optional<OpInstance> {
      if (!p && Pick(5) == 0) {
        OpInstance op("Clip");
        const DataType dtype =
            *rc::gen::element(DataType::kInt8, DataType::kUint8, DataType::kInt16,
                              DataType::kUint16, DataType::kInt32, DataType::kInt64);
        op.IntegerInput(AnyDims(), dtype, -300, 300);
        const int64_t lo = *rc::gen::inRange<int64_t>(-200, 101);
        const int64_t hi = lo + *rc::gen::inRange<int64_t>(0, 200);
        const int bounds = Pick(4);  // 0: both, 1: min, 2: max, 3: both again
        if (bounds != 2) op.Arg("min", static_cast<float>(lo));
        if (bounds != 1) op.Arg("max", static_cast<float>(hi));
        return op;
      }
      std::vector<int64_t> dims = p ? *p : AnyDims();
      if (!p) {
        int64_t n = 1;
        for (int64_t d : dims) n *= d;
        if (n > 100) {
          for (auto& d : dims) d = std::min<int64_t>(d, 3);
        }
      }
      OpInstance op("Clip");
      op.Input(dims, Domain::kDistinct);
      const int bounds = *rc::gen::inRange(0, 4);  // 0: both, 1: min, 2: max, 3: both again
      const float lo = -0.005f - 0.01f * static_cast<float>(*rc::gen::inRange(0, 40));
      const float hi = 0.005f + 0.01f * static_cast<float>(*rc::gen::inRange(0, 40));
      if (bounds != 2) op.Arg("min", lo);
      if (bounds != 1) op.Arg("max", hi);
      return op;
    });

// Cast between float, double, int32 and bool (with from_type, which the gradient maker needs).
// Values of magnitude <= 1 keep float -> int conversions away from saturation.
PARITY_OP_SPEC(Cast)
    .Tolerance("exact")
    .Skip("gradient", "Cast changes dtypes; its gradient casts back and is checked in unit tests")
    .Make([](const Primary*) -> std::optional<OpInstance> {
      // TensorProto.DataType values: FLOAT 1, INT32 2, BOOL 5, DOUBLE 13.
      const int64_t from = *rc::gen::element<int64_t>(1, 1, 2, 5);
      // int32 twice as often as the others: float -> int32 (truncation towards zero) is the
      // conversion with a rule to get wrong, and only one Cast case in eight drew it.
      const int64_t to = *rc::gen::element<int64_t>(1, 2, 2, 5, 13);
      OpInstance op("Cast");
      const std::vector<int64_t> dims = AnyDims();
      if (from == 1) {
        op.Input(dims, Domain::kAwayFromZero);
      } else if (from == 2) {
        op.IndexInput(dims, 100, DataType::kInt32);
      } else {
        op.Input(dims, Domain::kBool, DataType::kBool);
      }
      // Caffe2 takes a dtype argument as its number or its TensorProto.DataType name ("FLOAT",
      // any case): half the cases give the name, so the parsing of both forms is compared.
      if (*rc::gen::inRange(0, 2) == 0) {
        op.Arg("to", to);
      } else {
        std::string name = caffe2::TensorProto::DataType_Name(
            static_cast<caffe2::TensorProto::DataType>(to));
        if (*rc::gen::inRange(0, 2) == 0) {
          for (char& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        }
        op.Arg("to", name);
      }
      op.Arg("from_type", from);
      return op;
    });

PARITY_OP_SPEC(StopGradient)
    .Tolerance("exact")
    .ConsumesIntermediates(true)
    .Skip("gradient", "StopGradient stops the backward flow by definition")
    .Make([](const Primary* p) { return MakeUnary("StopGradient", p, Domain::kAny); });

}  // namespace
}  // namespace parity::fuzz
