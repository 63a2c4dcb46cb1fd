// Gradient kernels of FC and FCTransposed (float and double), after Caffe2's
// FullyConnectedGradientOp (fully_connected_op.h). The makers (core/ops/linalg/makers.cc) emit
//
//   FCGradient / FCTransposedGradient (X, W, dY) -> (dW, db[, dX])
//
// with the forward op's `axis` / `axis_w` copied on. X is coerced to [M, K] and W to [N, K] (FC) or
// [K, N] (FCTransposed) exactly as the forward op does (FcShape, linalg.h); dY holds the M x N
// values of Y = X W^T + b (or X W + b). Then
//   FC:           dW [N, K] = dY^T X     FCTransposed: dW [K, N] = X^T dY
//   both:         db [N]    = the column sums of dY (Caffe2 gives db dims [N] even for a bias
//                             stored as [N, 1, ...])
//   FC:           dX [M, K] = dY W       FCTransposed: dX [M, K] = dY W^T
// dX is optional (Caffe2: a gradient op with two outputs computes only dW and db). The products are
// single cblas_?gemm calls on the tensors' memory; outputs keep their buffers across runs.
//
// MatMul and BatchMatMul need no gradient kernels: their makers emit MatMul / BatchMatMul ops.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/operator.h"
#include "core/ops/common/gemm.h"
#include "core/ops/linalg/linalg.h"
#include "core/schema.h"
#include "core/tensor.h"

namespace parity {

FcSizes FcGradientShape(const std::string& label, bool transposed_weight, int64_t axis,
                        int64_t axis_w, const std::vector<int64_t>& x,
                        const std::vector<int64_t>& w, const std::vector<int64_t>& dy,
                        std::vector<int64_t>* y_dims) {
  const FcSizes s = FcShape(label, transposed_weight, axis, axis_w, x, w, nullptr, y_dims);
  // Caffe2 reads dY as M x N values whatever its dims; so does parity, but the count must match.
  PARITY_ENFORCE(CheckedNumElements(dy) == s.M * s.N, ErrorKind::kShapeMismatch, label, ": dY ",
                 ShapeString(dy), " should hold M x N = ", s.M, " x ", s.N,
                 " values (the forward output ", ShapeString(*y_dims), " of X ", ShapeString(x),
                 " and W ", ShapeString(w), ")");
  return s;
}

namespace {

template <bool kTransposedWeight>
class FullyConnectedGradientOp final : public Operator {
 public:
  FullyConnectedGradientOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws), axis_(Arg<int64_t>("axis")), axis_w_(Arg<int64_t>("axis_w")) {}

  void Run() override {
    const Tensor& X = Input(0);
    const Tensor& W = Input(1);
    const Tensor& dY = Input(2);
    const FcSizes s = FcGradientShape(label(), kTransposedWeight, axis_, axis_w_, X.dims(),
                                      W.dims(), dY.dims(), &y_dims_);
    EnforceSameDtype(label(), "X", X.dtype(), "W", W.dtype(), W.dims());
    EnforceSameDtype(label(), "X", X.dtype(), "dY", dY.dtype(), dY.dims());
    DispatchFloatOrDouble(X.dtype(), label(), "X", X.dims(), [&](auto zero) {
      using T = decltype(zero);
      const T* x = X.data<T>();
      const T* w = W.data<T>();
      const T* dy = dY.data<T>();
      Tensor* dW = Output(0);
      dW->Resize(W.dims());
      if (kTransposedWeight) {
        Gemm<T>(true, false, s.K, s.N, s.M, T(1), x, dy, T(0), dW->mutable_data<T>());
      } else {
        Gemm<T>(true, false, s.N, s.K, s.M, T(1), dy, x, T(0), dW->mutable_data<T>());
      }
      Tensor* db = Output(1);
      db_dims_.assign({s.N});
      db->Resize(db_dims_);
      T* bias_grad = db->mutable_data<T>();
      std::fill(bias_grad, bias_grad + s.N, T(0));
      // Row by row: contiguous, vectorizable adds, one pass over dY.
      for (int64_t m = 0; m < s.M; ++m) {
        const T* row = dy + m * s.N;
        for (int64_t n = 0; n < s.N; ++n) bias_grad[n] += row[n];
      }
      if (OutputSize() == 3) {
        Tensor* dX = Output(2);
        dX->Resize(X.dims());
        // FC: dY [M, N] * W [N, K]; FCTransposed: dY [M, N] * W^T, W being [K, N].
        Gemm<T>(false, kTransposedWeight, s.M, s.K, s.N, T(1), dy, w, T(0), dX->mutable_data<T>());
      }
    });
  }

 private:
  const int64_t axis_;
  const int64_t axis_w_;
  std::vector<int64_t> y_dims_;
  std::vector<int64_t> db_dims_;
};

std::vector<TensorType> FcGradientInference(bool transposed_weight, const caffe2::OperatorDef& def,
                                            const ArgumentHelper& args,
                                            const std::vector<TensorType>& in) {
  std::vector<int64_t> y_dims;
  const FcSizes s =
      FcGradientShape(args.op_label(), transposed_weight, args.Get<int64_t>("axis"),
                      args.Get<int64_t>("axis_w"), in[0].dims, in[1].dims, in[2].dims, &y_dims);
  DispatchFloatOrDouble(in[0].dtype, args.op_label(), "X", in[0].dims, [](auto) {});
  EnforceSameDtype(args.op_label(), "X", in[0].dtype, "W", in[1].dtype, in[1].dims);
  EnforceSameDtype(args.op_label(), "X", in[0].dtype, "dY", in[2].dtype, in[2].dims);
  std::vector<TensorType> out(def.output_size());
  for (auto& t : out) t.dtype = in[0].dtype;
  out[0].dims = in[1].dims;
  out[1].dims = {s.N};
  if (out.size() == 3) out[2].dims = in[0].dims;
  return out;
}

OpSchema& FcGradientSchema(OpSchema& schema) {
  return schema.NumInputs(3)
      .NumOutputs(2, 3)
      .Apply(FcArgs)
      .InputDoc(0, "X", "The forward input, float or double, coerced to [M, K] at `axis`.")
      .InputDoc(2, "dY", "Gradient of the forward output Y: M x N values.")
      .OutputDoc(0, "dW", "Gradient of W, with W's dims.")
      .OutputDoc(1, "db", "Gradient of the bias, [N] (column sums of dY).")
      .OutputDoc(2, "dX", "Optional: gradient of X, with X's dims.");
}

PARITY_OP_SCHEMA(FCGradient)
    .Apply(FcGradientSchema)
    .InputDoc(1, "W", "The forward weights, coerced to [N, K] at `axis_w`.")
    .ShapeInference([](const caffe2::OperatorDef& def, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) {
      return FcGradientInference(false, def, args, in);
    })
    .Doc(
        "Gradient of FC (Y = X W^T + b): dW = dY^T X, db = column sums of dY, and with a third "
        "output dX = dY W.");
PARITY_REGISTER_CPU_OPERATOR(FCGradient, FullyConnectedGradientOp<false>);

PARITY_OP_SCHEMA(FCTransposedGradient)
    .Apply(FcGradientSchema)
    .InputDoc(1, "W", "The forward weights, coerced to [K, N] at `axis_w`.")
    .ShapeInference([](const caffe2::OperatorDef& def, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) {
      return FcGradientInference(true, def, args, in);
    })
    .Doc(
        "Gradient of FCTransposed (Y = X W + b): dW = X^T dY, db = column sums of dY, and with "
        "a third output dX = dY W^T.");
PARITY_REGISTER_CPU_OPERATOR(FCTransposedGradient, FullyConnectedGradientOp<true>);

}  // namespace
}  // namespace parity
