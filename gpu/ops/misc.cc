// Range, Trilu, GatherElements and GatherElementsGradient on the device, for every dtype the CPU
// kernels take (core/ops/fill/range.cc, core/ops/linalg/trilu.cc,
// core/ops/shape/gather_elements.cc): the element arithmetic is misc_body.h's, tested on the host
// against the CPU engine (tests/gpu/misc_body_test.cc).
//
// Shapes, dtypes and the axis are checked by the CPU's own shape inference
// (CudaOperator::InferOutputs) in the CPU kernel's order; what the CPU checks in its kernel alone
// (Range's values and length, GatherElements' indices) is checked on host copies with the CPU's
// messages, written out again here because those helpers are file-local in core. The device
// tests compare both devices' messages.
//
// Compiled, not yet run on a GPU (the host body tests and the device tests' CPU side ran).
#include "gpu/kernels/misc.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "core/ops/common/shape_util.h"
#include "core/ops/fill/range.h"
#include "core/ops/shape/gather_elements.h"
#include "gpu/cuda_operator.h"
#include "gpu/device.h"

namespace parity::gpu {
namespace {

// ---------------------------------------------------------------------------------------------
// Range: the scalars are read on the host (the length depends on them), the elements computed on
// the device.

class RangeCudaOp final : public CudaOperator {
 public:
  using CudaOperator::CudaOperator;

  void Run() override {
    const DataType dtype = Input(0).dtype();
    for (int i = 0; i < InputSize(); ++i) DeviceInput(i);
    CheckRangeInputs(*this);
    switch (dtype) {
      case DataType::kFloat:
        return RunWith<float>(kernels::MiscType::kFloat);
      case DataType::kDouble:
        return RunWith<double>(kernels::MiscType::kDouble);
      case DataType::kInt32:
        return RunWith<int32_t>(kernels::MiscType::kInt32);
      default:
        return RunWith<int64_t>(kernels::MiscType::kInt64);
    }
  }

 private:
  template <typename T>
  T Scalar(int i) const {
    return ToCpu(Input(i)).data<T>()[0];
  }

  // The CPU's length rule and errors (core/ops/fill/range.h).
  template <typename T>
  void RunWith(kernels::MiscType type) {
    const int n = InputSize();
    const T start = n == 1 ? T(0) : Scalar<T>(0);
    const T stop = Scalar<T>(n == 1 ? 0 : 1);
    const T step = n == 3 ? Scalar<T>(2) : T(1);
    const int64_t length = RangeLength(label(), start, stop, step);
    Tensor* out = DeviceOutput(0);
    out->Resize({length});
    kernels::Range(type, &start, &step, out->template mutable_data<T>(), length, stream());
    CheckLaunch();
  }
};

PARITY_REGISTER_CUDA_OPERATOR(Range, RangeCudaOp);

// ---------------------------------------------------------------------------------------------
// Trilu: float, double, int32 and int64 alike, as words of 4 or 8 bytes (zero is all bits clear
// in each). In place is safe: each thread reads and writes its own element.

class TriluCudaOp final : public CudaOperator {
 public:
  TriluCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : CudaOperator(def, ws), upper_(Arg<bool>("upper")), k_(Arg<int64_t>("k")) {}

  void Run() override {
    InferOutputs();  // the CPU's CheckTrilu: rank >= 2, the dtype
    const Tensor& x = DeviceInput(0);
    const int64_t rows = x.dim(-2), cols = x.dim(-1);
    const void* in = x.raw_data();
    const DataType dtype = x.dtype();
    const int64_t numel = x.numel();
    Tensor* y = DeviceOutput(0);
    if (y != &x) y->Resize(x.dims());
    kernels::Trilu(in, y->raw_mutable_data(dtype), numel, rows, cols, upper_, k_,
                   DataTypeSize(dtype), stream());
    CheckLaunch();
  }

 private:
  const bool upper_;
  const int64_t k_;
};

PARITY_REGISTER_CUDA_OPERATOR(Trilu, TriluCudaOp);

// ---------------------------------------------------------------------------------------------
// GatherElements and its gradient.

// DATA's and INDICES' dims (already checked against each other) as the kernels see them.
kernels::GatherElementsGeometry GeometryOf(const std::string& label,
                                           const std::vector<int64_t>& data,
                                           const std::vector<int64_t>& idx, int axis) {
  const int rank = static_cast<int>(data.size());
  PARITY_ENFORCE(rank <= kernels::kMaxRank, ErrorKind::kUnknownOp, label,
                 ": the CUDA kernel takes tensors of rank <= ", kernels::kMaxRank, ", got DATA ",
                 ShapeString(data), " (run the op on the CPU)");
  return kernels::GatherElementsGeometryOf(rank, data.data(), idx.data(), axis);
}

class GatherElementsCudaOp final : public CudaOperator {
 public:
  GatherElementsCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : CudaOperator(def, ws), axis_(Arg<int64_t>("axis")) {}

  void Run() override {
    // The CPU's order: the index dtype, the shapes and axis (its shape inference's checks), then
    // every index, before anything is written.
    InferOutputs();
    const Tensor& data = DeviceInput(0);
    const Tensor& indices = DeviceInput(1);
    const std::vector<int64_t> idx_dims = indices.dims();
    const int axis = shape_util::CanonicalAxis(axis_, data.ndim(), label(), "axis", data.dims());
    const Tensor host = ToCpu(indices);
    shape_util::DispatchIndex(host, label(), InputName(1), "INDICES", [&](const auto* idx) {
      CheckGatherElementsIndices(idx, host.numel(), data.dim(axis), axis, label(),
                                 data.DebugString());
    });
    const size_t esize = DataTypeSize(data.dtype());
    PARITY_ENFORCE(esize == 1 || esize == 2 || esize == 4 || esize == 8, ErrorKind::kUnknownOp,
                   label(), ": the CUDA kernel cannot move DATA ", data.DebugString(),
                   " (run the op on the CPU)");
    const kernels::GatherElementsGeometry g = GeometryOf(label(), data.dims(), idx_dims, axis);
    const void* src = data.raw_data();
    const void* idx = indices.raw_data();
    const DataType dtype = data.dtype();
    Tensor* out = DeviceOutput(0);
    out->Resize(idx_dims);
    kernels::GatherElements(src, idx, indices.dtype() == DataType::kInt64,
                            out->raw_mutable_data(dtype), out->numel(), esize, g, stream());
    CheckLaunch();
  }

 private:
  const int64_t axis_;
};

PARITY_REGISTER_CUDA_OPERATOR(GatherElements, GatherElementsCudaOp);

// dDATA gathered per DATA element (misc_body.h's GatherElementsGradientBody): deterministic, in
// the CPU's order of addition. Float and double.
class GatherElementsGradientCudaOp final : public CudaOperator {
 public:
  GatherElementsGradientCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : CudaOperator(def, ws), axis_(Arg<int64_t>("axis")), aside_(device()) {}

  void Run() override {
    // The CPU's order: the index dtype, dY's dtype, the shapes and axis, dY's dims (the last two
    // as its shape inference checks them), then every index.
    const Tensor& indices = DeviceInput(1);
    const Tensor& dy = DeviceInput(2);
    shape_util::DispatchIndex(indices, label(), InputName(1), "INDICES", [](const auto*) {});
    shape_util::DispatchFloating(dy, label(), InputName(2), [](auto) {});
    InferOutputs();
    // DATA lends its dims only, so it may sit on any device.
    const std::vector<int64_t> data_dims = Input(0).dims();
    const std::vector<int64_t> idx_dims = indices.dims();
    const int axis = shape_util::CanonicalAxis(axis_, static_cast<int>(data_dims.size()), label(),
                                               "axis", data_dims);
    const Tensor host = ToCpu(indices);
    shape_util::DispatchIndex(host, label(), InputName(1), "INDICES", [&](const auto* idx) {
      CheckGatherElementsIndices(idx, host.numel(), data_dims[axis], axis, label(),
                                 ShapeString(data_dims));
    });
    const kernels::GatherElementsGeometry g = GeometryOf(label(), data_dims, idx_dims, axis);
    const DataType dtype = dy.dtype();
    Tensor* ddata = DeviceOutput(0);
    // dDATA over one of the inputs (which the gather reads throughout) is computed aside.
    bool over_input = false;
    for (int i = 0; i < InputSize(); ++i) over_input = over_input || OutputBlob(0) == InputBlob(i);
    Tensor* out = over_input ? &aside_ : ddata;
    out->Resize(data_dims);
    kernels::GatherElementsGradient(
        dy.raw_data(), indices.raw_data(), indices.dtype() == DataType::kInt64,
        out->raw_mutable_data(dtype), out->numel(), dtype == DataType::kDouble, g, stream());
    CheckLaunch();
    if (out != ddata) CopyTensor(aside_, ddata);
  }

 private:
  const int64_t axis_;
  Tensor aside_;
};

PARITY_REGISTER_CUDA_OPERATOR(GatherElementsGradient, GatherElementsGradientCudaOp);

}  // namespace
}  // namespace parity::gpu
