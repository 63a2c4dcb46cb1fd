// Conv, ConvRelu and ConvGradient on the device (float, NCHW), the CPU's IM2COL kernel
// (core/ops/conv/conv.cc, conv_grad.cc) with the whole image as one block: per image, im2col
// (conv_pool_body.h) into a [C * kh * kw, out_h * out_w] buffer, then one strided-batched cuBLAS
// GEMM over the groups. Geometry, shapes, arguments and errors are the CPU kernels' own helpers
// (ParseConvGeometry, ConvShape, ConvGradientShape, ConvGradientOutputs), so both devices accept
// and reject the same nets. ConvGradient's dX folds back with a gather-style col2im (one thread per
// input element, no atomics) and db sums dY with the deterministic reduction kernel.
//
// Compiled, not yet run on a GPU (README's GPU section).
#include <string>
#include <vector>

#include "core/ops/common/conv_geometry.h"
#include "core/ops/conv/conv.h"
#include "gpu/cuda_operator.h"
#include "gpu/kernel_geometry.h"
#include "gpu/kernels/conv_pool.h"
#include "gpu/kernels/kernels.h"
#include "gpu/ops/gemm.h"

namespace parity::gpu {
namespace {

// X's and Y's dims by name.
struct ConvSizes {
  int64_t N, C, H, W, M, out_h, out_w, out_hw;
};

ConvSizes SizesOf(const std::vector<int64_t>& x, const std::vector<int64_t>& y) {
  ConvSizes s;
  s.N = x[0];
  s.C = x[1];
  s.H = x[2];
  s.W = x[3];
  s.M = y[1];
  s.out_h = y[2];
  s.out_w = y[3];
  s.out_hw = s.out_h * s.out_w;
  return s;
}

// One of ConvGemmsOf's GEMMs through cuBLAS, with `beta`.
void RunGemm(const std::string& label, CudaContext& context, const BatchedGemm& p, float beta,
             const float* a, const float* b, float* y) {
  StridedBatchedGemm(label, context, {p.trans_a, p.trans_b, p.M, p.N, p.K, beta}, a, p.stride_a,
                     b, p.stride_b, y, p.stride_y, p.batch);
}

// kRelu: ConvRelu, Relu applied in place on the output after the convolution (as on the CPU).
template <bool kRelu>
class ConvCudaOp final : public CudaOperator {
 public:
  ConvCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : CudaOperator(def, ws),
        geometry_(ParseConvGeometry(args(), ConvKind::kConv)),
        group_(Arg<int64_t>("group")),
        col_(device()) {
    EnforceConvGroup(label(), group_);
  }

  void Run() override {
    const Tensor& X = FloatInput(0);
    const Tensor& Wt = FloatInput(1);
    const Tensor* b = InputSize() == 3 ? &FloatInput(2) : nullptr;
    ConvShape(label(), geometry_, group_, X.dims(), Wt.dims(), b ? &b->dims() : nullptr, &y_dims_);
    const ConvGeometry& g = geometry_;
    const ConvSizes s = SizesOf(X.dims(), y_dims_);
    Tensor* Y = DeviceOutput(0);
    Y->Resize(y_dims_);
    float* y = Y->mutable_data<float>();
    if (b != nullptr) {
      // Start from the bias and let the GEMMs accumulate (beta = 1), as the CPU's IM2COL does.
      kernels::FillChannelsFloat(b->data<float>(), y, Y->numel(), s.M, s.out_hw, stream());
      CheckLaunch();
    }
    const kernels::ConvPoolGeometry kg =
        ConvPoolGeometryOf(g, s.C, s.H, s.W, s.out_h, s.out_w);
    // A pointwise convolution needs no unfolding: the image [C, H * W] already is col.
    const bool pointwise = IsPointwiseConv(g);
    float* col = nullptr;
    if (!pointwise) {
      col_dims_.assign({s.C * g.kernel_h * g.kernel_w, s.out_hw});
      col_.Resize(col_dims_);  // keeps its storage while large enough
      col = col_.mutable_data<float>();
    }
    const float* x = X.data<float>();
    const BatchedGemm forward = ConvGemmsOf(X.dims(), y_dims_, g, group_).forward;
    for (int64_t n = 0; n < s.N; ++n) {
      const float* image = x + n * s.C * s.H * s.W;
      const float* source = image;
      if (!pointwise) {
        kernels::Im2ColFloat(image, col, kg, stream());
        CheckLaunch();
        source = col;
      }
      // Per group g: Y_g [M/G, out_hw] = W_g [M/G, k] * col_g [k, out_hw] (+ the bias).
      RunGemm(label(), context(), forward, b != nullptr ? 1.0f : 0.0f, Wt.data<float>(), source,
              y + n * s.M * s.out_hw);
    }
    if (kRelu) {
      kernels::UnaryFloat(kernels::Unary::kRelu, y, y, Y->numel(), stream());
      CheckLaunch();
    }
  }

 private:
  const ConvGeometry geometry_;
  const int64_t group_;
  std::vector<int64_t> y_dims_;
  std::vector<int64_t> col_dims_;
  Tensor col_;  // im2col of one image, on the device, reused across images and runs
};

PARITY_REGISTER_CUDA_OPERATOR(Conv, ConvCudaOp<false>);
PARITY_REGISTER_CUDA_OPERATOR(ConvRelu, ConvCudaOp<true>);

class ConvGradientCudaOp final : public CudaOperator {
 public:
  ConvGradientCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : CudaOperator(def, ws),
        geometry_(ParseConvGeometry(args(), ConvKind::kConv)),
        group_(Arg<int64_t>("group")),
        outputs_(ConvGradientOutputs(label(), Arg<bool>("no_bias"), OutputSize())),
        col_(device()),
        dcol_(device()) {
    EnforceConvGroup(label(), group_);
  }

  void Run() override {
    const Tensor& X = FloatInput(0);
    const Tensor& Wt = FloatInput(1);
    const Tensor& dY = FloatInput(2);
    ConvGradientShape(label(), geometry_, group_, X.dims(), Wt.dims(), dY.dims(), &y_dims_);
    const ConvGeometry& g = geometry_;
    const ConvSizes s = SizesOf(X.dims(), y_dims_);
    const float* x = X.data<float>();
    const float* w = Wt.data<float>();
    const float* dy = dY.data<float>();

    Tensor* dW = DeviceOutput(0);
    dW->Resize(Wt.dims());
    float* dw = dW->mutable_data<float>();
    if (s.N == 0) {
      kernels::FillFloat(0.0f, dw, dW->numel(), stream());  // no image: the empty sum
      CheckLaunch();
    }
    if (outputs_.db) {
      // db [M]: dY [N, M, out_hw] summed over N and out_hw, in order per channel.
      Tensor* db = DeviceOutput(1);
      db_dims_.assign({s.M});
      db->Resize(db_dims_);
      const kernels::ReduceGeometry rg =
          ReduceGeometryOf(label(), {s.N, s.M, s.out_hw}, {true, false, true});
      kernels::ReduceSumFloat(dy, db->mutable_data<float>(), s.M, s.N * s.out_hw, false, rg,
                              stream());
      CheckLaunch();
    }
    float* dx = nullptr;
    if (outputs_.dx) {
      Tensor* dX = DeviceOutput(outputs_.dx_index);
      dX->Resize(X.dims());
      dx = dX->mutable_data<float>();
    }

    const kernels::ConvPoolGeometry kg =
        ConvPoolGeometryOf(g, s.C, s.H, s.W, s.out_h, s.out_w);
    const ConvGemms gemms = ConvGemmsOf(X.dims(), y_dims_, g, group_);
    const bool pointwise = IsPointwiseConv(g);
    float* col = nullptr;
    float* dcol = nullptr;
    if (!pointwise) {
      col_dims_.assign({s.C * g.kernel_h * g.kernel_w, s.out_hw});
      col_.Resize(col_dims_);
      col = col_.mutable_data<float>();
      if (dx != nullptr) {
        dcol_.Resize(col_dims_);
        dcol = dcol_.mutable_data<float>();
      }
    }
    for (int64_t n = 0; n < s.N; ++n) {
      const float* image = x + n * s.C * s.H * s.W;
      const float* dy_n = dy + n * s.M * s.out_hw;
      const float* source = image;
      if (!pointwise) {
        kernels::Im2ColFloat(image, col, kg, stream());
        CheckLaunch();
        source = col;
      }
      // dW_g [M/G, k] (+)= dY_g [M/G, out_hw] * col_g^T; the first image writes (beta = 0).
      RunGemm(label(), context(), gemms.weight_grad, n == 0 ? 0.0f : 1.0f, dy_n, source, dw);
      if (dx == nullptr) continue;
      // dcol_g [k, out_hw] = W_g^T * dY_g; pointwise: straight into dX_g.
      float* dx_n = dx + n * s.C * s.H * s.W;
      RunGemm(label(), context(), gemms.data_grad, 0.0f, w, dy_n, pointwise ? dx_n : dcol);
      if (!pointwise) {
        kernels::Col2ImFloat(dcol, dx_n, kg, stream());
        CheckLaunch();
      }
    }
  }

 private:
  const ConvGeometry geometry_;
  const int64_t group_;
  const ConvGradOutputs outputs_;
  std::vector<int64_t> y_dims_;
  std::vector<int64_t> db_dims_;
  std::vector<int64_t> col_dims_;
  Tensor col_;   // im2col of one image, on the device
  Tensor dcol_;  // its gradient, folded onto dX by col2im
};

PARITY_REGISTER_CUDA_OPERATOR(ConvGradient, ConvGradientCudaOp);

}  // namespace
}  // namespace parity::gpu
