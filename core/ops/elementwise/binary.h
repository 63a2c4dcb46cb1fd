// Binary elementwise kernels with broadcasting, shared by elementwise_binary.cc (Add, Sub, Mul,
// Div, Pow, comparisons, logical ops) and elementwise_variadic.cc (Max, Min).
//
// Broadcasting follows the newer Caffe2 (caffe2/operators/elementwise_ops.h):
//   - broadcast=0 (default): numpy broadcasting; `axis` / `axis_str` are ignored.
//   - broadcast=1: the legacy form: B's dims match a contiguous run of A's dims starting at `axis`
//     (or at the position of the letter `axis_str` in `order`); the output has A's shape.
//   - In place: the output may replace A (or B, where the schema allows it) only when the output
//     has that input's shape; with broadcast=1 only A may be replaced.
#ifndef PARITY_CORE_OPS_ELEMENTWISE_BINARY_H_
#define PARITY_CORE_OPS_ELEMENTWISE_BINARY_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "core/argument.h"
#include "core/ops/common/broadcast.h"
#include "core/ops/common/elementwise.h"
#include "core/ops/common/simd_kernels.h"
#include "core/proto/caffe2.pb.h"
#include "core/schema.h"
#include "core/tensor.h"

namespace parity {

struct BroadcastArgs {
  bool legacy = false;  // broadcast=1
  int64_t axis = -1;    // resolved from axis / axis_str; -1 = suffix matching
};

// Reads broadcast / axis / axis_str / order. kBadArgument for axis together with axis_str, an
// axis_str that is not one letter of `order`, and (with broadcast=1) an output written in place of
// input 1.
BroadcastArgs ReadBroadcastArgs(const caffe2::OperatorDef& def, const ArgumentHelper& args);

// The schema arguments behind ReadBroadcastArgs.
OpSchema& BroadcastArgsSchema(OpSchema& schema);

// Output dims of a broadcasting binary op, and B's dims as the BroadcastPlan should see them
// (aligned to A for the legacy form). Throws kShapeMismatch / kBadArgument naming both shapes.
void BinaryDims(const BroadcastArgs& bargs, const std::vector<int64_t>& a,
                const std::vector<int64_t>& b, const std::string& label,
                std::vector<int64_t>* out, std::vector<int64_t>* b_plan);

// kShapeMismatch unless an output written in place of input `name` keeps its dims.
void CheckInPlaceDims(const std::string& label, const std::string& name,
                      const std::vector<int64_t>& input, const std::vector<int64_t>& output);

// Both inputs share one dtype that Fn supports (kShapeMismatch otherwise). X is Tensor (kernels)
// or TensorType (shape inference); both print as "float [2, 3]".
template <class Fn, class X>
void CheckBinaryTypes(const X& a, const X& b, const std::string& label) {
  using elementwise::Describe;
  using elementwise::DtypeOf;
  PARITY_ENFORCE(DtypeOf(a) == DtypeOf(b), ErrorKind::kShapeMismatch, label, ": inputs A (",
                 Describe(a), ") and B (", Describe(b), ") must have the same dtype");
  PARITY_ENFORCE(elementwise::Supports<Fn>(DtypeOf(a)), ErrorKind::kShapeMismatch, label,
                 ": unsupported dtype of A (", Describe(a), "); supported: ",
                 elementwise::SupportedTypes<Fn>());
}

// A functor with nothing to validate in the data (most of them).
struct NoDataCheck {
  template <typename T>
  static void Check(const T*, int64_t, const std::string&) {}
};

// out = Fn(a, b) with broadcasting. Keeps the plan of the last shapes it saw and a scratch buffer,
// so repeated runs on unchanged shapes do not allocate.
//
// Fn provides: kSupports<T> (bool), Out<T> (output element type), Apply<T>(x, y) (an Eigen array
// expression of two Eigen array expressions of T), Check<T>(b_data, b_numel, label) (validation
// of B's values, e.g. integer division by zero).
// Whether Fn names its simd::BinaryKind (`static constexpr simd::BinaryKind kSimd`).
template <class Fn, class = void>
struct HasSimdKind : std::false_type {};
template <class Fn>
struct HasSimdKind<Fn, std::void_t<decltype(Fn::kSimd)>> : std::true_type {};

template <class Fn>
class BinaryKernel {
 public:
  void Compute(const std::string& label, const BroadcastArgs& bargs, const Tensor& a,
               const Tensor& b, Tensor* out, bool out_is_a, bool out_is_b) {
    CheckBinaryTypes<Fn>(a, b, label);
    // Same shapes are elementwise in both modes (the legacy form only needs a valid axis).
    using elementwise::SameDims;
    const bool same = SameDims(a.dims(), b.dims()) &&
                      (!bargs.legacy || bargs.axis == -1 || bargs.axis == 0);
    bool a_like_out = true;  // operand laid out as the output (for the aliasing check)
    bool b_like_out = true;
    if (same) {
      elementwise::ResizeTo(out, a.dims());
    } else {
      if (!cached_ || !SameDims(a.dims(), a_dims_) || !SameDims(b.dims(), b_dims_)) {
        cached_ = false;
        BinaryDims(bargs, a.dims(), b.dims(), label, &out_dims_, &b_plan_dims_);
        plan_.Build(out_dims_, a.dims(), b_plan_dims_);
        a_dims_ = a.dims();
        b_dims_ = b.dims();
        cached_ = true;
      }
      // Checked before Resize: in place, `out` is the input tensor itself.
      if (out_is_a) CheckInPlaceDims(label, "A", a.dims(), out_dims_);
      if (out_is_b) CheckInPlaceDims(label, "B", b.dims(), out_dims_);
      a_like_out = SameDims(a.dims(), out_dims_);
      b_like_out = SameDims(b.dims(), out_dims_);
      elementwise::ResizeTo(out, out_dims_);
    }
    const int64_t n = out->numel();
    elementwise::VisitType(a.dtype(), [&](auto zero) {
      using T = decltype(zero);
      if constexpr (Fn::template kSupports<T>) {
        using TOut = typename Fn::template Out<T>;
        TOut* o = out->template mutable_data<TOut>();
        const T* pa = a.template data<T>();
        const T* pb = b.template data<T>();
        if (n > 0) Fn::template Check<T>(pb, b.numel(), label);
        // An output sharing memory with an input in any other way than exact in-place (Alias,
        // views) is computed aside, then copied into the output's buffer.
        const size_t bytes = static_cast<size_t>(n) * sizeof(TOut);
        const bool aside =
            elementwise::UnsafeOverlap(o, bytes, pa, a.nbytes(), a_like_out) ||
            elementwise::UnsafeOverlap(o, bytes, pb, b.nbytes(), b_like_out);
        TOut* dst = o;
        if (aside) {
          scratch_.Resize(out->dims());
          dst = scratch_.template mutable_data<TOut>();
        }
        if (RunSimd(same, pa, pb, dst, n)) {
          // done: the float arithmetic ops' AVX2 path
        } else if (same) {
          // Large tensors split across threads by element range (bit-identical for any count).
          elementwise::ParallelElementwise(dst, n, 1, [&](int64_t begin, int64_t end) {
            const int64_t len = end - begin;
            elementwise::Map<TOut>(dst + begin, len) = Fn::template Apply<T>(
                elementwise::ConstMap<T>(pa + begin, len), elementwise::ConstMap<T>(pb + begin, len));
          });
        } else {
          elementwise::RunPlan<T, TOut>(plan_, pa, pb, dst, [](const auto& x, const auto& y) {
            return Fn::template Apply<T>(x, y);
          });
        }
        if (aside && bytes > 0) std::memcpy(o, dst, bytes);
      }
    });
  }

 private:
  // Add / Sub / Mul / Div on floats where the CPU has AVX2: simd::Binary over the same ranges and
  // spans the Eigen kernels below would take (the same bits; see simd_kernels.h). Broadcasts
  // whose contiguous pieces are shorter than a few vectors stay with Eigen, which inlines them.
  template <typename T, typename TOut>
  bool RunSimd(bool same, const T* pa, const T* pb, TOut* dst, int64_t n) {
    if constexpr (std::is_same_v<T, float> && std::is_same_v<TOut, float> &&
                  HasSimdKind<Fn>::value) {
      constexpr int64_t kMinSpan = 32;
      if (!simd::Available() || (!same && plan_.inner() < kMinSpan)) return false;
      if (same) {
        elementwise::ParallelElementwise(dst, n, 1, [&](int64_t begin, int64_t end) {
          simd::Binary(Fn::kSimd, pa + begin, true, pb + begin, true, dst + begin, end - begin);
        });
        return true;
      }
      const bool a_vector = plan_.a_mode() == BroadcastPlan::Mode::kVector;
      const bool b_vector = plan_.b_mode() == BroadcastPlan::Mode::kVector;
      elementwise::ParallelElementwise(dst, n, 1, [&](int64_t begin, int64_t end) {
        plan_.ForEachSpan(begin, end, [&](int64_t o, int64_t ia, int64_t ib, int64_t len) {
          simd::Binary(Fn::kSimd, pa + ia, a_vector, pb + ib, b_vector, dst + o, len);
        });
      });
      return true;
    } else {
      (void)same, (void)pa, (void)pb, (void)dst, (void)n;
      return false;
    }
  }

  bool cached_ = false;
  std::vector<int64_t> a_dims_;
  std::vector<int64_t> b_dims_;
  std::vector<int64_t> out_dims_;
  std::vector<int64_t> b_plan_dims_;
  BroadcastPlan plan_;
  Tensor scratch_;
};

}  // namespace parity

#endif  // PARITY_CORE_OPS_ELEMENTWISE_BINARY_H_
