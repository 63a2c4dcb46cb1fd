// Where and WhereGradient, Cast and Shape on the device, in every dtype the CPU kernels take
// (core/ops/elementwise/where.cc, core/ops/unary/unary.cc, core/ops/shape/shape_index.cc). Their
// checks are the ops' own shape inference (CudaOperator::InferOutputs), so both devices accept and
// reject the same nets with the same messages.
#include <cstdint>
#include <string>
#include <vector>

#include "gpu/cuda_operator.h"
#include "gpu/device.h"
#include "gpu/kernel_geometry.h"
#include "gpu/kernels/dtype.h"
#include "gpu/ops/element_type.h"

namespace parity::gpu {
namespace {

using kernels::ElementType;

int64_t Numel(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// C's dims as the broadcast sees them: with broadcast_on_rows, [N, 1, ..., 1] at the output's
// rank (one flag per row); otherwise C's own, numpy-aligned.
std::vector<int64_t> ConditionDims(const std::vector<int64_t>& c, size_t out_rank, bool on_rows) {
  if (!on_rows) return c;
  std::vector<int64_t> dims(out_rank, 1);
  dims[0] = c[0];
  return dims;
}

class WhereCudaOp final : public CudaOperator {
 public:
  WhereCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : CudaOperator(def, ws), on_rows_(Arg<bool>("broadcast_on_rows")) {}

  void Run() override {
    const Tensor& c = DeviceInput(0);
    const Tensor& x = DeviceInput(1);
    const Tensor& y = DeviceInput(2);
    const std::vector<int64_t> out = InferOutputs()[0].dims;
    const std::vector<int64_t> c_dims = ConditionDims(c.dims(), out.size(), on_rows_);
    const kernels::WhereGeometry g =
        kernels::WhereGeometryFrom(BroadcastGeometryOf(label(), out, c_dims, x.dims()),
                                   BroadcastGeometryOf(label(), out, c_dims, y.dims()));
    Tensor* z = DeviceOutput(0);
    z->Resize(out);
    // Any dtype moves as words of its size (the CPU's VisitType took it, so 1, 2, 4 or 8 bytes).
    ElementTypeOf(x.dtype(), label());
    kernels::WhereSelect(c.data<bool>(), x.raw_data(), y.raw_data(), z->raw_mutable_data(x.dtype()),
                         Numel(out), DataTypeSize(x.dtype()), g, stream());
    CheckLaunch();
  }

 private:
  const bool on_rows_;
};

PARITY_REGISTER_CUDA_OPERATOR(Where, WhereCudaOp);

// dX and dY, each element summing dZ over its broadcast copies where C selects it (one thread per
// element, no atomics), in the CPU's order.
class WhereGradientCudaOp final : public CudaOperator {
 public:
  WhereGradientCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : CudaOperator(def, ws), on_rows_(Arg<bool>("broadcast_on_rows")) {
    PARITY_ENFORCE(OutputName(0) != OutputName(1), ErrorKind::kBadArgument, label(),
                   ": outputs 0 and 1 are both '", OutputName(0),
                   "'; each input gradient needs its own blob");
  }

  void Run() override {
    const Tensor& c = DeviceInput(0);
    const Tensor& dz = DeviceInput(3);
    InferOutputs();  // C, X and Y as Where's, dZ's dims and dtype: the CPU's checks
    const ElementType type = ElementTypeOf(dz.dtype(), label());
    // Computed into new tensors: an output may be written over an input (dZ, or X / Y, read for
    // their dims), which the other output's threads may still be reading.
    Tensor dx = Gradient(true, type, c, dz, Input(1).dims());
    Tensor dy = Gradient(false, type, c, dz, Input(2).dims());
    *OutputOn(0, device()) = dx;
    *OutputOn(1, device()) = dy;
  }

 private:
  Tensor Gradient(bool when_true, ElementType type, const Tensor& c, const Tensor& dz,
                  const std::vector<int64_t>& dims) {
    const std::vector<int64_t>& out = dz.dims();
    int64_t count = 1;
    const kernels::ReduceGeometry r = BroadcastReduceGeometryOf(label(), out, dims, &count);
    const std::vector<int64_t> c_dims = ConditionDims(c.dims(), out.size(), on_rows_);
    const kernels::BroadcastGeometry c_of = BroadcastGeometryOf(label(), out, c_dims, c_dims);
    Tensor d(device());
    d.Resize(dims);
    void* data = d.raw_mutable_data(dz.dtype());
    kernels::WhereGradient(when_true, type, c.data<bool>(), dz.raw_data(), data, d.numel(), count,
                           r, c_of, stream());
    CheckLaunch();
    return d;
  }

  const bool on_rows_;
};

PARITY_REGISTER_CUDA_OPERATOR(WhereGradient, WhereGradientCudaOp);

class CastCudaOp final : public CudaOperator {
 public:
  using CudaOperator::CudaOperator;

  void Run() override {
    const Tensor& x = DeviceInput(0);
    const DataType to = InferOutputs()[0].dtype;  // the CPU's checks of X and of 'to'
    const ElementType from_type = ElementTypeOf(x.dtype(), label());
    const ElementType to_type = ElementTypeOf(to, label());
    Tensor* y = DeviceOutput(0);
    y->Resize(x.dims());
    kernels::CastTyped(from_type, to_type, x.raw_data(), y->raw_mutable_data(to), x.numel(),
                       stream());
    CheckLaunch();
  }
};

PARITY_REGISTER_CUDA_OPERATOR(Cast, CastCudaOp);

// Shape: the dims are host data, written into an int64 tensor on the device, as Caffe2's CUDA
// ShapeOp does (its output lives where the op runs; a consumer on the host copies it over).
class ShapeCudaOp final : public CudaOperator {
 public:
  using CudaOperator::CudaOperator;

  void Run() override {
    const std::vector<int64_t> dims = DeviceInput(0).dims();
    InferOutputs();  // the CPU's check of 'axes'
    std::vector<int64_t> values = dims;
    if (args().Has("axes")) {
      values.clear();
      const int64_t rank = static_cast<int64_t>(dims.size());
      for (int64_t axis : args().GetVector<int64_t>("axes")) {
        values.push_back(dims[axis < 0 ? axis + rank : axis]);
      }
    }
    Tensor host(DataType::kInt64, {static_cast<int64_t>(values.size())});
    int64_t* data = host.mutable_data<int64_t>();
    for (size_t i = 0; i < values.size(); ++i) data[i] = values[i];
    CopyTensor(host, DeviceOutput(0));
  }
};

PARITY_REGISTER_CUDA_OPERATOR(Shape, ShapeCudaOp);

}  // namespace
}  // namespace parity::gpu
