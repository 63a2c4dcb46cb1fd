// Linear algebra: FC, FCTransposed, FCRelu, MatMul, BatchMatMul (float and double), after Caffe2's
// fully_connected_op.h, matmul_op.h and batch_matmul_op.h (the newer pytorch/caffe2 versions).
// FCRelu is FC followed by Relu in one op (what the FC + Relu fusion transform makes): FC's
// kernel, then Relu in place on its output.
//
// Every op computes its output shape with one function over plain dims, called both by the kernel
// and by shape inference, so that both raise the same errors. Kernels keep their output dims (and
// BatchMatMul its batch plan) in members, so repeated runs at one shape do not allocate; the
// products themselves are single cblas_?gemm calls on the tensors' memory (no copies).
#include "core/ops/linalg/linalg.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/operator.h"
#include "core/ops/common/elementwise.h"
#include "core/ops/common/gemm.h"
#include "core/schema.h"

namespace parity {
namespace {

// Product of dims[begin, end); kResourceLimit on overflow (dims from shape inference are
// unchecked user data).
int64_t DimProduct(const std::vector<int64_t>& dims, size_t begin, size_t end) {
  int64_t product = 1;
  for (size_t i = begin; i < end; ++i) {
    PARITY_ENFORCE(dims[i] >= 0, ErrorKind::kBadArgument, "negative dim in ", ShapeString(dims));
    if (dims[i] != 0 && product > std::numeric_limits<int64_t>::max() / dims[i]) {
      throw MakeError(ErrorKind::kResourceLimit, "element count of ", ShapeString(dims),
                      " overflows int64");
    }
    product *= dims[i];
  }
  return product;
}

// Caffe2's canonical_axis_index: axis in [-rank, rank), negative counting from the end.
size_t CanonicalAxis(const std::string& label, const char* arg, int64_t axis, const char* blob,
                     const std::vector<int64_t>& dims) {
  const int64_t rank = static_cast<int64_t>(dims.size());
  PARITY_ENFORCE(axis >= -rank && axis < rank, ErrorKind::kBadArgument, label, ": argument '", arg,
                 "' = ", axis, " is out of range for ", blob, " ", ShapeString(dims), " of rank ",
                 rank);
  return static_cast<size_t>(axis < 0 ? axis + rank : axis);
}

// ---------------------------------------------------------------------------------------------
// FC and FCTransposed: X coerced to [M, K] at `axis`; W to [N, K] (FC) or [K, N] (FCTransposed) at
// `axis_w`; Y = X * W^T + b (FC) or X * W + b, with dims X.dims[:axis] + [N].

}  // namespace

FcSizes FcShape(const std::string& label, bool transposed_weight, int64_t axis, int64_t axis_w,
                const std::vector<int64_t>& x, const std::vector<int64_t>& w,
                const std::vector<int64_t>* b, std::vector<int64_t>* y_dims) {
  const size_t ax = CanonicalAxis(label, "axis", axis, "X", x);
  const size_t ax_w = CanonicalAxis(label, "axis_w", axis_w, "W", w);
  FcSizes s;
  s.M = DimProduct(x, 0, ax);
  s.K = DimProduct(x, ax, x.size());
  const int64_t w_head = DimProduct(w, 0, ax_w);
  const int64_t w_tail = DimProduct(w, ax_w, w.size());
  s.N = transposed_weight ? w_tail : w_head;
  const int64_t w_k = transposed_weight ? w_head : w_tail;
  PARITY_ENFORCE(w_k == s.K, ErrorKind::kShapeMismatch, label, ": X ", ShapeString(x),
                 " has inner size K = ", s.K, " from axis ", ax, ", but W ", ShapeString(w),
                 transposed_weight ? " (as [K, N] = [" : " (as [N, K] = [",
                 transposed_weight ? w_k : s.N, ", ", transposed_weight ? s.N : w_k,
                 "] at axis_w ", ax_w, ") has K = ", w_k);
  if (b != nullptr) {
    // Caffe2 asks b.dim(0) == N and b.numel() == N, so [N] and [N, 1, ...] both pass.
    PARITY_ENFORCE(!b->empty() && (*b)[0] == s.N && DimProduct(*b, 0, b->size()) == s.N,
                   ErrorKind::kShapeMismatch, label, ": bias b ", ShapeString(*b),
                   " should have N = ", s.N, " elements (W ", ShapeString(w), ")");
  }
  y_dims->assign(x.begin(), x.begin() + ax);
  y_dims->push_back(s.N);
  return s;
}

namespace {

// kRelu: FCRelu, Y = max(FC(X, W, b), 0), Relu applied in place after the GEMM.
template <bool kTransposedWeight, bool kRelu = false>
class FullyConnectedOp final : public Operator {
 public:
  FullyConnectedOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws), axis_(Arg<int64_t>("axis")), axis_w_(Arg<int64_t>("axis_w")) {}

  void Run() override {
    const Tensor& X = Input(0);
    const Tensor& W = Input(1);
    const Tensor& b = Input(2);
    const FcSizes s = FcShape(label(), kTransposedWeight, axis_, axis_w_, X.dims(), W.dims(),
                              &b.dims(), &y_dims_);
    EnforceSameDtype(label(), "X", X.dtype(), "W", W.dtype(), W.dims());
    EnforceSameDtype(label(), "X", X.dtype(), "b", b.dtype(), b.dims());
    Tensor* Y = Output(0);
    Y->Resize(y_dims_);
    DispatchFloatOrDouble(X.dtype(), label(), "X", X.dims(), [&](auto zero) {
      using T = decltype(zero);
      T* y = Y->mutable_data<T>();
      const T* bias = b.data<T>();
      // Y starts as the bias in every row; the GEMM then accumulates onto it (beta = 1), which
      // costs one pass over Y instead of a separate bias pass after the product.
      for (int64_t i = 0; i < s.M; ++i) std::copy(bias, bias + s.N, y + i * s.N);
      Gemm<T>(false, !kTransposedWeight, s.M, s.N, s.K, T(1), X.data<T>(), W.data<T>(), T(1), y);
      if constexpr (kRelu) elementwise::ReluInPlace(y, s.M * s.N);
    });
  }

 private:
  const int64_t axis_;
  const int64_t axis_w_;
  std::vector<int64_t> y_dims_;
};

std::vector<TensorType> FcInference(bool transposed_weight, const ArgumentHelper& args,
                                    const std::vector<TensorType>& in) {
  TensorType y;
  y.dtype = in[0].dtype;
  FcShape(args.op_label(), transposed_weight, args.Get<int64_t>("axis"),
          args.Get<int64_t>("axis_w"), in[0].dims, in[1].dims, &in[2].dims, &y.dims);
  DispatchFloatOrDouble(in[0].dtype, args.op_label(), "X", in[0].dims, [](auto) {});
  EnforceSameDtype(args.op_label(), "X", in[0].dtype, "W", in[1].dtype, in[1].dims);
  EnforceSameDtype(args.op_label(), "X", in[0].dtype, "b", in[2].dtype, in[2].dims);
  return {y};
}

}  // namespace

OpSchema& FcArgs(OpSchema& schema) {
  return schema
      .Arg("axis", ArgType::kInt, int64_t{1},
           "X is coerced to 2-D [M, K] with M = prod(X.dims[:axis]), K = prod(X.dims[axis:]); "
           "negative counts from the end.")
      .Arg("axis_w", ArgType::kInt, int64_t{1},
           "W is coerced to 2-D the same way at this axis; negative counts from the end.");
}

namespace {

OpSchema& FcSchema(OpSchema& schema) {
  return schema.NumInputs(3)
      .NumOutputs(1)
      .Apply(FcArgs)
      .DifferentiableInputs({0, 1, 2})
      .InputDoc(0, "X", "Input, float or double, coerced to [M, K] at `axis`.")
      .OutputDoc(0, "Y", "Output with dims X.dims[:axis] + [N].");
}

PARITY_OP_SCHEMA(FC)
    .Apply(FcSchema)
    .InputDoc(1, "W", "Weights, coerced to [N, K] at `axis_w`.")
    .InputDoc(2, "b", "Bias with N elements (dims [N], or [N, 1, ...]).")
    .ShapeInference([](const caffe2::OperatorDef&, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) { return FcInference(false, args, in); })
    .Doc("Fully connected layer: Y = X * W^T + b, with X coerced to [M, K] at `axis` and W to "
         "[N, K] at `axis_w`.");
PARITY_REGISTER_CPU_OPERATOR(FC, FullyConnectedOp<false>);

PARITY_OP_SCHEMA(FCTransposed)
    .Apply(FcSchema)
    .InputDoc(1, "W", "Weights, coerced to [K, N] at `axis_w` (the transpose of FC's).")
    .InputDoc(2, "b", "Bias with N elements (dims [N], or [N, 1, ...]).")
    .ShapeInference([](const caffe2::OperatorDef&, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) { return FcInference(true, args, in); })
    .Doc("Fully connected layer with pre-transposed weights: Y = X * W + b, with X coerced to "
         "[M, K] at `axis` and W to [K, N] at `axis_w`.");
PARITY_REGISTER_CPU_OPERATOR(FCTransposed, FullyConnectedOp<true>);

// FCRelu: FC's inputs, arguments, checks and shape inference; Y = max(FC(X, W, b), 0).
PARITY_OP_SCHEMA(FCRelu)
    .Apply(FcSchema)
    .InputDoc(1, "W", "Weights, coerced to [N, K] at `axis_w`.")
    .InputDoc(2, "b", "Bias with N elements (dims [N], or [N, 1, ...]).")
    .OutputDoc(0, "Y", "max(FC(X, W, b), 0), with dims X.dims[:axis] + [N].")
    .ShapeInference([](const caffe2::OperatorDef&, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) { return FcInference(false, args, in); })
    .Doc(
        "FC followed by Relu (the FC + Relu fusion): Y = max(X * W^T + b, 0), with X coerced to "
        "[M, K] at `axis` and W to [N, K] at `axis_w`; NaN stays NaN. Gradient: ReluGradient "
        "on Y, then FCGradient.");
PARITY_REGISTER_CPU_OPERATOR(FCRelu, FullyConnectedOp<false, true>);

// ---------------------------------------------------------------------------------------------
// MatMul: A coerced to 2-D at axis_a, B at axis_b, each optionally transposed; Y = op(A) * op(B),
// [M, N]. An optional third input only gives Y its dims (Caffe2 uses it in the gradient to restore
// an input's shape); its element count must be M * N.

}  // namespace

MatMulSizes MatMulShape(const std::string& label, int64_t axis_a, int64_t axis_b, bool trans_a,
                        bool trans_b, const std::vector<int64_t>& a, const std::vector<int64_t>& b,
                        const std::vector<int64_t>* shape_like, std::vector<int64_t>* y_dims) {
  const size_t ax_a = CanonicalAxis(label, "axis_a", axis_a, "A", a);
  const size_t ax_b = CanonicalAxis(label, "axis_b", axis_b, "B", b);
  const int64_t a0 = DimProduct(a, 0, ax_a), a1 = DimProduct(a, ax_a, a.size());
  const int64_t b0 = DimProduct(b, 0, ax_b), b1 = DimProduct(b, ax_b, b.size());
  MatMulSizes s;
  s.M = trans_a ? a1 : a0;
  s.K = trans_a ? a0 : a1;
  s.N = trans_b ? b0 : b1;
  const int64_t k_b = trans_b ? b1 : b0;
  PARITY_ENFORCE(s.K == k_b, ErrorKind::kShapeMismatch, label, ": ", trans_a ? "trans(A)" : "A",
                 " is [", s.M, ", ", s.K, "] (A ", ShapeString(a), " at axis_a ", ax_a, ") but ",
                 trans_b ? "trans(B)" : "B", " is [", k_b, ", ", s.N, "] (B ", ShapeString(b),
                 " at axis_b ", ax_b, "): inner sizes K ", s.K, " and ", k_b, " differ");
  if (shape_like != nullptr) {
    PARITY_ENFORCE(DimProduct(*shape_like, 0, shape_like->size()) == s.M * s.N,
                   ErrorKind::kShapeMismatch, label, ": the product is [", s.M, ", ", s.N,
                   "] but input 2 (the shape to give Y) is ", ShapeString(*shape_like));
    y_dims->assign(shape_like->begin(), shape_like->end());
  } else {
    y_dims->assign({s.M, s.N});
  }
  return s;
}

namespace {

class MatMulOp final : public Operator {
 public:
  MatMulOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws),
        axis_a_(Arg<int64_t>("axis_a")),
        axis_b_(Arg<int64_t>("axis_b")),
        trans_a_(Arg<bool>("trans_a")),
        trans_b_(Arg<bool>("trans_b")) {}

  void Run() override {
    const Tensor& A = Input(0);
    const Tensor& B = Input(1);
    const MatMulSizes s = MatMulShape(label(), axis_a_, axis_b_, trans_a_, trans_b_, A.dims(),
                                      B.dims(), InputSize() == 3 ? &Input(2).dims() : nullptr,
                                      &y_dims_);
    EnforceSameDtype(label(), "A", A.dtype(), "B", B.dtype(), B.dims());
    Tensor* Y = Output(0);
    Y->Resize(y_dims_);
    DispatchFloatOrDouble(A.dtype(), label(), "A", A.dims(), [&](auto zero) {
      using T = decltype(zero);
      Gemm<T>(trans_a_, trans_b_, s.M, s.N, s.K, T(1), A.data<T>(), B.data<T>(), T(0),
              Y->mutable_data<T>());
    });
  }

 private:
  const int64_t axis_a_;
  const int64_t axis_b_;
  const bool trans_a_;
  const bool trans_b_;
  std::vector<int64_t> y_dims_;
};

PARITY_OP_SCHEMA(MatMul)
    .NumInputs(2, 3)
    .NumOutputs(1)
    .Arg("axis_a", ArgType::kInt, int64_t{1},
         "A is coerced to 2-D [prod(dims[:axis_a]), prod(dims[axis_a:])]; negative counts from "
         "the end.")
    .Arg("axis_b", ArgType::kInt, int64_t{1}, "B is coerced to 2-D the same way at axis_b.")
    .Arg("trans_a", ArgType::kInt, int64_t{0}, "1: use the transpose of (2-D) A.")
    .Arg("trans_b", ArgType::kInt, int64_t{0}, "1: use the transpose of (2-D) B.")
    .DifferentiableInputs({0, 1})
    .InputDoc(0, "A", "Left matrix (float or double), coerced to 2-D at axis_a.")
    .InputDoc(1, "B", "Right matrix, coerced to 2-D at axis_b.")
    .InputDoc(2, "shape_like", "Optional: Y takes this tensor's dims (same element count).")
    .OutputDoc(0, "Y", "op(A) * op(B), [M, N] (or input 2's dims).")
    .ShapeInference([](const caffe2::OperatorDef&, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) {
      TensorType y;
      y.dtype = in[0].dtype;
      MatMulShape(args.op_label(), args.Get<int64_t>("axis_a"), args.Get<int64_t>("axis_b"),
                  args.Get<bool>("trans_a"), args.Get<bool>("trans_b"), in[0].dims, in[1].dims,
                  in.size() == 3 ? &in[2].dims : nullptr, &y.dims);
      DispatchFloatOrDouble(in[0].dtype, args.op_label(), "A", in[0].dims, [](auto) {});
      EnforceSameDtype(args.op_label(), "A", in[0].dtype, "B", in[1].dtype, in[1].dims);
      return std::vector<TensorType>{y};
    })
    .Doc("Matrix product Y = op(A) * op(B) of A and B coerced to 2-D at axis_a / axis_b, op being "
         "the transpose when trans_a / trans_b is 1.");
PARITY_REGISTER_CPU_OPERATOR(MatMul, MatMulOp);

// ---------------------------------------------------------------------------------------------
// BatchMatMul: Y[..., M, N] = op(A[..., :, :]) * op(B[..., :, :]) over batch dims (newer Caffe2):
//   - both 1-D: the dot product, Y is [1];
//   - A 1-D [K]: A is taken as a row [1, K] (trans_a ignored), and Y drops that M dim;
//   - B 1-D [K]: B is taken as a column [K, 1] (trans_b ignored), and Y drops that N dim;
//   - the batch dims (all but the last two) broadcast numpy-style, aligned from the right. Unless
//     an operand is 1-D, batch dims that differ after left-padding with 1s need broadcast=1.
// Divergence from Caffe2: for B 1-D with trans_a=1, Caffe2 sizes Y as A.dims[:-1], which holds K
// (not M) entries per batch and is wrong whenever M != K; parity gives A.dims[:-2] + [M].

}  // namespace

void PlanBatchMatMul(const std::string& label, const std::vector<int64_t>& a,
                     const std::vector<int64_t>& b, bool trans_a, bool trans_b, bool broadcast,
                     BatchMatMulPlan* p, std::vector<int64_t>* y_dims) {
  PARITY_ENFORCE(!a.empty() && !b.empty(), ErrorKind::kShapeMismatch, label,
                 ": takes tensors of rank >= 1, got A ", ShapeString(a), " and B ", ShapeString(b));
  p->y_batch_dims.clear();
  p->a_strides.clear();
  p->b_strides.clear();
  p->a_batch = p->b_batch = p->y_batch = 1;
  if (a.size() == 1 && b.size() == 1) {
    PARITY_ENFORCE(a[0] == b[0], ErrorKind::kShapeMismatch, label, ": the dot product of A ",
                   ShapeString(a), " and B ", ShapeString(b), " needs vectors of one size");
    p->M = p->N = 1;
    p->K = a[0];
    p->trans_a = p->trans_b = false;
    y_dims->assign({1});
    return;
  }
  const bool a_vector = a.size() == 1, b_vector = b.size() == 1;
  p->trans_a = trans_a && !a_vector;
  p->trans_b = trans_b && !b_vector;
  // Rows and columns of each operand as stored (a vector A is a row, a vector B a column).
  const int64_t a_rows = a_vector ? 1 : a[a.size() - 2], a_cols = a.back();
  const int64_t b_rows = b_vector ? b[0] : b[b.size() - 2], b_cols = b_vector ? 1 : b.back();
  p->M = p->trans_a ? a_cols : a_rows;
  p->K = p->trans_a ? a_rows : a_cols;
  const int64_t k_b = p->trans_b ? b_cols : b_rows;
  p->N = p->trans_b ? b_rows : b_cols;
  PARITY_ENFORCE(p->K == k_b, ErrorKind::kShapeMismatch, label, ": A ", ShapeString(a),
                 " (trans_a=", trans_a, ") has inner size K = ", p->K, " but B ", ShapeString(b),
                 " (trans_b=", trans_b, ") has ", k_b);
  const size_t a_nb = a_vector ? 0 : a.size() - 2, b_nb = b_vector ? 0 : b.size() - 2;
  const size_t nb = std::max(a_nb, b_nb);
  bool same_batch_dims = true;
  for (size_t d = 0; d < nb; ++d) {
    // Left-pad the shorter batch shape with 1s.
    const int64_t da = d + a_nb >= nb ? a[d + a_nb - nb] : 1;
    const int64_t db = d + b_nb >= nb ? b[d + b_nb - nb] : 1;
    PARITY_ENFORCE(da == db || da == 1 || db == 1, ErrorKind::kShapeMismatch, label,
                   ": batch dims of A ", ShapeString(a), " and B ", ShapeString(b),
                   " do not broadcast (", da, " vs ", db, ")");
    same_batch_dims = same_batch_dims && da == db;
    p->y_batch_dims.push_back(da == 1 ? db : da);
    p->a_strides.push_back(da == 1 ? 0 : 1);  // turned into strides below
    p->b_strides.push_back(db == 1 ? 0 : 1);
    p->a_batch *= da;
    p->b_batch *= db;
    p->y_batch *= p->y_batch_dims.back();
  }
  PARITY_ENFORCE(same_batch_dims || broadcast || a_vector || b_vector, ErrorKind::kShapeMismatch,
                 label, ": batch dims of A ", ShapeString(a), " and B ", ShapeString(b),
                 " differ; BatchMatMul broadcasts them only with broadcast=1");
  // Strides in matrices, innermost batch dim last.
  int64_t a_stride = 1, b_stride = 1;
  for (size_t d = nb; d-- > 0;) {
    const int64_t size = p->y_batch_dims[d];
    if (p->a_strides[d]) {
      p->a_strides[d] = a_stride;
      a_stride *= size;
    }
    if (p->b_strides[d]) {
      p->b_strides[d] = b_stride;
      b_stride *= size;
    }
  }
  y_dims->assign(p->y_batch_dims.begin(), p->y_batch_dims.end());
  if (!a_vector) y_dims->push_back(p->M);
  if (!b_vector) y_dims->push_back(p->N);
}

namespace {

class BatchMatMulOp final : public Operator {
 public:
  BatchMatMulOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws),
        trans_a_(Arg<bool>("trans_a")),
        trans_b_(Arg<bool>("trans_b")),
        broadcast_(Arg<bool>("broadcast")) {}

  void Run() override {
    const Tensor& A = Input(0);
    const Tensor& B = Input(1);
    PlanBatchMatMul(label(), A.dims(), B.dims(), trans_a_, trans_b_, broadcast_, &plan_,
                    &y_dims_);
    EnforceSameDtype(label(), "A", A.dtype(), "B", B.dtype(), B.dims());
    Tensor* Y = Output(0);
    Y->Resize(y_dims_);
    DispatchFloatOrDouble(A.dtype(), label(), "A", A.dims(), [&](auto zero) {
      using T = decltype(zero);
      Compute(A.data<T>(), B.data<T>(), Y->mutable_data<T>());
    });
  }

 private:
  template <typename T>
  void Compute(const T* a, const T* b, T* y) const {
    const BatchMatMulPlan& p = plan_;
    if (p.y_batch == 0) return;
    if (p.b_batch == 1 && !p.trans_a) {
      // B is shared by every batch and A's batches are contiguous [M, K] blocks: one GEMM over
      // [y_batch * M, K] does them all (this also covers a 1-D B).
      Gemm<T>(false, p.trans_b, p.y_batch * p.M, p.N, p.K, T(1), a, b, T(0), y);
      return;
    }
    const int64_t a_size = p.M * p.K, b_size = p.K * p.N, y_size = p.M * p.N;
    const size_t nb = p.y_batch_dims.size();
    for (int64_t i = 0; i < p.y_batch; ++i) {
      // Offsets of batch i in A and B: decompose i over Y's batch dims.
      int64_t rest = i, a_index = 0, b_index = 0;
      for (size_t d = nb; d-- > 0;) {
        const int64_t coord = rest % p.y_batch_dims[d];
        rest /= p.y_batch_dims[d];
        a_index += coord * p.a_strides[d];
        b_index += coord * p.b_strides[d];
      }
      Gemm<T>(p.trans_a, p.trans_b, p.M, p.N, p.K, T(1), a + a_index * a_size,
              b + b_index * b_size, T(0), y + i * y_size);
    }
  }

  const bool trans_a_;
  const bool trans_b_;
  const bool broadcast_;
  BatchMatMulPlan plan_;
  std::vector<int64_t> y_dims_;
};

PARITY_OP_SCHEMA(BatchMatMul)
    .NumInputs(2)
    .NumOutputs(1)
    .Arg("trans_a", ArgType::kInt, int64_t{0},
         "1: transpose the last two dims of A before multiplying.")
    .Arg("trans_b", ArgType::kInt, int64_t{0},
         "1: transpose the last two dims of B before multiplying.")
    .Arg("broadcast", ArgType::kInt, int64_t{0},
         "1: broadcast the batch dims numpy-style (as numpy.matmul); 0: they must match.")
    .DifferentiableInputs({0, 1})
    .InputDoc(0, "A", "[..., M, K] (or [..., K, M] with trans_a), or a vector [K].")
    .InputDoc(1, "B", "[..., K, N] (or [..., N, K] with trans_b), or a vector [K].")
    .OutputDoc(0, "Y", "[batch..., M, N]; the M (N) dim is dropped for a 1-D A (B).")
    .ShapeInference([](const caffe2::OperatorDef&, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) {
      TensorType y;
      y.dtype = in[0].dtype;
      BatchMatMulPlan plan;
      PlanBatchMatMul(args.op_label(), in[0].dims, in[1].dims, args.Get<bool>("trans_a"),
                      args.Get<bool>("trans_b"), args.Get<bool>("broadcast"), &plan, &y.dims);
      DispatchFloatOrDouble(in[0].dtype, args.op_label(), "A", in[0].dims, [](auto) {});
      EnforceSameDtype(args.op_label(), "A", in[0].dtype, "B", in[1].dtype, in[1].dims);
      return std::vector<TensorType>{y};
    })
    .Doc("Batched matrix product Y[i] = op(A[i]) * op(B[i]) over the leading (batch) dims, with "
         "numpy.matmul's rules for 1-D operands and, with broadcast=1, for batch dims.");
PARITY_REGISTER_CPU_OPERATOR(BatchMatMul, BatchMatMulOp);

}  // namespace
}  // namespace parity
