// A backend added from test code, with no change anywhere else: production with its Relu kernel
// swapped for a leaky one (negative inputs pass at 0.1). Linked into a test build of the command
// line (BUILD: parity_with_test_backends), it is reachable by name from `parity run/check/fuzz/
// repro --engine production-swapped-relu`, exactly like the built-in backends.
#include "core/operator.h"
#include "core/tensor.h"
#include "oracles/backend.h"

namespace parity::seam {
namespace {

class LeakyReluBug final : public Operator {
 public:
  using Operator::Operator;
  void Run() override {
    const Tensor& x = Input(0);
    Tensor* y = Output(0);
    y->Resize(x.dims());
    const float* in = x.data<float>();
    float* out = y->mutable_data<float>();
    for (int64_t i = 0; i < x.numel(); ++i) out[i] = in[i] > 0 ? in[i] : 0.1f * in[i];
  }
};

PARITY_REGISTER_CPU_OPERATOR_WITH_ENGINE(Relu, "SEAM_LEAKY_RELU", LeakyReluBug);
PARITY_REGISTER_BACKEND(oracles::MakeProductionBackend(
    "production-swapped-relu", "SEAM_LEAKY_RELU",
    "production with a leaky Relu kernel (a test-only backend)"));

}  // namespace
}  // namespace parity::seam
