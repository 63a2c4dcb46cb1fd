// ConvTranspose on the device (float, NCHW): the CPU kernel's algorithm
// (core/ops/conv/conv_transpose.cc) with every argument it takes (kernel, stride, dilation and
// pads in each of their forms, adj / adjs / adj_h + adj_w, group). Per image, one strided-batched
// cuBLAS GEMM over the groups spreads X over the kernel taps, col_g = W_g^T X_g (ConvGradient's
// data GEMM with the roles of X and Y swapped: ConvGemmsOf(Y, X).data_grad), then a gather-style
// col2im (conv_transpose_body.h) starts each Y element from its bias and adds its taps in the
// CPU's order: no atomics. The fold gives the CPU's bits for the same col; the GEMM sums over
// C / group in cuBLAS's order (within the device oracle's tolerance).
//
// ConvTranspose has no gradient op of its own: its gradient is Conv, ConvGradient and ReduceSum
// (core/ops/conv/makers.cc), which have CUDA kernels already.
//
// The geometry, adj and the shape checks are core's own (ParseConvGeometry,
// core/ops/conv/conv_transpose.h), so both devices give the same messages in the same order.
//
// Compiled, not yet run on a GPU (the host body tests and the device tests' CPU side ran).
#include "gpu/kernels/conv_transpose.h"

#include <string>
#include <vector>

#include "core/ops/common/conv_geometry.h"
#include "core/ops/common/gemm.h"
#include "core/ops/conv/conv_transpose.h"
#include "gpu/cuda_operator.h"
#include "gpu/kernel_geometry.h"
#include "gpu/ops/gemm.h"

namespace parity::gpu {
namespace {

class ConvTransposeCudaOp final : public CudaOperator {
 public:
  ConvTransposeCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : CudaOperator(def, ws),
        geometry_(ParseConvGeometry(args(), ConvKind::kConv)),
        adj_(ParseConvTransposeAdj(args(), geometry_)),
        group_(Arg<int64_t>("group")),
        col_(device()) {
    PARITY_ENFORCE(group_ > 0, ErrorKind::kBadArgument, label(), ": argument 'group' = ", group_,
                   " must be positive");
  }

  void Run() override {
    const Tensor& X = DeviceInput(0);
    const Tensor& Wt = DeviceInput(1);
    const Tensor* b = InputSize() == 3 ? &DeviceInput(2) : nullptr;
    // The CPU's order: the shapes, the dtypes against X's, X's dtype; then float only here.
    ConvTransposeShape(label(), geometry_, adj_, group_, X.dims(), Wt.dims(),
                       b ? &b->dims() : nullptr, &y_dims_);
    EnforceSameDtype(label(), "X", X.dtype(), "W", Wt.dtype(), Wt.dims());
    if (b != nullptr) EnforceSameDtype(label(), "X", X.dtype(), "b", b->dtype(), b->dims());
    DispatchFloatOrDouble(X.dtype(), label(), "X", X.dims(), [](auto) {});
    const float* x = FloatInput(0).data<float>();
    const float* w = FloatInput(1).data<float>();
    const float* bias = b != nullptr ? FloatInput(2).data<float>() : nullptr;

    const ConvGeometry& g = geometry_;
    const int64_t N = X.dim(0), C = X.dim(1), H = X.dim(2), W = X.dim(3);
    const int64_t M = y_dims_[1], out_h = y_dims_[2], out_w = y_dims_[3];
    Tensor* Y = DeviceOutput(0);
    Y->Resize(y_dims_);
    float* y = Y->mutable_data<float>();
    // Y is the image the convolution of the same geometry would read and X its output grid.
    const kernels::ConvPoolGeometry kg = ConvPoolGeometryOf(g, M, out_h, out_w, H, W);
    const BatchedGemm spread = ConvGemmsOf(y_dims_, X.dims(), g, group_).data_grad;
    col_dims_.assign({M * g.kernel_h * g.kernel_w, H * W});
    col_.Resize(col_dims_);  // keeps its storage while large enough
    float* col = col_.mutable_data<float>();
    for (int64_t n = 0; n < N; ++n) {
      // Per group: col_g [M/G * kh * kw, H * W] = W_g^T [., C/G] * X_g [C/G, H * W].
      StridedBatchedGemm(label(), context(),
                         {spread.trans_a, spread.trans_b, spread.M, spread.N, spread.K, 0.0f}, w,
                         spread.stride_a, x + n * C * H * W, spread.stride_b, col, spread.stride_y,
                         spread.batch);
      kernels::ConvTransposeCol2ImFloat(col, bias, y + n * M * out_h * out_w, kg, stream());
      CheckLaunch();
    }
  }

 private:
  const ConvGeometry geometry_;
  const ConvTransposeAdj adj_;
  const int64_t group_;
  std::vector<int64_t> y_dims_;
  std::vector<int64_t> col_dims_;
  Tensor col_;  // one image's taps, on the device, reused across images and runs
};

PARITY_REGISTER_CUDA_OPERATOR(ConvTranspose, ConvTransposeCudaOp);

}  // namespace
}  // namespace parity::gpu
