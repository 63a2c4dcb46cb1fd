// GatherElements (ONNX's; Caffe2 had none, so ONNX's name and semantics): INDICES has DATA's
// rank and picks one element of DATA per position along `axis`:
//
//   OUTPUT[i0, ..., ia, ..., ir-1] = DATA[i0, ..., INDICES[i0, ..., ia, ..., ir-1], ..., ir-1]
//
// OUTPUT has INDICES' dims and DATA's dtype (any). INDICES' dims off `axis` may be smaller than
// DATA's (ONNX runtimes and torch.gather allow it; only a prefix of DATA is read); along `axis`
// they may be any size. An index v in [-s, s) with s = DATA.dim(axis); a negative one means v + s
// (ONNX). Every index is checked before anything is written.
//
//   GatherElementsGradient (DATA, INDICES, dY) -> dDATA: zeros of DATA's dims with each element
//   of dY added where its index picked (repeated picks accumulate). DATA is read for its dims.
#include "core/ops/shape/gather_elements.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "core/operator.h"
#include "core/ops/common/shape_util.h"
#include "core/schema.h"

namespace parity {
namespace {

// Checks the two shapes and returns the axis in [0, rank).
int GatherElementsAxis(const std::vector<int64_t>& data, const std::vector<int64_t>& idx,
                       int64_t axis, const std::string& label) {
  PARITY_ENFORCE(!data.empty(), ErrorKind::kShapeMismatch, label,
                 ": DATA must have rank >= 1, got a scalar []");
  PARITY_ENFORCE(idx.size() == data.size(), ErrorKind::kShapeMismatch, label, ": INDICES ",
                 ShapeString(idx), " must have the rank of DATA ", ShapeString(data));
  const int a = shape_util::CanonicalAxis(axis, static_cast<int>(data.size()), label, "axis", data);
  for (size_t d = 0; d < data.size(); ++d) {
    PARITY_ENFORCE(static_cast<int>(d) == a || idx[d] <= data[d], ErrorKind::kShapeMismatch, label,
                   ": INDICES ", ShapeString(idx), " is larger than DATA ", ShapeString(data),
                   " in dim ", d, " (only the axis ", a, " may differ freely)");
  }
  return a;
}

void CheckIndexDtype(DataType dtype, const std::string& label, const std::string& blob,
                     const std::string& described) {
  PARITY_ENFORCE(dtype == DataType::kInt32 || dtype == DataType::kInt64, ErrorKind::kShapeMismatch,
                 label, ": INDICES '", blob, "' must be int32 or int64, got ", described);
}

// Calls fn(k, src) for every element k of INDICES (row-major), src being the flat offset in DATA
// it picks. The indices must have been checked (CheckGatherElementsIndices).
template <typename Index, typename Fn>
void ForEachPick(const std::vector<int64_t>& data, const std::vector<int64_t>& idx_dims,
                 const Index* idx, int axis, Fn&& fn) {
  const int rank = static_cast<int>(data.size());
  int64_t n = 1;
  for (int64_t d : idx_dims) n *= d;
  if (n == 0) return;
  std::vector<int64_t> stride(rank, 1);
  for (int d = rank - 2; d >= 0; --d) stride[d] = stride[d + 1] * data[d + 1];
  const int64_t bound = data[axis];
  std::vector<int64_t> counter(rank, 0);
  int64_t base = 0;  // DATA's offset of the current position with the axis coordinate left out
  for (int64_t k = 0; k < n; ++k) {
    int64_t v = idx[k];
    if (v < 0) v += bound;
    fn(k, base + v * stride[axis]);
    for (int d = rank - 1; d >= 0; --d) {
      if (d != axis) base += stride[d];
      if (++counter[d] < idx_dims[d]) break;
      if (d != axis) base -= stride[d] * idx_dims[d];
      counter[d] = 0;
    }
  }
}

std::vector<TensorType> InferGatherElements(const caffe2::OperatorDef& def,
                                            const ArgumentHelper& args,
                                            const std::vector<TensorType>& in) {
  CheckIndexDtype(in[1].dtype, args.op_label(), def.input(1), TensorTypeString(in[1]));
  GatherElementsAxis(in[0].dims, in[1].dims, args.Get<int64_t>("axis"), args.op_label());
  TensorType out;
  out.dtype = in[0].dtype;
  out.dims = in[1].dims;
  return {out};
}

class GatherElementsOp final : public Operator {
 public:
  GatherElementsOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws), axis_(Arg<int64_t>("axis")) {}

  void Run() override {
    shape_util::DispatchIndex(Input(1), label(), InputName(1), "INDICES",
                              [&](const auto* idx) { RunWith(idx); });
  }

 private:
  template <typename Index>
  void RunWith(const Index* idx) {
    const Tensor& data = Input(0);
    const std::vector<int64_t> idx_dims = Input(1).dims();
    const int axis = GatherElementsAxis(data.dims(), idx_dims, axis_, label());
    CheckGatherElementsIndices(idx, Input(1).numel(), data.dims()[axis], axis, label(),
                               data.DebugString());
    // Output over DATA or INDICES in place is not allowed (the schema has no in-place pair).
    Tensor* out = Output(0);
    out->Resize(idx_dims);
    char* dst = static_cast<char*>(out->raw_mutable_data(data.dtype()));
    const char* src = static_cast<const char*>(data.raw_data());
    const size_t esize = DataTypeSize(data.dtype());
    ForEachPick(data.dims(), idx_dims, idx, axis, [&](int64_t k, int64_t from) {
      std::memcpy(dst + k * esize, src + from * esize, esize);
    });
  }

  const int64_t axis_;
};

PARITY_OP_SCHEMA(GatherElements)
    .NumInputs(2)
    .NumOutputs(1)
    .Arg("axis", ArgType::kInt, int64_t{0}, "Axis of DATA that INDICES index (negative allowed).")
    .DifferentiableInputs({0})
    .ShapeInference(InferGatherElements)
    .InputDoc(0, "DATA", "Any tensor of rank >= 1.")
    .InputDoc(1, "INDICES", "int32/int64 of DATA's rank, dims off the axis <= DATA's.")
    .OutputDoc(0, "OUTPUT", "INDICES' dims, DATA's dtype.")
    .Doc("Picks one element of DATA along `axis` per element of INDICES (ONNX's GatherElements).");
PARITY_REGISTER_CPU_OPERATOR(GatherElements, GatherElementsOp);

// ---------------------------------------------------------------------------------------------
// GatherElementsGradient

class GatherElementsGradientOp final : public Operator {
 public:
  GatherElementsGradientOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws), axis_(Arg<int64_t>("axis")) {}

  void Run() override {
    shape_util::DispatchIndex(Input(1), label(), InputName(1), "INDICES", [&](const auto* idx) {
      shape_util::DispatchFloating(Input(2), label(), InputName(2),
                                   [&](auto zero) { RunWith<decltype(zero)>(idx); });
    });
  }

 private:
  template <typename T, typename Index>
  void RunWith(const Index* idx) {
    const std::vector<int64_t> data_dims = Input(0).dims();
    const std::vector<int64_t> idx_dims = Input(1).dims();
    const int axis = GatherElementsAxis(data_dims, idx_dims, axis_, label());
    const Tensor& dy = Input(2);
    PARITY_ENFORCE(dy.dims() == idx_dims, ErrorKind::kShapeMismatch, label(), ": gradient '",
                   InputName(2), "' ", dy.DebugString(), " must have the dims of INDICES ",
                   ShapeString(idx_dims));
    CheckGatherElementsIndices(idx, Input(1).numel(), data_dims[axis], axis, label(),
                               ShapeString(data_dims));
    // Accumulated aside: dDATA may be written over DATA, INDICES or dY.
    int64_t n = 1;
    for (int64_t d : data_dims) n *= d;
    std::vector<T> acc(n, T(0));
    const T* g = dy.data<T>();
    ForEachPick(data_dims, idx_dims, idx, axis, [&](int64_t k, int64_t to) { acc[to] += g[k]; });
    Tensor* out = Output(0);
    out->Resize(data_dims);
    std::copy(acc.begin(), acc.end(), out->template mutable_data<T>());
  }

  const int64_t axis_;
};

PARITY_OP_SCHEMA(GatherElementsGradient)
    .NumInputs(3)
    .NumOutputs(1)
    .Arg("axis", ArgType::kInt, int64_t{0}, "GatherElements' axis (copied from the forward op).")
    .NotDifferentiable()
    .ShapeInference([](const caffe2::OperatorDef& def, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) {
      InferGatherElements(def, args, in);
      PARITY_ENFORCE(in[2].dims == in[1].dims, ErrorKind::kShapeMismatch, args.op_label(),
                     ": gradient '", def.input(2), "' ", TensorTypeString(in[2]),
                     " must have the dims of INDICES ", ShapeString(in[1].dims));
      PARITY_ENFORCE(in[2].dtype == DataType::kFloat || in[2].dtype == DataType::kDouble,
                     ErrorKind::kShapeMismatch, args.op_label(), ": gradient '", def.input(2),
                     "' must be float or double, got ", TensorTypeString(in[2]));
      TensorType out{in[2].dtype, in[0].dims, true};
      return std::vector<TensorType>{out};
    })
    .InputDoc(0, "DATA", "GatherElements' DATA (read for its dims).")
    .InputDoc(1, "INDICES", "GatherElements' int32/int64 INDICES.")
    .InputDoc(2, "dY", "The gradient of GatherElements' output, float/double.")
    .OutputDoc(0, "dDATA", "Dense gradient of DATA: dY added where each index picked.")
    .Doc("Gradient of GatherElements as a dense scatter-add (repeated picks accumulate).");
PARITY_REGISTER_CPU_OPERATOR(GatherElementsGradient, GatherElementsGradientOp);

}  // namespace
}  // namespace parity
