// Index planning shared by Slice / Gather / Tile (shape_index.cc) and their gradient kernels
// (shape_grad.cc): one definition of Caffe2's slicing, gathering and tiling rules for both.
#ifndef PARITY_CORE_OPS_SHAPE_SHAPE_INDEX_H_
#define PARITY_CORE_OPS_SHAPE_SHAPE_INDEX_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/argument.h"
#include "core/proto/error.h"
#include "core/tensor.h"

namespace parity {
namespace shape_index {

struct SlicePlan {
  std::vector<int64_t> begin;
  std::vector<int64_t> out_dims;
};

// Caffe2's rule per axis i < len(starts): a negative index v means dim + 1 + v (so -1 is "to the
// end"); indices past the end are clamped to it; then 0 <= start <= end is required. Axes beyond
// len(starts) are kept whole; a zero-size axis stays empty whatever the indices.
SlicePlan PlanSlice(const std::vector<int64_t>& dims, const std::vector<int64_t>& starts,
                    const std::vector<int64_t>& ends, const std::string& label);

// Copies between the box [begin, begin + out_dims) of a tensor of dims `in` (`full`) and a dense
// tensor of dims out_dims (`box`), as contiguous chunks (one memcpy each): `to_box` gathers
// (Slice), otherwise scatters (SliceGradient, into a zeroed `full`).
void CopyBox(char* full, char* box, const std::vector<int64_t>& in, const SlicePlan& plan,
             size_t esize, bool to_box);

// Gather's output dims: data[:axis] + indices + data[axis+1:], or data's dims when the indexed
// axis is empty (Caffe2's rule for empty batches).
std::vector<int64_t> GatherDims(const std::vector<int64_t>& data, const std::vector<int64_t>& idx,
                                int axis);
// Gather's axis in [0, rank); DATA must have rank >= 1.
int GatherAxis(const std::vector<int64_t>& data, int64_t axis, const std::string& label);
// Whether negative indices wrap: the `wrap_indices` argument when given, else Caffe2's default,
// which wraps only on axis 0 (ONNX conversion relies on it).
bool GatherWraps(const ArgumentHelper& args, int64_t axis);
// Every one of the n indices in [0, bound), or [-bound, bound) when they wrap; else kBadArgument
// naming the index, its position, the axis and DATA (`data`, as the message should show it).
// Checked before anything is written, so no half-written output is left after an error.
template <typename Index>
void CheckGatherIndices(const Index* idx, int64_t n, int64_t bound, bool wrap, int axis,
                        const std::string& label, const std::string& data) {
  if (bound == 0) return;
  // The range first, in one branch-free pass (it vectorizes); the per-index walk below only runs
  // to name the first index out of range.
  int64_t lo = 0, hi = 0;
  if (n > 0) lo = hi = static_cast<int64_t>(idx[0]);
  for (int64_t i = 1; i < n; ++i) {
    const int64_t v = idx[i];
    lo = v < lo ? v : lo;
    hi = v > hi ? v : hi;
  }
  if (lo >= (wrap ? -bound : 0) && hi < bound) return;
  for (int64_t i = 0; i < n; ++i) {
    int64_t v = idx[i];
    if (wrap && v < 0) v += bound;
    PARITY_ENFORCE(v >= 0 && v < bound, ErrorKind::kBadArgument, label, ": index ", idx[i],
                   " at position ", i, " of INDICES is out of range [", wrap ? -bound : 0, ", ",
                   bound, ") for axis ", axis, " of DATA ", data);
  }
}

// A gradient input (SliceGradient's and GatherGradient's dY) must have `dims` (`why` says whose),
// else kShapeMismatch naming it.
void ExpectDims(const Tensor& t, const std::vector<int64_t>& dims, const std::string& label,
                const std::string& blob, const char* why);

// The value of a one-element int32/int64 vector input (Tile's tiles / axis).
int64_t ScalarFromInput(const Tensor& t, const std::string& label, const std::string& blob);
// Tile / TileGradient take `tiles` and `axis` from arguments or from inputs 1 and 2: each must
// come from one of them (kBadArgument).
void CheckTileArgs(const ArgumentHelper& args, int num_inputs, const std::string& label);
// TileGradient's dX dims: dY's dims with dims[axis] /= tiles (tiles > 0, dividing it).
std::vector<int64_t> UntileDims(std::vector<int64_t> dims, int64_t tiles, int64_t axis,
                                const std::string& label);
// Tile's output dims: dims[axis] *= tiles (tiles >= 0).
std::vector<int64_t> TileDims(std::vector<int64_t> dims, int64_t tiles, int64_t axis,
                              const std::string& label);

}  // namespace shape_index
}  // namespace parity

#endif  // PARITY_CORE_OPS_SHAPE_SHAPE_INDEX_H_
