// Shape ops that index: Slice, Shape, Gather, Tile. Caffe2 semantics (caffe2/operators/slice_op.h,
// shape_op.h, gather_op.h, tile_op.h), newer pytorch tree. Data of any storable dtype is moved as
// bytes; index inputs are int32 or int64.
//
// Differences from Caffe2, all deliberate:
//   - Slice slices any number of axes at once (Caffe2 enforced "only 1 dimension"); a net Caffe2
//     accepts gives the same result.
//   - Gather checks every index even when the output is empty (Caffe2 skipped the check then),
//     except for Caffe2's "indexed axis of size 0" rule, where the output takes DATA's dims.
#include <algorithm>
#include <atomic>
#include <cstring>

#include "core/ops/shape/shape_index.h"

#include "core/operator.h"
#include "core/ops/common/shape_util.h"
#include "core/parallel.h"
#include "core/schema.h"

namespace parity {
namespace shape_index {

using shape_util::CanonicalAxis;
using shape_util::SizeFromDim;
using shape_util::SizeToDim;

SlicePlan PlanSlice(const std::vector<int64_t>& dims, const std::vector<int64_t>& starts,
                    const std::vector<int64_t>& ends, const std::string& label) {
  const size_t rank = dims.size();
  PARITY_ENFORCE(starts.size() == ends.size(), ErrorKind::kBadArgument, label, ": starts ",
                 ShapeString(starts), " and ends ", ShapeString(ends), " differ in length");
  PARITY_ENFORCE(starts.size() <= rank, ErrorKind::kBadArgument, label, ": starts ",
                 ShapeString(starts), " has more entries than the rank of the input ",
                 ShapeString(dims));
  SlicePlan plan;
  plan.begin.assign(rank, 0);
  plan.out_dims = dims;
  for (size_t i = 0; i < starts.size(); ++i) {
    if (dims[i] == 0) {
      plan.out_dims[i] = 0;
      continue;
    }
    int64_t start = starts[i] < 0 ? dims[i] + 1 + starts[i] : starts[i];
    int64_t end = ends[i] < 0 ? dims[i] + 1 + ends[i] : ends[i];
    start = std::min(start, dims[i]);
    end = std::min(end, dims[i]);
    PARITY_ENFORCE(start >= 0 && end >= 0 && start <= end, ErrorKind::kBadArgument, label,
                   ": on axis ", i, " (size ", dims[i], ") start ", starts[i], " and end ",
                   ends[i], " give the empty or reversed range [", start, ", ", end,
                   ") for input ", ShapeString(dims));
    plan.begin[i] = start;
    plan.out_dims[i] = end - start;
  }
  return plan;
}

void CopyBox(char* full, char* box, const std::vector<int64_t>& in, const SlicePlan& plan,
             size_t esize, bool to_box) {
  const int rank = static_cast<int>(in.size());
  const int64_t numel = SizeFromDim(plan.out_dims, 0);
  if (numel == 0) return;
  // Every axis after the innermost partial one (q) is whole, so each chunk is contiguous.
  int q = rank - 1;
  while (q >= 0 && plan.begin[q] == 0 && plan.out_dims[q] == in[q]) --q;
  if (q < 0) {
    if (to_box) {
      std::memcpy(box, full, numel * esize);
    } else {
      std::memcpy(full, box, numel * esize);
    }
    return;
  }
  // Strides and the odometer live on the stack for ranks up to 8 (no allocation per run).
  int64_t small[16];
  std::vector<int64_t> large;
  int64_t* stride = small;
  if (rank > 8) {
    large.resize(2 * rank);
    stride = large.data();
  }
  int64_t* index = stride + rank;
  stride[rank - 1] = 1;
  for (int i = rank - 2; i >= 0; --i) stride[i] = stride[i + 1] * in[i + 1];
  for (int i = 0; i < rank; ++i) index[i] = 0;
  const int64_t chunk = plan.out_dims[q] * stride[q] * esize;
  const int64_t chunks = SizeToDim(plan.out_dims, q);
  for (int64_t c = 0; c < chunks; ++c) {
    int64_t offset = plan.begin[q] * stride[q];
    for (int a = 0; a < q; ++a) offset += (plan.begin[a] + index[a]) * stride[a];
    if (to_box) {
      std::memcpy(box + c * chunk, full + offset * esize, chunk);
    } else {
      std::memcpy(full + offset * esize, box + c * chunk, chunk);
    }
    for (int a = q - 1; a >= 0; --a) {
      if (++index[a] < plan.out_dims[a]) break;
      index[a] = 0;
    }
  }
}

std::vector<int64_t> GatherDims(const std::vector<int64_t>& data, const std::vector<int64_t>& idx,
                                int axis) {
  if (data[axis] == 0) return data;
  std::vector<int64_t> out(data.begin(), data.begin() + axis);
  out.insert(out.end(), idx.begin(), idx.end());
  out.insert(out.end(), data.begin() + axis + 1, data.end());
  return out;
}

int GatherAxis(const std::vector<int64_t>& data, int64_t axis, const std::string& label) {
  PARITY_ENFORCE(!data.empty(), ErrorKind::kShapeMismatch, label,
                 ": DATA must have rank >= 1, got a scalar []");
  return CanonicalAxis(axis, static_cast<int>(data.size()), label, "axis", data);
}

bool GatherWraps(const ArgumentHelper& args, int64_t axis) {
  return args.Has("wrap_indices") ? args.Get<bool>("wrap_indices") : axis == 0;
}

int64_t ScalarFromInput(const Tensor& t, const std::string& label, const std::string& blob) {
  PARITY_ENFORCE(t.ndim() == 1 && t.numel() == 1, ErrorKind::kShapeMismatch, label, ": input '",
                 blob, "' must be a vector of one element, got ", t.DebugString());
  return shape_util::ReadIndexTensor(t, label, blob)[0];
}

void CheckTileArgs(const ArgumentHelper& args, int num_inputs, const std::string& label) {
  PARITY_ENFORCE(num_inputs >= 2 || args.Has("tiles"), ErrorKind::kBadArgument, label,
                 ": needs argument 'tiles' or input 1");
  PARITY_ENFORCE(num_inputs == 3 || args.Has("axis"), ErrorKind::kBadArgument, label,
                 ": needs argument 'axis' or input 2");
}

std::vector<int64_t> TileDims(std::vector<int64_t> dims, int64_t tiles, int64_t axis,
                              const std::string& label) {
  PARITY_ENFORCE(tiles >= 0, ErrorKind::kBadArgument, label, ": tiles ", tiles,
                 " must be non-negative");
  const int a = CanonicalAxis(axis, static_cast<int>(dims.size()), label, "axis", dims);
  dims[a] *= tiles;
  return dims;
}

}  // namespace shape_index

namespace {

using shape_index::CopyBox;
using shape_index::GatherAxis;
using shape_index::GatherDims;
using shape_index::PlanSlice;
using shape_index::ScalarFromInput;
using shape_index::SlicePlan;
using shape_index::TileDims;
using shape_util::CanonicalAxis;
using shape_util::SizeFromDim;
using shape_util::SizeToDim;

// ---------------------------------------------------------------------------------------------
// Slice

class SliceOp final : public Operator {
 public:
  SliceOp(const caffe2::OperatorDef& def, Workspace* ws) : Operator(def, ws) {
    if (InputSize() == 1) {
      PARITY_ENFORCE(args().Has("starts") && args().Has("ends"), ErrorKind::kBadArgument, label(),
                     ": needs arguments 'starts' and 'ends' (or inputs 1 and 2)");
      starts_ = Args<int64_t>("starts");
      ends_ = Args<int64_t>("ends");
    }
  }

  void Run() override {
    const Tensor& in = Input(0);
    std::vector<int64_t> starts = starts_;
    std::vector<int64_t> ends = ends_;
    if (InputSize() == 3) {  // Inputs take precedence over arguments, as in Caffe2.
      for (int i = 1; i <= 2; ++i) {
        PARITY_ENFORCE(Input(i).ndim() == 1, ErrorKind::kShapeMismatch, label(), ": input '",
                       InputName(i), "' must be 1-D, got ", Input(i).DebugString());
      }
      starts = shape_util::ReadIndexTensor(Input(1), label(), InputName(1));
      ends = shape_util::ReadIndexTensor(Input(2), label(), InputName(2));
    }
    const SlicePlan plan = PlanSlice(in.dims(), starts, ends, label());
    Tensor* out = Output(0);
    out->Resize(plan.out_dims);
    char* dst = static_cast<char*>(out->raw_mutable_data(in.dtype()));
    CopyBox(const_cast<char*>(static_cast<const char*>(in.raw_data())), dst, in.dims(), plan,
            DataTypeSize(in.dtype()), /*to_box=*/true);
  }

 private:
  std::vector<int64_t> starts_;
  std::vector<int64_t> ends_;
};

PARITY_OP_SCHEMA(Slice)
    .NumInputs(1, 3)
    .NumOutputs(1)
    .NumInputsOutputs([](int in, int) { return in != 2; },
                      "starts and ends come together, as inputs 1 and 2")
    .Arg("starts", ArgType::kInts, std::monostate{},
         "Start index per leading axis (negative v means dim + 1 + v).")
    .Arg("ends", ArgType::kInts, std::monostate{},
         "End index (exclusive) per leading axis; negative v means dim + 1 + v, so -1 is the end.")
    .DifferentiableInputs({0})
    .ShapeInference([](const caffe2::OperatorDef& def, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) {
      TensorType out = in[0];
      if (def.input_size() == 3) {
        out.known = false;
      } else {
        PARITY_ENFORCE(args.Has("starts") && args.Has("ends"), ErrorKind::kBadArgument,
                       args.op_label(), ": needs arguments 'starts' and 'ends' (or inputs 1 and 2)");
        out.dims = PlanSlice(in[0].dims, args.GetVector<int64_t>("starts"),
                             args.GetVector<int64_t>("ends"), args.op_label())
                       .out_dims;
      }
      return std::vector<TensorType>{out};
    })
    .InputDoc(0, "data", "Any tensor.")
    .InputDoc(1, "starts", "Optional 1-D int32/int64 starts (instead of the argument).")
    .InputDoc(2, "ends", "Optional 1-D int32/int64 ends (instead of the argument).")
    .OutputDoc(0, "output", "The sliced box.")
    .Doc("Takes the box [starts, ends) of the data, one range per leading axis (Caffe2's rules).");
PARITY_REGISTER_CPU_OPERATOR(Slice, SliceOp);

// ---------------------------------------------------------------------------------------------
// Shape

std::vector<int64_t> ShapeAxes(const std::vector<int64_t>& dims, const ArgumentHelper& args) {
  std::vector<int64_t> out;
  if (!args.Has("axes")) return dims;
  for (int64_t axis : args.GetVector<int64_t>("axes")) {
    out.push_back(dims[CanonicalAxis(axis, static_cast<int>(dims.size()), args.op_label(),
                                     "'axes' entry", dims)]);
  }
  return out;
}

class ShapeOp final : public Operator {
 public:
  using Operator::Operator;
  void Run() override {
    const std::vector<int64_t> values = ShapeAxes(Input(0).dims(), args());
    Tensor* out = Output(0);
    out->Resize({static_cast<int64_t>(values.size())});
    std::copy(values.begin(), values.end(), out->mutable_data<int64_t>());
  }
};

PARITY_OP_SCHEMA(Shape)
    .NumInputs(1)
    .NumOutputs(1)
    .Arg("axes", ArgType::kInts, std::monostate{},
         "Optional: return only these dims (negative counts from the end).")
    .NotDifferentiable()
    .ShapeInference([](const caffe2::OperatorDef&, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) {
      TensorType out;
      out.dtype = DataType::kInt64;
      out.dims = {static_cast<int64_t>(ShapeAxes(in[0].dims, args).size())};
      return std::vector<TensorType>{out};
    })
    .InputDoc(0, "data", "Any tensor.")
    .OutputDoc(0, "shape", "int64 1-D: the data's dims (or the selected ones).")
    .Doc("Outputs the input's dims as an int64 vector.");
PARITY_REGISTER_CPU_OPERATOR(Shape, ShapeOp);

// ---------------------------------------------------------------------------------------------
// Gather

class GatherOp final : public Operator {
 public:
  GatherOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws), axis_(Arg<int64_t>("axis")) {
    wrap_ = shape_index::GatherWraps(args(), axis_);
  }

  void Run() override {
    shape_util::DispatchIndex(Input(1), label(), InputName(1), "INDICES",
                              [&](const auto* idx) { RunWith(idx); });
  }

 private:
  template <typename Index>
  void RunWith(const Index* idx) {
    const Tensor& data = Input(0);
    const int64_t n = Input(1).numel();
    const int axis = GatherAxis(data.dims(), axis_, label());
    const int64_t bound = data.dims()[axis];
    const std::vector<int64_t> out_dims = GatherDims(data.dims(), Input(1).dims(), axis);
    Tensor* out = Output(0);
    out->Resize(out_dims);
    char* dst = static_cast<char*>(out->raw_mutable_data(data.dtype()));
    if (out->numel() == 0) {
      // Nothing is copied, but every index is still checked (see the top of the file).
      shape_index::CheckGatherIndices(idx, n, bound, wrap_, axis, label(), data.DebugString());
      return;
    }
    const size_t esize = DataTypeSize(data.dtype());
    const int64_t outer = SizeToDim(data.dims(), axis);
    const int64_t block = SizeFromDim(data.dims(), axis + 1) * esize;
    const char* src = static_cast<const char*>(data.raw_data());
    // Each index is range-checked where it is used, inside the parallel copy (a never-taken
    // branch; a serial pass before the copies cost 5-10% of a 2-thread Gather): a chunk that meets
    // one out of range stops, and the serial check below names the first such index.
    std::atomic<bool> out_of_range{false};
    const int64_t lowest = wrap_ ? -bound : 0;
    // The (outer, index) pairs are split across threads: each copies its own slice.
    const int64_t block_elements = std::max<int64_t>(1, SizeFromDim(data.dims(), axis + 1));
    ParallelFor(0, outer * n, GrainFor(block_elements), [&](int64_t begin, int64_t end) {
      // (o, i) of pair k, advanced in step rather than divided out of k per pair: two 64-bit
      // divisions beside each row's copy.
      int64_t o = begin / n;
      int64_t i = begin % n;
      for (int64_t k = begin; k < end; ++k) {
        int64_t v = idx[i];
        if (v < lowest || v >= bound) {
          out_of_range.store(true, std::memory_order_relaxed);
          return;
        }
        if (v < 0) v += bound;
        // The rows are random reads: asking for the source kGatherPrefetchAhead pairs ahead hides
        // their latency behind the copies in between (16384 rows of 256 bytes from a 4-MB table,
        // one thread: 129 -> 111 us). Only rows of a cache line or more; the hardware prefetcher
        // follows a row's own lines after its first few.
        if (block >= kCacheLine && i + kGatherPrefetchAhead < n) {
          int64_t ahead = idx[i + kGatherPrefetchAhead];
          if (ahead < 0) ahead += bound;
          if (ahead >= 0 && ahead < bound) {
            const char* row = src + (o * bound + ahead) * block;
            for (int64_t line = 0; line < std::min<int64_t>(block, kPrefetchBytes);
                 line += kCacheLine) {
              __builtin_prefetch(row + line);
            }
          }
        }
        std::memcpy(dst + k * block, src + (o * bound + v) * block, block);
        if (++i == n) {
          i = 0;
          ++o;
        }
      }
    });
    if (out_of_range.load()) {
      shape_index::CheckGatherIndices(idx, n, bound, wrap_, axis, label(), data.DebugString());
    }
  }

  static constexpr int64_t kCacheLine = 64;
  static constexpr int64_t kPrefetchBytes = 256;
  static constexpr int64_t kGatherPrefetchAhead = 16;

  int64_t axis_;
  bool wrap_;
};

PARITY_OP_SCHEMA(Gather)
    .NumInputs(2)
    .NumOutputs(1)
    .Arg("axis", ArgType::kInt, int64_t{0}, "Axis of DATA that INDICES index (negative allowed).")
    .Arg("wrap_indices", ArgType::kInt, std::monostate{},
         "If 1, a negative index i means i + dim; default 1 on axis 0 and 0 elsewhere (Caffe2).")
    .DifferentiableInputs({0})
    .ShapeInference([](const caffe2::OperatorDef& def, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) {
      PARITY_ENFORCE(in[1].dtype == DataType::kInt32 || in[1].dtype == DataType::kInt64,
                     ErrorKind::kShapeMismatch, args.op_label(), ": INDICES '", def.input(1),
                     "' must be int32 or int64, got ", TensorTypeString(in[1]));
      TensorType out;
      out.dtype = in[0].dtype;
      out.dims = GatherDims(in[0].dims, in[1].dims,
                            GatherAxis(in[0].dims, args.Get<int64_t>("axis"), args.op_label()));
      return std::vector<TensorType>{out};
    })
    .InputDoc(0, "DATA", "Any tensor of rank >= 1.")
    .InputDoc(1, "INDICES", "int32/int64 indices into DATA's axis; any shape.")
    .OutputDoc(0, "OUTPUT", "dims: DATA[:axis] + INDICES + DATA[axis+1:].")
    .Doc("Gathers slices of DATA along `axis` at INDICES; an index out of range is an error.");
PARITY_REGISTER_CPU_OPERATOR(Gather, GatherOp);

// ---------------------------------------------------------------------------------------------
// Tile

class TileOp final : public Operator {
 public:
  TileOp(const caffe2::OperatorDef& def, Workspace* ws) : Operator(def, ws) {
    shape_index::CheckTileArgs(args(), InputSize(), label());
    if (InputSize() < 2) tiles_ = Arg<int64_t>("tiles");
    if (InputSize() < 3) axis_ = Arg<int64_t>("axis");
  }

  void Run() override {
    const Tensor& in = Input(0);
    const int64_t tiles = InputSize() >= 2 ? ScalarFromInput(Input(1), label(), InputName(1)) : tiles_;
    const int64_t axis = InputSize() == 3 ? ScalarFromInput(Input(2), label(), InputName(2)) : axis_;
    const std::vector<int64_t> out_dims = TileDims(in.dims(), tiles, axis, label());
    const int a = CanonicalAxis(axis, in.ndim(), label(), "axis", in.dims());
    Tensor* out = Output(0);
    out->Resize(out_dims);
    char* dst = static_cast<char*>(out->raw_mutable_data(in.dtype()));
    if (out->numel() == 0) return;
    const int64_t outer = SizeToDim(in.dims(), a);
    const int64_t block = SizeFromDim(in.dims(), a) * DataTypeSize(in.dtype());
    const char* src = static_cast<const char*>(in.raw_data());
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t t = 0; t < tiles; ++t) {
        std::memcpy(dst + (o * tiles + t) * block, src + o * block, block);
      }
    }
  }

 private:
  int64_t tiles_ = 1;
  int64_t axis_ = 0;
};

PARITY_OP_SCHEMA(Tile)
    .NumInputs(1, 3)
    .NumOutputs(1)
    .Arg("tiles", ArgType::kInt, std::monostate{},
         "Number of copies along the axis (required unless given as input 1).")
    .Arg("axis", ArgType::kInt, std::monostate{},
         "Axis to tile along (required unless given as input 2; negative allowed).")
    .DifferentiableInputs({0})
    .ShapeInference([](const caffe2::OperatorDef& def, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) {
      TensorType out = in[0];
      if (def.input_size() > 1) {
        out.known = false;
      } else {
        PARITY_ENFORCE(args.Has("tiles") && args.Has("axis"), ErrorKind::kBadArgument,
                       args.op_label(), ": needs arguments 'tiles' and 'axis' (or inputs 1, 2)");
        out.dims = TileDims(in[0].dims, args.Get<int64_t>("tiles"), args.Get<int64_t>("axis"),
                            args.op_label());
      }
      return std::vector<TensorType>{out};
    })
    .InputDoc(0, "data", "Any tensor.")
    .InputDoc(1, "tiles", "Optional int32/int64 vector of one element (instead of 'tiles').")
    .InputDoc(2, "axis", "Optional int32/int64 vector of one element (instead of 'axis').")
    .OutputDoc(0, "tiled", "The data repeated `tiles` times along the axis (numpy.tile).")
    .Doc("Repeats the data `tiles` times along `axis`.");
PARITY_REGISTER_CPU_OPERATOR(Tile, TileOp);

}  // namespace
}  // namespace parity
