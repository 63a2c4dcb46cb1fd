// Conv: 2-D convolution, NCHW, float and double, after Caffe2's conv_op.h / conv_op_impl.h.
//
// X [N, C, H, W], filter W [M, C / group, kernel_h, kernel_w], optional bias b [M] →
// Y [N, M, out_h, out_w] (geometry arguments and output size: conv_geometry.h). Two engines:
//
// - "DNNL", the default: oneDNN's direct convolution (conv_dnnl.h) for float, its primitives
//   cached per op for the shapes it last ran; double, and any instance oneDNN declines, run the
//   im2col kernel below.
// - "IM2COL": per image, the input is unfolded (im2col, conv.h) a block of output rows at a time
//   into a [C * kh * kw, rows * out_w] buffer sized to stay in cache (kConvColBlockBytes), and each
//   group is one GEMM on it: Y_g [M/G, block] = W_g [M/G, C/G * kh * kw] * col_g. A 1x1 kernel
//   with stride 1 and no padding skips the unfolding (the input already is that matrix). The
//   unfold buffer is a member tensor, so repeated runs at one shape do not allocate.
//
// ConvRelu (Caffe2 has one; the Conv + Relu fusion transform makes it) is Conv followed by Relu:
// Conv's inputs, arguments, checks and kernel, then Relu in place on the output (not oneDNN's
// relu post-op, so that NaN stays NaN as in Relu).
#include "core/ops/conv/conv.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "core/operator.h"
#include "core/ops/common/conv_geometry.h"
#include "core/ops/common/elementwise.h"
#include "core/ops/common/gemm.h"
#include "core/ops/common/size_paths.h"
#include "core/ops/conv/conv_dnnl.h"
#include "core/schema.h"

namespace parity {

// Validates X, W and b against the geometry and `group` (kShapeMismatch naming the op and the
// shapes) and writes Y's dims: the checks Caffe2's ConvOp makes, shared with shape inference.
void ConvShape(const std::string& label, ConvGeometry g, int64_t group,
               const std::vector<int64_t>& x, const std::vector<int64_t>& w,
               const std::vector<int64_t>* b, std::vector<int64_t>* y_dims) {
  PARITY_ENFORCE(x.size() == 4, ErrorKind::kShapeMismatch, label,
                 ": takes a 4-D NCHW input X, got ", ShapeString(x));
  PARITY_ENFORCE(w.size() == 4, ErrorKind::kShapeMismatch, label,
                 ": filter W must be 4-D [M, C / group, kernel_h, kernel_w], got ", ShapeString(w));
  PARITY_ENFORCE(x[1] % group == 0, ErrorKind::kShapeMismatch, label, ": input channels C = ", x[1],
                 " of X ", ShapeString(x), " are not divisible by group ", group);
  PARITY_ENFORCE(x[1] / group == w[1], ErrorKind::kShapeMismatch, label, ": X ", ShapeString(x),
                 " has ", x[1], " channels, so with group ", group, " filter W ", ShapeString(w),
                 " should have ", x[1] / group, " channels in dim 1, not ", w[1]);
  PARITY_ENFORCE(w[0] % group == 0, ErrorKind::kShapeMismatch, label,
                 ": output channels M = ", w[0], " of filter W ", ShapeString(w),
                 " are not divisible by group ", group);
  PARITY_ENFORCE(w[2] == g.kernel_h && w[3] == g.kernel_w, ErrorKind::kShapeMismatch, label,
                 ": kernel ", g.kernel_h, "x", g.kernel_w, " does not match filter W ",
                 ShapeString(w));
  if (b != nullptr) {
    PARITY_ENFORCE(b->size() == 1 && (*b)[0] == w[0], ErrorKind::kShapeMismatch, label, ": bias b ",
                   ShapeString(*b), " should be [", w[0], "] (filter W ", ShapeString(w), ")");
  }
  ConvOutputDims(label, x, w[0], &g, y_dims);
}

OpSchema& ConvArgs(OpSchema& schema) {
  return schema.Apply(ConvGeometryArgs)
      .Arg("group", ArgType::kInt, int64_t{1},
           "Number of groups: input and output channels split into `group` independent parts.");
}

namespace {

// kRelu: ConvRelu, Y = max(Conv(X, W, b), 0), Relu applied in place after the convolution.
template <bool kRelu, ConvEngine kEngine>
class ConvOp final : public Operator {
 public:
  ConvOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws),
        geometry_(ParseConvGeometry(args(), ConvKind::kConv)),
        group_(Arg<int64_t>("group")),
        dnnl_(geometry_, group_) {
    PARITY_ENFORCE(group_ > 0, ErrorKind::kBadArgument, label(), ": argument 'group' = ", group_,
                   " must be positive");
  }

  void Run() override {
    const Tensor& X = Input(0);
    const Tensor& W = Input(1);
    const Tensor* b = InputSize() == 3 ? &Input(2) : nullptr;
    ConvShape(label(), geometry_, group_, X.dims(), W.dims(), b ? &b->dims() : nullptr, &y_dims_);
    EnforceSameDtype(label(), "X", X.dtype(), "W", W.dtype(), W.dims());
    if (b != nullptr) EnforceSameDtype(label(), "X", X.dtype(), "b", b->dtype(), b->dims());
    Tensor* Y = Output(0);
    Y->Resize(y_dims_);
    DispatchFloatOrDouble(X.dtype(), label(), "X", X.dims(), [&](auto zero) {
      using T = decltype(zero);
      bool done = false;
      if constexpr (kEngine == ConvEngine::kDnnl && std::is_same_v<T, float>) {
        done = dnnl_.Run(X.dims(), W.dims(), y_dims_, X.data<float>(), W.data<float>(),
                         b ? b->data<float>() : nullptr, Y->mutable_data<float>());
      }
      if (!done) Compute<T>(X, W.data<T>(), b ? b->data<T>() : nullptr, Y);
      if constexpr (kRelu) elementwise::ReluInPlace(Y->mutable_data<T>(), Y->numel());
    });
  }

 private:
  template <typename T>
  void Compute(const Tensor& X, const T* w, const T* bias, Tensor* Y) {
    const ConvGeometry& g = geometry_;
    const int64_t N = X.dim(0), C = X.dim(1), H = X.dim(2), W = X.dim(3);
    const int64_t M = Y->dim(1), out_h = Y->dim(2), out_w = Y->dim(3);
    const int64_t out_hw = out_h * out_w;
    const int64_t m_per_group = M / group_;
    const int64_t k = C / group_ * g.kernel_h * g.kernel_w;  // GEMM inner size per group
    const bool pointwise = IsPointwiseConv(g);
    // Unfold a block of output rows at a time, sized so the block's col stays in cache
    // (kConvColBlockBytes) while the GEMMs read it; a block is at least one output row.
    const int64_t col_rows = C * g.kernel_h * g.kernel_w;
    const int64_t rows_per_block =
        pointwise ? out_h : ConvRowsPerBlock(col_rows, out_w, int64_t{sizeof(T)});
    T* col = nullptr;
    if (!pointwise) {
      col_dims_.assign({col_rows, std::min(rows_per_block, out_h) * out_w});
      col_.Resize(col_dims_);  // keeps its storage while large enough
      col = col_.mutable_data<T>();
    }
    const T* x = X.data<T>();
    T* y = Y->mutable_data<T>();
    for (int64_t n = 0; n < N; ++n) {
      const T* image = x + n * C * H * W;
      T* y_n = y + n * M * out_hw;
      if (bias != nullptr) {
        // Start from the bias and let the GEMMs accumulate (beta = 1): one pass over Y.
        for (int64_t m = 0; m < M; ++m) {
          std::fill(y_n + m * out_hw, y_n + (m + 1) * out_hw, bias[m]);
        }
      }
      for (int64_t row_begin = 0; row_begin < out_h; row_begin += rows_per_block) {
        const int64_t row_end = std::min(row_begin + rows_per_block, out_h);
        const int64_t cols = (row_end - row_begin) * out_w;  // GEMM N of this block
        const T* source = image;  // pointwise: the image already is [C, H * W]
        if (!pointwise) {
          Im2Col(image, C, H, W, g, row_begin, row_end, out_w, col);
          source = col;
        }
        for (int64_t grp = 0; grp < group_; ++grp) {
          GemmStrided<T>(false, false, m_per_group, cols, k, T(1), w + grp * m_per_group * k, k,
                         source + grp * k * cols, cols, bias != nullptr ? T(1) : T(0),
                         y_n + grp * m_per_group * out_hw + row_begin * out_w, out_hw);
        }
      }
    }
  }

  const ConvGeometry geometry_;
  const int64_t group_;
  std::vector<int64_t> y_dims_;
  std::vector<int64_t> col_dims_;
  Tensor col_;  // im2col scratch, reused across runs
  DnnlConvForward dnnl_;  // oneDNN's primitives for the last shape (engine DNNL)
};

// Conv's schema but for its docs, shared with ConvRelu.
OpSchema& ConvSchema(OpSchema& schema) {
  return schema.NumInputs(2, 3)
      .NumOutputs(1)
      .Apply(ConvArgs)
      .DifferentiableInputs({0, 1, 2})
      .InputDoc(0, "X", "Input [N, C, H, W], float or double.")
      .InputDoc(1, "filter", "Filter [M, C / group, kernel_h, kernel_w].")
      .InputDoc(2, "bias", "Optional bias [M].")
      .ShapeInference([](const caffe2::OperatorDef&, const ArgumentHelper& args,
                         const std::vector<TensorType>& in) {
        const ConvGeometry g = ParseConvGeometry(args, ConvKind::kConv);
        const int64_t group = args.Get<int64_t>("group");
        PARITY_ENFORCE(group > 0, ErrorKind::kBadArgument, args.op_label(),
                       ": argument 'group' = ", group, " must be positive");
        TensorType y;
        y.dtype = in[0].dtype;
        ConvShape(args.op_label(), g, group, in[0].dims, in[1].dims,
                  in.size() == 3 ? &in[2].dims : nullptr, &y.dims);
        DispatchFloatOrDouble(in[0].dtype, args.op_label(), "X", in[0].dims, [](auto) {});
        for (size_t i = 1; i < in.size(); ++i) {
          EnforceSameDtype(args.op_label(), "X", in[0].dtype, i == 1 ? "W" : "b", in[i].dtype,
                           in[i].dims);
        }
        return std::vector<TensorType>{y};
      });
}

PARITY_OP_SCHEMA(Conv)
    .Apply(ConvSchema)
    .OutputDoc(0, "Y", "Output [N, M, out_h, out_w].")
    .Doc(
        "2-D convolution (NCHW) of X with filter W, optionally plus a per-channel bias; groups "
        "split the channels. Output size per dim: floor((in + pad_head + pad_tail - "
        "(dilation * (kernel - 1) + 1)) / stride) + 1. Engines: DNNL (the default: oneDNN's direct "
        "convolution for float) and IM2COL (im2col and a GEMM per group), which also serves "
        "double.");
PARITY_REGISTER_CPU_OPERATOR_DEFAULT_ENGINE(Conv, "DNNL", ConvOp<false, ConvEngine::kDnnl>);
PARITY_REGISTER_CPU_OPERATOR_WITH_ENGINE(Conv, "IM2COL", ConvOp<false, ConvEngine::kIm2Col>);

PARITY_OP_SCHEMA(ConvRelu)
    .Apply(ConvSchema)
    .OutputDoc(0, "Y", "max(Conv(X, W, b), 0), [N, M, out_h, out_w].")
    .Doc(
        "Conv followed by Relu (Caffe2's ConvRelu; the Conv + Relu fusion): Y = max(Conv(X, W, "
        "b), 0), with Conv's inputs, arguments and output size; NaN stays NaN. Gradient: "
        "ReluGradient on Y, then ConvGradient.");
PARITY_REGISTER_CPU_OPERATOR_DEFAULT_ENGINE(ConvRelu, "DNNL", ConvOp<true, ConvEngine::kDnnl>);
PARITY_REGISTER_CPU_OPERATOR_WITH_ENGINE(ConvRelu, "IM2COL", ConvOp<true, ConvEngine::kIm2Col>);

PARITY_SIZE_PATH(Conv, "the unfolded input split into several row blocks (kConvColBlockBytes)",
                 /*threshold=*/2, /*block=*/0, ConvRowBlocks);
PARITY_SIZE_PATH(ConvRelu, "the unfolded input split into several row blocks (kConvColBlockBytes)",
                 /*threshold=*/2, /*block=*/0, ConvRowBlocks);

}  // namespace

int64_t ConvRowBlocks(const caffe2::OperatorDef& def, const std::vector<std::vector<int64_t>>& in) {
  if (in.size() < 2 || in[0].size() != 4 || in[1].size() != 4) return -1;
  try {
    ConvGeometry g =
        ParseConvGeometry(ArgumentHelper(def, OpSchemaRegistry::Find("Conv")), ConvKind::kConv);
    if (IsPointwiseConv(g)) return -1;
    std::vector<int64_t> y;
    ConvOutputDims(def.type(), in[0], in[1][0], &g, &y);
    const int64_t rows =
        ConvRowsPerBlock(in[0][1] * g.kernel_h * g.kernel_w, y[3], int64_t{sizeof(float)});
    return (y[2] + rows - 1) / rows;
  } catch (const Error&) {
    return -1;
  }
}

}  // namespace parity
