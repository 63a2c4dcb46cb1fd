// Small helpers shared by the shape, reduction, normalization, loss and RNN-cell kernels: Caffe2's
// size_to_dim / size_from_dim, axis canonicalization that names the op, reading int32/int64 index
// tensors, and a float/double dispatcher. No op semantics live here.
#ifndef PARITY_CORE_OPS_COMMON_SHAPE_UTIL_H_
#define PARITY_CORE_OPS_COMMON_SHAPE_UTIL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/proto/error.h"
#include "core/tensor.h"
#include "core/types.h"

namespace parity {
namespace shape_util {

// Product of dims[0, k).
inline int64_t SizeToDim(const std::vector<int64_t>& dims, int k) {
  int64_t n = 1;
  for (int i = 0; i < k; ++i) n *= dims[i];
  return n;
}

// Product of dims[k, rank).
inline int64_t SizeFromDim(const std::vector<int64_t>& dims, int k) {
  int64_t n = 1;
  for (size_t i = static_cast<size_t>(k); i < dims.size(); ++i) n *= dims[i];
  return n;
}

// Axis in [0, rank) from one in [-rank, rank); kBadArgument naming the op, the argument and the
// shape otherwise.
inline int CanonicalAxis(int64_t axis, int rank, const std::string& label, const char* what,
                         const std::vector<int64_t>& dims) {
  PARITY_ENFORCE(axis >= -rank && axis < rank, ErrorKind::kBadArgument, label, ": ", what, " ",
                 axis, " is out of range for a tensor of rank ", rank, " ", ShapeString(dims));
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

// The values of a 1-D (or scalar) int32/int64 tensor as int64; kShapeMismatch naming the op and
// the blob for any other dtype.
inline std::vector<int64_t> ReadIndexTensor(const Tensor& t, const std::string& label,
                                            const std::string& blob) {
  std::vector<int64_t> out;
  if (t.dtype() == DataType::kInt64) {
    const int64_t* p = t.data<int64_t>();
    out.assign(p, p + t.numel());
  } else if (t.dtype() == DataType::kInt32) {
    const int32_t* p = t.data<int32_t>();
    out.assign(p, p + t.numel());
  } else {
    throw MakeError(ErrorKind::kShapeMismatch, label, ": input '", blob,
                    "' must be int32 or int64, got ", t.DebugString());
  }
  return out;
}

// Calls fn(T{}) with T = float or double; kShapeMismatch naming the op and blob otherwise.
// Calls fn(pointer) with an index tensor's data as const int32_t* or const int64_t*; any other
// dtype is kShapeMismatch naming the blob (`what` says what it holds: "indices", "labels").
template <typename Fn>
void DispatchIndex(const Tensor& t, const std::string& label, const std::string& blob,
                   const char* what, Fn&& fn) {
  if (t.dtype() == DataType::kInt32) {
    fn(t.data<int32_t>());
  } else if (t.dtype() == DataType::kInt64) {
    fn(t.data<int64_t>());
  } else {
    throw MakeError(ErrorKind::kShapeMismatch, label, ": ", what, " '", blob,
                    "' must be int32 or int64, got ", t.DebugString());
  }
}

template <typename Fn>
void DispatchFloating(const Tensor& t, const std::string& label, const std::string& blob,
                      Fn&& fn) {
  switch (t.dtype()) {
    case DataType::kFloat: fn(float{}); return;
    case DataType::kDouble: fn(double{}); return;
    default:
      throw MakeError(ErrorKind::kShapeMismatch, label, ": input '", blob,
                      "' must be float or double, got ", t.DebugString());
  }
}

// Requires `t` to have dtype `expected` (the dtype of another input), naming both.
inline void ExpectSameDtype(const Tensor& t, DataType expected, const std::string& label,
                            const std::string& blob) {
  PARITY_ENFORCE(t.dtype() == expected, ErrorKind::kShapeMismatch, label, ": input '", blob,
                 "' must be ", DataTypeName(expected), ", got ", t.DebugString());
}

// Caffe2's "copy into the output, then give it new dims" for view-like ops that may run in place
// (then `out` is `in` and only the dims change).
inline void CopyAndReshape(const Tensor& in, Tensor* out, const std::vector<int64_t>& dims) {
  if (out != &in) out->CopyFrom(in);
  out->Reshape(dims);
}

}  // namespace shape_util
}  // namespace parity

#endif  // PARITY_CORE_OPS_COMMON_SHAPE_UTIL_H_
