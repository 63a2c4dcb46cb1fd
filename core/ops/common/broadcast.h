// Broadcasting for elementwise ops: shape rules (numpy and Caffe2's legacy `broadcast=1` + `axis`)
// and an iteration plan whose innermost loop is contiguous.
//
// A BroadcastPlan collapses the output into groups of adjacent dims that broadcast the same way
// (both operands vary, only A varies, only B varies, neither varies), so a kernel runs one
// contiguous inner block per outer index and does index arithmetic only between blocks:
//
//   plan.Build(out_dims, a_dims, b_dims);
//   plan.ForEachBlock([&](int64_t out, int64_t a, int64_t b) { ... plan.inner() elements ... });
//
// In each block the output is contiguous; each operand is contiguous (kVector) or one element
// repeated (kScalar), per plan.a_mode() / plan.b_mode().
#ifndef PARITY_CORE_OPS_COMMON_BROADCAST_H_
#define PARITY_CORE_OPS_COMMON_BROADCAST_H_

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace parity {

// The numpy broadcast of two shapes (aligned from the right; each pair of dims equal or one of them
// 1). Throws kShapeMismatch naming `label`, both operands and both shapes.
std::vector<int64_t> BroadcastShapes(const std::vector<int64_t>& a, const std::vector<int64_t>& b,
                                     const std::string& label, const std::string& a_name = "A",
                                     const std::string& b_name = "B");

// Whether `from` broadcasts to exactly `to` (numpy rules, `to` fixed).
bool BroadcastsTo(const std::vector<int64_t>& from, const std::vector<int64_t>& to);

// Caffe2's legacy broadcast (`broadcast=1`): B's dims, after dropping its leading and trailing 1s,
// must equal A's dims starting at `axis` (axis -1 means A.ndim - B.ndim, i.e. suffix matching).
// A B with one element is a scalar whatever its shape. Returns B's dims aligned to A's rank (1s
// elsewhere), so the numpy plan can run it; the output shape is A's. Errors: B of higher rank or a
// dim mismatch -> kShapeMismatch; axis outside [0, A.ndim - B.ndim] (other than -1) -> kBadArgument.
std::vector<int64_t> LegacyBroadcastDims(const std::vector<int64_t>& a,
                                         const std::vector<int64_t>& b, int64_t axis,
                                         const std::string& label);

class BroadcastPlan {
 public:
  enum class Mode { kVector, kScalar };

  // `a` and `b` must each broadcast to `out` (callers check with BroadcastShapes / BroadcastsTo).
  // Reuses its buffers, so rebuilding for new shapes does not allocate once warmed up.
  void Build(const std::vector<int64_t>& out, const std::vector<int64_t>& a,
             const std::vector<int64_t>& b);

  int64_t numel() const { return numel_; }
  int64_t inner() const { return inner_; }  // elements per block
  Mode a_mode() const { return a_mode_; }
  Mode b_mode() const { return b_mode_; }
  // True when the whole output is one block with both operands contiguous (same shapes).
  bool elementwise() const {
    return outer_sizes_.empty() && a_mode_ == Mode::kVector && b_mode_ == Mode::kVector;
  }

  // Calls fn(out_offset, a_offset, b_offset) once per block, in output order. Element offsets.
  template <typename Fn>
  void ForEachBlock(Fn&& fn) const;

  // Calls fn(out_offset, a_offset, b_offset, length) over the output elements [begin, end), in
  // order, one call per piece of a block (a block cut by begin or end is a shorter piece; a
  // kScalar operand's offset is its repeated element). Const and without shared scratch, so
  // threads may walk disjoint ranges of one plan at once (ParallelFor).
  template <typename Fn>
  void ForEachSpan(int64_t begin, int64_t end, Fn&& fn) const;

 private:
  int64_t numel_ = 0;
  int64_t inner_ = 1;
  Mode a_mode_ = Mode::kVector;
  Mode b_mode_ = Mode::kVector;
  // Outer groups, outermost first: their sizes and the operands' element strides (0 = repeated).
  std::vector<int64_t> outer_sizes_;
  std::vector<int64_t> a_strides_;
  std::vector<int64_t> b_strides_;
  mutable std::vector<int64_t> counter_;  // scratch for ForEachBlock's odometer
  // Scratch for Build (kept to avoid allocating per run).
  std::vector<int64_t> sizes_;
  std::vector<uint8_t> patterns_;
};

template <typename Fn>
void BroadcastPlan::ForEachBlock(Fn&& fn) const {
  if (numel_ == 0) return;
  const int groups = static_cast<int>(outer_sizes_.size());
  if (groups == 0) {
    fn(int64_t{0}, int64_t{0}, int64_t{0});
    return;
  }
  counter_.assign(groups, 0);
  const int64_t blocks = numel_ / inner_;
  int64_t a_offset = 0;
  int64_t b_offset = 0;
  for (int64_t block = 0; block < blocks; ++block) {
    fn(block * inner_, a_offset, b_offset);
    // Odometer over the outer groups, innermost group fastest.
    for (int g = groups - 1; g >= 0; --g) {
      a_offset += a_strides_[g];
      b_offset += b_strides_[g];
      if (++counter_[g] < outer_sizes_[g]) break;
      a_offset -= a_strides_[g] * outer_sizes_[g];
      b_offset -= b_strides_[g] * outer_sizes_[g];
      counter_[g] = 0;
    }
  }
}

template <typename Fn>
void BroadcastPlan::ForEachSpan(int64_t begin, int64_t end, Fn&& fn) const {
  if (begin >= end) return;
  const int groups = static_cast<int>(outer_sizes_.size());
  // The odometer of the block holding `begin`, on the stack for the usual ranks.
  constexpr int kLocal = 16;
  int64_t local[kLocal];
  std::vector<int64_t> heap;
  int64_t* counter = local;
  if (groups > kLocal) {
    heap.resize(groups);
    counter = heap.data();
  }
  int64_t rest = begin / inner_;
  int64_t a_offset = 0;
  int64_t b_offset = 0;
  for (int g = groups - 1; g >= 0; --g) {
    counter[g] = rest % outer_sizes_[g];
    rest /= outer_sizes_[g];
    a_offset += counter[g] * a_strides_[g];
    b_offset += counter[g] * b_strides_[g];
  }
  int64_t within = begin % inner_;
  for (int64_t pos = begin; pos < end;) {
    const int64_t length = std::min(inner_ - within, end - pos);
    fn(pos, a_offset + (a_mode_ == Mode::kVector ? within : 0),
       b_offset + (b_mode_ == Mode::kVector ? within : 0), length);
    pos += length;
    within = 0;
    for (int g = groups - 1; g >= 0; --g) {
      a_offset += a_strides_[g];
      b_offset += b_strides_[g];
      if (++counter[g] < outer_sizes_[g]) break;
      a_offset -= a_strides_[g] * outer_sizes_[g];
      b_offset -= b_strides_[g] * outer_sizes_[g];
      counter[g] = 0;
    }
  }
}

}  // namespace parity

#endif  // PARITY_CORE_OPS_COMMON_BROADCAST_H_
