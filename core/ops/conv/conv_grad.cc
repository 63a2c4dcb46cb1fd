// ConvGradient: the gradient of Conv (2-D, NCHW, float and double), after Caffe2's
// ConvGradientOp (conv_op_impl.h). The maker (core/ops/conv/makers.cc) emits
//
//   ConvGradient (X, W, dY) -> (dW, db[, dX])            Conv with a bias
//   ConvGradient (X, W, dY) -> (dW[, dX])   no_bias=1     Conv without one
//
// with the forward op's geometry and `group` copied on (dX is optional, as in Caffe2: it is
// computed when there are 3 outputs, or 2 with no_bias=1). With col the unfolded input (im2col,
// conv.h) and per group g:
//   dW_g [M/G, C/G*kh*kw] = sum over images and blocks of dY_g [M/G, block] * col_g^T
//   dcol_g [C/G*kh*kw, block] = W_g^T * dY_g, folded back onto dX by col2im (overlapping windows
//                               add up; taps over the padding are dropped)
//   db [M] = the sums of dY over images and positions.
// As in the forward kernel, each image is processed a block of output rows at a time so col and
// dcol stay in cache, and a pointwise convolution (1x1, stride 1, no padding) skips both the
// unfold and the fold: dW_g += dY_g * X_g^T and dX_g = W_g^T * dY_g straight on the tensors. The
// GEMMs are gemm.h's; col and dcol are member tensors, so repeated runs do not allocate. That is
// engine "IM2COL"; the default engine "DNNL" runs oneDNN's backward-weights and backward-data
// primitives for float (conv_dnnl.h, cached per op for the last shape) and this kernel for double
// and for what oneDNN declines.
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "core/operator.h"
#include "core/ops/common/conv_geometry.h"
#include "core/ops/common/gemm.h"
#include "core/ops/common/size_paths.h"
#include "core/ops/conv/conv.h"
#include "core/ops/conv/conv_dnnl.h"
#include "core/schema.h"

namespace parity {

ConvGradOutputs ConvGradientOutputs(const std::string& label, bool no_bias, int outputs) {
  ConvGradOutputs o;
  if (no_bias) {
    PARITY_ENFORCE(outputs == 1 || outputs == 2, ErrorKind::kBadArgument, label,
                   ": with no_bias=1 the outputs are (dW) or (dW, dX), got ", outputs, " outputs");
    o.dx = outputs == 2;
    o.dx_index = 1;
  } else {
    PARITY_ENFORCE(outputs == 2 || outputs == 3, ErrorKind::kBadArgument, label,
                   ": the outputs are (dW, db) or (dW, db, dX) (with no_bias=1: (dW) or (dW, dX)),"
                   " got ",
                   outputs, " output", outputs == 1 ? "" : "s");
    o.db = true;
    o.dx = outputs == 3;
    o.dx_index = 2;
  }
  return o;
}

void ConvGradientShape(const std::string& label, const ConvGeometry& g, int64_t group,
                       const std::vector<int64_t>& x, const std::vector<int64_t>& w,
                       const std::vector<int64_t>& dy, std::vector<int64_t>* y_dims) {
  ConvShape(label, g, group, x, w, nullptr, y_dims);
  PARITY_ENFORCE(dy == *y_dims, ErrorKind::kShapeMismatch, label, ": dY ", ShapeString(dy),
                 " should have the forward output's dims ", ShapeString(*y_dims), " (X ",
                 ShapeString(x), ", W ", ShapeString(w), ")");
}

void EnforceConvGroup(const std::string& label, int64_t group) {
  PARITY_ENFORCE(group > 0, ErrorKind::kBadArgument, label, ": argument 'group' = ", group,
                 " must be positive");
}

namespace {

template <ConvEngine kEngine>
class ConvGradientOp final : public Operator {
 public:
  ConvGradientOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws),
        geometry_(ParseConvGeometry(args(), ConvKind::kConv)),
        group_(Arg<int64_t>("group")),
        outputs_(ConvGradientOutputs(label(), Arg<bool>("no_bias"), OutputSize())),
        dnnl_(geometry_, group_) {
    EnforceConvGroup(label(), group_);
  }

  void Run() override {
    const Tensor& X = Input(0);
    const Tensor& W = Input(1);
    const Tensor& dY = Input(2);
    ConvGradientShape(label(), geometry_, group_, X.dims(), W.dims(), dY.dims(), &y_dims_);
    EnforceSameDtype(label(), "X", X.dtype(), "W", W.dtype(), W.dims());
    EnforceSameDtype(label(), "X", X.dtype(), "dY", dY.dtype(), dY.dims());
    DispatchFloatOrDouble(X.dtype(), label(), "X", X.dims(), [&](auto zero) {
      using T = decltype(zero);
      if constexpr (kEngine == ConvEngine::kDnnl && std::is_same_v<T, float>) {
        if (RunDnnl(X, W, dY)) return;
      }
      Compute<T>(X, W, dY);
    });
  }

 private:
  // oneDNN's primitives on float tensors; false (nothing computed) when oneDNN declines.
  bool RunDnnl(const Tensor& X, const Tensor& Wt, const Tensor& dY) {
    Tensor* dW = Output(0);
    dW->Resize(Wt.dims());
    float* db = nullptr;
    if (outputs_.db) {
      db_dims_.assign({Wt.dim(0)});
      Tensor* db_tensor = Output(1);
      db_tensor->Resize(db_dims_);
      db = db_tensor->mutable_data<float>();
    }
    float* dx = nullptr;
    if (outputs_.dx) {
      Tensor* dX = Output(outputs_.dx_index);
      dX->Resize(X.dims());
      dx = dX->mutable_data<float>();
    }
    return dnnl_.Run(X.dims(), Wt.dims(), y_dims_, X.data<float>(), Wt.data<float>(),
                     dY.data<float>(), dW->mutable_data<float>(), db, dx);
  }

  template <typename T>
  void Compute(const Tensor& X, const Tensor& Wt, const Tensor& dY) {
    const ConvGeometry& g = geometry_;
    const int64_t N = X.dim(0), C = X.dim(1), H = X.dim(2), W = X.dim(3);
    const int64_t M = dY.dim(1), out_h = dY.dim(2), out_w = dY.dim(3);
    const int64_t out_hw = out_h * out_w;
    const int64_t m_per_group = M / group_;
    const int64_t k = C / group_ * g.kernel_h * g.kernel_w;  // GEMM inner size per group
    const bool pointwise = IsPointwiseConv(g);
    const int64_t col_rows = C * g.kernel_h * g.kernel_w;
    const int64_t rows_per_block =
        pointwise ? out_h : ConvRowsPerBlock(col_rows, out_w, int64_t{sizeof(T)});
    const T* x = X.data<T>();
    const T* w = Wt.data<T>();
    const T* dy = dY.data<T>();

    Tensor* dW = Output(0);
    dW->Resize(Wt.dims());
    T* dw = dW->mutable_data<T>();
    std::fill(dw, dw + dW->numel(), T(0));  // every block accumulates (beta = 1)

    if (outputs_.db) {
      Tensor* db = Output(1);
      db_dims_.assign({M});
      db->Resize(db_dims_);
      T* bias_grad = db->mutable_data<T>();
      for (int64_t m = 0; m < M; ++m) {
        T sum = 0;
        for (int64_t n = 0; n < N; ++n) {
          const T* plane = dy + (n * M + m) * out_hw;
          for (int64_t p = 0; p < out_hw; ++p) sum += plane[p];
        }
        bias_grad[m] = sum;
      }
    }

    T* dx = nullptr;
    if (outputs_.dx) {
      Tensor* dX = Output(outputs_.dx_index);
      dX->Resize(X.dims());
      dx = dX->mutable_data<T>();
      // The fold accumulates; a pointwise convolution writes dX with beta = 0 instead.
      if (!pointwise) std::fill(dx, dx + dX->numel(), T(0));
    }

    T* col = nullptr;
    T* dcol = nullptr;
    if (!pointwise) {
      col_dims_.assign({col_rows, std::min(rows_per_block, out_h) * out_w});
      col_.Resize(col_dims_);  // keeps its storage while large enough
      col = col_.mutable_data<T>();
      if (dx != nullptr) {
        dcol_.Resize(col_dims_);
        dcol = dcol_.mutable_data<T>();
      }
    }

    for (int64_t n = 0; n < N; ++n) {
      const T* image = x + n * C * H * W;
      const T* dy_n = dy + n * M * out_hw;
      T* dx_n = dx != nullptr ? dx + n * C * H * W : nullptr;
      for (int64_t row_begin = 0; row_begin < out_h; row_begin += rows_per_block) {
        const int64_t row_end = std::min(row_begin + rows_per_block, out_h);
        const int64_t cols = (row_end - row_begin) * out_w;  // positions in this block
        const T* source = image;  // pointwise: the image already is [C, H * W]
        if (!pointwise) {
          Im2Col(image, C, H, W, g, row_begin, row_end, out_w, col);
          source = col;
        }
        for (int64_t grp = 0; grp < group_; ++grp) {
          const T* dy_g = dy_n + grp * m_per_group * out_hw + row_begin * out_w;
          // dW_g [M/G, k] += dY_g [M/G, cols] * col_g^T [cols, k]
          GemmStrided<T>(false, true, m_per_group, k, cols, T(1), dy_g, out_hw,
                         source + grp * k * cols, cols, T(1), dw + grp * m_per_group * k, k);
          if (dx_n == nullptr) continue;
          // dcol_g [k, cols] = W_g^T [k, M/G] * dY_g [M/G, cols]; pointwise: straight into dX_g.
          T* target = pointwise ? dx_n + grp * k * cols : dcol + grp * k * cols;
          GemmStrided<T>(true, false, k, cols, m_per_group, T(1), w + grp * m_per_group * k, k,
                         dy_g, out_hw, T(0), target, cols);
        }
        if (dx_n != nullptr && !pointwise) {
          Col2ImAdd(dcol, C, H, W, g, row_begin, row_end, out_w, dx_n);
        }
      }
    }
  }

  const ConvGeometry geometry_;
  const int64_t group_;
  const ConvGradOutputs outputs_;
  std::vector<int64_t> y_dims_;
  std::vector<int64_t> db_dims_;
  std::vector<int64_t> col_dims_;
  Tensor col_;   // im2col of the input block, reused across runs
  Tensor dcol_;  // gradient of col, folded onto dX, reused across runs
  DnnlConvBackward dnnl_;  // oneDNN's primitives for the last shape (engine DNNL)
};

PARITY_OP_SCHEMA(ConvGradient)
    .NumInputs(3)
    .NumOutputs(1, 3)
    .Apply(ConvArgs)
    .Arg("no_bias", ArgType::kInt, int64_t{0},
         "1: the forward Conv had no bias, so there is no db output: outputs (dW[, dX]).")
    .InputDoc(0, "X", "The forward input [N, C, H, W], float or double.")
    .InputDoc(1, "filter", "The forward filter W [M, C / group, kernel_h, kernel_w].")
    .InputDoc(2, "dY", "Gradient of the forward output, [N, M, out_h, out_w].")
    .OutputDoc(0, "dW", "Gradient of the filter, W's dims.")
    .OutputDoc(1, "db", "Gradient of the bias [M] (with no_bias=1: dX instead).")
    .OutputDoc(2, "dX", "Optional: gradient of X, X's dims.")
    .ShapeInference([](const caffe2::OperatorDef& def, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) {
      const ConvGeometry g = ParseConvGeometry(args, ConvKind::kConv);
      const int64_t group = args.Get<int64_t>("group");
      EnforceConvGroup(args.op_label(), group);
      const ConvGradOutputs o =
          ConvGradientOutputs(args.op_label(), args.Get<bool>("no_bias"), def.output_size());
      std::vector<int64_t> y_dims;
      ConvGradientShape(args.op_label(), g, group, in[0].dims, in[1].dims, in[2].dims, &y_dims);
      DispatchFloatOrDouble(in[0].dtype, args.op_label(), "X", in[0].dims, [](auto) {});
      EnforceSameDtype(args.op_label(), "X", in[0].dtype, "W", in[1].dtype, in[1].dims);
      EnforceSameDtype(args.op_label(), "X", in[0].dtype, "dY", in[2].dtype, in[2].dims);
      std::vector<TensorType> out(def.output_size());
      for (auto& t : out) t.dtype = in[0].dtype;
      out[0].dims = in[1].dims;
      if (o.db) out[1].dims = {in[1].dims[0]};
      if (o.dx) out[o.dx_index].dims = in[0].dims;
      return out;
    })
    .Doc(
        "Gradient of Conv: (X, W, dY) -> (dW, db[, dX]), or (dW[, dX]) with no_bias=1. Engines: "
        "DNNL (the default: oneDNN's backward-weights and backward-data primitives for float) and "
        "IM2COL (im2col and GEMMs per group: dW = dY col^T, dX = col2im(W^T dY), db = sums of "
        "dY), which also serves double.");
PARITY_REGISTER_CPU_OPERATOR_DEFAULT_ENGINE(ConvGradient, "DNNL",
                                            ConvGradientOp<ConvEngine::kDnnl>);
PARITY_REGISTER_CPU_OPERATOR_WITH_ENGINE(ConvGradient, "IM2COL",
                                         ConvGradientOp<ConvEngine::kIm2Col>);

// Its blocks are Conv's; col2im accumulates dX across them.
PARITY_SIZE_PATH(ConvGradient, "row blocks, dX accumulated across them by col2im", 2, 0,
                 ConvRowBlocks);

}  // namespace
}  // namespace parity
