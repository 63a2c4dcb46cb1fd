// Test specs of the shape family: Reshape, Transpose, Concat, Split, Flatten, FlattenToVec,
// ExpandDims, Squeeze, Slice, Shape, Gather, GatherElements, Tile, ResizeLike. They move values
// without arithmetic, so the tolerance is exact and any float blob may feed them.
#include <rapidcheck.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "fuzz/spec.h"

namespace parity::fuzz {
namespace {

int64_t Numel(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// A random permutation of 0 .. n-1.
std::vector<int64_t> Permutation(int64_t n) {
  std::vector<int64_t> p(n);
  std::iota(p.begin(), p.end(), 0);
  std::mt19937_64 rng(*rc::gen::arbitrary<uint64_t>());
  std::shuffle(p.begin(), p.end(), rng);
  return p;
}

// An axis of a rank-r tensor, sometimes written negative.
int64_t SomeAxis(int64_t rank) {
  int64_t axis = *rc::gen::inRange<int64_t>(0, rank);
  return *rc::gen::arbitrary<bool>() ? axis - rank : axis;
}

PARITY_OP_SPEC(Reshape).Tolerance("exact").ConsumesIntermediates(true).Make(
    [](const Primary* p) -> std::optional<OpInstance> {
      std::vector<int64_t> x = p ? *p : AnyDims();
      // (reshaped, old_shape): the gradient reads old_shape, so the spec keeps it (a Reshape with
      // one output, as ONNX's, runs alike in both halves: tests/reference/interpreter_test).
      OpInstance op("Reshape", 2);
      op.Input(x);
      std::vector<int64_t> shape;
      switch (*rc::gen::inRange(0, 4)) {
        case 0:
          shape = {Numel(x)};
          break;  // flat
        case 1:
          shape = {-1};
          break;  // inferred
        case 2:
          shape = std::vector<int64_t>(x.rbegin(), x.rend());
          break;
        default:  // 0 copies a dim, -1 the rest
          shape = {0, -1};
          if (x.size() < 2) shape = {0};
      }
      // allowzero=1 (a 0 is a dim of 0) with a shape free of -1: the reversed dims of an empty
      // input hold a real 0; otherwise it changes nothing and must not.
      if (std::find(shape.begin(), shape.end(), -1) == shape.end() && Pick(4) == 3) {
        op.Arg("allowzero", int64_t{1});
      }
      op.Arg("shape", shape);
      return op;
    });

PARITY_OP_SPEC(Transpose).Tolerance("exact").ConsumesIntermediates(true).Make(
    [](const Primary* p) -> std::optional<OpInstance> {
      std::vector<int64_t> x = p ? *p : AnyDims();
      OpInstance op("Transpose");
      op.Input(x);
      if (*rc::gen::arbitrary<bool>()) {  // else the default: reversed axes
        op.Arg("axes", Permutation(static_cast<int64_t>(x.size())));
      }
      return op;
    });

PARITY_OP_SPEC(Concat).Tolerance("exact").ConsumesIntermediates(true).Make(
    [](const Primary* p) -> std::optional<OpInstance> {
      std::vector<int64_t> x = p ? *p : AnyDims();
      const int64_t rank = static_cast<int64_t>(x.size());
      const bool add_axis = *rc::gen::inRange(0, 4) == 0;
      const int64_t axis = *rc::gen::inRange<int64_t>(0, rank + (add_axis ? 1 : 0));
      const int pieces = *rc::gen::inRange(1, 4);
      // (concat, split_info): the gradient reads split_info, so the spec keeps it.
      OpInstance op("Concat", 2);
      op.Input(x);
      for (int i = 0; i < pieces; ++i) {
        std::vector<int64_t> other = x;
        if (!add_axis) other[axis] = Dim(1, 4);
        op.Input(other);
      }
      op.Arg("axis", *rc::gen::arbitrary<bool>() ? axis : axis - rank - (add_axis ? 1 : 0));
      if (add_axis) op.Arg("add_axis", int64_t{1});
      return op;
    });

PARITY_OP_SPEC(Split).Tolerance("exact").ConsumesIntermediates(true).Make(
    [](const Primary* p) -> std::optional<OpInstance> {
      std::vector<int64_t> x = p ? *p : AnyDims();
      const int64_t rank = static_cast<int64_t>(x.size());
      const int64_t axis = *rc::gen::inRange<int64_t>(0, rank);
      // Sizes summing to the axis' extent (a zero-size piece now and then).
      std::vector<int64_t> split;
      int64_t left = x[axis];
      while (left > 0 && split.size() < 3) {
        int64_t piece = *rc::gen::inRange<int64_t>(0, left + 1);
        split.push_back(piece);
        left -= piece;
      }
      if (left > 0 || split.empty()) split.push_back(left);
      OpInstance op("Split", static_cast<int>(split.size()));
      op.Input(x);
      op.Arg("axis", *rc::gen::arbitrary<bool>() ? axis : axis - rank);
      op.Arg("split", split);
      return op;
    });

PARITY_OP_SPEC(Flatten).Tolerance("exact").ConsumesIntermediates(true).Make(
    [](const Primary* p) -> std::optional<OpInstance> {
      std::vector<int64_t> x = p ? *p : AnyDims();
      OpInstance op("Flatten");
      op.Input(x);
      const int64_t rank = static_cast<int64_t>(x.size());
      op.Arg("axis", *rc::gen::inRange<int64_t>(-rank, rank + 1));  // negative: from the end
      return op;
    });

PARITY_OP_SPEC(FlattenToVec)
    .Tolerance("exact")
    .ConsumesIntermediates(true)
    .Make([](const Primary* p) -> std::optional<OpInstance> {
      OpInstance op("FlattenToVec");
      op.Input(p ? *p : AnyDims());
      return op;
    });

PARITY_OP_SPEC(ExpandDims)
    .Tolerance("exact")
    .ConsumesIntermediates(true)
    .Make([](const Primary* p) -> std::optional<OpInstance> {
      std::vector<int64_t> x = p ? *p : AnyDims(1, 3);
      if (x.size() > 4) return std::nullopt;
      const int64_t added = *rc::gen::inRange<int64_t>(1, 3);
      std::vector<int64_t> dims = Permutation(static_cast<int64_t>(x.size()) + added);
      dims.resize(added);
      std::sort(dims.begin(), dims.end());
      OpInstance op("ExpandDims");
      op.Input(x);
      op.Arg("dims", dims);
      return op;
    });

PARITY_OP_SPEC(Squeeze).Tolerance("exact").ConsumesIntermediates(true).Make(
    [](const Primary* p) -> std::optional<OpInstance> {
      std::vector<int64_t> x;
      if (p) {
        x = *p;
      } else {
        x = AnyDims(1, 3);
        x.insert(x.begin() + *rc::gen::inRange<int64_t>(0, static_cast<int64_t>(x.size()) + 1), 1);
      }
      std::vector<int64_t> dims;
      for (size_t i = 0; i < x.size(); ++i) {
        if (x[i] == 1) dims.push_back(static_cast<int64_t>(i));
      }
      if (dims.empty() || dims.size() == x.size()) return std::nullopt;
      OpInstance op("Squeeze");
      op.Input(x);
      op.Arg("dims", dims);
      return op;
    });

// Slice cuts one axis (Caffe2's restriction, which the reference keeps); the others are whole.
PARITY_OP_SPEC(Slice).Tolerance("exact").ConsumesIntermediates(true).Make(
    [](const Primary* p) -> std::optional<OpInstance> {
      std::vector<int64_t> x = p ? *p : AnyDims();
      const int64_t rank = static_cast<int64_t>(x.size());
      const int64_t axis = *rc::gen::inRange<int64_t>(0, rank);
      std::vector<int64_t> starts(axis + 1, 0), ends(axis + 1, -1);
      // The last listed axis is cut; each earlier one half the time (several axes at once).
      for (int64_t k = 0; k <= axis; ++k) {
        if (k < axis && !*rc::gen::arbitrary<bool>()) continue;
        const int64_t start = *rc::gen::inRange<int64_t>(0, x[k]);
        const int64_t end = *rc::gen::inRange<int64_t>(start + 1, x[k] + 1);
        starts[k] = start;
        // The end written as a negative index now and then (-1 is the end).
        ends[k] = *rc::gen::arbitrary<bool>() ? end : end - x[k] - 1;
      }
      OpInstance op("Slice");
      op.Input(x);
      if (*rc::gen::arbitrary<bool>()) {
        op.Arg("starts", starts);
        op.Arg("ends", ends);
      } else {
        op.ShapeInput(starts, DataType::kInt32);
        op.ShapeInput(ends, DataType::kInt32);
      }
      return op;
    });

PARITY_OP_SPEC(Shape)
    .Tolerance("exact")
    .ConsumesIntermediates(true)
    .Skip("gradient", "the output is int64 dims, not a function of the values")
    .Make([](const Primary* p) -> std::optional<OpInstance> {
      std::vector<int64_t> x = p ? *p : AnyDims();
      OpInstance op("Shape");
      op.Input(x);
      if (*rc::gen::arbitrary<bool>()) op.Arg("axes", std::vector<int64_t>{SomeAxis(x.size())});
      return op;
    });

PARITY_OP_SPEC(Gather).Tolerance("exact").ConsumesIntermediates(true).Make(
    [](const Primary* p) -> std::optional<OpInstance> {
      std::vector<int64_t> x = p ? *p : AnyDims(1, 3);
      const int64_t rank = static_cast<int64_t>(x.size());
      if (rank == 0 || Numel(x) == 0) return std::nullopt;
      const int64_t axis = *rc::gen::inRange<int64_t>(0, rank);
      std::vector<int64_t> idx = AnyDims(1, 2, 4);
      if (Numel(x) / x[axis] * Numel(idx) > 4096) return std::nullopt;
      OpInstance op("Gather");
      op.Input(x);
      // Indices in [0, dim): repeated ones exercise the gradient's accumulation.
      op.IndexInput(idx, x[axis],
                    *rc::gen::arbitrary<bool>() ? DataType::kInt32 : DataType::kInt64);
      if (axis != 0) op.Arg("axis", *rc::gen::arbitrary<bool>() ? axis : axis - rank);
      return op;
    });

// GatherElements: INDICES of DATA's rank, each dim off the axis at most DATA's, 1..4 along it;
// values in [-s, s) (negative ones wrap, ONNX), repeats exercising the gradient's accumulation.
PARITY_OP_SPEC(GatherElements).Tolerance("exact").ConsumesIntermediates(true).Make(
    [](const Primary* p) -> std::optional<OpInstance> {
      std::vector<int64_t> x = p ? *p : AnyDims(1, 3);
      const int64_t rank = static_cast<int64_t>(x.size());
      if (rank == 0 || Numel(x) == 0 || Numel(x) > 4096) return std::nullopt;
      const int64_t axis = *rc::gen::inRange<int64_t>(0, rank);
      std::vector<int64_t> idx(rank);
      for (int64_t d = 0; d < rank; ++d) idx[d] = d == axis ? Dim(1, 4) : Dim(1, x[d]);
      const int64_t bound = x[axis];
      InputSpec indices;
      indices.dims = idx;
      indices.dtype = *rc::gen::arbitrary<bool>() ? DataType::kInt32 : DataType::kInt64;
      indices.domain = Domain::kShape;
      indices.values = *rc::gen::container<std::vector<int64_t>>(
          Numel(idx), rc::gen::inRange<int64_t>(-bound, bound));
      indices.differentiable = false;
      OpInstance op("GatherElements");
      op.Input(x);
      op.AddInput(indices);
      if (axis != 0 || *rc::gen::arbitrary<bool>()) {
        op.Arg("axis", *rc::gen::arbitrary<bool>() ? axis : axis - rank);
      }
      return op;
    });

PARITY_OP_SPEC(Tile).Tolerance("exact").ConsumesIntermediates(true).Make(
    [](const Primary* p) -> std::optional<OpInstance> {
      std::vector<int64_t> x = p ? *p : AnyDims(1, 3);
      const int64_t axis = SomeAxis(x.size());
      const int64_t tiles = *rc::gen::inRange<int64_t>(1, 4);
      if (Numel(x) * tiles > 4096) return std::nullopt;
      OpInstance op("Tile");
      op.Input(x);
      if (*rc::gen::arbitrary<bool>()) {
        op.Arg("tiles", tiles);
        op.Arg("axis", axis);
      } else {
        op.ShapeInput({tiles}, DataType::kInt32);
        op.ShapeInput({axis}, DataType::kInt32);
      }
      return op;
    });

// ResizeLike: the data's values with a shape source's dims (same element count).
PARITY_OP_SPEC(ResizeLike)
    .Tolerance("exact")
    .ConsumesIntermediates(true)
    .Make([](const Primary* p) -> std::optional<OpInstance> {
      std::vector<int64_t> x = p ? *p : AnyDims();
      int64_t n = 1;
      for (int64_t d : x) n *= d;
      // A shape source with the same count: [n] or [a, n / a] for a divisor a.
      std::vector<int64_t> like = {n};
      int64_t a = *rc::gen::inRange<int64_t>(1, 5);
      if (n % a == 0 && *rc::gen::arbitrary<bool>()) like = {a, n / a};
      OpInstance op("ResizeLike");
      op.Input(x);
      int source = op.Input(like);
      op.NotDifferentiable(source);
      return std::optional<OpInstance>(op);
    });

}  // namespace
}  // namespace parity::fuzz
