// Shape ops, part 2: view-like reshapes that keep the data in order: Flatten, FlattenToVec,
// ExpandDims, Squeeze. Caffe2 semantics (caffe2/operators/flatten_op.h, expand_squeeze_dims_op.h),
// newer pytorch tree. Any storable dtype; the output is a copy of the input with new dims (or the
// input itself, re-dimensioned, when ExpandDims/Squeeze run in place).
//
// Difference from Caffe2 (a superset): Flatten accepts a negative axis in [-rank, rank] (ONNX).
#include <algorithm>

#include "core/operator.h"
#include "core/ops/common/shape_util.h"
#include "core/schema.h"

namespace parity {
namespace {

using shape_util::CopyAndReshape;
using shape_util::SizeFromDim;
using shape_util::SizeToDim;

// ---------------------------------------------------------------------------------------------
// Flatten, FlattenToVec

std::vector<int64_t> FlattenDims(const std::vector<int64_t>& dims, int64_t axis,
                                 const std::string& label) {
  const int rank = static_cast<int>(dims.size());
  PARITY_ENFORCE(axis >= -rank && axis <= rank, ErrorKind::kBadArgument, label, ": axis ", axis,
                 " is out of range [", -rank, ", ", rank, "] for input ", ShapeString(dims));
  const int k = static_cast<int>(axis < 0 ? axis + rank : axis);
  return {SizeToDim(dims, k), SizeFromDim(dims, k)};
}

class FlattenOp final : public Operator {
 public:
  FlattenOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws), axis_(Arg<int64_t>("axis")) {}
  void Run() override {
    const Tensor& in = Input(0);
    CopyAndReshape(in, Output(0), FlattenDims(in.dims(), axis_, label()));
  }

 private:
  int64_t axis_;
};

PARITY_OP_SCHEMA(Flatten)
    .NumInputs(1)
    .NumOutputs(1)
    .Arg("axis", ArgType::kInt, int64_t{1},
         "Dims before it form the output's first dim, the rest the second; in [-rank, rank].")
    .ShapeInference([](const caffe2::OperatorDef&, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) {
      TensorType out = in[0];
      out.dims = FlattenDims(in[0].dims, args.Get<int64_t>("axis"), args.op_label());
      return std::vector<TensorType>{out};
    })
    .InputDoc(0, "input", "Any tensor.")
    .OutputDoc(0, "output", "2-D: [prod(dims[:axis]), prod(dims[axis:])].")
    .Doc("Flattens the input into a 2-D matrix at `axis`.");
PARITY_REGISTER_CPU_OPERATOR(Flatten, FlattenOp);

std::vector<int64_t> FlattenToVecDims(const std::vector<int64_t>& dims, const std::string& label) {
  PARITY_ENFORCE(!dims.empty(), ErrorKind::kShapeMismatch, label,
                 ": the input must have rank >= 1, got a scalar []");
  return {SizeFromDim(dims, 0)};
}

class FlattenToVecOp final : public Operator {
 public:
  using Operator::Operator;
  void Run() override {
    const Tensor& in = Input(0);
    CopyAndReshape(in, Output(0), FlattenToVecDims(in.dims(), label()));
  }
};

PARITY_OP_SCHEMA(FlattenToVec)
    .NumInputs(1)
    .NumOutputs(1)
    .ShapeInference([](const caffe2::OperatorDef&, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) {
      TensorType out = in[0];
      out.dims = FlattenToVecDims(in[0].dims, args.op_label());
      return std::vector<TensorType>{out};
    })
    .InputDoc(0, "input", "A tensor of rank >= 1.")
    .OutputDoc(0, "output", "1-D: all elements in row-major order.")
    .Doc("Flattens the input into a 1-D vector.");
PARITY_REGISTER_CPU_OPERATOR(FlattenToVec, FlattenToVecOp);

// ---------------------------------------------------------------------------------------------
// ExpandDims, Squeeze: `dims` is required, sorted and deduplicated, non-negative (Caffe2).

std::vector<int64_t> SortedDims(std::vector<int64_t> dims, const std::string& label) {
  PARITY_ENFORCE(!dims.empty(), ErrorKind::kBadArgument, label,
                 ": argument 'dims' must list at least one dimension");
  std::sort(dims.begin(), dims.end());
  dims.erase(std::unique(dims.begin(), dims.end()), dims.end());
  PARITY_ENFORCE(dims.front() >= 0, ErrorKind::kBadArgument, label, ": argument 'dims' ",
                 ShapeString(dims), " must be non-negative");
  return dims;
}

std::vector<int64_t> ExpandDimsShape(const std::vector<int64_t>& in,
                                     const std::vector<int64_t>& dims, const std::string& label) {
  const int64_t out_rank = static_cast<int64_t>(in.size() + dims.size());
  PARITY_ENFORCE(dims.back() < out_rank, ErrorKind::kBadArgument, label, ": dims ",
                 ShapeString(dims), " do not fit a result of rank ", out_rank, " from input ",
                 ShapeString(in));
  std::vector<int64_t> out = in;
  for (int64_t d : dims) out.insert(out.begin() + d, 1);
  return out;
}

std::vector<int64_t> SqueezeShape(const std::vector<int64_t>& in, const std::vector<int64_t>& dims,
                                  const std::string& label) {
  PARITY_ENFORCE(dims.back() < static_cast<int64_t>(in.size()), ErrorKind::kBadArgument, label,
                 ": dims ", ShapeString(dims), " are out of range for input ", ShapeString(in));
  std::vector<int64_t> out;
  size_t next = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    if (next < dims.size() && dims[next] == static_cast<int64_t>(i)) {
      PARITY_ENFORCE(in[i] == 1, ErrorKind::kShapeMismatch, label, ": cannot squeeze dim ", i,
                     " of input ", ShapeString(in), ": its size is ", in[i], ", not 1");
      ++next;
    } else {
      out.push_back(in[i]);
    }
  }
  return out;
}

template <bool kExpand>
class ExpandSqueezeOp final : public Operator {
 public:
  ExpandSqueezeOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws), dims_(SortedDims(Args<int64_t>("dims"), label())) {}
  void Run() override {
    const Tensor& in = Input(0);
    CopyAndReshape(in, Output(0),
                   kExpand ? ExpandDimsShape(in.dims(), dims_, label())
                           : SqueezeShape(in.dims(), dims_, label()));
  }

 private:
  std::vector<int64_t> dims_;
};

PARITY_OP_SCHEMA(ExpandDims)
    .NumInputs(1)
    .NumOutputs(1)
    .AllowInplace({{0, 0}})
    .RequiredArg("dims", ArgType::kInts,
                 "Positions (in the result) of the new size-1 dims; sorted and deduplicated.")
    .ShapeInference([](const caffe2::OperatorDef&, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) {
      TensorType out = in[0];
      out.dims = ExpandDimsShape(
          in[0].dims, SortedDims(args.GetVector<int64_t>("dims"), args.op_label()),
          args.op_label());
      return std::vector<TensorType>{out};
    })
    .InputDoc(0, "data", "Any tensor.")
    .OutputDoc(0, "expanded", "The data with size-1 dims inserted.")
    .Doc("Inserts size-1 dimensions at the positions in `dims`.");
PARITY_REGISTER_CPU_OPERATOR(ExpandDims, ExpandSqueezeOp<true>);

PARITY_OP_SCHEMA(Squeeze)
    .NumInputs(1)
    .NumOutputs(1)
    .AllowInplace({{0, 0}})
    .RequiredArg("dims", ArgType::kInts, "Size-1 dims to remove; sorted and deduplicated.")
    .ShapeInference([](const caffe2::OperatorDef&, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) {
      TensorType out = in[0];
      out.dims = SqueezeShape(in[0].dims,
                              SortedDims(args.GetVector<int64_t>("dims"), args.op_label()),
                              args.op_label());
      return std::vector<TensorType>{out};
    })
    .InputDoc(0, "data", "Any tensor.")
    .OutputDoc(0, "squeezed", "The data without the listed size-1 dims.")
    .Doc("Removes the size-1 dimensions listed in `dims` (each must have size 1).");
PARITY_REGISTER_CPU_OPERATOR(Squeeze, ExpandSqueezeOp<false>);

}  // namespace
}  // namespace parity
