// Test specs of the binary and variadic elementwise ops: Add Sub Mul Div Pow, Max Min Sum Mean,
// the comparisons LT LE GT GE EQ NE, the logical ops And Or Xor Not, Mod and Where. The unary ops
// are in unary.cc.
//
// Binary ops draw one of four broadcast forms: same shapes; numpy (B a suffix of A's dims with
// some dims 1, sometimes A with 1s too, or the operands swapped); a one-element B; and Caffe2's
// legacy broadcast=1 with B a contiguous run of A's dims at `axis` (-1 for a suffix, sometimes
// written out). Max / Min / Sum / Mean take inputs of one shape (the reference follows Caffe2,
// whose Max / Min do not broadcast; production's broadcasting is tested by its unit tests).
#include <rapidcheck.h>

#include <cstdint>

#include "fuzz/spec.h"

namespace parity::fuzz {
namespace {

int64_t NumElements(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

struct BinaryForm {
  std::vector<int64_t> a;
  std::vector<int64_t> b;
  bool legacy = false;
  int64_t axis = -1;
  bool write_axis = false;
};

// A's dims (the primary's when given) and a B that broadcasts against them.
BinaryForm DrawBinaryForm(const Primary* primary, bool allow_legacy = true) {
  BinaryForm f;
  std::vector<int64_t> dims = primary ? *primary : AnyDims();
  const int64_t rank = static_cast<int64_t>(dims.size());
  f.a = dims;
  switch (*rc::gen::inRange(0, allow_legacy ? 5 : 4)) {
    case 0:  // same shapes
      f.b = dims;
      break;
    case 1:  // one element
      f.b = std::vector<int64_t>(*rc::gen::inRange<int64_t>(1, std::min<int64_t>(rank, 2) + 1), 1);
      break;
    case 2:
    case 3: {  // numpy: B a suffix of the dims, some of them 1
      const int64_t len = *rc::gen::inRange<int64_t>(1, rank + 1);
      f.b.assign(dims.end() - len, dims.end());
      for (auto& d : f.b) {
        if (*rc::gen::inRange(0, 3) == 0) d = 1;
      }
      if (!primary && *rc::gen::arbitrary<bool>()) {
        // Both operands broadcast: A gets 1s where B keeps the full dim.
        for (int64_t i = 0; i < len; ++i) {
          int64_t& ad = f.a[rank - len + i];
          if (f.b[i] == ad && ad > 1 && *rc::gen::inRange(0, 3) == 0) ad = 1;
        }
        if (*rc::gen::arbitrary<bool>()) std::swap(f.a, f.b);  // the smaller operand first
      }
      break;
    }
    default: {  // legacy broadcast=1: B = A's dims [axis, axis + len)
      f.legacy = true;
      const int64_t axis = *rc::gen::inRange<int64_t>(0, rank);
      const int64_t len = *rc::gen::inRange<int64_t>(1, rank - axis + 1);
      f.b.assign(dims.begin() + axis, dims.begin() + axis + len);
      const bool suffix = axis + len == rank;
      f.axis = suffix && *rc::gen::arbitrary<bool>() ? -1 : axis;
      f.write_axis = f.axis != -1 || *rc::gen::arbitrary<bool>();
      break;
    }
  }
  return f;
}

void AddBroadcastArgs(OpInstance& op, const BinaryForm& f) {
  if (!f.legacy) return;
  op.Arg("broadcast", int64_t{1});
  if (f.write_axis) op.Arg("axis", f.axis);
}

// The narrow integer dtypes (ONNX's arithmetic, Max / Min, Clip take them all), drawn over their
// whole range so sums and products wrap.
DataType NarrowIntegerType() {
  return *rc::gen::element(DataType::kInt8, DataType::kUint8, DataType::kInt16,
                           DataType::kUint16);
}

// Add, Sub, Mul: float (any values), or integers when there is no primary: int32 in [0, 20), or
// a narrow dtype over its whole range.
std::optional<OpInstance> MakeArithmetic(const std::string& type, const Primary* primary) {
  const BinaryForm f = DrawBinaryForm(primary);
  OpInstance op(type);
  if (!primary && *rc::gen::inRange(0, 4) == 0) {
    if (Pick(2) == 0) {
      op.IndexInput(f.a, 20, DataType::kInt32);
      op.IndexInput(f.b, 20, DataType::kInt32);
    } else {
      const DataType dtype = NarrowIntegerType();
      op.IntegerInput(f.a, dtype, INT64_MIN, INT64_MAX);
      op.IntegerInput(f.b, dtype, INT64_MIN, INT64_MAX);
    }
  } else {
    op.Input(f.a);
    op.Input(f.b);
  }
  AddBroadcastArgs(op, f);
  return op;
}

PARITY_OP_SPEC(Add).Tolerance("default").ConsumesIntermediates(true).Make([](const Primary* p) {
  return MakeArithmetic("Add", p);
});

PARITY_OP_SPEC(Sub).Tolerance("default").ConsumesIntermediates(true).Make([](const Primary* p) {
  return MakeArithmetic("Sub", p);
});

PARITY_OP_SPEC(Mul).Tolerance("default").ConsumesIntermediates(true).Make([](const Primary* p) {
  return MakeArithmetic("Mul", p);
});

// Div: the denominator positive, away from its pole at 0; one fresh case in 4 integers (int32 or
// a narrow dtype) with a non-zero divisor of either sign.
PARITY_OP_SPEC(Div).Tolerance("default").ConsumesIntermediates(true).Make(
    [](const Primary* p) -> std::optional<OpInstance> {
      BinaryForm f = DrawBinaryForm(p);
      OpInstance op("Div");
      if (!p && Pick(4) == 0) {
        const DataType dtype = Pick(5) == 0 ? DataType::kInt32 : NarrowIntegerType();
        op.IntegerInput(f.a, dtype, -1000, 1000);
        op.IntegerInput(f.b, dtype, -20, 20, /*nonzero=*/true);
        AddBroadcastArgs(op, f);
        return op;
      }
      op.Input(f.a);
      op.Input(f.b, Domain::kPositive);
      AddBroadcastArgs(op, f);
      return op;
    });

// Pow: positive bases (ln X is in the exponent's gradient; fractional powers of negatives are
// NaN); the exponent an input in [-1, 1] or an argument. One case in 5 integer powers (int32 or
// int64, bases of either sign, exponents up to 20: int32 wraps).
PARITY_OP_SPEC(Pow)
    .Tolerance("transcendental")
    .Make([](const Primary*) -> std::optional<OpInstance> {
      OpInstance op("Pow");
      if (Pick(5) == 0) {
        const BinaryForm f = DrawBinaryForm(nullptr);
        const DataType dtype = *rc::gen::element(DataType::kInt32, DataType::kInt64);
        op.IntegerInput(f.a, dtype, -6, 6);
        op.IntegerInput(f.b, dtype, 0, 20);
        AddBroadcastArgs(op, f);
        return op;
      }
      if (*rc::gen::arbitrary<bool>()) {
        op.Input(AnyDims(), Domain::kPositive);
        op.Arg("exponent", *rc::gen::element(2.0f, 3.0f, 0.5f, -1.0f, 1.5f, -0.5f));
        return op;
      }
      BinaryForm f = DrawBinaryForm(nullptr);
      op.Input(f.a, Domain::kPositive);
      op.Input(f.b, Domain::kAny);
      AddBroadcastArgs(op, f);
      return op;
    });

// ---------------------------------------------------------------------------------------------
// Variadic: inputs of one shape.

// Dims with at most 100 elements: kDistinct tensors of that size keep a 0.02 grid, so the
// operands of Max / Min (phase-shifted per input by the generator) stay >= 0.0067 apart.
std::vector<int64_t> SmallDims() {
  std::vector<int64_t> dims = AnyDims();
  if (NumElements(dims) > 100) {
    for (auto& d : dims) d = std::min<int64_t>(d, 3);
  }
  return dims;
}

std::optional<OpInstance> MakeExtremum(const std::string& type) {
  OpInstance op(type);
  const int count = *rc::gen::inRange(1, 4);
  // One case in 4: integer vectors of one length (ties allowed: no gradient to check), int64 or
  // a narrow dtype over its whole range.
  if (*rc::gen::inRange(0, 4) == 0) {
    const int64_t n = *rc::gen::inRange<int64_t>(1, 9);
    const DataType dtype = Pick(2) == 0 ? DataType::kInt64 : NarrowIntegerType();
    for (int i = 0; i < count; ++i) {
      if (dtype == DataType::kInt64) {
        op.ShapeInput(*rc::gen::container<std::vector<int64_t>>(n, rc::gen::inRange(-50, 51)),
                      DataType::kInt64);
      } else {
        op.IntegerInput({n}, dtype, INT64_MIN, INT64_MAX);
      }
      op.NotDifferentiable(i);
    }
    return op;
  }
  const std::vector<int64_t> dims = SmallDims();
  for (int i = 0; i < count; ++i) op.Input(dims, Domain::kDistinct);
  return op;
}

// Max / Min: values distinct within and across inputs (a tie is a kink), so not intermediates.
PARITY_OP_SPEC(Max).Tolerance("exact").Make([](const Primary*) { return MakeExtremum("Max"); });
PARITY_OP_SPEC(Min).Tolerance("exact").Make([](const Primary*) { return MakeExtremum("Min"); });

std::optional<OpInstance> MakeSum(const std::string& type, const Primary* primary, bool ints) {
  const std::vector<int64_t> dims = primary ? *primary : AnyDims();
  OpInstance op(type);
  const int count = *rc::gen::inRange(1, 5);
  const bool int32 = ints && !primary && *rc::gen::inRange(0, 4) == 0;
  for (int i = 0; i < count; ++i) {
    if (int32) {
      op.IndexInput(dims, 100, DataType::kInt32);
    } else {
      op.Input(dims);
    }
  }
  return op;
}

PARITY_OP_SPEC(Sum).Tolerance("default").ConsumesIntermediates(true).Make([](const Primary* p) {
  return MakeSum("Sum", p, true);
});

PARITY_OP_SPEC(Mean).Tolerance("default").ConsumesIntermediates(true).Make([](const Primary* p) {
  return MakeSum("Mean", p, false);
});

// ---------------------------------------------------------------------------------------------
// Comparisons (float with distinct operands, or int32) and logical ops: not differentiable.

std::optional<OpInstance> MakeComparison(const std::string& type) {
  const BinaryForm f = DrawBinaryForm(nullptr);
  OpInstance op(type);
  if (*rc::gen::inRange(0, 4) == 0) {
    op.IndexInput(f.a, 5, DataType::kInt32);  // small integers: equal pairs are common
    op.IndexInput(f.b, 5, DataType::kInt32);
  } else {
    op.Input(f.a, Domain::kDistinct);
    op.Input(f.b, Domain::kDistinct);
  }
  AddBroadcastArgs(op, f);
  return op;
}

#define PARITY_COMPARISON_SPEC(Name)                              \
  PARITY_OP_SPEC(Name)                                            \
      .Tolerance("exact")                                         \
      .Skip("gradient", "a comparison: bool output, no gradient") \
      .Make([](const Primary*) { return MakeComparison(#Name); })

PARITY_COMPARISON_SPEC(LT);
PARITY_COMPARISON_SPEC(LE);
PARITY_COMPARISON_SPEC(GT);
PARITY_COMPARISON_SPEC(GE);
PARITY_COMPARISON_SPEC(EQ);
PARITY_COMPARISON_SPEC(NE);
#undef PARITY_COMPARISON_SPEC

std::optional<OpInstance> MakeLogical(const std::string& type) {
  const BinaryForm f = DrawBinaryForm(nullptr);
  OpInstance op(type);
  op.Input(f.a, Domain::kBool, DataType::kBool);
  op.Input(f.b, Domain::kBool, DataType::kBool);
  AddBroadcastArgs(op, f);
  return op;
}

#define PARITY_LOGICAL_SPEC(Name)                             \
  PARITY_OP_SPEC(Name)                                        \
      .Tolerance("exact")                                     \
      .Skip("gradient", "logic on bool tensors: no gradient") \
      .Make([](const Primary*) { return MakeLogical(#Name); })

PARITY_LOGICAL_SPEC(And);
PARITY_LOGICAL_SPEC(Or);
PARITY_LOGICAL_SPEC(Xor);
#undef PARITY_LOGICAL_SPEC

PARITY_OP_SPEC(Not)
    .Tolerance("exact")
    .Skip("gradient", "logic on bool tensors: no gradient")
    .Make([](const Primary*) -> std::optional<OpInstance> {
      OpInstance op("Not");
      op.Input(AnyDims(), Domain::kBool, DataType::kBool);
      return op;
    });

// ---------------------------------------------------------------------------------------------
// Mod: fresh inputs only (a remainder jumps at every multiple of B, so an intermediate rounded
// differently in f32 and f64 could land on either side). The gradient is checked in unit tests on
// inputs away from the jumps: random ones straddle them. Floats: A any, B away from 0; integers
// (one case in 2) of a random width with signed values and non-zero divisors; one case in 4 of
// those Caffe2's one-input form with the `divisor` argument. Either sign rule.
InputSpec ModValues(const std::vector<int64_t>& dims, DataType dtype, bool divisor) {
  InputSpec spec;
  spec.dims = dims;
  spec.dtype = dtype;
  spec.domain = Domain::kShape;
  spec.differentiable = false;
  const bool is_unsigned = dtype == DataType::kUint8 || dtype == DataType::kUint16;
  const int64_t lo = is_unsigned ? 0 : -100, hi = 101;
  spec.values = *rc::gen::container<std::vector<int64_t>>(NumElements(dims),
                                                          rc::gen::inRange<int64_t>(lo, hi));
  if (divisor) {
    for (auto& v : spec.values) {
      v = v % 9;
      if (v == 0) v = is_unsigned ? 7 : -7;
    }
  }
  return spec;
}

PARITY_OP_SPEC(Mod)
    .Tolerance("default")
    .Skip("gradient",
          "random inputs land near the jumps at multiples of B; checked in unit tests off them")
    .Make([](const Primary*) -> std::optional<OpInstance> {
      OpInstance op("Mod");
      if (*rc::gen::arbitrary<bool>()) {
        const BinaryForm f = DrawBinaryForm(nullptr, /*allow_legacy=*/false);
        op.Input(f.a);
        op.Input(f.b, Domain::kAwayFromZero);
      } else {
        const DataType dtype =
            *rc::gen::element(DataType::kInt32, DataType::kInt64, DataType::kInt8,
                              DataType::kInt16, DataType::kUint8, DataType::kUint16);
        if (Pick(4) == 0) {
          op.AddInput(ModValues(AnyDims(), dtype, false));
          const bool is_unsigned = dtype == DataType::kUint8 || dtype == DataType::kUint16;
          op.Arg("divisor", *rc::gen::element<int64_t>(3, 7, is_unsigned ? 5 : -4));
        } else {
          const BinaryForm f = DrawBinaryForm(nullptr, /*allow_legacy=*/false);
          op.AddInput(ModValues(f.a, dtype, false));
          op.AddInput(ModValues(f.b, dtype, true));
        }
      }
      if (*rc::gen::arbitrary<bool>()) op.Arg("sign_follow_divisor", int64_t{1});
      return op;
    });

// ---------------------------------------------------------------------------------------------
// Where: X (the primary), C and Y broadcast against each other as numpy does (X and Y a binary
// form, C the output's dims, a suffix of them with some 1s, or one element); one case in 6
// Caffe2's broadcast_on_rows (C [N] over X and Y of one shape); one in 4 int64 values. Selection
// moves values unchanged and is linear in X and Y for a fixed C: any values, intermediates too.
PARITY_OP_SPEC(Where).Tolerance("exact").ConsumesIntermediates(true).Make(
    [](const Primary* p) -> std::optional<OpInstance> {
      std::vector<int64_t> x, y, c;
      bool on_rows = false;
      if (!p && Pick(6) == 0) {
        on_rows = true;
        x = y = AnyDims();
        c = {x[0]};
      } else {
        const BinaryForm f = DrawBinaryForm(p, /*allow_legacy=*/false);
        x = f.a;
        y = f.b;
        std::vector<int64_t> out(std::max(x.size(), y.size()), 1);
        for (size_t i = 0; i < out.size(); ++i) {
          const int64_t dx = i + x.size() >= out.size() ? x[i + x.size() - out.size()] : 1;
          const int64_t dy = i + y.size() >= out.size() ? y[i + y.size() - out.size()] : 1;
          out[i] = dx == 1 ? dy : dx;
        }
        switch (Pick(3)) {
          case 0:
            c = out;
            break;
          case 1: {  // a suffix of the output's dims, some of them 1
            const int64_t len = *rc::gen::inRange<int64_t>(1, out.size() + 1);
            c.assign(out.end() - len, out.end());
            for (auto& d : c) {
              if (*rc::gen::inRange(0, 3) == 0) d = 1;
            }
            break;
          }
          default:
            c = {1};
            break;
        }
        if (!p && *rc::gen::arbitrary<bool>()) std::swap(x, y);
      }
      OpInstance op("Where");
      const bool ints = !p && Pick(4) == 0;
      if (ints) {
        op.NotDifferentiable(op.IndexInput(x, 100, DataType::kInt64));
      } else {
        op.Input(x);
      }
      op.NotDifferentiable(op.Input(c, Domain::kBool, DataType::kBool));
      if (ints) {
        op.NotDifferentiable(op.IndexInput(y, 100, DataType::kInt64));
      } else {
        op.Input(y);
      }
      op.OpInputOrder({1, 0, 2});
      if (on_rows) op.Arg("broadcast_on_rows", int64_t{1});
      return op;
    });

}  // namespace
}  // namespace parity::fuzz
