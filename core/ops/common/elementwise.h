// Shared machinery of the elementwise families (elementwise_binary.cc, elementwise_variadic.cc,
// unary/unary.cc): dtype visiting, Eigen maps, and the broadcast kernel runner.
//
// Kernels are Eigen array expressions over Maps of the tensors' buffers, so the contiguous case
// vectorizes and no per-element virtual call or index arithmetic happens.
#ifndef PARITY_CORE_OPS_COMMON_ELEMENTWISE_H_
#define PARITY_CORE_OPS_COMMON_ELEMENTWISE_H_

#include <Eigen/Core>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "core/ops/common/broadcast.h"
#include "core/ops/common/simd_kernels.h"
#include "core/parallel.h"
#include "core/proto/error.h"
#include "core/schema.h"
#include "core/tensor.h"
#include "core/types.h"

namespace parity {
namespace elementwise {

template <typename T, typename... Ts>
constexpr bool kIsOneOf = (std::is_same_v<T, Ts> || ...);

// Calls fn(T{}) for the C++ type of `dtype` among the types a tensor holds as numbers (float16
// excluded); returns false for any other dtype. Unlike DispatchNumeric it does not throw, so callers
// word their own messages.
template <typename Fn>
bool VisitType(DataType dtype, Fn&& fn) {
  switch (dtype) {
    case DataType::kFloat: fn(float{}); return true;
    case DataType::kDouble: fn(double{}); return true;
    case DataType::kInt32: fn(int32_t{}); return true;
    case DataType::kInt64: fn(int64_t{}); return true;
    case DataType::kBool: fn(bool{}); return true;
    case DataType::kUint8: fn(uint8_t{}); return true;
    case DataType::kInt8: fn(int8_t{}); return true;
    case DataType::kInt16: fn(int16_t{}); return true;
    case DataType::kUint16: fn(uint16_t{}); return true;
    default: return false;
  }
}

// Whether `Fn::kSupports<T>` holds for the type of `dtype`.
template <class Fn>
bool Supports(DataType dtype) {
  bool ok = false;
  VisitType(dtype, [&](auto zero) { ok = Fn::template kSupports<decltype(zero)>; });
  return ok;
}

// "float, double" — the dtypes Fn supports, for messages.
template <class Fn>
std::string SupportedTypes() {
  std::string out;
  for (DataType dtype : {DataType::kFloat, DataType::kDouble, DataType::kInt32, DataType::kInt64,
                         DataType::kBool, DataType::kUint8, DataType::kInt8, DataType::kInt16,
                         DataType::kUint16}) {
    if (Supports<Fn>(dtype)) out += (out.empty() ? "" : ", ") + std::string(DataTypeName(dtype));
  }
  return out;
}

// The output dtype of Fn for input dtype `dtype` (Fn::Out<T>).
template <class Fn>
DataType OutputType(DataType dtype) {
  DataType out = dtype;
  VisitType(dtype, [&](auto zero) {
    out = DataTypeOf<typename Fn::template Out<decltype(zero)>>::value;
  });
  return out;
}

// Kernels (Tensor) and shape inference (TensorType) check the same things with the same words;
// descriptions are built only when a check fails, keeping them off the per-run path.
inline DataType DtypeOf(const Tensor& t) { return t.dtype(); }
inline DataType DtypeOf(const TensorType& t) { return t.dtype; }
inline std::string Describe(const Tensor& t) { return t.DebugString(); }
inline std::string Describe(const TensorType& t) { return TensorTypeString(t); }

template <typename T>
using Array = Eigen::Array<T, Eigen::Dynamic, 1>;
template <typename T>
using ConstMap = Eigen::Map<const Array<T>>;
template <typename T>
using Map = Eigen::Map<Array<T>>;

// dims == dims without a libc memcmp call: ranks are small and this runs per op per run.
inline bool SameDims(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

// Resizes unless the dims are already right (saves the validation on the per-run path).
inline void ResizeTo(Tensor* t, const std::vector<int64_t>& dims) {
  if (!SameDims(t->dims(), dims)) t->Resize(dims);
}

// Whether reading `in` while writing `out` elementwise could read values already overwritten:
// the byte ranges overlap, unless both start at the same address and are read in the same order
// (`same_layout`), which coefficient-wise Eigen assignment handles.
inline bool UnsafeOverlap(const void* out, size_t out_bytes, const void* in, size_t in_bytes,
                          bool same_layout) {
  if (out_bytes == 0 || in_bytes == 0) return false;
  auto o = reinterpret_cast<uintptr_t>(out);
  auto i = reinterpret_cast<uintptr_t>(in);
  bool overlap = o < i + in_bytes && i < o + out_bytes;
  return overlap && !(o == i && same_layout);
}

// Runs fn(begin, end) over the elements [0, n) of an output `out` (which gives the element size),
// split across ComputeThreads() when n is large (core/parallel.h; `work` elements of work per
// element, 1 for a cheap kernel). Chunk boundaries fall on multiples of 64 bytes' worth of elements
// from element 0, whatever `out`'s address: a kernel whose vector and scalar code round
// differently (exp, log, tanh, sin) starts its packets at `begin` (AssignIndexAligned in
// eigen_maps.h, the AVX2 kernels), so every chunk
// computes each element as the whole range would, on any thread count and wherever `out` lies (a
// view at an offset). Small n runs fn(0, n) inline.
template <typename TOut, typename Fn>
void ParallelElementwise(const TOut* /*out*/, int64_t n, int64_t work, Fn&& fn) {
  constexpr int64_t kLine = 64;
  const int64_t per_line = sizeof(TOut) >= kLine ? 1 : kLine / static_cast<int64_t>(sizeof(TOut));
  if (n <= 0) return;
  if (n < 2 * GrainFor(work)) {  // the common small case: no division, no lambda
    fn(int64_t{0}, n);
    return;
  }
  const int64_t lines = (n + per_line - 1) / per_line;
  ParallelFor(0, lines, GrainFor(work * per_line), [&](int64_t first, int64_t last) {
    const int64_t begin = first * per_line;
    const int64_t end = std::min<int64_t>(n, last * per_line);
    if (begin < end) fn(begin, end);
  });
}

// out = op(a, b) over `plan`; op maps two Eigen array expressions of T to one of TOut. A repeated
// operand is passed as a constant expression, so op sees the same kinds of arguments either way.
// Large outputs are split across threads by output range (ParallelElementwise), block pieces
// computed as whole blocks would be.
template <typename T, typename TOut, typename Op>
void RunPlan(const BroadcastPlan& plan, const T* a, const T* b, TOut* out, const Op& op) {
  const bool a_vec = plan.a_mode() == BroadcastPlan::Mode::kVector;
  const bool b_vec = plan.b_mode() == BroadcastPlan::Mode::kVector;
  ParallelElementwise(out, plan.numel(), 1, [&](int64_t begin, int64_t end) {
    if (a_vec && b_vec) {
      plan.ForEachSpan(begin, end, [&](int64_t o, int64_t ia, int64_t ib, int64_t n) {
        Map<TOut>(out + o, n) = op(ConstMap<T>(a + ia, n), ConstMap<T>(b + ib, n));
      });
    } else if (a_vec) {
      plan.ForEachSpan(begin, end, [&](int64_t o, int64_t ia, int64_t ib, int64_t n) {
        Map<TOut>(out + o, n) = op(ConstMap<T>(a + ia, n), Array<T>::Constant(n, b[ib]));
      });
    } else if (b_vec) {
      plan.ForEachSpan(begin, end, [&](int64_t o, int64_t ia, int64_t ib, int64_t n) {
        Map<TOut>(out + o, n) = op(Array<T>::Constant(n, a[ia]), ConstMap<T>(b + ib, n));
      });
    } else {
      plan.ForEachSpan(begin, end, [&](int64_t o, int64_t ia, int64_t ib, int64_t n) {
        Map<TOut>(out + o, n) = op(Array<T>::Constant(n, a[ia]), Array<T>::Constant(n, b[ib]));
      });
    }
  });
}

// Vectorized max / min that return NaN when either operand is NaN (numpy's maximum / minimum), so
// NaNs reach the output at the same positions as in a naive reference.
template <typename T>
using MaxNaN = Eigen::internal::scalar_max_op<T, T, Eigen::PropagateNaN>;
template <typename T>
using MinNaN = Eigen::internal::scalar_min_op<T, T, Eigen::PropagateNaN>;

// Relu as an expression: max(x, 0), NaN kept. Relu's kernel (unary/unary.cc) and the fused
// FCRelu / ConvRelu (ReluInPlace) share it for doubles, and simd::Relu for floats, so the three
// agree bit for bit.
template <typename T, typename X>
auto ReluExpr(const X& x) {
  return x.binaryExpr(Array<T>::Constant(x.size(), T(0)), MaxNaN<T>());
}

// data[0, n) = max(data, 0) in place: the fused ops' activation, applied to the output of the
// FC / Conv kernel they run first.
template <typename T>
void ReluInPlace(T* data, int64_t n) {
  if constexpr (std::is_same_v<T, float>) {
    simd::Relu(data, data, n);  // Relu's float kernel (ReluFn::Direct)
  } else {
    Map<T> y(data, n);
    y = ReluExpr<T>(y);  // coefficient-wise: in place is safe
  }
}

// Integer arithmetic in an unsigned type, so overflow wraps (two's complement) instead of being
// undefined behaviour; floating point is left alone. Types narrower than int widen to unsigned int
// first: C++ promotes them to (signed) int before an operation, and uint16 * uint16 would overflow
// int. FromWrapping's narrowing cast then keeps the low bits, the wrapped result.
template <typename T>
using WrappingType = std::make_unsigned_t<std::common_type_t<T, unsigned>>;
template <typename T, typename X>
auto AsWrapping(const X& x) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    return x.template cast<WrappingType<T>>();
  } else {
    return x;
  }
}
template <typename T, typename X>
auto FromWrapping(const X& x) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    return x.template cast<T>();
  } else {
    return x;
  }
}

}  // namespace elementwise
}  // namespace parity

#endif  // PARITY_CORE_OPS_COMMON_ELEMENTWISE_H_
