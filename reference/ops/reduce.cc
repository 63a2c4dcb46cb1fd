// Reductions: ReduceSum ReduceMean ReduceMax ReduceMin ReduceProd (axes, keepdims), ArgMax ArgMin,
// SumElements and SumElementsGradient; Hardmax; CumSum; Softmax (a normalized reduction over the trailing axes) and its gradient.
// Sums accumulate in the scalar type, in row-major order.
#include <algorithm>
#include <cmath>
#include <limits>

#include "reference/ops/util.h"

namespace parity::reference {
namespace {

enum class Red { kSum, kMean, kMax, kMin, kProd };

template <typename T, Red kOp>
void ReduceKernel(OpContext<T>& c) {
  const Value<T>& x = c.Input(0);
  if (kOp == Red::kMean || kOp == Red::kProd) c.RealInput(0);
  PARITY_ENFORCE(x.is_real() || x.dtype == DType::kInt32 || x.dtype == DType::kInt64,
                 ErrorKind::kShapeMismatch, "needs float, int32 or int64, got ", Describe(c, 0));
  const int64_t rank = x.dims.size();
  std::vector<bool> reduced(rank, false);
  const std::vector<int64_t> axes = c.args.Ints("axes");
  if (axes.empty()) reduced.assign(rank, true);  // No axes: reduce everything.
  for (int64_t a : axes) reduced[CanonicalAxis(a, rank, "axes entry")] = true;
  const bool keep = c.args.Bool("keepdims");
  Dims kept(rank), ydims;
  for (int64_t k = 0; k < rank; ++k) {
    kept[k] = reduced[k] ? 1 : x.dims[k];
    if (!reduced[k] || keep) ydims.push_back(kept[k]);
  }
  Value<T> y = c.NewTensor(x.dtype, ydims);
  std::vector<int64_t> count(y.size(), 0);
  const Dims ks = Strides(kept);
  int64_t flat = 0;
  ForEachIndex(x.dims, [&](const Dims& idx) {
    int64_t o = 0;
    for (int64_t k = 0; k < rank; ++k) {
      if (!reduced[k]) o += idx[k] * ks[k];
    }
    const bool first = count[o]++ == 0;
    if (x.is_real()) {
      T& acc = y.r()[o];
      const T v = x.r()[flat];
      if (kOp == Red::kMax)
        acc = first || std::isnan(v) || v > acc ? v : acc;
      else if (kOp == Red::kMin)
        acc = first || std::isnan(v) || v < acc ? v : acc;
      else if (kOp == Red::kProd)
        acc = first ? v : acc * v;
      else
        acc += v;
      if (std::isnan(v)) acc = v;
    } else {
      int64_t& acc = y.i()[o];
      const int64_t v = x.i()[flat];
      if (kOp == Red::kMax)
        acc = first ? v : std::max(acc, v);
      else if (kOp == Red::kMin)
        acc = first ? v : std::min(acc, v);
      else
        acc = WrapInt(x.dtype, static_cast<int64_t>(static_cast<uint64_t>(acc) + v));
    }
    ++flat;
  });
  for (int64_t o = 0; o < y.size(); ++o) {
    if (kOp == Red::kMean) y.r()[o] /= static_cast<T>(count[o]);
    if (kOp == Red::kProd && count[o] == 0) y.r()[o] = 1;  // the empty product
    // Max/Min of nothing: the identity of max (min), -inf (+inf); an integer's lowest (highest).
    if (count[o] == 0 && (kOp == Red::kMax || kOp == Red::kMin)) {
      if (x.is_real()) {
        const T inf = std::numeric_limits<T>::infinity();
        y.r()[o] = kOp == Red::kMax ? -inf : inf;
      } else {
        const bool i32 = x.dtype == DType::kInt32;
        y.i()[o] = kOp == Red::kMax ? (i32 ? INT32_MIN : INT64_MIN) : (i32 ? INT32_MAX : INT64_MAX);
      }
    }
  }
  c.SetOutput(0, std::move(y));
}

template <typename T>
void ReduceSum(OpContext<T>& c) {
  ReduceKernel<T, Red::kSum>(c);
}
template <typename T>
void ReduceMean(OpContext<T>& c) {
  ReduceKernel<T, Red::kMean>(c);
}
template <typename T>
void ReduceMax(OpContext<T>& c) {
  ReduceKernel<T, Red::kMax>(c);
}
template <typename T>
void ReduceMin(OpContext<T>& c) {
  ReduceKernel<T, Red::kMin>(c);
}
template <typename T>
void ReduceProd(OpContext<T>& c) {
  ReduceKernel<T, Red::kProd>(c);
}

// ArgMax / ArgMin: for each position of the other axes, the index k along `axis` of the best
// element, scanning k = 0, 1, ...: an element replaces the best so far when strictly greater
// (smaller), or also when equal with select_last_index. NaN compares false, so it is picked only
// at k = 0 (Caffe2's loop). Output int64.
template <typename T, bool kMax>
void ArgKernel(OpContext<T>& c) {
  const Value<T>& x = c.Input(0);
  PARITY_ENFORCE(x.is_real() || x.dtype == DType::kInt32 || x.dtype == DType::kInt64,
                 ErrorKind::kShapeMismatch, "needs float, int32 or int64, got ", Describe(c, 0));
  const int64_t rank = x.dims.size();
  PARITY_ENFORCE(rank >= 1, ErrorKind::kShapeMismatch, "needs rank >= 1, got ", Describe(c, 0));
  const int64_t axis = CanonicalAxis(c.args.Int("axis"), rank, "axis");
  const bool last = c.args.Bool("select_last_index");
  const int64_t n = x.dims[axis];
  Dims ydims;
  for (int64_t k = 0; k < rank; ++k) {
    if (k != axis) ydims.push_back(x.dims[k]);
    if (k == axis && c.args.Bool("keepdims")) ydims.push_back(1);
  }
  Value<T> y = c.NewTensor(DType::kInt64, ydims);
  PARITY_ENFORCE(n > 0 || y.size() == 0, ErrorKind::kShapeMismatch, "axis ", axis, " of ",
                 Describe(c, 0), " is empty: no index to return");
  const Dims xs = Strides(x.dims);
  // Positions with the axis fixed at 0, in row-major order: the output's order.
  Dims outer = x.dims;
  outer[axis] = 1;
  int64_t o = 0;
  ForEachIndex(outer, [&](const Dims& idx) {
    int64_t base = 0;
    for (int64_t k = 0; k < rank; ++k) base += idx[k] * xs[k];
    // Compared in the input's own type (int64 beyond 2^53 stays exact).
    const auto best_of = [&](const auto& values) {
      int64_t best = 0;
      for (int64_t k = 1; k < n; ++k) {
        const auto v = values[base + k * xs[axis]], b = values[base + best * xs[axis]];
        if (kMax ? (v > b || (last && v == b)) : (v < b || (last && v == b))) best = k;
      }
      return best;
    };
    y.i()[o++] = x.is_real() ? best_of(x.r()) : best_of(x.i());
  });
  c.SetOutput(0, std::move(y));
}

template <typename T>
void ArgMax(OpContext<T>& c) {
  ArgKernel<T, true>(c);
}
template <typename T>
void ArgMin(OpContext<T>& c) {
  ArgKernel<T, false>(c);
}

// SumElements: a 0-D scalar, the sum (or, with average=1, the mean) of every element.
template <typename T>
void SumElements(OpContext<T>& c) {
  const Value<T>& x = c.Input(0);
  if (x.dtype == DType::kInt32 || x.dtype == DType::kInt64) {
    // Integers sum exactly, wrapping at the dtype's width, into a scalar of their dtype.
    PARITY_ENFORCE(!c.args.Bool("average"), ErrorKind::kShapeMismatch,
                   "average=1 needs a float or double input, got ", Describe(c, 0));
    int64_t sum = 0;
    for (int64_t v : x.i())
      sum = WrapInt(x.dtype, static_cast<int64_t>(static_cast<uint64_t>(sum) + v));
    Value<T> y = c.NewTensor(x.dtype, {});
    y.i()[0] = sum;
    c.SetOutput(0, std::move(y));
    return;
  }
  c.RealInput(0);
  T acc = 0;
  for (T v : x.r()) acc += v;
  if (c.args.Bool("average")) acc /= static_cast<T>(x.size());
  Value<T> y = c.NewReal({});
  y.r()[0] = acc;
  c.SetOutput(0, std::move(y));
}

template <typename T>
void SumElementsGradient(OpContext<T>& c) {
  const Value<T>& x = c.RealInput(0);
  const Value<T>& ds = c.RealInput(1);
  PARITY_ENFORCE(ds.size() == 1, ErrorKind::kShapeMismatch, Describe(c, 1),
                 " must hold one element");
  T g = ds.r()[0];
  if (c.args.Bool("average")) g /= static_cast<T>(x.size());
  Value<T> dx = c.NewReal(x.dims);
  for (T& v : dx.r()) v = g;
  c.SetOutput(0, std::move(dx));
}

// Softmax over the 2-D view [prod(dims[:axis]), prod(dims[axis:])] (Caffe2 coerces to 2-D),
// shifted by the row max so exp never overflows.
template <typename T>
void SoftmaxRows(const std::vector<T>& x, int64_t rows, int64_t cols, std::vector<T>* y) {
  for (int64_t n = 0; n < rows; ++n) {
    T mx = -std::numeric_limits<T>::infinity();
    for (int64_t d = 0; d < cols; ++d) mx = std::max(mx, x[n * cols + d]);
    T sum = 0;
    for (int64_t d = 0; d < cols; ++d) sum += ((*y)[n * cols + d] = std::exp(x[n * cols + d] - mx));
    for (int64_t d = 0; d < cols; ++d) (*y)[n * cols + d] /= sum;
  }
}

template <typename T>
void Softmax(OpContext<T>& c) {
  const Value<T>& x = c.RealInput(0);
  const int64_t axis = CanonicalAxis(c.args.Int("axis"), x.dims.size());
  Value<T> y = c.NewReal(x.dims);
  SoftmaxRows(x.r(), SizeToDim(x.dims, axis), SizeFromDim(x.dims, axis), &y.r());
  c.SetOutput(0, std::move(y));
}

// Hardmax: the input as [N, D] rows at `axis` (as Softmax); 1 at each row's first maximum, where
// a NaN beats everything (the first NaN, like numpy's argmax), 0 elsewhere.
template <typename T>
void Hardmax(OpContext<T>& c) {
  const Value<T>& x = c.RealInput(0);
  const int64_t axis = CanonicalAxis(c.args.Int("axis"), x.dims.size());
  const int64_t rows = SizeToDim(x.dims, axis), cols = SizeFromDim(x.dims, axis);
  Value<T> y = c.NewReal(x.dims);
  for (int64_t n = 0; n < rows && cols > 0; ++n) {
    int64_t best = 0;
    for (int64_t d = 0; d < cols; ++d) {
      const T v = x.r()[n * cols + d], b = x.r()[n * cols + best];
      if (!std::isnan(b) && (std::isnan(v) || v > b)) best = d;
    }
    y.r()[n * cols + best] = 1;
  }
  c.SetOutput(0, std::move(y));
}

// CumSum: y[.., k, ..] = the sum of x over the positions before k along `axis` (k included unless
// exclusive; counted from the end with reverse). Integers wrap to their width.
template <typename T>
void CumSum(OpContext<T>& c) {
  const Value<T>& x = c.Input(0);
  PARITY_ENFORCE(x.is_real() || x.dtype == DType::kInt32 || x.dtype == DType::kInt64,
                 ErrorKind::kShapeMismatch, "needs float, int32 or int64, got ", Describe(c, 0));
  PARITY_ENFORCE(!x.dims.empty(), ErrorKind::kShapeMismatch, "needs rank >= 1, got ",
                 Describe(c, 0));
  const int64_t axis = CanonicalAxis(c.args.Int("axis"), x.dims.size());
  const bool exclusive = c.args.Bool("exclusive"), reverse = c.args.Bool("reverse");
  const int64_t len = x.dims[axis], inner = SizeFromDim(x.dims, axis + 1);
  Value<T> y = c.NewTensor(x.dtype, x.dims);
  for (int64_t k = 0; k < x.size(); ++k) {
    const int64_t pos = (k / inner) % len, base = k - pos * inner;
    T real = 0;
    int64_t integer = 0;
    for (int64_t j = 0; j < len; ++j) {
      const bool before = reverse ? j > pos : j < pos;
      if (!before && !(j == pos && !exclusive)) continue;
      if (x.is_real()) {
        real += x.r()[base + j * inner];
      } else {
        integer = WrapInt(x.dtype, static_cast<int64_t>(static_cast<uint64_t>(integer) +
                                                        x.i()[base + j * inner]));
      }
    }
    if (x.is_real()) {
      y.r()[k] = real;
    } else {
      y.i()[k] = integer;
    }
  }
  c.SetOutput(0, std::move(y));
}

template <typename T>
void SoftmaxGradient(OpContext<T>& c) {
  const Value<T>& y = c.RealInput(0);
  const Value<T>& dy = c.RealInput(1);
  RequireSameShape(c, y, dy, 1);
  const int64_t axis = CanonicalAxis(c.args.Int("axis"), y.dims.size());
  const int64_t rows = SizeToDim(y.dims, axis), cols = SizeFromDim(y.dims, axis);
  Value<T> dx = c.NewReal(y.dims);
  for (int64_t n = 0; n < rows; ++n) {
    T dot = 0;
    for (int64_t d = 0; d < cols; ++d) dot += y.r()[n * cols + d] * dy.r()[n * cols + d];
    for (int64_t d = 0; d < cols; ++d) {
      dx.r()[n * cols + d] = y.r()[n * cols + d] * (dy.r()[n * cols + d] - dot);
    }
  }
  c.SetOutput(0, std::move(dx));
}

}  // namespace

void RegisterReduceOps(Registry* r) {
  r->Add({"Softmax", 1, 1, 1, 1, {{"axis", "1"}}, PARITY_REF_KERNEL(Softmax)});
  r->Add({"CumSum", 1, 1, 1, 1, {{"axis", "0"}, {"exclusive", "0"}, {"reverse", "0"}},
          PARITY_REF_KERNEL(CumSum)})
      .inplace = {{0, 0}};
  r->Add({"Hardmax", 1, 1, 1, 1, {{"axis", "1"}}, PARITY_REF_KERNEL(Hardmax)}).inplace = {{0, 0}};
  r->Add({"SoftmaxGradient", 2, 2, 1, 1, {{"axis", "1"}}, PARITY_REF_KERNEL(SoftmaxGradient)})
      .inplace = {{1, 0}};
  const ArgTable args = {{"axes", "[]"}, {"keepdims", "1"}};
  r->Add({"ReduceSum", 1, 1, 1, 1, args, PARITY_REF_KERNEL(ReduceSum)});
  r->Add({"ReduceMean", 1, 1, 1, 1, args, PARITY_REF_KERNEL(ReduceMean)});
  r->Add({"ReduceMax", 1, 1, 1, 1, args, PARITY_REF_KERNEL(ReduceMax)});
  r->Add({"ReduceMin", 1, 1, 1, 1, args, PARITY_REF_KERNEL(ReduceMin)});
  r->Add({"ReduceProd", 1, 1, 1, 1, args, PARITY_REF_KERNEL(ReduceProd)});
  const ArgTable arg_args = {{"axis", "-1"}, {"keepdims", "1"}, {"select_last_index", "0"}};
  r->Add({"ArgMax", 1, 1, 1, 1, arg_args, PARITY_REF_KERNEL(ArgMax)});
  r->Add({"ArgMin", 1, 1, 1, 1, arg_args, PARITY_REF_KERNEL(ArgMin)});
  r->Add({"SumElements", 1, 1, 1, 1, {{"average", "0"}}, PARITY_REF_KERNEL(SumElements)});
  r->Add({"SumElementsGradient",
          2,
          2,
          1,
          1,
          {{"average", "0"}},
          PARITY_REF_KERNEL(SumElementsGradient)});
}

PARITY_REFERENCE_FAMILY(RegisterReduceOps);

}  // namespace parity::reference
