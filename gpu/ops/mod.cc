// Mod on the device (core/ops/elementwise/mod.cc defines it; ModGradient is one of the binary
// gradients of gpu/ops/grad2.cc).
//
// Mod takes every dtype the CPU kernel takes (float, double, int8, int16, int32, int64, uint8,
// uint16), B broadcast against A as numpy does, or Caffe2's `divisor` argument as a scalar B of
// A's dtype. The remainders are exact on both devices (fmod is exact in IEEE arithmetic; integer %
// is integer), so the device gives the CPU's bits. An integer B of 0 is refused on a host copy
// with the CPU's message before the launch.
//
// Dtypes, shapes and arguments are checked by the CPU's shape inference
// (CudaOperator::InferOutputs) and broadcast helpers (core/ops/elementwise/binary.h); Mod's arity
// messages, file-local in mod.cc, are written out again here for the construction-time check.
//
// Compiled, not yet run on a GPU (the host body tests and the device tests' CPU side ran).
#include <string>
#include <vector>

#include "core/ops/elementwise/binary.h"
#include "gpu/cuda_operator.h"
#include "gpu/device.h"
#include "gpu/kernel_geometry.h"
#include "gpu/kernels/misc.h"

namespace parity::gpu {
namespace {

// Mod's dtypes as the launcher names them; false for the others (which the CPU's type check has
// already refused).
bool MiscTypeOf(DataType dtype, kernels::MiscType* type) {
  using kernels::MiscType;
  switch (dtype) {
    case DataType::kFloat:
      *type = MiscType::kFloat;
      return true;
    case DataType::kDouble:
      *type = MiscType::kDouble;
      return true;
    case DataType::kInt8:
      *type = MiscType::kInt8;
      return true;
    case DataType::kInt16:
      *type = MiscType::kInt16;
      return true;
    case DataType::kInt32:
      *type = MiscType::kInt32;
      return true;
    case DataType::kInt64:
      *type = MiscType::kInt64;
      return true;
    case DataType::kUint8:
      *type = MiscType::kUInt8;
      return true;
    case DataType::kUint16:
      *type = MiscType::kUInt16;
      return true;
    default:
      return false;
  }
}

// Calls fn(T{}) with A's dtype as T.
template <typename Fn>
void VisitModType(DataType dtype, Fn&& fn) {
  switch (dtype) {
    case DataType::kFloat:
      return fn(float{});
    case DataType::kDouble:
      return fn(double{});
    case DataType::kInt8:
      return fn(int8_t{});
    case DataType::kInt16:
      return fn(int16_t{});
    case DataType::kInt32:
      return fn(int32_t{});
    case DataType::kInt64:
      return fn(int64_t{});
    case DataType::kUint8:
      return fn(uint8_t{});
    case DataType::kUint16:
      return fn(uint16_t{});
    default:
      return;
  }
}

class ModCudaOp final : public CudaOperator {
 public:
  ModCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : CudaOperator(def, ws),
        sign_follows_divisor_(Arg<bool>("sign_follow_divisor")),
        divisor_tensor_(device()) {
    // The CPU's CheckModArity, at construction as there.
    const int inputs = InputSize();
    PARITY_ENFORCE(inputs == 2 || args().Has("divisor"), ErrorKind::kBadArgument, label(),
                   ": with one input the argument 'divisor' is required");
    PARITY_ENFORCE(inputs == 1 || !args().Has("divisor"), ErrorKind::kBadArgument, label(),
                   ": takes the divisor either as input 1 or as the argument 'divisor', not both");
    PARITY_ENFORCE(inputs == 2 || Arg<int64_t>("divisor") != 0, ErrorKind::kBadArgument, label(),
                   ": argument 'divisor' must not be 0");
    if (inputs == 1) divisor_ = Arg<int64_t>("divisor");
  }

  void Run() override {
    // The dtypes (one, supported), the broadcast and in place over A: the CPU's shape inference.
    InferOutputs();
    const Tensor& a = DeviceInput(0);
    const DataType dtype = a.dtype();
    kernels::MiscType type;
    PARITY_ENFORCE(MiscTypeOf(dtype, &type), ErrorKind::kInternal, label(), ": dtype ",
                   a.DebugString(), " passed the type check");
    const Tensor* b = InputSize() == 2 ? &DeviceInput(1) : nullptr;
    Tensor host_b;
    if (b == nullptr) {
      // Caffe2's divisor as a scalar B of A's dtype (cast as the CPU casts it: it may wrap to 0).
      host_b = Tensor(dtype, {});
      VisitModType(dtype, [&](auto zero) {
        using T = decltype(zero);
        *host_b.mutable_data<T>() = static_cast<T>(divisor_);
      });
      CopyTensor(host_b, &divisor_tensor_);
      b = &divisor_tensor_;
    }
    BinaryDims(BroadcastArgs{}, a.dims(), b->dims(), label(), &out_dims_, &b_plan_);
    if (InputSize() == 2 && OutputBlob(0) == InputBlob(1)) {
      CheckInPlaceDims(label(), "B", b->dims(), out_dims_);
    }
    int64_t n = 1;
    for (int64_t d : out_dims_) n *= d;
    if (n > 0 && dtype != DataType::kFloat && dtype != DataType::kDouble) {
      if (!host_b.defined()) host_b = ToCpu(*b);
      VisitModType(dtype, [&](auto zero) {
        using T = decltype(zero);
        const T* pb = host_b.data<T>();
        for (int64_t i = 0; i < host_b.numel(); ++i) {
          PARITY_ENFORCE(pb[i] != T(0), ErrorKind::kBadArgument, label(),
                         ": integer modulo by zero (element ", i, " of B is 0)");
        }
      });
    }
    const kernels::BroadcastGeometry g = BroadcastGeometryOf(label(), out_dims_, a.dims(), b_plan_);
    const void* pa = a.raw_data();
    const void* pb = b->raw_data();
    Tensor* y = DeviceOutput(0);
    // In place only where the output keeps the input's dims (checked): each element then reads
    // its own A or B element before writing it.
    y->Resize(out_dims_);
    kernels::Mod(type, pa, pb, y->raw_mutable_data(dtype), n, sign_follows_divisor_, g, stream());
    CheckLaunch();
  }

 private:
  const bool sign_follows_divisor_;
  int64_t divisor_ = 0;
  Tensor divisor_tensor_;
  std::vector<int64_t> out_dims_;
  std::vector<int64_t> b_plan_;
};

PARITY_REGISTER_CUDA_OPERATOR(Mod, ModCudaOp);

}  // namespace
}  // namespace parity::gpu
