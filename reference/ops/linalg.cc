// FC, FCTransposed, FCRelu, MatMul, BatchMatMul: plain triple loops, accumulating in the scalar
// type. FCRelu is FC's kernel, then max(y, 0) on each output (NaN stays NaN).
#include "reference/ops/util.h"

namespace parity::reference {
namespace {

// C[m, n] = sum_k A(m, k) * B(k, n) where A(m, k) = a[a0 + (ta ? k*M + m : m*K + k)] and
// likewise for B; i.e. the row-major matrices stored at offsets a0/b0, optionally transposed.
template <typename T>
void Gemm(const std::vector<T>& a, int64_t a0, bool ta, const std::vector<T>& b, int64_t b0,
          bool tb, int64_t M, int64_t K, int64_t N, std::vector<T>* c, int64_t c0) {
  for (int64_t m = 0; m < M; ++m) {
    for (int64_t n = 0; n < N; ++n) {
      T acc = 0;
      for (int64_t k = 0; k < K; ++k) {
        const T x = a[a0 + (ta ? k * M + m : m * K + k)];
        const T y = b[b0 + (tb ? n * K + k : k * N + n)];
        acc += x * y;
      }
      (*c)[c0 + m * N + n] = acc;
    }
  }
}

// Y = X * W^T + b (FC; W is N x K) or Y = X * W + b (FCTransposed; W is K x N), with X viewed
// as M x K at `axis` and W split at `axis_w`. Y's shape is X's dims before axis, then N.
template <typename T, bool kTransposed>
void FcKernel(OpContext<T>& c) {
  const Value<T>& x = c.RealInput(0);
  const Value<T>& w = c.RealInput(1);
  const Value<T>& b = c.RealInput(2);
  const int64_t axis = CanonicalAxis(c.args.Int("axis"), x.dims.size(), "axis");
  const int64_t axis_w = CanonicalAxis(c.args.Int("axis_w"), w.dims.size(), "axis_w");
  const int64_t M = SizeToDim(x.dims, axis), K = SizeFromDim(x.dims, axis);
  const int64_t N = kTransposed ? SizeFromDim(w.dims, axis_w) : SizeToDim(w.dims, axis_w);
  const int64_t wk = kTransposed ? SizeToDim(w.dims, axis_w) : SizeFromDim(w.dims, axis_w);
  PARITY_ENFORCE(wk == K, ErrorKind::kShapeMismatch, "inner dimensions differ: X ",
                 ShapeString(x.dims), " (axis ", axis, ", K=", K, ") vs W ", ShapeString(w.dims),
                 " (axis_w ", axis_w, ", K=", wk, ")");
  PARITY_ENFORCE(b.dims.size() == 1 && b.dims[0] == N, ErrorKind::kShapeMismatch, "bias ",
                 ShapeString(b.dims), " must be [", N, "] for W ", ShapeString(w.dims));
  Dims ydims(x.dims.begin(), x.dims.begin() + axis);
  ydims.push_back(N);
  Value<T> y = c.NewReal(ydims);
  Gemm(x.r(), 0, false, w.r(), 0, !kTransposed, M, K, N, &y.r(), 0);
  for (int64_t m = 0; m < M; ++m) {
    for (int64_t n = 0; n < N; ++n) y.r()[m * N + n] += b.r()[n];
  }
  c.SetOutput(0, std::move(y));
}

template <typename T>
void FC(OpContext<T>& c) {
  FcKernel<T, false>(c);
}
template <typename T>
void FCTransposed(OpContext<T>& c) {
  FcKernel<T, true>(c);
}
template <typename T>
void FCRelu(OpContext<T>& c) {
  FcKernel<T, false>(c);
  ReluOutput(c, 0);
}

// MatMul: A and B flattened to 2-D at axis_a/axis_b, optionally transposed; Y is 2-D.
template <typename T>
void MatMul(OpContext<T>& c) {
  const Value<T>& a = c.RealInput(0);
  const Value<T>& b = c.RealInput(1);
  const int64_t axa = CanonicalAxis(c.args.Int("axis_a"), a.dims.size(), "axis_a");
  const int64_t axb = CanonicalAxis(c.args.Int("axis_b"), b.dims.size(), "axis_b");
  const bool ta = c.args.Bool("trans_a"), tb = c.args.Bool("trans_b");
  const int64_t a0 = SizeToDim(a.dims, axa), a1 = SizeFromDim(a.dims, axa);
  const int64_t b0 = SizeToDim(b.dims, axb), b1 = SizeFromDim(b.dims, axb);
  const int64_t M = ta ? a1 : a0, K = ta ? a0 : a1;
  const int64_t KB = tb ? b1 : b0, N = tb ? b0 : b1;
  PARITY_ENFORCE(K == KB, ErrorKind::kShapeMismatch, "inner dimensions differ: A ",
                 ShapeString(a.dims), " gives ", M, "x", K, ", B ", ShapeString(b.dims), " gives ",
                 KB, "x", N);
  Value<T> y = c.NewReal({M, N});
  Gemm(a.r(), 0, ta, b.r(), 0, tb, M, K, N, &y.r(), 0);
  if (c.InputSize() == 3) {
    // Caffe2's third input: Y takes its dims (the product's M*N elements, in order).
    const Value<T>& shape = c.Input(2);
    PARITY_ENFORCE(shape.size() == M * N, ErrorKind::kShapeMismatch, "the product is [", M, ", ", N,
                   "] but input 2, whose dims Y takes, is ", ShapeString(shape.dims));
    y.dims = shape.dims;
  }
  c.SetOutput(0, std::move(y));
}

// BatchMatMul: matrices in the last two dims. broadcast=0: same rank >= 2 and equal batch dims.
// broadcast=1: numpy matmul rules (batch dims broadcast; a 1-D A is a row, a 1-D B a column,
// and that dim is dropped from Y; two 1-D inputs give a [1] dot product). trans_a/trans_b
// apply to inputs of rank >= 2 only.
template <typename T>
void BatchMatMul(OpContext<T>& c) {
  const Value<T>& a = c.RealInput(0);
  const Value<T>& b = c.RealInput(1);
  const bool ta = c.args.Bool("trans_a"), tb = c.args.Bool("trans_b");
  const bool bcast = c.args.Bool("broadcast");
  PARITY_ENFORCE(a.dims.size() >= 1 && b.dims.size() >= 1, ErrorKind::kShapeMismatch,
                 "BatchMatMul needs inputs of rank >= 1: A ", ShapeString(a.dims), ", B ",
                 ShapeString(b.dims));
  if (!bcast) {
    PARITY_ENFORCE(a.dims.size() >= 2 && a.dims.size() == b.dims.size(), ErrorKind::kShapeMismatch,
                   "without broadcast, A ", ShapeString(a.dims), " and B ", ShapeString(b.dims),
                   " need the same rank >= 2");
  }
  Dims ad = a.dims, bd = b.dims;
  const bool a_vec = ad.size() == 1, b_vec = bd.size() == 1;
  if (a_vec) ad.insert(ad.begin(), 1);
  if (b_vec) bd.push_back(1);
  const bool eta = ta && !a_vec, etb = tb && !b_vec;
  const size_t ra = ad.size(), rb = bd.size();
  const int64_t M = eta ? ad[ra - 1] : ad[ra - 2], K = eta ? ad[ra - 2] : ad[ra - 1];
  const int64_t KB = etb ? bd[rb - 1] : bd[rb - 2], N = etb ? bd[rb - 2] : bd[rb - 1];
  PARITY_ENFORCE(K == KB, ErrorKind::kShapeMismatch, "inner dimensions differ: A ",
                 ShapeString(a.dims), " vs B ", ShapeString(b.dims));
  const Dims abatch(ad.begin(), ad.end() - 2), bbatch(bd.begin(), bd.end() - 2);
  if (!bcast) {
    PARITY_ENFORCE(abatch == bbatch, ErrorKind::kShapeMismatch, "batch dimensions differ: A ",
                   ShapeString(a.dims), " vs B ", ShapeString(b.dims));
  }
  const Broadcast batch = NumpyBroadcast(abatch, bbatch);
  Dims ydims = batch.dims;
  if (!a_vec) ydims.push_back(M);
  if (!b_vec) ydims.push_back(N);
  if (a_vec && b_vec) ydims = {1};
  Value<T> y = c.NewReal(ydims);
  for (size_t k = 0; k < batch.a.size(); ++k) {
    Gemm(a.r(), batch.a[k] * M * K, eta, b.r(), batch.b[k] * K * N, etb, M, K, N, &y.r(),
         static_cast<int64_t>(k) * M * N);
  }
  c.SetOutput(0, std::move(y));
}

// Trilu: element (i, j) of each matrix over the last two dims kept when j - i >= k (upper) or
// j - i <= k (lower), else 0.
template <typename T>
void Trilu(OpContext<T>& c) {
  const Value<T>& x = c.Input(0);
  PARITY_ENFORCE(x.dims.size() >= 2, ErrorKind::kShapeMismatch, "needs rank >= 2, got ",
                 Describe(c, 0));
  PARITY_ENFORCE(x.is_real() || x.dtype == DType::kInt32 || x.dtype == DType::kInt64,
                 ErrorKind::kShapeMismatch, "needs float, int32 or int64, got ", Describe(c, 0));
  const bool upper = c.args.Bool("upper");
  const int64_t k = c.args.Int("k");
  const int64_t rank = x.dims.size();
  Value<T> y = x.Clone();
  int64_t flat = 0;
  ForEachIndex(x.dims, [&](const Dims& idx) {
    const int64_t i = idx[rank - 2], j = idx[rank - 1];
    if (!(upper ? j - i >= k : j - i <= k)) {
      if (x.is_real()) {
        y.r()[flat] = 0;
      } else {
        y.i()[flat] = 0;
      }
    }
    ++flat;
  });
  c.SetOutput(0, std::move(y));
}

}  // namespace

void RegisterLinalgOps(Registry* r) {
  r->Add({"Trilu", 1, 1, 1, 1, {{"upper", "1"}, {"k", "0"}}, PARITY_REF_KERNEL(Trilu)}).inplace = {
      {0, 0}};
  const ArgTable fc_args = {{"axis", "1"}, {"axis_w", "1"}};
  r->Add({"FC", 3, 3, 1, 1, fc_args, PARITY_REF_KERNEL(FC)});
  r->Add({"FCTransposed", 3, 3, 1, 1, fc_args, PARITY_REF_KERNEL(FCTransposed)});
  r->Add({"FCRelu", 3, 3, 1, 1, fc_args, PARITY_REF_KERNEL(FCRelu)});
  // Caffe2's MatMul takes a third input (NumInputs(2, 3)) whose dims Y takes.
  r->Add({"MatMul",
          2,
          3,
          1,
          1,
          {{"axis_a", "1"}, {"axis_b", "1"}, {"trans_a", "0"}, {"trans_b", "0"}},
          PARITY_REF_KERNEL(MatMul)});
  r->Add({"BatchMatMul",
          2,
          2,
          1,
          1,
          {{"trans_a", "0"}, {"trans_b", "0"}, {"broadcast", "0"}},
          PARITY_REF_KERNEL(BatchMatMul)});
}

PARITY_REFERENCE_FAMILY(RegisterLinalgOps);

}  // namespace parity::reference
