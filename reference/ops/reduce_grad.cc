// Gradient kernels of the reductions ReduceSum/Mean/Max/Min/Prod. Conventions are Caffe2's and are
// tabulated in interpreter.h.
#include <cmath>

#include "reference/ops/util.h"

namespace parity::reference {
namespace {

// Reduce{Sum,Mean,Max,Min}Gradient(dY, X, Y) -> dX [axes, keepdims]: dY spread back over the
// reduced axes (divided by the count for Mean; only onto elements equal to Y for Max/Min, ties
// all receiving it).
enum class RedG { kSum, kMean, kMax, kMin };

template <typename T, RedG kOp>
void ReduceGradient(OpContext<T>& c) {
  const Value<T>& dy = c.RealInput(0);
  const Value<T>& x = c.RealInput(1);
  const Value<T>& y = c.RealInput(2);
  const int64_t rank = x.dims.size();
  std::vector<bool> reduced(rank, c.args.Ints("axes").empty());
  for (int64_t a : c.args.Ints("axes")) reduced[CanonicalAxis(a, rank, "axes entry")] = true;
  Dims kept(rank);
  int64_t count = 1;
  for (int64_t k = 0; k < rank; ++k) {
    kept[k] = reduced[k] ? 1 : x.dims[k];
    if (reduced[k]) count *= x.dims[k];
  }
  PARITY_ENFORCE(dy.size() == Numel(kept) && y.size() == Numel(kept), ErrorKind::kShapeMismatch,
                 "dY and Y must hold ", Numel(kept), " values for X ", ShapeString(x.dims));
  const Dims ks = Strides(kept);
  Value<T> dx = c.NewReal(x.dims);
  int64_t flat = 0;
  ForEachIndex(x.dims, [&](const Dims& idx) {
    int64_t o = 0;
    for (int64_t k = 0; k < rank; ++k) {
      if (!reduced[k]) o += idx[k] * ks[k];
    }
    T g = dy.r()[o];
    if (kOp == RedG::kMean) g /= static_cast<T>(count);
    if ((kOp == RedG::kMax || kOp == RedG::kMin) && x.r()[flat] != y.r()[o]) g = 0;
    dx.r()[flat++] = g;
  });
  c.SetOutput(0, std::move(dx));
}

template <typename T>
void ReduceSumGradient(OpContext<T>& c) {
  ReduceGradient<T, RedG::kSum>(c);
}
template <typename T>
void ReduceMeanGradient(OpContext<T>& c) {
  ReduceGradient<T, RedG::kMean>(c);
}
template <typename T>
void ReduceMaxGradient(OpContext<T>& c) {
  ReduceGradient<T, RedG::kMax>(c);
}
template <typename T>
void ReduceMinGradient(OpContext<T>& c) {
  ReduceGradient<T, RedG::kMin>(c);
}

// ReduceProdGradient(dY, X, Y) -> dX: dY times the product of the other elements of the group,
// multiplied out for each element (no division, so zeros need no special case).
template <typename T>
void ReduceProdGradient(OpContext<T>& c) {
  const Value<T>& dy = c.RealInput(0);
  const Value<T>& x = c.RealInput(1);
  const int64_t rank = x.dims.size();
  std::vector<bool> reduced(rank, c.args.Ints("axes").empty());
  for (int64_t a : c.args.Ints("axes")) reduced[CanonicalAxis(a, rank, "axes entry")] = true;
  Dims kept(rank);
  for (int64_t k = 0; k < rank; ++k) kept[k] = reduced[k] ? 1 : x.dims[k];
  PARITY_ENFORCE(dy.size() == Numel(kept) && c.RealInput(2).size() == Numel(kept),
                 ErrorKind::kShapeMismatch, "dY and Y must hold ", Numel(kept), " values for X ",
                 ShapeString(x.dims));
  const Dims ks = Strides(kept);
  std::vector<std::vector<int64_t>> groups(Numel(kept));
  std::vector<int64_t> group_of;
  int64_t flat = 0;
  ForEachIndex(x.dims, [&](const Dims& idx) {
    int64_t o = 0;
    for (int64_t k = 0; k < rank; ++k) {
      if (!reduced[k]) o += idx[k] * ks[k];
    }
    groups[o].push_back(flat++);
    group_of.push_back(o);
  });
  Value<T> dx = c.NewReal(x.dims);
  for (int64_t i = 0; i < x.size(); ++i) {
    T others = 1;
    for (int64_t j : groups[group_of[i]]) {
      if (j != i) others *= x.r()[j];
    }
    dx.r()[i] = dy.r()[group_of[i]] * others;
  }
  c.SetOutput(0, std::move(dx));
}

}  // namespace

void RegisterReduceGradientOps(Registry* r) {
  r->Add({"ReduceProdGradient", 3, 3, 1, 1, {{"axes", "[]"}, {"keepdims", "1"}},
          PARITY_REF_KERNEL(ReduceProdGradient)});
  const ArgTable red = {{"axes", "[]"}, {"keepdims", "1"}};
  r->Add({"ReduceSumGradient", 3, 3, 1, 1, red, PARITY_REF_KERNEL(ReduceSumGradient)});
  r->Add({"ReduceMeanGradient", 3, 3, 1, 1, red, PARITY_REF_KERNEL(ReduceMeanGradient)});
  r->Add({"ReduceMaxGradient", 3, 3, 1, 1, red, PARITY_REF_KERNEL(ReduceMaxGradient)});
  r->Add({"ReduceMinGradient", 3, 3, 1, 1, red, PARITY_REF_KERNEL(ReduceMinGradient)});
}

PARITY_REFERENCE_FAMILY(RegisterReduceGradientOps);

}  // namespace parity::reference
