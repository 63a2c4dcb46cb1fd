// Shape ops: Reshape Transpose Concat Split Flatten FlattenToVec ResizeLike ExpandDims Squeeze
// Slice Shape Gather GatherElements Tile. Every one is written as "for each output multi-index, which input
// element?", so the same code moves floating, integer and bool elements exactly.
#include <algorithm>
#include <limits>
#include <set>

#include "reference/ops/util.h"

namespace parity::reference {
namespace {

// out[k] = src[index[k]] for a new tensor of src's dtype and shape `dims`.
template <typename T>
Value<T> GatherElems(const OpContext<T>& c, const Value<T>& src, const Dims& dims,
                     const std::vector<int64_t>& index) {
  Value<T> out = c.NewTensor(src.dtype, dims);
  for (size_t k = 0; k < index.size(); ++k) out.CopyElem(k, src, index[k]);
  return out;
}

template <typename T>
Value<T> Reshaped(const Value<T>& src, const Dims& dims) {
  Value<T> out = src.Clone();
  out.dims = dims;
  return out;
}

template <typename T>
void Reshape(OpContext<T>& c) {
  const Value<T>& x = c.Input(0);
  std::vector<int64_t> shape;
  if (c.InputSize() == 2) {
    PARITY_ENFORCE(!c.args.Has("shape"), ErrorKind::kBadArgument,
                   "new shape given both as input 1 and as argument 'shape'");
    shape = IntValues(c, 1);
  } else {
    PARITY_ENFORCE(c.args.Has("shape"), ErrorKind::kBadArgument,
                   "new shape must be given as argument 'shape' or as input 1");
    shape = c.args.Ints("shape");
  }
  // 0 copies the input's dim at the same position (with allowzero=1 it is a dim of 0); one -1 is
  // inferred from the element count.
  const bool allowzero = c.args.Bool("allowzero");
  bool has_zero = false, has_unknown = false;
  for (int64_t d : shape) {
    has_zero |= d == 0;
    has_unknown |= d == -1;
  }
  PARITY_ENFORCE(!(allowzero && has_zero && has_unknown), ErrorKind::kBadArgument, "shape ",
                 ShapeString(shape), " has both a 0 and a -1 with allowzero=1");
  int64_t unknown = -1, known = 1;
  for (size_t k = 0; k < shape.size(); ++k) {
    if (shape[k] == 0 && !allowzero) {
      PARITY_ENFORCE(k < x.dims.size(), ErrorKind::kBadArgument, "shape[", k,
                     "] = 0 copies a dimension the input ", ShapeString(x.dims), " lacks");
      shape[k] = x.dims[k];
    }
    if (shape[k] == -1) {
      PARITY_ENFORCE(unknown == -1, ErrorKind::kBadArgument, "shape ", ShapeString(shape),
                     " has more than one -1");
      unknown = k;
      continue;
    }
    PARITY_ENFORCE(shape[k] >= 0, ErrorKind::kBadArgument, "shape ", ShapeString(shape),
                   " has a negative dimension other than -1");
    known *= shape[k];
  }
  const int64_t total = x.size();
  if (unknown >= 0) {
    // The other dims multiply to 0 (a copied empty dim): only an empty input fits, with -1 as 0.
    PARITY_ENFORCE(known == 0 ? total == 0 : total % known == 0, ErrorKind::kShapeMismatch,
                   "cannot infer the -1 of shape ", ShapeString(shape), " for input ",
                   ShapeString(x.dims));
    shape[unknown] = known == 0 ? 0 : total / known;
  } else {
    PARITY_ENFORCE(known == total, ErrorKind::kShapeMismatch, "cannot reshape ",
                   ShapeString(x.dims), " (", total, " elements) to ", ShapeString(shape));
  }
  Value<T> old = c.NewTensor(DType::kInt64, {static_cast<int64_t>(x.dims.size())});
  old.i() = x.dims;
  c.SetOutput(0, Reshaped(x, shape));
  if (c.OutputSize() > 1) c.SetOutput(1, std::move(old));
}

template <typename T>
void Transpose(OpContext<T>& c) {
  const Value<T>& x = c.Input(0);
  const int64_t rank = x.dims.size();
  std::vector<int64_t> axes = c.args.Ints("axes");
  if (axes.empty()) {
    for (int64_t k = rank - 1; k >= 0; --k) axes.push_back(k);
  }
  std::vector<int64_t> sorted = axes;
  std::sort(sorted.begin(), sorted.end());
  bool perm = static_cast<int64_t>(axes.size()) == rank;
  for (int64_t k = 0; perm && k < rank; ++k) perm = sorted[k] == k;
  PARITY_ENFORCE(perm, ErrorKind::kBadArgument, "axes ", ShapeString(axes),
                 " is not a permutation of the input's ", rank, " dims");
  Dims ydims(rank);
  for (int64_t k = 0; k < rank; ++k) ydims[k] = x.dims[axes[k]];
  const Dims xs = Strides(x.dims);
  std::vector<int64_t> index;
  ForEachIndex(ydims, [&](const Dims& idx) {
    int64_t src = 0;
    for (int64_t k = 0; k < rank; ++k) src += idx[k] * xs[axes[k]];
    index.push_back(src);
  });
  c.SetOutput(0, GatherElems(c, x, ydims, index));
}

// Concat/Split: an explicit `axis` wins; otherwise the channel dim of `order`.
template <typename T>
int64_t AxisFromOrder(const OpContext<T>& c) {
  if (c.args.Has("axis")) {
    PARITY_ENFORCE(!c.args.Has("order"), ErrorKind::kBadArgument,
                   "give either 'axis' or 'order', not both");
    return c.args.Int("axis");
  }
  const std::string order = c.args.Str("order");
  PARITY_ENFORCE(order == "NCHW" || order == "NHWC", ErrorKind::kBadArgument, "unknown order '",
                 order, "'");
  return order == "NCHW" ? 1 : 3;
}

template <typename T>
void Concat(OpContext<T>& c) {
  const Value<T>& first = c.Input(0);
  const bool add_axis = c.args.Bool("add_axis");
  const int64_t rank = first.dims.size();
  const int64_t axis = CanonicalAxis(AxisFromOrder(c), rank + (add_axis ? 1 : 0));
  Dims ydims = first.dims;
  if (add_axis)
    ydims.insert(ydims.begin() + axis, 0);
  else
    PARITY_ENFORCE(rank > 0, ErrorKind::kShapeMismatch, "cannot concat scalars without add_axis");
  ydims[axis] = 0;
  Value<T> info = c.NewTensor(DType::kInt32, {c.InputSize()});
  for (int i = 0; i < c.InputSize(); ++i) {
    const Value<T>& x = c.Input(i);
    RequireSameDtype(c, first, x, i);
    bool ok = x.dims.size() == first.dims.size();
    for (int64_t k = 0; ok && k < rank; ++k)
      ok = add_axis || k == axis || x.dims[k] == first.dims[k];
    if (add_axis) ok = ok && x.dims == first.dims;
    PARITY_ENFORCE(ok, ErrorKind::kShapeMismatch, "cannot concat ", Describe(c, 0), " and ",
                   Describe(c, i), " along axis ", axis, add_axis ? " (add_axis)" : "");
    const int64_t n = add_axis ? 1 : x.dims[axis];
    info.i()[i] = n;
    ydims[axis] += n;
  }
  Value<T> y = c.NewTensor(first.dtype, ydims);
  const int64_t outer = SizeToDim(ydims, axis), inner = SizeFromDim(ydims, axis + 1);
  int64_t offset = 0;
  for (int i = 0; i < c.InputSize(); ++i) {
    const Value<T>& x = c.Input(i);
    const int64_t n = info.i()[i];
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t j = 0; j < n * inner; ++j) {
        y.CopyElem((o * ydims[axis] + offset) * inner + j, x, o * n * inner + j);
      }
    }
    offset += n;
  }
  c.SetOutput(0, std::move(y));
  if (c.OutputSize() > 1) c.SetOutput(1, std::move(info));
}

template <typename T>
void Split(OpContext<T>& c) {
  const Value<T>& x = c.Input(0);
  const bool add_axis = c.args.Bool("add_axis");
  const int64_t axis = CanonicalAxis(AxisFromOrder(c), x.dims.size());
  const int64_t n_out = c.OutputSize();
  std::vector<int64_t> split;
  if (c.InputSize() == 2) {
    PARITY_ENFORCE(!c.args.Has("split"), ErrorKind::kBadArgument,
                   "split sizes given both as input 1 and as argument 'split'");
    split = IntValues(c, 1);
  } else if (c.args.Has("split")) {
    split = c.args.Ints("split");
  } else {
    PARITY_ENFORCE(x.dims[axis] % n_out == 0, ErrorKind::kShapeMismatch, "dimension ", axis, " of ",
                   ShapeString(x.dims), " does not split into ", n_out, " equal parts");
    split.assign(n_out, x.dims[axis] / n_out);
  }
  PARITY_ENFORCE(static_cast<int64_t>(split.size()) == n_out, ErrorKind::kBadArgument, split.size(),
                 " split sizes for ", n_out, " outputs");
  int64_t total = 0;
  for (int64_t s : split) {
    PARITY_ENFORCE(s >= 0 && (!add_axis || s == 1), ErrorKind::kBadArgument, "split sizes ",
                   ShapeString(split), add_axis ? " must all be 1 with add_axis" : " must be >= 0");
    total += s;
  }
  PARITY_ENFORCE(total == x.dims[axis], ErrorKind::kShapeMismatch, "split sizes ",
                 ShapeString(split), " do not add up to dimension ", axis, " of ",
                 ShapeString(x.dims));
  const int64_t outer = SizeToDim(x.dims, axis), inner = SizeFromDim(x.dims, axis + 1);
  int64_t offset = 0;
  for (int64_t i = 0; i < n_out; ++i) {
    Dims ydims = x.dims;
    ydims[axis] = split[i];
    std::vector<int64_t> index;
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t j = 0; j < split[i] * inner; ++j) {
        index.push_back((o * x.dims[axis] + offset) * inner + j);
      }
    }
    if (add_axis) ydims.erase(ydims.begin() + axis);
    c.SetOutput(i, GatherElems(c, x, ydims, index));
    offset += split[i];
  }
}

template <typename T>
void Flatten(OpContext<T>& c) {
  const Value<T>& x = c.Input(0);
  const int64_t rank = static_cast<int64_t>(x.dims.size());
  int64_t axis = c.args.Int("axis");
  // A negative axis counts from the end, as ONNX's Flatten (Caffe2 takes [0, rank] only).
  PARITY_ENFORCE(axis >= -rank && axis <= rank, ErrorKind::kBadArgument, "axis ", axis,
                 " out of range [", -rank, ", ", rank, "] for ", ShapeString(x.dims));
  if (axis < 0) axis += rank;
  c.SetOutput(0, Reshaped(x, {SizeToDim(x.dims, axis), SizeFromDim(x.dims, axis)}));
}

template <typename T>
void FlattenToVec(OpContext<T>& c) {
  const Value<T>& x = c.Input(0);
  PARITY_ENFORCE(!x.dims.empty(), ErrorKind::kShapeMismatch, "FlattenToVec needs rank >= 1");
  c.SetOutput(0, Reshaped(x, {x.size()}));
}

// ResizeLike(X, S): X's values with S's dims; the element counts must agree.
template <typename T>
void ResizeLike(OpContext<T>& c) {
  const Value<T>& x = c.Input(0);
  const Value<T>& like = c.Input(1);
  PARITY_ENFORCE(x.size() == like.size(), ErrorKind::kShapeMismatch, "ResizeLike: input ",
                 ShapeString(x.dims), " and shape source ", ShapeString(like.dims),
                 " differ in element count");
  c.SetOutput(0, Reshaped(x, like.dims));
}

// ExpandDims/Squeeze: `dims` is required, sorted and deduplicated, and must be non-negative.
template <typename T>
std::vector<int64_t> SortedDims(const OpContext<T>& c) {
  std::vector<int64_t> dims = c.args.Ints("dims");
  PARITY_ENFORCE(!dims.empty(), ErrorKind::kBadArgument, "argument 'dims' must be given");
  std::sort(dims.begin(), dims.end());
  dims.erase(std::unique(dims.begin(), dims.end()), dims.end());
  PARITY_ENFORCE(dims.front() >= 0, ErrorKind::kBadArgument, "dims ", ShapeString(dims),
                 " must be non-negative");
  return dims;
}

template <typename T>
void ExpandDims(OpContext<T>& c) {
  const Value<T>& x = c.Input(0);
  const std::vector<int64_t> dims = SortedDims(c);
  PARITY_ENFORCE(dims.back() < static_cast<int64_t>(x.dims.size() + dims.size()),
                 ErrorKind::kBadArgument, "dims ", ShapeString(dims), " out of range for input ",
                 ShapeString(x.dims));
  Dims ydims = x.dims;
  for (int64_t d : dims) ydims.insert(ydims.begin() + d, 1);
  c.SetOutput(0, Reshaped(x, ydims));
}

template <typename T>
void Squeeze(OpContext<T>& c) {
  const Value<T>& x = c.Input(0);
  const std::vector<int64_t> dims = SortedDims(c);
  PARITY_ENFORCE(dims.back() < static_cast<int64_t>(x.dims.size()), ErrorKind::kBadArgument,
                 "dims ", ShapeString(dims), " out of range for input ", ShapeString(x.dims));
  Dims ydims;
  for (int64_t k = 0; k < static_cast<int64_t>(x.dims.size()); ++k) {
    if (std::binary_search(dims.begin(), dims.end(), k)) {
      PARITY_ENFORCE(x.dims[k] == 1, ErrorKind::kShapeMismatch, "dimension ", k, " of ",
                     ShapeString(x.dims), " is not 1");
    } else {
      ydims.push_back(x.dims[k]);
    }
  }
  c.SetOutput(0, Reshaped(x, ydims));
}

// Slice bounds per Caffe2: a negative index i means dim + 1 + i (so -1 is the end), indices are
// clamped to the dim. Any number of dimensions may be cut (Caffe2 allowed one; production cuts
// several, as ONNX's Slice does).
template <typename T>
void SliceBounds(const OpContext<T>& c, const Dims& dims, std::vector<int64_t>* lo,
                 std::vector<int64_t>* hi) {
  std::vector<int64_t> starts, ends;
  if (c.InputSize() >= 3) {
    starts = IntValues(c, 1);
    ends = IntValues(c, 2);
  } else {
    PARITY_ENFORCE(c.args.Has("starts") && c.args.Has("ends"), ErrorKind::kBadArgument,
                   "Slice needs 'starts' and 'ends' (arguments or inputs 1, 2)");
    starts = c.args.Ints("starts");
    ends = c.args.Ints("ends");
  }
  PARITY_ENFORCE(starts.size() == ends.size() && starts.size() <= dims.size(),
                 ErrorKind::kBadArgument, "starts ", ShapeString(starts), " and ends ",
                 ShapeString(ends), " must have equal length <= rank of ", ShapeString(dims));
  lo->assign(dims.size(), 0);
  *hi = dims;
  for (size_t k = 0; k < starts.size(); ++k) {
    if (dims[k] == 0) {
      (*hi)[k] = 0;
      continue;
    }
    int64_t s = starts[k] < 0 ? dims[k] + 1 + starts[k] : starts[k];
    int64_t e = ends[k] < 0 ? dims[k] + 1 + ends[k] : ends[k];
    s = std::min(s, dims[k]);
    e = std::min(e, dims[k]);
    PARITY_ENFORCE(s >= 0 && e >= s, ErrorKind::kBadArgument, "slice [", starts[k], ", ", ends[k],
                   ") of dimension ", k, " (size ", dims[k], ") is empty or reversed");
    (*lo)[k] = s;
    (*hi)[k] = e;
  }
}

template <typename T>
void Slice(OpContext<T>& c) {
  const Value<T>& x = c.Input(0);
  PARITY_ENFORCE(c.InputSize() != 2, ErrorKind::kBadArgument,
                 "2 inputs do not fit: starts and ends come together, as inputs 1 and 2");
  std::vector<int64_t> lo, hi;
  SliceBounds(c, x.dims, &lo, &hi);
  Dims ydims(x.dims.size());
  for (size_t k = 0; k < ydims.size(); ++k) ydims[k] = hi[k] - lo[k];
  const Dims xs = Strides(x.dims);
  std::vector<int64_t> index;
  ForEachIndex(ydims, [&](const Dims& idx) {
    int64_t src = 0;
    for (size_t k = 0; k < idx.size(); ++k) src += (idx[k] + lo[k]) * xs[k];
    index.push_back(src);
  });
  c.SetOutput(0, GatherElems(c, x, ydims, index));
}

// SliceGradient(X, [starts, ends,] dY) -> dX: dY scattered into zeros of X's shape.
template <typename T>
void SliceGradient(OpContext<T>& c) {
  PARITY_ENFORCE(c.InputSize() != 3, ErrorKind::kBadArgument,
                 "SliceGradient takes (X, dY) or (X, starts, ends, dY)");
  const Value<T>& x = c.Input(0);
  const Value<T>& dy = c.RealInput(c.InputSize() - 1);
  std::vector<int64_t> lo, hi;
  SliceBounds(c, x.dims, &lo, &hi);
  Dims ydims(x.dims.size());
  for (size_t k = 0; k < ydims.size(); ++k) ydims[k] = hi[k] - lo[k];
  RequireShape(c, dy, c.InputSize() - 1, ydims);
  Value<T> dx = c.NewReal(x.dims);
  const Dims xs = Strides(x.dims);
  int64_t flat = 0;
  ForEachIndex(ydims, [&](const Dims& idx) {
    int64_t dst = 0;
    for (size_t k = 0; k < idx.size(); ++k) dst += (idx[k] + lo[k]) * xs[k];
    dx.r()[dst] = dy.r()[flat++];
  });
  c.SetOutput(0, std::move(dx));
}

template <typename T>
void Shape(OpContext<T>& c) {
  const Value<T>* v = c.ws->Find(c.InputName(0));
  PARITY_ENFORCE(v != nullptr, ErrorKind::kMissingBlob, "input 0 '", c.InputName(0),
                 "' does not exist");
  std::vector<int64_t> axes = c.args.Ints("axes");
  std::vector<int64_t> out;
  if (axes.empty()) {
    out = v->dims;
  } else {
    for (int64_t a : axes) out.push_back(v->dims[CanonicalAxis(a, v->dims.size(), "axes entry")]);
  }
  Value<T> y = c.NewTensor(DType::kInt64, {static_cast<int64_t>(out.size())});
  y.i() = out;
  c.SetOutput(0, std::move(y));
}

template <typename T>
void Gather(OpContext<T>& c) {
  const Value<T>& data = c.Input(0);
  const Value<T>& idx = c.IndexInput(1);
  const int64_t axis = CanonicalAxis(c.args.Int("axis"), data.dims.size());
  // Caffe2: negative indices wrap by default on axis 0 only (its ONNX import relies on it);
  // elsewhere only when wrap_indices is given.
  const bool wrap = c.args.Has("wrap_indices") ? c.args.Bool("wrap_indices") : axis == 0;
  const int64_t n = data.dims[axis];
  Dims ydims(data.dims.begin(), data.dims.begin() + axis);
  ydims.insert(ydims.end(), idx.dims.begin(), idx.dims.end());
  ydims.insert(ydims.end(), data.dims.begin() + axis + 1, data.dims.end());
  c.CheckAlloc(ydims);
  const int64_t outer = SizeToDim(data.dims, axis), inner = SizeFromDim(data.dims, axis + 1);
  std::vector<int64_t> index;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t j = 0; j < idx.size(); ++j) {
      int64_t i = idx.i()[j];
      if (wrap && i < 0) i += n;
      PARITY_ENFORCE(i >= 0 && i < n, ErrorKind::kBadArgument, "index ", idx.i()[j],
                     " out of range [0, ", n, ") of data ", ShapeString(data.dims), " axis ", axis);
      for (int64_t k = 0; k < inner; ++k) index.push_back((o * n + i) * inner + k);
    }
  }
  c.SetOutput(0, GatherElems(c, data, ydims, index));
}

// GatherElements: OUTPUT (INDICES' dims) takes the element of DATA each index picks along
// `axis` (MapGatherElements).
template <typename T>
void GatherElements(OpContext<T>& c) {
  const Value<T>& data = c.Input(0);
  const Value<T>& idx = c.IndexInput(1);
  c.CheckAlloc(idx.dims);
  c.SetOutput(0, GatherElems(c, data, idx.dims, MapGatherElements(c, data, idx)));
}

// Tile: repeat the whole of dimension `axis` `tiles` times (both may come as 1-element inputs).
template <typename T>
void Tile(OpContext<T>& c) {
  const Value<T>& x = c.Input(0);
  const TileArgs args = ReadTileArgs(c);
  const int64_t tiles = args.tiles;
  const int64_t axis = CanonicalAxis(args.axis, x.dims.size());
  PARITY_ENFORCE(tiles >= 0, ErrorKind::kBadArgument, "tiles ", tiles, " must be >= 0");
  Dims ydims = x.dims;
  PARITY_ENFORCE(x.dims[axis] == 0 || tiles <= std::numeric_limits<int64_t>::max() / x.dims[axis],
                 ErrorKind::kResourceLimit, "tiles ", tiles, " overflows dimension ", axis);
  ydims[axis] *= tiles;
  c.CheckAlloc(ydims);
  const int64_t outer = SizeToDim(x.dims, axis), block = SizeFromDim(x.dims, axis);
  std::vector<int64_t> index;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t t = 0; t < tiles; ++t) {
      for (int64_t j = 0; j < block; ++j) index.push_back(o * block + j);
    }
  }
  c.SetOutput(0, GatherElems(c, x, ydims, index));
}

}  // namespace

void RegisterShapeOps(Registry* r) {
  // Caffe2 requires the second output (old_shape / split_info); production makes it optional,
  // and so does the reference (ONNX's Reshape and Concat have one output).
  r->Add({"Reshape", 1, 2, 1, 2, {{"shape", "[]"}, {"allowzero", "0"}}, PARITY_REF_KERNEL(Reshape)}).inplace = {{0, 0}};
  r->Add({"Transpose", 1, 1, 1, 1, {{"axes", "[]"}}, PARITY_REF_KERNEL(Transpose)});
  r->Add({"Concat",
          1,
          -1,
          1,
          2,
          {{"axis", "1"}, {"add_axis", "0"}, {"order", "NCHW"}},
          PARITY_REF_KERNEL(Concat)});
  r->Add({"Split",
          1,
          2,
          1,
          -1,
          {{"axis", "1"}, {"split", "[]"}, {"order", "NCHW"}, {"add_axis", "0"}},
          PARITY_REF_KERNEL(Split)});
  r->Add({"Flatten", 1, 1, 1, 1, {{"axis", "1"}}, PARITY_REF_KERNEL(Flatten)});
  r->Add({"FlattenToVec", 1, 1, 1, 1, {}, PARITY_REF_KERNEL(FlattenToVec)});
  r->Add({"ResizeLike", 2, 2, 1, 1, {}, PARITY_REF_KERNEL(ResizeLike)}).inplace = {{0, 0}};
  r->Add({"ExpandDims", 1, 1, 1, 1, {{"dims", "[]"}}, PARITY_REF_KERNEL(ExpandDims)}).inplace = {
      {0, 0}};
  r->Add({"Squeeze", 1, 1, 1, 1, {{"dims", "[]"}}, PARITY_REF_KERNEL(Squeeze)}).inplace = {{0, 0}};
  r->Add({"Slice", 1, 3, 1, 1, {{"starts", "[]"}, {"ends", "[]"}}, PARITY_REF_KERNEL(Slice)});
  r->Add({"SliceGradient",
          2,
          4,
          1,
          1,
          {{"starts", "[]"}, {"ends", "[]"}},
          PARITY_REF_KERNEL(SliceGradient)});
  r->Add({"Shape", 1, 1, 1, 1, {{"axes", "[]"}}, PARITY_REF_KERNEL(Shape)});
  r->Add({"Gather", 2, 2, 1, 1, {{"axis", "0"}, {"wrap_indices", ""}}, PARITY_REF_KERNEL(Gather)});
  r->Add({"GatherElements", 2, 2, 1, 1, {{"axis", "0"}}, PARITY_REF_KERNEL(GatherElements)});
  r->Add({"Tile", 1, 3, 1, 1, {{"tiles", "1"}, {"axis", "0"}}, PARITY_REF_KERNEL(Tile)});
}

PARITY_REFERENCE_FAMILY(RegisterShapeOps);

}  // namespace parity::reference
