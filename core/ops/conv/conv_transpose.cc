// ConvTranspose: 2-D transposed convolution, NCHW, float and double, after Caffe2's
// conv_transpose_op_impl.h.
//
// X [N, C, H, W], filter W [C, M / group, kernel_h, kernel_w], optional bias b [M] ->
// Y [N, M, out_h, out_w], out = (in - 1) * stride - pad_head - pad_tail + dilation * (kernel - 1)
// + 1 + adj. It is the adjoint of Conv with the same geometry: every input pixel scatters its
// filter-weighted copy onto the output. Per image and group, one GEMM spreads the input over the
// kernel taps, col_g [M/G * kh * kw, H * W] = W_g^T [M/G * kh * kw, C/G] * X_g [C/G, H * W], and
// col2im (Col2ImAdd, conv.h: Conv's fold, with Y as the "image" and X's grid as the "output") adds
// the taps onto Y. Caffe2's arguments: the geometry's spellings, and adj as `adj` (both dims),
// `adjs` ([h, w]) or `adj_h` + `adj_w`, one form at a time like the geometry's; `dilation` is taken
// too (ONNX's dilations; Caffe2's op has none), and `group` as later Caffe2 versions have it.
//
// Gradient (makers.cc): ConvTranspose is linear in X and in W, the adjoint of Conv, so dX =
// Conv(dY, W) and dW = ConvGradient(dY, W, X)'s filter gradient (Conv of dY with W seen from the
// other side), db = ReduceSum(dY) over N, H, W: existing ops, no new gradient kernel.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/operator.h"
#include "core/ops/common/conv_geometry.h"
#include "core/ops/common/gemm.h"
#include "core/ops/conv/conv.h"
#include "core/ops/conv/conv_transpose.h"
#include "core/schema.h"

namespace parity {

ConvTransposeAdj ParseConvTransposeAdj(const ArgumentHelper& args, const ConvGeometry& g) {
  const bool has_single = args.Has("adj"), has_list = args.Has("adjs");
  const bool has_h = args.Has("adj_h"), has_w = args.Has("adj_w");
  PARITY_ENFORCE(int{has_single} + int{has_list} + int{has_h || has_w} <= 1,
                 ErrorKind::kBadArgument, args.op_label(),
                 ": give only one of 'adj', 'adjs' or 'adj_h' + 'adj_w'");
  PARITY_ENFORCE(has_h == has_w, ErrorKind::kBadArgument, args.op_label(), ": argument '",
                 has_h ? "adj_h" : "adj_w", "' needs '", has_h ? "adj_w" : "adj_h", "' as well");
  ConvTransposeAdj adj;
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
  // Caffe2 enforces adj < stride: a larger adj would add output rows no input pixel reaches
  // beyond what another stride would, and Conv's output size (the gradient's) could not recover
  // the input's.
  PARITY_ENFORCE(adj.h >= 0 && adj.w >= 0 && adj.h < g.stride_h && adj.w < g.stride_w,
                 ErrorKind::kBadArgument, args.op_label(), ": adj_h = ", adj.h, ", adj_w = ", adj.w,
                 " must be in [0, stride) (stride ", g.stride_h, "x", g.stride_w, ")");
  return adj;
}

void ConvTransposeShape(const std::string& label, const ConvGeometry& g, const ConvTransposeAdj& adj,
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

namespace {

class ConvTransposeOp final : public Operator {
 public:
  ConvTransposeOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws),
        geometry_(ParseConvGeometry(args(), ConvKind::kConv)),
        adj_(ParseConvTransposeAdj(args(), geometry_)),
        group_(Arg<int64_t>("group")) {
    PARITY_ENFORCE(group_ > 0, ErrorKind::kBadArgument, label(), ": argument 'group' = ", group_,
                   " must be positive");
  }

  void Run() override {
    const Tensor& X = Input(0);
    const Tensor& W = Input(1);
    const Tensor* b = InputSize() == 3 ? &Input(2) : nullptr;
    ConvTransposeShape(label(), geometry_, adj_, group_, X.dims(), W.dims(),
                       b ? &b->dims() : nullptr, &y_dims_);
    EnforceSameDtype(label(), "X", X.dtype(), "W", W.dtype(), W.dims());
    if (b != nullptr) EnforceSameDtype(label(), "X", X.dtype(), "b", b->dtype(), b->dims());
    Tensor* Y = Output(0);
    Y->Resize(y_dims_);
    DispatchFloatOrDouble(X.dtype(), label(), "X", X.dims(), [&](auto zero) {
      using T = decltype(zero);
      Compute<T>(X, W.data<T>(), b ? b->data<T>() : nullptr, Y);
    });
  }

 private:
  template <typename T>
  void Compute(const Tensor& X, const T* w, const T* bias, Tensor* Y) {
    const ConvGeometry& g = geometry_;
    const int64_t N = X.dim(0), C = X.dim(1), H = X.dim(2), W = X.dim(3);
    const int64_t M = Y->dim(1), out_h = Y->dim(2), out_w = Y->dim(3);
    const int64_t hw = H * W, out_hw = out_h * out_w;
    const int64_t c_per_group = C / group_;
    const int64_t taps = M / group_ * g.kernel_h * g.kernel_w;  // col rows per group
    col_dims_.assign({group_ * taps, hw});
    col_.Resize(col_dims_);  // keeps its storage while large enough
    T* col = col_.mutable_data<T>();
    const T* x = X.data<T>();
    T* y = Y->mutable_data<T>();
    for (int64_t n = 0; n < N; ++n) {
      const T* image = x + n * C * hw;
      T* y_n = y + n * M * out_hw;
      for (int64_t grp = 0; grp < group_; ++grp) {
        GemmStrided<T>(true, false, taps, hw, c_per_group, T(1), w + grp * c_per_group * taps, taps,
                       image + grp * c_per_group * hw, hw, T(0), col + grp * taps * hw, hw);
      }
      // Start from the bias (or 0) and let col2im accumulate.
      for (int64_t m = 0; m < M; ++m) {
        std::fill(y_n + m * out_hw, y_n + (m + 1) * out_hw, bias ? bias[m] : T(0));
      }
      Col2ImAdd(col, M, out_h, out_w, g, 0, H, W, y_n);
    }
  }

  const ConvGeometry geometry_;
  const ConvTransposeAdj adj_;
  const int64_t group_;
  std::vector<int64_t> y_dims_;
  std::vector<int64_t> col_dims_;
  Tensor col_;  // GEMM output scratch, reused across runs
};

PARITY_OP_SCHEMA(ConvTranspose)
    .NumInputs(2, 3)
    .NumOutputs(1)
    .Apply(ConvArgs)
    .Arg("adj", ArgType::kInt, std::monostate{},
         "Extra output rows and columns at the bottom and right (ONNX's output_padding), in [0, "
         "stride); default 0.")
    .Arg("adjs", ArgType::kInts, std::monostate{}, "adj as [h, w].")
    .Arg("adj_h", ArgType::kInt, std::monostate{}, "adj in H (with adj_w).")
    .Arg("adj_w", ArgType::kInt, std::monostate{}, "adj in W (with adj_h).")
    .DifferentiableInputs({0, 1, 2})
    .InputDoc(0, "X", "Input [N, C, H, W], float or double.")
    .InputDoc(1, "filter", "Filter [C, M / group, kernel_h, kernel_w].")
    .InputDoc(2, "bias", "Optional bias [M].")
    .OutputDoc(0, "Y", "Output [N, M, out_h, out_w].")
    .ShapeInference([](const caffe2::OperatorDef&, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) {
      const ConvGeometry g = ParseConvGeometry(args, ConvKind::kConv);
      const ConvTransposeAdj adj = ParseConvTransposeAdj(args, g);
      const int64_t group = args.Get<int64_t>("group");
      PARITY_ENFORCE(group > 0, ErrorKind::kBadArgument, args.op_label(),
                     ": argument 'group' = ", group, " must be positive");
      TensorType y;
      y.dtype = in[0].dtype;
      ConvTransposeShape(args.op_label(), g, adj, group, in[0].dims, in[1].dims,
                         in.size() == 3 ? &in[2].dims : nullptr, &y.dims);
      DispatchFloatOrDouble(in[0].dtype, args.op_label(), "X", in[0].dims, [](auto) {});
      for (size_t i = 1; i < in.size(); ++i) {
        EnforceSameDtype(args.op_label(), "X", in[0].dtype, i == 1 ? "W" : "b", in[i].dtype,
                         in[i].dims);
      }
      return std::vector<TensorType>{y};
    })
    .Doc(
        "2-D transposed convolution (NCHW; Caffe2's ConvTranspose), the adjoint of Conv with the "
        "same geometry: each input pixel adds its filter-weighted copy onto the output, plus a "
        "per-channel bias. Output size per dim: (in - 1) * stride - pad_head - pad_tail + "
        "dilation * (kernel - 1) + 1 + adj.");
PARITY_REGISTER_CPU_OPERATOR(ConvTranspose, ConvTransposeOp);

}  // namespace
}  // namespace parity
