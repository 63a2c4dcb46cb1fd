// The reference's own tiny tensor: a dtype tag, int64 dims and one flat row-major storage.
//
// Floating tensors hold the interpreter's scalar type T (double for the ground truth, float to
// measure f32 rounding); every integer and bool dtype is held exactly as int64 and wrapped to its
// width after each computation, so integer results never pass through floating point.
// Storage sits behind a shared_ptr only so that `Alias` can share it as Caffe2 does; every other
// op produces fresh storage (value semantics).
#ifndef PARITY_REFERENCE_VALUE_H_
#define PARITY_REFERENCE_VALUE_H_

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/proto/caffe2.pb.h"
#include "core/proto/error.h"

namespace parity::reference {

using Dims = std::vector<int64_t>;

// kScope (a CreateScope workspace stack) and kScratch (RecurrentNetwork's step-workspace blob)
// are blobs that are not tensors: they never appear in results or traces.
enum class DType { kReal, kBool, kInt8, kUInt8, kInt16, kUInt16, kInt32, kInt64, kScope, kScratch };

const char* DTypeName(DType dtype);
inline bool IsIntegral(DType d) {
  return d != DType::kReal && d != DType::kScope && d != DType::kScratch;
}
inline bool IsTensorType(DType d) { return d != DType::kScope && d != DType::kScratch; }

// Two's-complement wrap of v to the width of dtype (bool: v != 0), as a C++ cast would do.
int64_t WrapInt(DType dtype, int64_t v);

// Maps a caffe2 TensorProto::DataType value; returns false for types the reference cannot hold
// (STRING, FLOAT16, UNDEFINED, ...). FLOAT and DOUBLE both map to kReal.
bool DTypeFromProto(int proto_type, DType* out);

// Element count of dims; kBadArgument for a negative dim, kResourceLimit on int64 overflow.
int64_t Numel(const Dims& dims);

template <typename T>
struct ScopeStack;

template <typename T>
struct Value {
  DType dtype = DType::kReal;
  Dims dims;
  std::shared_ptr<std::vector<T>> real;        // kReal
  std::shared_ptr<std::vector<int64_t>> ints;  // integral and bool dtypes
  std::shared_ptr<ScopeStack<T>> scope;        // kScope

  int64_t size() const {
    return real   ? static_cast<int64_t>(real->size())
           : ints ? static_cast<int64_t>(ints->size())
                  : 0;
  }
  bool is_real() const { return dtype == DType::kReal; }
  std::vector<T>& r() { return *real; }
  const std::vector<T>& r() const { return *real; }
  std::vector<int64_t>& i() { return *ints; }
  const std::vector<int64_t>& i() const { return *ints; }
  // Element `k` as T / as int64, whatever the dtype (shape ops and comparisons use these).
  T AsReal(int64_t k) const { return is_real() ? (*real)[k] : static_cast<T>((*ints)[k]); }
  // Copies element `src_k` of `src` (same dtype) into element `k` of this value.
  void CopyElem(int64_t k, const Value& src, int64_t src_k) {
    if (is_real())
      (*real)[k] = (*src.real)[src_k];
    else
      (*ints)[k] = (*src.ints)[src_k];
  }
  // A deep copy with fresh storage.
  Value Clone() const {
    Value v = *this;
    if (real) v.real = std::make_shared<std::vector<T>>(*real);
    if (ints) v.ints = std::make_shared<std::vector<int64_t>>(*ints);
    return v;
  }
};

// A zero-filled tensor; kResourceLimit when its storage would exceed max_alloc_bytes.
template <typename T>
Value<T> MakeTensor(DType dtype, const Dims& dims, int64_t max_alloc_bytes) {
  const int64_t n = Numel(dims);
  const int64_t elem = dtype == DType::kReal ? static_cast<int64_t>(sizeof(T)) : 8;
  PARITY_ENFORCE(n <= max_alloc_bytes / elem, ErrorKind::kResourceLimit, "tensor of shape ",
                 ShapeString(dims), " needs ", n, " elements, over the allocation cap of ",
                 max_alloc_bytes, " bytes");
  Value<T> v;
  v.dtype = dtype;
  v.dims = dims;
  if (dtype == DType::kReal) {
    v.real = std::make_shared<std::vector<T>>(n, T(0));
  } else {
    v.ints = std::make_shared<std::vector<int64_t>>(n, 0);
  }
  return v;
}

// ---- Multi-index helpers: plain row-major arithmetic, nothing clever. ----

Dims Strides(const Dims& dims);
// Product of dims[begin, end).
int64_t Prod(const Dims& dims, size_t begin, size_t end);
inline int64_t SizeToDim(const Dims& d, size_t k) { return Prod(d, 0, k); }
inline int64_t SizeFromDim(const Dims& d, size_t k) { return Prod(d, k, d.size()); }
// Maps axis in [-rank, rank) to [0, rank); kBadArgument naming `what` otherwise.
int64_t CanonicalAxis(int64_t axis, int64_t rank, const char* what = "axis");
// Row-major multi-index of flat index `flat` in `dims`.
Dims Unravel(int64_t flat, const Dims& dims);

// Calls fn(const Dims& index) for every multi-index of dims in row-major order.
template <typename F>
void ForEachIndex(const Dims& dims, F fn) {
  for (int64_t d : dims) {
    if (d == 0) return;
  }
  Dims idx(dims.size(), 0);
  while (true) {
    fn(static_cast<const Dims&>(idx));
    int k = static_cast<int>(dims.size()) - 1;
    while (k >= 0 && ++idx[k] == dims[k]) idx[k--] = 0;
    if (k < 0) return;
  }
}

// Numpy broadcasting of two shapes: the output shape and, per output element, the flat source
// index in each input. kShapeMismatch when the shapes are incompatible.
struct Broadcast {
  Dims dims;
  std::vector<int64_t> a, b;
};
Broadcast NumpyBroadcast(const Dims& a, const Dims& b);
// Caffe2's legacy form (broadcast=1): B matches a contiguous run of A's dims starting at `axis`
// (-1: aligned to the end); B's leading and trailing 1s broadcast, inner dims must match exactly.
Broadcast LegacyBroadcast(const Dims& a, const Dims& b, int64_t axis);

// The interpreter's boundary (interpreter.cc), also used by the textbook cells (textbook_rnn.h):
// a TensorProto as a Value (typed fields or raw_data; kInvalidNet when the values do not fit the
// shape, kResourceLimit over `max_alloc_bytes`), and a Value as a TensorProto (floating values as
// DOUBLE for T = double, FLOAT for float; integers in their own dtype).
template <typename T>
Value<T> FromProto(const std::string& name, const caffe2::TensorProto& p, int64_t max_alloc_bytes);
template <typename T>
caffe2::TensorProto ToProto(const std::string& name, const Value<T>& v);

}  // namespace parity::reference

#endif  // PARITY_REFERENCE_VALUE_H_
