// The gradient oracle checks each input's gradient with its own projection and tolerance: a bias
// gradient 10% off, hidden in one vᵀJu over a wide FC's weights and inputs, is found and named.
#include <gtest/gtest.h>

#include <memory>

#include "core/operator.h"
#include "core/tensor_proto.h"
#include "oracles/backend.h"
#include "oracles/check.h"
#include "oracles/testing/op_checks.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

// FCGradient (X, W, dY) -> (dW, db, dX) with db scaled by 1.1: the default kernel, then the bug.
class FcGradientBiasOff final : public Operator {
 public:
  using Operator::Operator;
  void Run() override {
    caffe2::OperatorDef inner = def();
    inner.clear_engine();
    std::unique_ptr<Operator> op =
        (*OperatorRegistry::Find("FCGradient", kCpuDeviceType, ""))(inner, workspace());
    op->Run();
    Tensor* db = Output(1);
    for (int64_t i = 0; i < db->numel(); ++i) db->mutable_data<float>()[i] *= 1.1f;
  }
};
PARITY_REGISTER_CPU_OPERATOR_WITH_ENGINE(FCGradient, "PER_INPUT_DB_OFF", FcGradientBiasOff);
PARITY_REGISTER_BACKEND(oracles::MakeProductionBackend("per-input-db-off", "PER_INPUT_DB_OFF",
                                                       "FCGradient with db 10% off"));

TEST(GradientPerInput, ASmallInputsWrongGradientIsFoundAndNamed) {
  // y = FC(x [32, 48], w [3, 48], b [3]): x and w hold 1,680 elements, b three.
  Case c = oracles::SingleOpCase(
      MakeOp("FC", {"x", "w", "b"}, {"y"}),
      {{"x", RandomTensor({32, 48}, 1)}, {"w", RandomTensor({3, 48}, 2)}, {"b", RandomTensor({3}, 3)}});
  oracles::CheckRequest request;
  request.oracles = {"gradient"};
  EXPECT_EQ(oracles::CheckCase(c, request).verdicts(0).status(), OracleVerdict::OK);
  request.backend = "per-input-db-off";
  const OracleVerdict verdict = oracles::CheckCase(c, request).verdicts(0);
  ASSERT_EQ(verdict.status(), OracleVerdict::FINDING) << verdict.DebugString();
  const std::string message = verdict.finding().message();
  EXPECT_NE(message.find("input 'b'"), std::string::npos) << message;
  EXPECT_EQ(message.find("input 'x'"), std::string::npos) << message;
  EXPECT_EQ(message.find("input 'w'"), std::string::npos) << message;
}

}  // namespace
}  // namespace parity::testing
