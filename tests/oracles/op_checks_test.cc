// The op-author API on ops whose production kernels and reference both exist, and on a mutant: a
// deliberately wrong kernel registered under a test-only engine must be caught.
#include "oracles/backend.h"
#include "oracles/testing/op_checks.h"

#include "tests/test_util.h"

namespace parity::testing {
namespace {

// FC with the bias dropped: the kind of bug the forward oracle must see.
class FcWithoutBiasMutant final : public Operator {
 public:
  using Operator::Operator;
  void Run() override {
    const Tensor& x = Input(0);
    const Tensor& w = Input(1);
    int64_t m = x.dim(0), k = x.dim(1), n = w.dim(0);
    Tensor* y = Output(0);
    y->Resize({m, n});
    float* out = y->mutable_data<float>();
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        float sum = 0;
        for (int64_t l = 0; l < k; ++l) sum += x.data<float>()[i * k + l] * w.data<float>()[j * k + l];
        out[i * n + j] = sum;
      }
    }
  }
};
PARITY_REGISTER_CPU_OPERATOR_WITH_ENGINE(FC, "MUTANT_TEST_NO_BIAS", FcWithoutBiasMutant);
// The backend under test: production with this one kernel swapped.
PARITY_REGISTER_BACKEND(oracles::MakeProductionBackend("MUTANT_TEST_NO_BIAS", "MUTANT_TEST_NO_BIAS",
                                                      "production with a wrong kernel"));

oracles::NamedTensors FcInputs() {
  return {{"x", MakeTensor<float>({2, 3}, {0.5f, -1.0f, 2.0f, 1.5f, 0.25f, -0.75f})},
          {"w", MakeTensor<float>({2, 3}, {1.0f, 0.5f, -0.5f, -1.0f, 2.0f, 0.3f})},
          {"b", MakeTensor<float>({2}, {0.1f, -0.2f})}};
}

TEST(OpChecks, ReferenceChecksPassOnFc) {
  EXPECT_REFERENCE_CHECKS(MakeOp("FC", {"x", "w", "b"}, {"y"}), FcInputs());
}

TEST(OpChecks, ReferenceChecksCatchAMutant) {
  oracles::CheckOptions options;
  options.backend = "MUTANT_TEST_NO_BIAS";
  ::testing::AssertionResult result =
      oracles::ReferenceChecks(MakeOp("FC", {"x", "w", "b"}, {"y"}), FcInputs(), options);
  ASSERT_FALSE(result);
  std::string message = result.message();
  EXPECT_NE(message.find("value mismatch"), std::string::npos) << message;
  EXPECT_NE(message.find("blamed op #0 (FC)"), std::string::npos) << message;
}

// Runs CPU vs GPU where a device is present; skips with one line where none is.
TEST(OpChecks, DeviceChecksRunOrSkip) {
  EXPECT_DEVICE_CHECKS(MakeOp("FC", {"x", "w", "b"}, {"y"}), FcInputs());
}

}  // namespace
}  // namespace parity::testing
