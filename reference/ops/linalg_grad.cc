// Gradient kernels of the linear-algebra family: FC and FCTransposed. Conventions are Caffe2's and
// are tabulated in interpreter.h.
#include <cmath>

#include "reference/ops/util.h"

namespace parity::reference {
namespace {

// FCGradient(X, W, dY) -> (dW, db[, dX]) with X viewed as M x K at `axis` and W as N x K
// (FCTransposedGradient: W is K x N): dW = dY^T X (or X^T dY), db = column sums of dY,
// dX = dY W (or dY W^T).
template <typename T, bool kTransposed>
void FcGradientKernel(OpContext<T>& c) {
  const Value<T>& x = c.RealInput(0);
  const Value<T>& w = c.RealInput(1);
  const Value<T>& dy = c.RealInput(2);
  const int64_t axis = CanonicalAxis(c.args.Int("axis"), x.dims.size(), "axis");
  const int64_t axis_w = CanonicalAxis(c.args.Int("axis_w"), w.dims.size(), "axis_w");
  const int64_t M = SizeToDim(x.dims, axis), K = SizeFromDim(x.dims, axis);
  const int64_t N = kTransposed ? SizeFromDim(w.dims, axis_w) : SizeToDim(w.dims, axis_w);
  const int64_t wk = kTransposed ? SizeToDim(w.dims, axis_w) : SizeFromDim(w.dims, axis_w);
  PARITY_ENFORCE(wk == K, ErrorKind::kShapeMismatch, "inner dimensions differ: X ",
                 ShapeString(x.dims), " vs W ", ShapeString(w.dims));
  PARITY_ENFORCE(dy.size() == M * N, ErrorKind::kShapeMismatch, Describe(c, 2), " must hold ", M,
                 "x", N, " values");
  Value<T> dw = c.NewReal(w.dims), db = c.NewReal({N}), dx = c.NewReal(x.dims);
  for (int64_t m = 0; m < M; ++m) {
    for (int64_t n = 0; n < N; ++n) {
      const T g = dy.r()[m * N + n];
      db.r()[n] += g;
      for (int64_t k = 0; k < K; ++k) {
        const int64_t wi = kTransposed ? k * N + n : n * K + k;
        dw.r()[wi] += g * x.r()[m * K + k];
        dx.r()[m * K + k] += g * w.r()[wi];
      }
    }
  }
  c.SetOutput(0, std::move(dw));
  c.SetOutput(1, std::move(db));
  if (c.OutputSize() > 2) c.SetOutput(2, std::move(dx));
}

template <typename T>
void FCGradient(OpContext<T>& c) {
  FcGradientKernel<T, false>(c);
}
template <typename T>
void FCTransposedGradient(OpContext<T>& c) {
  FcGradientKernel<T, true>(c);
}

}  // namespace

void RegisterLinalgGradientOps(Registry* r) {
  const ArgTable fc_args = {{"axis", "1"}, {"axis_w", "1"}};
  r->Add({"FCGradient", 3, 3, 2, 3, fc_args, PARITY_REF_KERNEL(FCGradient)});
  r->Add({"FCTransposedGradient", 3, 3, 2, 3, fc_args, PARITY_REF_KERNEL(FCTransposedGradient)});
}

PARITY_REFERENCE_FAMILY(RegisterLinalgGradientOps);

}  // namespace parity::reference
