// Dropout and DropoutGrad, from Caffe2's definition (caffe2/operators/dropout_op.cc):
//   Dropout(X) -> (Y[, mask]), ratio in [0, 1). Test mode (is_test != 0): Y = X and the mask, if
//   asked, all true (parity fills what Caffe2 leaves unfilled). Training: each element is kept with
//   probability 1 - ratio, mask = kept, Y = X / (1 - ratio) where kept and 0 elsewhere; training
//   writes both outputs.
//   DropoutGrad(dY[, mask]) -> dX: test mode dX = dY; training dX = dY / (1 - ratio) where the
//   mask is true and 0 elsewhere (the mask holds dY's element count).
// The training draws come from the reference's own generator (seeded from
// DeviceOption.random_seed), so masks are only statistically comparable with production's; given
// a mask, the gradient is exact.
#include <random>

#include "reference/ops/util.h"

namespace parity::reference {
namespace {

template <typename T>
double Ratio(const OpContext<T>& c) {
  // Single precision as the argument is stored, so a ratio just under 1 is judged as given.
  const double ratio = static_cast<float>(c.args.Float("ratio"));
  PARITY_ENFORCE(ratio >= 0 && ratio < 1, ErrorKind::kBadArgument, "ratio ", ratio,
                 " must be in [0, 1)");
  return ratio;
}

template <typename T>
void Dropout(OpContext<T>& c) {
  const double ratio = Ratio(c);
  const bool is_test = c.args.Bool("is_test");
  PARITY_ENFORCE(is_test || c.OutputSize() == 2, ErrorKind::kBadArgument,
                 "training mode (is_test=0) writes Y and mask, got ", c.OutputSize(), " output");
  const Value<T>& x = c.RealInput(0);
  Value<T> y = c.NewReal(x.dims);
  Value<T> mask = c.NewTensor(DType::kBool, x.dims);
  std::bernoulli_distribution keep(1.0 - ratio);
  for (int64_t k = 0; k < x.size(); ++k) {
    const bool kept = is_test || keep(c.runner->rng());
    mask.i()[k] = kept ? 1 : 0;
    // A dropped element is multiplied by 0 (Caffe2's X * scale * mask), so inf and NaN give NaN.
    y.r()[k] = is_test ? x.r()[k] : x.r()[k] / static_cast<T>(1.0 - ratio) * T(kept ? 1 : 0);
  }
  c.SetOutput(0, std::move(y));
  if (c.OutputSize() == 2) c.SetOutput(1, std::move(mask));
}

template <typename T>
void DropoutGrad(OpContext<T>& c) {
  const double ratio = Ratio(c);
  const bool is_test = c.args.Bool("is_test");
  PARITY_ENFORCE(is_test || c.InputSize() == 2, ErrorKind::kBadArgument,
                 "training mode (is_test=0) needs inputs dY and mask");
  const Value<T>& dy = c.RealInput(0);
  Value<T> dx = c.NewReal(dy.dims);
  if (is_test) {
    dx.r() = dy.r();
  } else {
    const Value<T>& mask = c.Input(1);
    PARITY_ENFORCE(mask.dtype == DType::kBool && mask.size() == dy.size(),
                   ErrorKind::kShapeMismatch, "the mask must be bool with as many elements as ",
                   Describe(c, 0), ", got ", Describe(c, 1));
    for (int64_t k = 0; k < dy.size(); ++k) {
      dx.r()[k] = dy.r()[k] / static_cast<T>(1.0 - ratio) * T(mask.i()[k] != 0 ? 1 : 0);
    }
  }
  c.SetOutput(0, std::move(dx));
}

}  // namespace

void RegisterDropoutOps(Registry* r) {
  const ArgTable args = {{"ratio", "0.5"}, {"is_test", "0"}};
  r->Add({"Dropout", 1, 1, 1, 2, args, PARITY_REF_KERNEL(Dropout)}).inplace = {{0, 0}};
  r->Add({"DropoutGrad", 1, 2, 1, 1, args, PARITY_REF_KERNEL(DropoutGrad)}).inplace = {{0, 0}};
}

PARITY_REFERENCE_FAMILY(RegisterDropoutOps);

}  // namespace parity::reference
