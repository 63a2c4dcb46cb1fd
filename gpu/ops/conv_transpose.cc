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
// The geometry comes from core's ParseConvGeometry; adj's parsing and the shape checks, file-local
// in conv_transpose.cc, are written out again here with the CPU's messages and order (the device
// tests compare both devices' messages).
//
// Compiled, not yet run on a GPU (the host body tests and the device tests' CPU side ran).
#include "gpu/kernels/conv_transpose.h"

#include <string>
#include <vector>

#include "core/ops/common/conv_geometry.h"
#include "core/ops/common/gemm.h"
#include "gpu/cuda_operator.h"
#include "gpu/kernel_geometry.h"
#include "gpu/ops/gemm.h"

namespace parity::gpu {
namespace {

struct Adj {
  int64_t h = 0, w = 0;
};

// The CPU's ParseAdj.
Adj ParseAdj(const ArgumentHelper& args, const ConvGeometry& g) {
  const bool has_single = args.Has("adj"), has_list = args.Has("adjs");
  const bool has_h = args.Has("adj_h"), has_w = args.Has("adj_w");
  PARITY_ENFORCE(int{has_single} + int{has_list} + int{has_h || has_w} <= 1,
                 ErrorKind::kBadArgument, args.op_label(),
                 ": give only one of 'adj', 'adjs' or 'adj_h' + 'adj_w'");
  PARITY_ENFORCE(has_h == has_w, ErrorKind::kBadArgument, args.op_label(), ": argument '",
                 has_h ? "adj_h" : "adj_w", "' needs '", has_h ? "adj_w" : "adj_h", "' as well");
  Adj adj;
  if (has_single) {
    adj.h = adj.w = args.Get<int>("adj");
  } else if (has_list) {
    const std::vector<int> values = args.GetVector<int>("adjs");
    PARITY_ENFORCE(values.size() == 2, ErrorKind::kBadArgument, args.op_label(),
                   ": argument 'adjs' has ", values.size(), " values; 2-D ops take 2 (h, w)");
    adj = {values[0], values[1]};
  } else if (has_h) {
    adj = {args.Get<int>("adj_h"), args.Get<int>("adj_w")};
  }
  PARITY_ENFORCE(adj.h >= 0 && adj.w >= 0 && adj.h < g.stride_h && adj.w < g.stride_w,
                 ErrorKind::kBadArgument, args.op_label(), ": adj_h = ", adj.h, ", adj_w = ", adj.w,
                 " must be in [0, stride) (stride ", g.stride_h, "x", g.stride_w, ")");
  return adj;
}

// The CPU's ConvTransposeShape: its checks, and Y's dims.
void ConvTransposeShape(const std::string& label, const ConvGeometry& g, const Adj& adj,
                        int64_t group, const std::vector<int64_t>& x, const std::vector<int64_t>& w,
                        const std::vector<int64_t>* b, std::vector<int64_t>* y_dims) {
  PARITY_ENFORCE(x.size() == 4, ErrorKind::kShapeMismatch, label,
                 ": takes a 4-D NCHW input X, got ", ShapeString(x));
  PARITY_ENFORCE(w.size() == 4, ErrorKind::kShapeMismatch, label,
                 ": filter W must be 4-D [C, M / group, kernel_h, kernel_w], got ", ShapeString(w));
  PARITY_ENFORCE(x[1] % group == 0, ErrorKind::kShapeMismatch, label, ": input channels C = ", x[1],
                 " of X ", ShapeString(x), " are not divisible by group ", group);
  PARITY_ENFORCE(w[0] == x[1], ErrorKind::kShapeMismatch, label, ": filter W ", ShapeString(w),
                 " should have X's ", x[1], " channels in dim 0 (X ", ShapeString(x), ")");
  PARITY_ENFORCE(w[2] == g.kernel_h && w[3] == g.kernel_w, ErrorKind::kShapeMismatch, label,
                 ": kernel ", g.kernel_h, "x", g.kernel_w, " does not match filter W ",
                 ShapeString(w));
  const int64_t m = w[1] * group;
  if (b != nullptr) {
    PARITY_ENFORCE(b->size() == 1 && (*b)[0] == m, ErrorKind::kShapeMismatch, label, ": bias b ",
                   ShapeString(*b), " should be [", m, "] (filter W ", ShapeString(w), ", group ",
                   group, ")");
  }
  const int64_t out_h =
      (x[2] - 1) * g.stride_h - g.pad_t - g.pad_b + g.dilation_h * (g.kernel_h - 1) + 1 + adj.h;
  const int64_t out_w =
      (x[3] - 1) * g.stride_w - g.pad_l - g.pad_r + g.dilation_w * (g.kernel_w - 1) + 1 + adj.w;
  PARITY_ENFORCE(x[2] > 0 && x[3] > 0 && out_h > 0 && out_w > 0, ErrorKind::kShapeMismatch, label,
                 ": X ", ShapeString(x), " with these pads gives an empty output ", out_h, "x",
                 out_w);
  y_dims->assign({x[0], m, out_h, out_w});
}

class ConvTransposeCudaOp final : public CudaOperator {
 public:
  ConvTransposeCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : CudaOperator(def, ws),
        geometry_(ParseConvGeometry(args(), ConvKind::kConv)),
        adj_(ParseAdj(args(), geometry_)),
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
  const Adj adj_;
  const int64_t group_;
  std::vector<int64_t> y_dims_;
  std::vector<int64_t> col_dims_;
  Tensor col_;  // one image's taps, on the device, reused across images and runs
};

PARITY_REGISTER_CUDA_OPERATOR(ConvTranspose, ConvTransposeCudaOp);

}  // namespace
}  // namespace parity::gpu
