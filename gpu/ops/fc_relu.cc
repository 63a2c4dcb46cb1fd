// FCRelu on the device (float): FC then Relu in place, as the CPU defines it (core/ops/linalg/
// linalg.cc's FullyConnectedOp<false, true>). The FC half is the CUDA FC's (gpu/ops/linalg.cc):
// the shape and errors from the CPU's FcShape, Y starting as the bias in every row and one cuBLAS
// GEMM accumulating onto it; the Relu half is the CUDA Relu's kernel (NaN stays NaN, as on the
// CPU), so FCRelu on the device gives the bits of FC then Relu on the device.
//
// Compiled, not yet run on a GPU (the host body tests and the device tests' CPU side ran).
#include <vector>

#include "core/ops/common/gemm.h"
#include "core/ops/linalg/linalg.h"
#include "gpu/cuda_operator.h"
#include "gpu/kernels/kernels.h"
#include "gpu/ops/gemm.h"

namespace parity::gpu {
namespace {

class FCReluCudaOp final : public CudaOperator {
 public:
  FCReluCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : CudaOperator(def, ws), axis_(Arg<int64_t>("axis")), axis_w_(Arg<int64_t>("axis_w")) {}

  void Run() override {
    const Tensor& x = DeviceInput(0);
    const Tensor& w = DeviceInput(1);
    const Tensor& b = DeviceInput(2);
    // The CPU's checks in its order (shapes, the dtypes against X's, X's dtype), then float only.
    const FcSizes s = FcShape(label(), /*transposed_weight=*/false, axis_, axis_w_, x.dims(),
                              w.dims(), &b.dims(), &y_dims_);
    EnforceSameDtype(label(), "X", x.dtype(), "W", w.dtype(), w.dims());
    EnforceSameDtype(label(), "X", x.dtype(), "b", b.dtype(), b.dims());
    DispatchFloatOrDouble(x.dtype(), label(), "X", x.dims(), [](auto) {});
    FloatInput(0);
    Tensor* y = DeviceOutput(0);
    y->Resize(y_dims_);
    float* out = y->mutable_data<float>();
    kernels::FillRows(b.data<float>(), out, s.M, s.N, stream());
    CheckLaunch();
    GemmCall g{false, true, s.M, s.N, s.K, 1.0f};
    Gemm(label(), context(), g, x.data<float>(), w.data<float>(), out);
    kernels::UnaryFloat(kernels::Unary::kRelu, out, out, s.M * s.N, stream());
    CheckLaunch();
  }

 private:
  const int64_t axis_;
  const int64_t axis_w_;
  std::vector<int64_t> y_dims_;
};

PARITY_REGISTER_CUDA_OPERATOR(FCRelu, FCReluCudaOp);

}  // namespace
}  // namespace parity::gpu
