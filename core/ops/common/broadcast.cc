#include "core/ops/common/broadcast.h"

#include <algorithm>

#include "core/proto/error.h"
#include "core/tensor.h"

namespace parity {

std::vector<int64_t> BroadcastShapes(const std::vector<int64_t>& a, const std::vector<int64_t>& b,
                                     const std::string& label, const std::string& a_name,
                                     const std::string& b_name) {
  const size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    // Dim i counted from the right; a missing dim is 1.
    const int64_t da = i < a.size() ? a[a.size() - 1 - i] : 1;
    const int64_t db = i < b.size() ? b[b.size() - 1 - i] : 1;
    PARITY_ENFORCE(da == db || da == 1 || db == 1, ErrorKind::kShapeMismatch, label,
                   ": cannot broadcast ", a_name, " ", ShapeString(a), " with ", b_name, " ",
                   ShapeString(b), " (dims must be equal or 1, aligned from the right)");
    out[rank - 1 - i] = da == 1 ? db : da;
  }
  return out;
}

bool BroadcastsTo(const std::vector<int64_t>& from, const std::vector<int64_t>& to) {
  if (from.size() > to.size()) return false;
  const size_t shift = to.size() - from.size();
  for (size_t i = 0; i < from.size(); ++i) {
    if (from[i] != 1 && from[i] != to[i + shift]) return false;
  }
  return true;
}

std::vector<int64_t> LegacyBroadcastDims(const std::vector<int64_t>& a,
                                         const std::vector<int64_t>& b, int64_t axis,
                                         const std::string& label) {
  const int64_t a_rank = static_cast<int64_t>(a.size());
  const int64_t b_rank = static_cast<int64_t>(b.size());
  std::vector<int64_t> aligned(a.size(), 1);
  const int64_t b_numel = CheckedNumElements(b);
  // Caffe2 treats a one-element B as a scalar before looking at its shape or the axis.
  if (b_numel == 1) return aligned;
  PARITY_ENFORCE(b_rank <= a_rank, ErrorKind::kShapeMismatch, label,
                 ": with broadcast=1, B ", ShapeString(b), " must not have more dims than A ",
                 ShapeString(a));
  if (axis == -1) axis = a_rank - b_rank;
  PARITY_ENFORCE(axis >= 0 && axis <= a_rank - b_rank, ErrorKind::kBadArgument, label,
                 ": argument 'axis' = ", axis, " is out of range [0, ", a_rank - b_rank,
                 "] for broadcasting B ", ShapeString(b), " over A ", ShapeString(a),
                 " (-1 means suffix matching)");
  // Leading and trailing 1s of B are ignored, as Caffe2 does; the dims between must match A's.
  int64_t first = 0;
  while (first < b_rank && b[first] == 1) ++first;
  int64_t last = b_rank - 1;
  while (last >= first && b[last] == 1) --last;
  for (int64_t i = first; i <= last; ++i) {
    PARITY_ENFORCE(a[axis + i] == b[i], ErrorKind::kShapeMismatch, label,
                   ": with broadcast=1 and axis ", axis, ", B ", ShapeString(b),
                   " does not match A ", ShapeString(a), " (B dim ", i, " is ", b[i],
                   ", A dim ", axis + i, " is ", a[axis + i], ")");
    aligned[axis + i] = b[i];
  }
  return aligned;
}

void BroadcastPlan::Build(const std::vector<int64_t>& out, const std::vector<int64_t>& a,
                          const std::vector<int64_t>& b) {
  numel_ = 1;
  for (int64_t d : out) numel_ *= d;
  inner_ = 1;
  a_mode_ = b_mode_ = Mode::kVector;
  outer_sizes_.clear();
  a_strides_.clear();
  b_strides_.clear();
  if (numel_ == 0) return;

  // Group adjacent output dims by pattern (bit 0: A varies, bit 1: B varies); dims of size 1 take
  // no part. Merging a run of dims with one pattern is what makes the inner block long.
  sizes_.clear();
  patterns_.clear();
  const size_t rank = out.size();
  const size_t a_shift = rank - a.size();
  const size_t b_shift = rank - b.size();
  for (size_t i = 0; i < rank; ++i) {
    if (out[i] == 1) continue;
    const bool a_varies = i >= a_shift && a[i - a_shift] != 1;
    const bool b_varies = i >= b_shift && b[i - b_shift] != 1;
    const uint8_t pattern = static_cast<uint8_t>((a_varies ? 1 : 0) | (b_varies ? 2 : 0));
    if (!patterns_.empty() && patterns_.back() == pattern) {
      sizes_.back() *= out[i];
    } else {
      sizes_.push_back(out[i]);
      patterns_.push_back(pattern);
    }
  }
  if (sizes_.empty()) return;  // a single element

  // The innermost group is the contiguous block.
  inner_ = sizes_.back();
  a_mode_ = (patterns_.back() & 1) ? Mode::kVector : Mode::kScalar;
  b_mode_ = (patterns_.back() & 2) ? Mode::kVector : Mode::kScalar;
  int64_t a_step = (patterns_.back() & 1) ? inner_ : 1;
  int64_t b_step = (patterns_.back() & 2) ? inner_ : 1;
  const int groups = static_cast<int>(sizes_.size()) - 1;
  outer_sizes_.resize(groups);
  a_strides_.resize(groups);
  b_strides_.resize(groups);
  for (int g = groups - 1; g >= 0; --g) {
    outer_sizes_[g] = sizes_[g];
    const bool a_varies = patterns_[g] & 1;
    const bool b_varies = patterns_[g] & 2;
    a_strides_[g] = a_varies ? a_step : 0;
    b_strides_[g] = b_varies ? b_step : 0;
    if (a_varies) a_step *= sizes_[g];
    if (b_varies) b_step *= sizes_[g];
  }
}

}  // namespace parity
