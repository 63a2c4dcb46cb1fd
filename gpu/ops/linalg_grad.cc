// FCGradient and FCTransposedGradient on the device (X, W, dY) -> (dW, db[, dX]), the CPU
// kernel's products (core/ops/linalg/linalg_grad.cc) through cuBLAS, and db as the column sums of
// dY by the deterministic reduction kernel.
#include <vector>

#include "core/ops/linalg/linalg.h"
#include "gpu/cuda_operator.h"
#include "gpu/kernels/kernels.h"
#include "gpu/ops/gemm.h"

namespace parity::gpu {
namespace {

template <bool kTransposedWeight>
class FullyConnectedGradientCudaOp final : public CudaOperator {
 public:
  FullyConnectedGradientCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : CudaOperator(def, ws), axis_(Arg<int64_t>("axis")), axis_w_(Arg<int64_t>("axis_w")) {}

  void Run() override {
    const Tensor& x = FloatInput(0);
    const Tensor& w = FloatInput(1);
    const Tensor& dy = FloatInput(2);
    const FcSizes s = FcGradientShape(label(), kTransposedWeight, axis_, axis_w_, x.dims(),
                                      w.dims(), dy.dims(), &y_dims_);
    Tensor* dw = DeviceOutput(0);
    dw->Resize(w.dims());
    // FC: dW [N, K] = dY^T X; FCTransposed: dW [K, N] = X^T dY.
    if (kTransposedWeight) {
      Gemm(label(), context(), {true, false, s.K, s.N, s.M, 0.0f}, x.data<float>(),
           dy.data<float>(), dw->mutable_data<float>());
    } else {
      Gemm(label(), context(), {true, false, s.N, s.K, s.M, 0.0f}, dy.data<float>(),
           x.data<float>(), dw->mutable_data<float>());
    }
    Tensor* db = DeviceOutput(1);
    db->Resize({s.N});
    // Column sums of dY [M, N]: N kept elements (stride 1), each summing M (stride N).
    kernels::ReduceGeometry g;
    g.kept_rank = 1;
    g.kept_dims[0] = s.N;
    g.kept_strides[0] = 1;
    g.reduced_rank = 1;
    g.reduced_dims[0] = s.M;
    g.reduced_strides[0] = s.N;
    kernels::ReduceSumFloat(dy.data<float>(), db->mutable_data<float>(), s.N, s.M, false, g,
                            stream());
    CheckLaunch();
    if (OutputSize() == 3) {
      Tensor* dx = DeviceOutput(2);
      dx->Resize(x.dims());
      // FC: dY [M, N] * W [N, K]; FCTransposed: dY [M, N] * W^T, W being [K, N].
      Gemm(label(), context(), {false, kTransposedWeight, s.M, s.K, s.N, 0.0f}, dy.data<float>(),
           w.data<float>(), dx->mutable_data<float>());
    }
  }

 private:
  const int64_t axis_;
  const int64_t axis_w_;
  std::vector<int64_t> y_dims_;
};

PARITY_REGISTER_CUDA_OPERATOR(FCGradient, FullyConnectedGradientCudaOp<false>);
PARITY_REGISTER_CUDA_OPERATOR(FCTransposedGradient, FullyConnectedGradientCudaOp<true>);

}  // namespace
}  // namespace parity::gpu
