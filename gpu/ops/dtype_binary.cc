// Broadcasting binary ops on the device in every dtype the CPU kernels take
// (core/ops/elementwise/binary.cc): Add / Sub / Mul / Div (float, double and the six integer
// types; float keeps elementwise.cu's kernel), the comparisons EQ NE LT LE GT GE (bool, int32,
// int64, float, double -> bool), And / Or / Xor and Not (bool). Dtypes, shapes and in-place rules
// are checked by the ops' own shape inference (CudaOperator::InferOutputs), broadcasting by
// BinaryDims, so both devices accept and reject the same nets with the same messages.
#include <cstdint>
#include <vector>

#include "core/ops/elementwise/binary.h"
#include "gpu/cuda_operator.h"
#include "gpu/device.h"
#include "gpu/kernel_geometry.h"
#include "gpu/kernels/dtype.h"
#include "gpu/kernels/kernels.h"
#include "gpu/ops/element_type.h"

namespace parity::gpu {
namespace {

using kernels::Binary;
using kernels::Compare;
using kernels::ElementType;
using kernels::Logical;

bool IsInteger(ElementType t) {
  return t != ElementType::kFloat && t != ElementType::kDouble && t != ElementType::kBool;
}

// What each family launches once the checks have passed.
template <Binary kFn>
struct Arithmetic {
  static void Launch(ElementType t, const void* a, const void* b, void* y, int64_t n,
                     const kernels::BroadcastGeometry& g, cudaStream_t stream) {
    if (t == ElementType::kFloat) {
      kernels::BinaryFloat(kFn, static_cast<const float*>(a), static_cast<const float*>(b),
                           static_cast<float*>(y), n, g, stream);
    } else {
      kernels::BinaryTyped(kFn, t, a, b, y, n, g, stream);
    }
  }
  // Integer division by zero is the CPU's error (Caffe2 would die of SIGFPE).
  static constexpr bool kChecksDivisors = kFn == Binary::kDiv;
  // float op float -> float needs no dtype check (BinaryDtypeCudaOp's fast path).
  static constexpr bool kFloatFastPath = true;
};

template <Compare kFn>
struct Comparison {
  static void Launch(ElementType t, const void* a, const void* b, void* y, int64_t n,
                     const kernels::BroadcastGeometry& g, cudaStream_t stream) {
    kernels::CompareTyped(kFn, t, a, b, static_cast<bool*>(y), n, g, stream);
  }
  static constexpr bool kChecksDivisors = false;
  static constexpr bool kFloatFastPath = false;  // bool output: the schema gives the dtype
};

template <Logical kFn>
struct LogicalOf {
  static void Launch(ElementType, const void* a, const void* b, void* y, int64_t n,
                     const kernels::BroadcastGeometry& g, cudaStream_t stream) {
    kernels::LogicalBool(kFn, static_cast<const bool*>(a), static_cast<const bool*>(b),
                         static_cast<bool*>(y), n, g, stream);
  }
  static constexpr bool kChecksDivisors = false;
  static constexpr bool kFloatFastPath = false;
};

template <class Family>
class BinaryDtypeCudaOp final : public CudaOperator {
 public:
  BinaryDtypeCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : CudaOperator(def, ws), bargs_(ReadBroadcastArgs(def, args())) {}

  void Run() override {
    const Tensor& a = DeviceInput(0);
    const Tensor& b = DeviceInput(1);
    DataType out_dtype = DataType::kFloat;
    if (Family::kFloatFastPath && a.dtype() == DataType::kFloat && b.dtype() == DataType::kFloat) {
      // Float arithmetic, the common case: nothing to check in the dtypes, and the shape checks
      // without building the schema's TensorTypes.
      BinaryDims(bargs_, a.dims(), b.dims(), label(), &out_dims_, &b_plan_dims_);
      // Checked before Resize: in place, the output is the input tensor itself.
      if (OutputBlob(0) == InputBlob(0)) CheckInPlaceDims(label(), "A", a.dims(), out_dims_);
      if (OutputBlob(0) == InputBlob(1)) CheckInPlaceDims(label(), "B", b.dims(), out_dims_);
    } else {
      // The CPU's checks in its order: both dtypes, the broadcast, the in-place dims.
      out_dtype = InferOutputs()[0].dtype;
      BinaryDims(bargs_, a.dims(), b.dims(), label(), &out_dims_, &b_plan_dims_);
    }
    const ElementType type = ElementTypeOf(a.dtype(), label());
    const kernels::BroadcastGeometry g =
        BroadcastGeometryOf(label(), out_dims_, a.dims(), b_plan_dims_);
    int64_t n = 1;
    for (int64_t d : out_dims_) n *= d;
    // As the CPU: B's values are checked only when there is an output to compute.
    if (Family::kChecksDivisors && IsInteger(type) && n > 0) CheckDivisors(type, b);
    Tensor* y = DeviceOutput(0);
    y->Resize(out_dims_);
    void* out = y->raw_mutable_data(out_dtype);
    Family::Launch(type, a.raw_data(), b.raw_data(), out, n, g, stream());
    CheckLaunch();
  }

 private:
  // The kernel flags a zero divisor on the device; only then is B read back, to name its first
  // zero in the CPU's words.
  void CheckDivisors(ElementType type, const Tensor& b) {
    Tensor flag(device());
    flag.Resize({1});
    kernels::ZeroDivisorFlag(type, b.raw_data(), b.numel(), flag.mutable_data<int32_t>(), stream());
    CheckLaunch();
    if (ToCpu(flag).data<int32_t>()[0] == 0) return;
    const Tensor host = ToCpu(b);
    int64_t first = 0;
    const size_t esize = DataTypeSize(host.dtype());
    const auto* bytes = static_cast<const unsigned char*>(host.raw_data());
    for (; first < host.numel(); ++first) {
      bool zero = true;
      for (size_t k = 0; k < esize; ++k) zero = zero && bytes[first * esize + k] == 0;
      if (zero) break;
    }
    throw MakeError(ErrorKind::kBadArgument, label(), ": integer division by zero (element ", first,
                    " of B is 0)");
  }

  const BroadcastArgs bargs_;
  std::vector<int64_t> out_dims_;
  std::vector<int64_t> b_plan_dims_;
};

PARITY_REGISTER_CUDA_OPERATOR(Add, BinaryDtypeCudaOp<Arithmetic<Binary::kAdd>>);
PARITY_REGISTER_CUDA_OPERATOR(Sub, BinaryDtypeCudaOp<Arithmetic<Binary::kSub>>);
PARITY_REGISTER_CUDA_OPERATOR(Mul, BinaryDtypeCudaOp<Arithmetic<Binary::kMul>>);
PARITY_REGISTER_CUDA_OPERATOR(Div, BinaryDtypeCudaOp<Arithmetic<Binary::kDiv>>);

PARITY_REGISTER_CUDA_OPERATOR(EQ, BinaryDtypeCudaOp<Comparison<Compare::kEQ>>);
PARITY_REGISTER_CUDA_OPERATOR(NE, BinaryDtypeCudaOp<Comparison<Compare::kNE>>);
PARITY_REGISTER_CUDA_OPERATOR(LT, BinaryDtypeCudaOp<Comparison<Compare::kLT>>);
PARITY_REGISTER_CUDA_OPERATOR(LE, BinaryDtypeCudaOp<Comparison<Compare::kLE>>);
PARITY_REGISTER_CUDA_OPERATOR(GT, BinaryDtypeCudaOp<Comparison<Compare::kGT>>);
PARITY_REGISTER_CUDA_OPERATOR(GE, BinaryDtypeCudaOp<Comparison<Compare::kGE>>);

PARITY_REGISTER_CUDA_OPERATOR(And, BinaryDtypeCudaOp<LogicalOf<Logical::kAnd>>);
PARITY_REGISTER_CUDA_OPERATOR(Or, BinaryDtypeCudaOp<LogicalOf<Logical::kOr>>);
PARITY_REGISTER_CUDA_OPERATOR(Xor, BinaryDtypeCudaOp<LogicalOf<Logical::kXor>>);

class NotCudaOp final : public CudaOperator {
 public:
  using CudaOperator::CudaOperator;

  void Run() override {
    const Tensor& x = DeviceInput(0);
    InferOutputs();  // X must be bool, in the CPU's words
    Tensor* y = DeviceOutput(0);
    y->Resize(x.dims());
    kernels::NotBool(x.data<bool>(), y->mutable_data<bool>(), x.numel(), stream());
    CheckLaunch();
  }
};

PARITY_REGISTER_CUDA_OPERATOR(Not, NotCudaOp);

}  // namespace
}  // namespace parity::gpu
