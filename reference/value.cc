#include "reference/value.h"

#include "core/proto/caffe2.pb.h"

namespace parity::reference {

const char* DTypeName(DType dtype) {
  switch (dtype) {
    case DType::kReal:
      return "float";
    case DType::kBool:
      return "bool";
    case DType::kInt8:
      return "int8";
    case DType::kUInt8:
      return "uint8";
    case DType::kInt16:
      return "int16";
    case DType::kUInt16:
      return "uint16";
    case DType::kInt32:
      return "int32";
    case DType::kInt64:
      return "int64";
    case DType::kScope:
      return "workspace stack";
    case DType::kScratch:
      return "step workspaces";
  }
  return "?";
}

int64_t WrapInt(DType dtype, int64_t v) {
  // Conversions through the unsigned type of the same width are well defined; the signed cast
  // back is two's complement on every compiler parity supports (and defined from C++20 on).
  switch (dtype) {
    case DType::kBool:
      return v != 0;
    case DType::kInt8:
      return static_cast<int8_t>(static_cast<uint8_t>(v));
    case DType::kUInt8:
      return static_cast<uint8_t>(v);
    case DType::kInt16:
      return static_cast<int16_t>(static_cast<uint16_t>(v));
    case DType::kUInt16:
      return static_cast<uint16_t>(v);
    case DType::kInt32:
      return static_cast<int32_t>(static_cast<uint32_t>(v));
    default:
      return v;
  }
}

bool DTypeFromProto(int proto_type, DType* out) {
  using P = caffe2::TensorProto;
  switch (proto_type) {
    case P::FLOAT:
    case P::DOUBLE:
      *out = DType::kReal;
      return true;
    case P::INT32:
      *out = DType::kInt32;
      return true;
    case P::BYTE:
    case P::UINT8:
      *out = DType::kUInt8;
      return true;
    case P::BOOL:
      *out = DType::kBool;
      return true;
    case P::INT8:
      *out = DType::kInt8;
      return true;
    case P::UINT16:
      *out = DType::kUInt16;
      return true;
    case P::INT16:
      *out = DType::kInt16;
      return true;
    case P::INT64:
      *out = DType::kInt64;
      return true;
    default:
      return false;
  }
}

int64_t Numel(const Dims& dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    PARITY_ENFORCE(d >= 0, ErrorKind::kBadArgument, "negative dimension in shape ",
                   ShapeString(dims));
  }
  for (int64_t d : dims) {
    if (d == 0) return 0;
  }
  for (int64_t d : dims) {
    PARITY_ENFORCE(n <= std::numeric_limits<int64_t>::max() / d, ErrorKind::kResourceLimit,
                   "element count of shape ", ShapeString(dims), " overflows int64");
    n *= d;
  }
  return n;
}

Dims Strides(const Dims& dims) {
  Dims s(dims.size(), 1);
  for (int k = static_cast<int>(dims.size()) - 2; k >= 0; --k) s[k] = s[k + 1] * dims[k + 1];
  return s;
}

int64_t Prod(const Dims& dims, size_t begin, size_t end) {
  int64_t n = 1;
  for (size_t k = begin; k < end && k < dims.size(); ++k) n *= dims[k];
  return n;
}

int64_t CanonicalAxis(int64_t axis, int64_t rank, const char* what) {
  PARITY_ENFORCE(axis >= -rank && axis < rank, ErrorKind::kBadArgument, what, " ", axis,
                 " out of range for rank ", rank);
  return axis < 0 ? axis + rank : axis;
}

Dims Unravel(int64_t flat, const Dims& dims) {
  Dims idx(dims.size(), 0);
  for (int k = static_cast<int>(dims.size()) - 1; k >= 0; --k) {
    if (dims[k] == 0) continue;
    idx[k] = flat % dims[k];
    flat /= dims[k];
  }
  return idx;
}

namespace {

// Both shapes already have the output's rank; a dim of 1 repeats, any other must equal out's.
Broadcast MapAligned(const Dims& out, const Dims& a, const Dims& b) {
  Broadcast r;
  r.dims = out;
  const Dims sa = Strides(a), sb = Strides(b);
  ForEachIndex(out, [&](const Dims& idx) {
    int64_t ia = 0, ib = 0;
    for (size_t k = 0; k < out.size(); ++k) {
      if (a[k] != 1) ia += idx[k] * sa[k];
      if (b[k] != 1) ib += idx[k] * sb[k];
    }
    r.a.push_back(ia);
    r.b.push_back(ib);
  });
  return r;
}

}  // namespace

Broadcast NumpyBroadcast(const Dims& a, const Dims& b) {
  const size_t rank = std::max(a.size(), b.size());
  Dims pa(rank - a.size(), 1), pb(rank - b.size(), 1), out(rank);
  pa.insert(pa.end(), a.begin(), a.end());
  pb.insert(pb.end(), b.begin(), b.end());
  for (size_t k = 0; k < rank; ++k) {
    PARITY_ENFORCE(pa[k] == pb[k] || pa[k] == 1 || pb[k] == 1, ErrorKind::kShapeMismatch, "shapes ",
                   ShapeString(a), " and ", ShapeString(b), " cannot be broadcast (numpy rules)");
    out[k] = pa[k] == 1 ? pb[k] : pa[k];
  }
  Numel(out);
  return MapAligned(out, pa, pb);
}

Broadcast LegacyBroadcast(const Dims& a, const Dims& b, int64_t axis) {
  const int64_t ra = a.size(), rb = b.size();
  PARITY_ENFORCE(ra >= rb, ErrorKind::kShapeMismatch,
                 "legacy broadcast needs B no larger in rank: A ", ShapeString(a), ", B ",
                 ShapeString(b));
  if (axis == -1) axis = ra - rb;
  PARITY_ENFORCE(axis >= 0 && axis <= ra - rb, ErrorKind::kBadArgument, "broadcast axis ", axis,
                 " out of range for A ", ShapeString(a), " and B ", ShapeString(b));
  // B's leading and trailing 1s are ignored; the dims in between must match A exactly.
  int64_t start = 0, end = rb - 1;
  while (start < rb && b[start] == 1) ++start;
  while (end >= start && b[end] == 1) --end;
  Dims pb(ra, 1);
  for (int64_t k = start; k <= end; ++k) {
    PARITY_ENFORCE(a[axis + k] == b[k], ErrorKind::kShapeMismatch, "legacy broadcast of B ",
                   ShapeString(b), " onto A ", ShapeString(a), " at axis ", axis,
                   ": dimension mismatch");
    pb[axis + k] = b[k];
  }
  return MapAligned(a, a, pb);
}

}  // namespace parity::reference
