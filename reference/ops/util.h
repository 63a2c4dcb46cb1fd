// Small helpers shared by the reference kernel families (internal).
#ifndef PARITY_REFERENCE_OPS_UTIL_H_
#define PARITY_REFERENCE_OPS_UTIL_H_

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "reference/kernel.h"

namespace parity::reference {

template <typename T>
void RequireSameDtype(const OpContext<T>& c, const Value<T>& a, const Value<T>& b, int ib) {
  PARITY_ENFORCE(a.dtype == b.dtype, ErrorKind::kShapeMismatch, "dtype mismatch: ", Describe(c, 0),
                 " vs ", Describe(c, ib));
}

template <typename T>
void RequireSameShape(const OpContext<T>& c, const Value<T>& a, const Value<T>& b, int ib) {
  PARITY_ENFORCE(a.dims == b.dims, ErrorKind::kShapeMismatch, "shape mismatch: ", Describe(c, 0),
                 " vs ", Describe(c, ib));
}

// dY-style inputs: same shape as the reference input (gradient kernels).
template <typename T>
void RequireShape(const OpContext<T>& c, const Value<T>& v, int i, const Dims& dims) {
  PARITY_ENFORCE(v.dims == dims, ErrorKind::kShapeMismatch, Describe(c, i), " must have shape ",
                 ShapeString(dims));
}

// Y = f(X) elementwise on a floating input.
template <typename T, typename F>
void UnaryReal(OpContext<T>& c, F f) {
  const Value<T>& x = c.RealInput(0);
  Value<T> y = c.NewReal(x.dims);
  for (int64_t k = 0; k < x.size(); ++k) y.r()[k] = f(x.r()[k]);
  c.SetOutput(0, std::move(y));
}

// dX = f(A, dY) elementwise, where A (Y or X) and dY have the same shape.
template <typename T, typename F>
void UnaryGradient(OpContext<T>& c, F f) {
  const Value<T>& a = c.RealInput(0);
  const Value<T>& dy = c.RealInput(1);
  RequireSameShape(c, a, dy, 1);
  Value<T> dx = c.NewReal(a.dims);
  for (int64_t k = 0; k < a.size(); ++k) dx.r()[k] = f(a.r()[k], dy.r()[k]);
  c.SetOutput(0, std::move(dx));
}

// Relu's definition, max(x, 0) with NaN kept: Relu (unary.cc) and the fused FCRelu (linalg.cc) and
// ConvRelu (conv.cc), whose kernels apply it to every output of FC's / Conv's.
template <typename T>
T ReluValue(T x) {
  return std::isnan(x) ? x : (x > 0 ? x : T(0));
}

template <typename T>
void ReluOutput(OpContext<T>& c, int i) {
  for (T& y : c.outputs().at(i).r()) y = ReluValue(y);
}

template <typename T>
T Sigmoid(T x) {
  return T(1) / (T(1) + std::exp(-x));
}

// Arguments of the broadcasting binary ops (and their gradients).
inline const ArgTable& BinaryArgs() {
  static const ArgTable args = {
      {"broadcast", "0"}, {"axis", "-1"}, {"axis_str", ""}, {"order", "NCHW"}};
  return args;
}

// Numpy broadcasting, or Caffe2's legacy form when broadcast=1 (B matched against A's dims from
// `axis`, or from the position of `axis_str` in `order`).
// An elementwise output written in place of an input must keep that input's dims: Caffe2 resizes
// the output before reading the inputs, so a broadcast that grows A in place would read freed
// memory (production rejects it too).
template <typename T>
void RequireInPlaceKeepsShape(const OpContext<T>& c, const Dims& out) {
  for (int i = 0; i < c.InputSize(); ++i) {
    if (c.InputName(i) != c.OutputName(0)) continue;
    const Value<T>* v = c.ws->Find(c.InputName(i));
    PARITY_ENFORCE(v == nullptr || v->dims == out, ErrorKind::kShapeMismatch, "the output ",
                   ShapeString(out), " cannot be written in place of ", Describe(c, i),
                   ": in place needs the output to keep the input's shape");
  }
}

template <typename T>
Broadcast BinaryMap(const OpContext<T>& c, const Value<T>& a, const Value<T>& b) {
  if (!c.args.Bool("broadcast")) {
    // The output rank/dims, checked against the cap before the index tables are built.
    const size_t rank = std::max(a.dims.size(), b.dims.size());
    Dims out(rank, 1);
    for (size_t k = 0; k < rank; ++k) {
      const int64_t da = k + a.dims.size() >= rank ? a.dims[k + a.dims.size() - rank] : 1;
      const int64_t db = k + b.dims.size() >= rank ? b.dims[k + b.dims.size() - rank] : 1;
      out[k] = da == 1 ? db : da;
    }
    c.CheckAlloc(out);
    return NumpyBroadcast(a.dims, b.dims);
  }
  int64_t axis = c.args.Int("axis");
  const std::string axis_str = c.args.Str("axis_str");
  if (!axis_str.empty()) {
    const std::string order = c.args.Str("order");
    const size_t pos = order.find(axis_str);
    PARITY_ENFORCE(axis_str.size() == 1 && pos != std::string::npos, ErrorKind::kBadArgument,
                   "axis_str '", axis_str, "' is not a dimension of order '", order, "'");
    axis = static_cast<int64_t>(pos);
  }
  return LegacyBroadcast(a.dims, b.dims, axis);
}

// Where's element map: per output element, the flat index read from C, X and Y. Numpy
// broadcasting of the three shapes, or with broadcast_on_rows (Caffe2's row form) a 1-D C with one
// flag per row (dim 0) of X and Y, which must have one shape. Checks C bool and X, Y of one dtype.
struct WhereMap {
  Dims dims;
  std::vector<int64_t> c, x, y;
};

template <typename T>
WhereMap MapWhere(const OpContext<T>& c) {
  const Value<T>& cond = c.Input(0);
  const Value<T>& x = c.Input(1);
  const Value<T>& y = c.Input(2);
  PARITY_ENFORCE(cond.dtype == DType::kBool, ErrorKind::kShapeMismatch, "condition ",
                 Describe(c, 0), " must be bool");
  PARITY_ENFORCE(x.dtype == y.dtype, ErrorKind::kShapeMismatch, "dtype mismatch: ",
                 Describe(c, 1), " vs ", Describe(c, 2));
  WhereMap m;
  if (c.args.Bool("broadcast_on_rows")) {
    PARITY_ENFORCE(x.dims == y.dims, ErrorKind::kShapeMismatch,
                   "broadcast_on_rows needs X and Y of one shape: ", Describe(c, 1), " vs ",
                   Describe(c, 2));
    PARITY_ENFORCE(cond.dims.size() == 1 && !x.dims.empty() && cond.dims[0] == x.dims[0],
                   ErrorKind::kShapeMismatch, "broadcast_on_rows needs a 1-D condition with one ",
                   "flag per row of X: ", Describe(c, 0), " vs ", Describe(c, 1));
    m.dims = x.dims;
    const int64_t n = Numel(x.dims);
    const int64_t row = x.dims[0] == 0 ? 0 : n / x.dims[0];
    for (int64_t k = 0; k < n; ++k) {
      m.c.push_back(k / row);
      m.x.push_back(k);
      m.y.push_back(k);
    }
    return m;
  }
  // (C with X) first, then that with Y; each output element traced back through both maps.
  const Broadcast cx = NumpyBroadcast(cond.dims, x.dims);
  c.CheckAlloc(cx.dims);
  const Broadcast all = NumpyBroadcast(cx.dims, y.dims);
  c.CheckAlloc(all.dims);
  m.dims = all.dims;
  for (size_t k = 0; k < all.a.size(); ++k) {
    m.c.push_back(cx.a[all.a[k]]);
    m.x.push_back(cx.b[all.a[k]]);
    m.y.push_back(all.b[k]);
  }
  return m;
}

// GatherElements' element map: per element of INDICES (row-major), the flat index of DATA it
// picks: INDICES' multi-index with the axis coordinate replaced by the index (a negative index v
// means v + dim). INDICES has DATA's rank and dims no larger off the axis.
template <typename T>
std::vector<int64_t> MapGatherElements(const OpContext<T>& c, const Value<T>& data,
                                       const Value<T>& idx) {
  PARITY_ENFORCE(!data.dims.empty() && idx.dims.size() == data.dims.size(),
                 ErrorKind::kShapeMismatch, "indices ", Describe(c, 1),
                 " must have the rank (>= 1) of data ", Describe(c, 0));
  const int64_t axis = CanonicalAxis(c.args.Int("axis"), data.dims.size());
  for (size_t d = 0; d < data.dims.size(); ++d) {
    PARITY_ENFORCE(static_cast<int64_t>(d) == axis || idx.dims[d] <= data.dims[d],
                   ErrorKind::kShapeMismatch, "indices ", Describe(c, 1), " exceed data ",
                   Describe(c, 0), " in dimension ", d);
  }
  const int64_t n = data.dims[axis];
  const Dims strides = Strides(data.dims);
  std::vector<int64_t> from;
  int64_t k = 0;
  ForEachIndex(idx.dims, [&](const Dims& at) {
    int64_t v = idx.i()[k++];
    PARITY_ENFORCE(v >= -n && v < n, ErrorKind::kBadArgument, "index ", v, " out of range [",
                   -n, ", ", n, ") of data ", ShapeString(data.dims), " axis ", axis);
    if (v < 0) v += n;
    int64_t flat = 0;
    for (size_t d = 0; d < at.size(); ++d) {
      flat += (static_cast<int64_t>(d) == axis ? v : at[d]) * strides[d];
    }
    from.push_back(flat);
  });
  return from;
}

// Convolution/pooling geometry parsed from Caffe2's argument spellings (conv.cc).
struct ConvGeometry {
  int64_t kh = 0, kw = 0, sh = 1, sw = 1, dh = 1, dw = 1;
  int64_t pt = 0, pl = 0, pb = 0, pr = 0;
};

// Values of a 1-D int tensor (shape inputs of Reshape, Slice, ConstantFill, ...).
template <typename T>
std::vector<int64_t> IntValues(const OpContext<T>& c, int i) {
  const Value<T>& v = c.Input(i);
  PARITY_ENFORCE(IsIntegral(v.dtype) && v.dtype != DType::kBool, ErrorKind::kShapeMismatch,
                 Describe(c, i), " must be an integer tensor");
  return v.i();
}

// Tile's and TileGradient's `tiles` and `axis`: each an argument or a one-element input (1, 2).
// Both halves require each (as Slice's starts and ends): a Tile that silently tiles once along
// axis 0 hides a net that lost its input.
struct TileArgs {
  int64_t tiles = 1, axis = 0;
};
template <typename T>
TileArgs ReadTileArgs(const OpContext<T>& c) {
  PARITY_ENFORCE(c.InputSize() >= 2 || c.args.Has("tiles"), ErrorKind::kBadArgument,
                 "needs argument 'tiles' or input 1");
  PARITY_ENFORCE(c.InputSize() == 3 || c.args.Has("axis"), ErrorKind::kBadArgument,
                 "needs argument 'axis' or input 2");
  TileArgs t{c.args.Int("tiles"), c.args.Int("axis")};
  for (int i = 1; i < c.InputSize(); ++i) {
    const std::vector<int64_t> value = IntValues(c, i);
    PARITY_ENFORCE(value.size() == 1, ErrorKind::kShapeMismatch, i == 1 ? "tiles" : "axis",
                   " input must have 1 element, got ", Describe(c, i));
    (i == 1 ? t.tiles : t.axis) = value[0];
  }
  return t;
}

}  // namespace parity::reference

#endif  // PARITY_REFERENCE_OPS_UTIL_H_
