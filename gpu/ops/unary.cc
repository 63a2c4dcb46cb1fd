// The unary family on the device (float): Tan, Asin, Acos, Atan, Sinh, Cosh, Asinh, Atanh, Erf,
// Round, Sign, Elu, LeakyRelu, Scale, Clip and Pow; their gradients with AbsGradient, SinGradient,
// CosGradient, SoftsignGradient, ReciprocalGradient and PowGradient; StopGradient and Alias.
//
// Dtypes, shapes and their errors are the CPU's: each math op runs its schema's shape inference
// (core/ops/unary/unary.cc, unary_grad.cc, core/ops/elementwise/binary.cc, binary_grad.cc) before
// launching, and creates the CPU kernel once in a probe workspace at its own creation, as
// gpu/ops/fill.cc does, so argument errors (Clip's min > max, Pow's exponent given twice or not at
// all) come at the same point with the same message. The formulas and their order are the CPU
// functors' (gpu/kernels/unary_body.h); no kernel uses atomics.
#include "gpu/kernels/unary.h"

#include <limits>
#include <string>
#include <vector>

#include "core/ops/elementwise/binary.h"
#include "core/ops/elementwise/binary_grad.h"
#include "core/workspace.h"
#include "gpu/cuda_operator.h"
#include "gpu/device.h"
#include "gpu/kernel_geometry.h"

namespace parity::gpu {
namespace {

using kernels::UnaryArgs;
using kernels::UnaryGrad;
using kernels::UnaryMath;

// Creates the CPU kernel of `def` once in a scratch workspace: its constructor's argument checks
// (and their messages) are then the CUDA op's, at creation too.
void CheckArgumentsAsTheCpu(const caffe2::OperatorDef& def, const std::string& label) {
  caffe2::OperatorDef cpu_def = def;
  cpu_def.mutable_device_option()->set_device_type(kCpuDeviceType);
  cpu_def.mutable_device_option()->clear_device_id();
  const OperatorFactory* factory = OperatorRegistry::Find(def.type(), kCpuDeviceType, "");
  PARITY_ENFORCE(factory != nullptr, ErrorKind::kInternal, label, ": no CPU kernel");
  Workspace probe;
  for (int i = 0; i < def.input_size(); ++i) probe.CreateTensor(def.input(i));
  (*factory)(cpu_def, &probe);
}

// Which arguments a function reads, by name: "alpha", "scale", "exponent", or Clip's bounds.
enum class ArgKind { kNone, kAlpha, kScale, kExponent, kBounds };

// The arguments as the CPU functors read them: doubles cast to float; an absent Clip bound is the
// float's lowest / largest value.
UnaryArgs ReadUnaryArgs(ArgKind kind, const ArgumentHelper& args) {
  UnaryArgs out;
  switch (kind) {
    case ArgKind::kNone:
      break;
    case ArgKind::kAlpha:
      out.a = static_cast<float>(args.Get<double>("alpha"));
      break;
    case ArgKind::kScale:
      out.a = static_cast<float>(args.Get<double>("scale"));
      break;
    case ArgKind::kExponent:
      out.a = static_cast<float>(args.Get<double>("exponent"));
      break;
    case ArgKind::kBounds:
      out.a = args.Has("min") ? static_cast<float>(args.Get<double>("min"))
                              : std::numeric_limits<float>::lowest();
      out.b = args.Has("max") ? static_cast<float>(args.Get<double>("max"))
                              : std::numeric_limits<float>::max();
      break;
  }
  return out;
}

// Y = fn(X), X's dims; Y may be X (the schema's in place).
template <UnaryMath kFn, ArgKind kArgs>
class UnaryMathCudaOp final : public CudaOperator {
 public:
  UnaryMathCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : CudaOperator(def, ws), args_(ReadUnaryArgs(kArgs, args())) {
    CheckArgumentsAsTheCpu(def, label());
  }

  void Run() override {
    InferOutputs();
    const Tensor& x = FloatInput(0);
    Tensor* y = DeviceOutput(0);
    y->Resize(x.dims());
    kernels::UnaryMathFloat(kFn, args_, x.data<float>(), y->mutable_data<float>(), x.numel(),
                            stream());
    CheckLaunch();
  }

 private:
  const UnaryArgs args_;
};

PARITY_REGISTER_CUDA_OPERATOR(Tan, UnaryMathCudaOp<UnaryMath::kTan, ArgKind::kNone>);
PARITY_REGISTER_CUDA_OPERATOR(Asin, UnaryMathCudaOp<UnaryMath::kAsin, ArgKind::kNone>);
PARITY_REGISTER_CUDA_OPERATOR(Acos, UnaryMathCudaOp<UnaryMath::kAcos, ArgKind::kNone>);
PARITY_REGISTER_CUDA_OPERATOR(Atan, UnaryMathCudaOp<UnaryMath::kAtan, ArgKind::kNone>);
PARITY_REGISTER_CUDA_OPERATOR(Sinh, UnaryMathCudaOp<UnaryMath::kSinh, ArgKind::kNone>);
PARITY_REGISTER_CUDA_OPERATOR(Cosh, UnaryMathCudaOp<UnaryMath::kCosh, ArgKind::kNone>);
PARITY_REGISTER_CUDA_OPERATOR(Asinh, UnaryMathCudaOp<UnaryMath::kAsinh, ArgKind::kNone>);
PARITY_REGISTER_CUDA_OPERATOR(Atanh, UnaryMathCudaOp<UnaryMath::kAtanh, ArgKind::kNone>);
PARITY_REGISTER_CUDA_OPERATOR(Erf, UnaryMathCudaOp<UnaryMath::kErf, ArgKind::kNone>);
PARITY_REGISTER_CUDA_OPERATOR(Round, UnaryMathCudaOp<UnaryMath::kRound, ArgKind::kNone>);
PARITY_REGISTER_CUDA_OPERATOR(Sign, UnaryMathCudaOp<UnaryMath::kSign, ArgKind::kNone>);
PARITY_REGISTER_CUDA_OPERATOR(Elu, UnaryMathCudaOp<UnaryMath::kElu, ArgKind::kAlpha>);
PARITY_REGISTER_CUDA_OPERATOR(LeakyRelu, UnaryMathCudaOp<UnaryMath::kLeakyRelu, ArgKind::kAlpha>);
PARITY_REGISTER_CUDA_OPERATOR(Scale, UnaryMathCudaOp<UnaryMath::kScale, ArgKind::kScale>);
PARITY_REGISTER_CUDA_OPERATOR(Clip, UnaryMathCudaOp<UnaryMath::kClip, ArgKind::kBounds>);

// (V, dY) -> dX with V the forward input X or output Y (UnaryGrad says which), both of dY's dims;
// dX may be written over either input: each thread reads both before writing.
template <UnaryGrad kFn, ArgKind kArgs>
class UnaryGradCudaOp final : public CudaOperator {
 public:
  UnaryGradCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : CudaOperator(def, ws), args_(ReadUnaryArgs(kArgs, args())) {
    CheckArgumentsAsTheCpu(def, label());
  }

  void Run() override {
    InferOutputs();
    const Tensor& v = FloatInput(0);
    const Tensor& dy = FloatInput(1);
    Tensor* dx = DeviceOutput(0);
    dx->Resize(dy.dims());
    kernels::UnaryGradFloat(kFn, args_, v.data<float>(), dy.data<float>(),
                            dx->mutable_data<float>(), dy.numel(), stream());
    CheckLaunch();
  }

 private:
  const UnaryArgs args_;
};

PARITY_REGISTER_CUDA_OPERATOR(AbsGradient, UnaryGradCudaOp<UnaryGrad::kAbs, ArgKind::kNone>);
PARITY_REGISTER_CUDA_OPERATOR(SinGradient, UnaryGradCudaOp<UnaryGrad::kSin, ArgKind::kNone>);
PARITY_REGISTER_CUDA_OPERATOR(CosGradient, UnaryGradCudaOp<UnaryGrad::kCos, ArgKind::kNone>);
PARITY_REGISTER_CUDA_OPERATOR(TanGradient, UnaryGradCudaOp<UnaryGrad::kTan, ArgKind::kNone>);
PARITY_REGISTER_CUDA_OPERATOR(AsinGradient, UnaryGradCudaOp<UnaryGrad::kAsin, ArgKind::kNone>);
PARITY_REGISTER_CUDA_OPERATOR(AcosGradient, UnaryGradCudaOp<UnaryGrad::kAcos, ArgKind::kNone>);
PARITY_REGISTER_CUDA_OPERATOR(AtanGradient, UnaryGradCudaOp<UnaryGrad::kAtan, ArgKind::kNone>);
PARITY_REGISTER_CUDA_OPERATOR(SinhGradient, UnaryGradCudaOp<UnaryGrad::kSinh, ArgKind::kNone>);
PARITY_REGISTER_CUDA_OPERATOR(CoshGradient, UnaryGradCudaOp<UnaryGrad::kCosh, ArgKind::kNone>);
PARITY_REGISTER_CUDA_OPERATOR(AsinhGradient, UnaryGradCudaOp<UnaryGrad::kAsinh, ArgKind::kNone>);
PARITY_REGISTER_CUDA_OPERATOR(AtanhGradient, UnaryGradCudaOp<UnaryGrad::kAtanh, ArgKind::kNone>);
PARITY_REGISTER_CUDA_OPERATOR(ErfGradient, UnaryGradCudaOp<UnaryGrad::kErf, ArgKind::kNone>);
PARITY_REGISTER_CUDA_OPERATOR(SoftsignGradient,
                              UnaryGradCudaOp<UnaryGrad::kSoftsign, ArgKind::kNone>);
PARITY_REGISTER_CUDA_OPERATOR(ReciprocalGradient,
                              UnaryGradCudaOp<UnaryGrad::kReciprocal, ArgKind::kNone>);
PARITY_REGISTER_CUDA_OPERATOR(EluGradient, UnaryGradCudaOp<UnaryGrad::kElu, ArgKind::kAlpha>);
PARITY_REGISTER_CUDA_OPERATOR(LeakyReluGradient,
                              UnaryGradCudaOp<UnaryGrad::kLeakyRelu, ArgKind::kAlpha>);
PARITY_REGISTER_CUDA_OPERATOR(ClipGradient, UnaryGradCudaOp<UnaryGrad::kClip, ArgKind::kBounds>);

// Pow: X ^ the `exponent` argument (one input), or X ^ E with E a second input broadcast as in Add
// (numpy, or the legacy broadcast=1 form).
class PowCudaOp final : public CudaOperator {
 public:
  PowCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : CudaOperator(def, ws), bargs_(ReadBroadcastArgs(def, args())) {
    CheckArgumentsAsTheCpu(def, label());
    if (InputSize() == 1) args_ = ReadUnaryArgs(ArgKind::kExponent, args());
  }

  void Run() override {
    // The schema's checks: dtypes, the broadcast and in place of either input.
    InferOutputs();
    const Tensor& x = FloatInput(0);
    if (InputSize() == 1) {
      Tensor* y = DeviceOutput(0);
      y->Resize(x.dims());
      kernels::UnaryMathFloat(UnaryMath::kPow, args_, x.data<float>(), y->mutable_data<float>(),
                              x.numel(), stream());
      CheckLaunch();
      return;
    }
    const Tensor& e = FloatInput(1);
    BinaryDims(bargs_, x.dims(), e.dims(), label(), &out_dims_, &e_plan_);
    const kernels::BroadcastGeometry g = BroadcastGeometryOf(label(), out_dims_, x.dims(), e_plan_);
    Tensor* y = DeviceOutput(0);
    y->Resize(out_dims_);
    kernels::PowBroadcastFloat(x.data<float>(), e.data<float>(), y->mutable_data<float>(),
                               y->numel(), g, stream());
    CheckLaunch();
  }

 private:
  const BroadcastArgs bargs_;
  UnaryArgs args_;
  std::vector<int64_t> out_dims_;
  std::vector<int64_t> e_plan_;
};

PARITY_REGISTER_CUDA_OPERATOR(Pow, PowCudaOp);

// PowGradient: (dY, X, Y) -> dX with the `exponent` argument (elementwise; dX may replace dY), or
// (dY, X, E, Y) -> (dX, dE), each summed over its operand's broadcast copies. An output over an
// input is computed aside and copied over once both are done, so every input is read intact.
class PowGradientCudaOp final : public CudaOperator {
 public:
  PowGradientCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : CudaOperator(def, ws), bargs_(ReadBroadcastArgs(def, args())) {
    CheckArgumentsAsTheCpu(def, label());
    if (InputSize() == 3) args_ = ReadUnaryArgs(ArgKind::kExponent, args());
    scratch_.emplace_back(device());
    scratch_.emplace_back(device());
  }

  void Run() override {
    InferOutputs();
    const float* dy = FloatInput(0).data<float>();
    const Tensor& x = FloatInput(1);
    if (InputSize() == 3) {
      FloatInput(2);  // Y: unread by the formula, but on the device and float as on the CPU
      Tensor* dx = DeviceOutput(0);
      dx->Resize(x.dims());
      kernels::UnaryGradFloat(UnaryGrad::kPow, args_, x.data<float>(), dy,
                              dx->mutable_data<float>(), x.numel(), stream());
      CheckLaunch();
      return;
    }
    const Tensor& e = FloatInput(2);
    const float* y = FloatInput(3).data<float>();
    const std::vector<int64_t> x_dims = x.dims();
    const std::vector<int64_t> e_dims = e.dims();
    BinaryDims(bargs_, x_dims, e_dims, label(), &out_dims_, &e_plan_);
    const kernels::BroadcastGeometry g = BroadcastGeometryOf(label(), out_dims_, x_dims, e_plan_);
    Tensor* results[2] = {nullptr, nullptr};
    for (int i = 0; i < OutputSize(); ++i) {
      bool aside = false;
      for (int j = 0; j < InputSize(); ++j) aside = aside || OutputBlob(i) == InputBlob(j);
      results[i] = aside ? &scratch_[i] : DeviceOutput(i);
    }
    Grad(kernels::PowGrad::kDX, dy, x.data<float>(), e.data<float>(), y, x_dims, x_dims, g,
         results[0]);
    Grad(kernels::PowGrad::kDE, dy, x.data<float>(), e.data<float>(), y, e_dims, e_plan_, g,
         results[1]);
    for (int i = 0; i < OutputSize(); ++i) {
      if (results[i] == &scratch_[i]) CopyTensor(scratch_[i], DeviceOutput(i));
    }
  }

 private:
  // out (dims `dims`; `plan` as the broadcast sees them) = the term `which` summed over the
  // output's broadcast copies of each element.
  void Grad(kernels::PowGrad which, const float* dy, const float* x, const float* e, const float* y,
            const std::vector<int64_t>& dims, const std::vector<int64_t>& plan,
            const kernels::BroadcastGeometry& g, Tensor* out) {
    out->Resize(dims);
    float* po = out->mutable_data<float>();
    int64_t count = 0;
    const kernels::ReduceGeometry r = BroadcastReduceGeometryOf(label(), out_dims_, plan, &count);
    kernels::PowGradFloat(which, dy, x, e, y, po, out->numel(), count, r, g, stream());
    CheckLaunch();
  }

  const BroadcastArgs bargs_;
  UnaryArgs args_;
  std::vector<int64_t> out_dims_;
  std::vector<int64_t> e_plan_;
  std::vector<Tensor> scratch_;
};

PARITY_REGISTER_CUDA_OPERATOR(PowGradient, PowGradientCudaOp);

// StopGradient: Y = X, a copy on the device (any dtype); nothing to do in place.
class StopGradientCudaOp final : public CudaOperator {
 public:
  using CudaOperator::CudaOperator;

  void Run() override {
    const Tensor& x = DeviceInput(0);
    if (OutputBlob(0) == InputBlob(0)) return;
    CopyTensor(x, DeviceOutput(0));
  }
};

PARITY_REGISTER_CUDA_OPERATOR(StopGradient, StopGradientCudaOp);

// Alias: the output shares the input's device storage (any dtype), as the CPU's AliasOp shares
// host storage; no copy, no kernel.
class AliasCudaOp final : public CudaOperator {
 public:
  using CudaOperator::CudaOperator;

  void Run() override { OutputBlob(0)->GetMutableTensor(device())->ShareData(DeviceInput(0)); }
};

PARITY_REGISTER_CUDA_OPERATOR(Alias, AliasCudaOp);

}  // namespace
}  // namespace parity::gpu
