// Test specs of the linear-algebra family (the worked example of a spec file).
#include <rapidcheck.h>

#include "fuzz/spec.h"

namespace parity::fuzz {
namespace {

int64_t Product(const std::vector<int64_t>& dims, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t i = from; i < to; ++i) p *= dims[i];
  return p;
}

// FC / FCTransposed / FCRelu: X coerced to [M, K] at `axis`; W is [N, K] (or [K, N] transposed).
std::optional<OpInstance> MakeFc(const Primary* primary, const std::string& type, bool transposed) {
  std::vector<int64_t> x = primary ? *primary : AnyDims(2, 3, 4);
  if (x.size() < 2) return std::nullopt;
  int64_t axis = *rc::gen::inRange<int64_t>(1, static_cast<int64_t>(x.size()));
  int64_t k = Product(x, axis, x.size());
  if (k > 64) return std::nullopt;
  int64_t n = Dim(1, 5);
  OpInstance op(type);
  op.Input(x);
  op.Input(transposed ? std::vector<int64_t>{k, n} : std::vector<int64_t>{n, k});
  op.Input({n});
  if (axis != 1 || *rc::gen::arbitrary<bool>()) {
    // Sometimes negative, to exercise axis canonicalization.
    bool negative = *rc::gen::arbitrary<bool>();
    op.Arg("axis", negative ? axis - static_cast<int64_t>(x.size()) : axis);
  }
  return op;
}

// MatMul: 2-D operands with optional transposes.
std::optional<OpInstance> MakeMatMul(const Primary* primary) {
  std::vector<int64_t> a = primary ? *primary : std::vector<int64_t>{Dim(), Dim()};
  if (a.size() != 2) return std::nullopt;
  bool trans_a = *rc::gen::arbitrary<bool>();
  bool trans_b = *rc::gen::arbitrary<bool>();
  int64_t k = trans_a ? a[0] : a[1];
  int64_t n = Dim();
  OpInstance op("MatMul");
  op.Input(a);
  op.Input(trans_b ? std::vector<int64_t>{n, k} : std::vector<int64_t>{k, n});
  if (trans_a) op.Arg("trans_a", int64_t{1});
  if (trans_b) op.Arg("trans_b", int64_t{1});
  return op;
}

// BatchMatMul: same batch dims on both sides (the gradient does not take broadcast=1).
std::optional<OpInstance> MakeBatchMatMul(const Primary* primary) {
  std::vector<int64_t> a = primary ? *primary : AnyDims(3, 4, 4);
  if (a.size() < 3) return std::nullopt;
  bool trans_a = *rc::gen::arbitrary<bool>();
  bool trans_b = *rc::gen::arbitrary<bool>();
  size_t r = a.size();
  int64_t k = trans_a ? a[r - 2] : a[r - 1];
  int64_t n = Dim();
  std::vector<int64_t> b(a.begin(), a.end() - 2);
  if (trans_b) {
    b.push_back(n);
    b.push_back(k);
  } else {
    b.push_back(k);
    b.push_back(n);
  }
  OpInstance op("BatchMatMul");
  op.Input(a);
  op.Input(b);
  if (trans_a) op.Arg("trans_a", int64_t{1});
  if (trans_b) op.Arg("trans_b", int64_t{1});
  return op;
}

PARITY_OP_SPEC(FC).Tolerance("accumulation").ConsumesIntermediates(true).Make([](const Primary* p) {
  return MakeFc(p, "FC", false);
});

PARITY_OP_SPEC(FCTransposed)
    .Tolerance("accumulation")
    .ConsumesIntermediates(true)
    .Make([](const Primary* p) { return MakeFc(p, "FCTransposed", true); });

// FCRelu: FC's cases. The Relu's kink sits on the FC's outputs, which no input domain can keep
// away from 0 (Relu's own spec draws its input away from 0): where a finite-differences step
// straddles it, the gradient oracle finds the objective not smooth and gives no verdict, as for a
// Relu on an intermediate blob in a generated net.
PARITY_OP_SPEC(FCRelu)
    .Tolerance("accumulation")
    .ConsumesIntermediates(true)
    .Make([](const Primary* p) { return MakeFc(p, "FCRelu", false); });

PARITY_OP_SPEC(MatMul).Tolerance("accumulation").ConsumesIntermediates(true).Make(MakeMatMul);

PARITY_OP_SPEC(BatchMatMul)
    .Tolerance("accumulation")
    .ConsumesIntermediates(true)
    .Make(MakeBatchMatMul);

// Trilu: matrices (with up to two leading dims), either triangle, diagonals from -3 to 3; one case
// in 4 of int64 values. Linear: any values, intermediates too.
PARITY_OP_SPEC(Trilu).Tolerance("exact").ConsumesIntermediates(true).Make(
    [](const Primary* p) -> std::optional<OpInstance> {
      std::vector<int64_t> x;
      if (p) {
        if (p->size() < 2) return std::nullopt;
        x = *p;
      } else {
        for (int r = *rc::gen::inRange(0, 3); r > 0; --r) x.push_back(Dim(1, 3));
        x.push_back(Dim(1, 5));
        x.push_back(Dim(1, 5));
      }
      OpInstance op("Trilu");
      if (!p && *rc::gen::inRange(0, 4) == 0) {
        op.NotDifferentiable(op.IndexInput(x, 100, DataType::kInt64));
      } else {
        op.Input(x);
      }
      if (*rc::gen::arbitrary<bool>()) op.Arg("upper", int64_t{*rc::gen::inRange(0, 2)});
      if (*rc::gen::inRange(0, 4) != 0) op.Arg("k", *rc::gen::inRange<int64_t>(-3, 4));
      return op;
    });

}  // namespace
}  // namespace parity::fuzz
