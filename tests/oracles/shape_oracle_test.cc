// The shape-inference oracle: a kernel whose output shape differs from what its schema infers is
// found and blamed; correct kernels agree with their schemas.
#include <gtest/gtest.h>

#include "core/operator.h"
#include "oracles/backend.h"
#include "oracles/check.h"
#include "oracles/testing/op_checks.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

// Relu whose output comes out flattened to 1-D: right values, wrong shape.
class FlatRelu final : public Operator {
 public:
  using Operator::Operator;
  void Run() override {
    const Tensor& x = Input(0);
    Tensor* y = Output(0);
    y->Resize({x.numel()});
    for (int64_t i = 0; i < x.numel(); ++i) {
      y->mutable_data<float>()[i] = std::max(0.0f, x.data<float>()[i]);
    }
  }
};
PARITY_REGISTER_CPU_OPERATOR_WITH_ENGINE(Relu, "SHAPE_FLAT", FlatRelu);
PARITY_REGISTER_BACKEND(oracles::MakeProductionBackend("shape-flat-relu", "SHAPE_FLAT",
                                                       "Relu with a flattened output"));

Case ReluThenTanh() {
  Case c = oracles::SingleOpCase(MakeOp("Relu", {"x"}, {"r"}),
                                 {{"x", RandomTensor({2, 3}, 5, 0.1f, 1.0f)}});
  *c.mutable_net()->add_op() = MakeOp("Tanh", {"r"}, {"y"});
  c.mutable_net()->clear_external_output();
  c.mutable_net()->add_external_output("y");
  return c;
}

TEST(ShapeOracle, CorrectKernelsAgreeWithTheirSchemas) {
  oracles::CheckRequest request;
  request.oracles = {"shape"};
  EXPECT_EQ(oracles::CheckCase(ReluThenTanh(), request).verdicts(0).status(), OracleVerdict::OK);
}

TEST(ShapeOracle, AKernelThatDisagreesWithItsSchemaIsFound) {
  oracles::CheckRequest request;
  request.oracles = {"shape"};
  request.backend = "shape-flat-relu";
  const OracleVerdict verdict = oracles::CheckCase(ReluThenTanh(), request).verdicts(0);
  ASSERT_EQ(verdict.status(), OracleVerdict::FINDING) << verdict.DebugString();
  EXPECT_EQ(verdict.finding().blamed_op_type(), "Relu");
  EXPECT_NE(verdict.finding().message().find("the schema infers float [2, 3], production "
                                             "produced float [6]"),
            std::string::npos)
      << verdict.finding().message();
}

}  // namespace
}  // namespace parity::testing
