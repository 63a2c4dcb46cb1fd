// The validity oracle: a net one half rejects and the other runs is a finding blamed on the op
// the rejecting side names; agreement either way is not; a capability gap (an op one engine does
// not have) is "not applicable", never a finding. The forward oracle leaves such cases to it.
#include <gtest/gtest.h>

#include <cmath>

#include "core/operator.h"
#include "oracles/backend.h"
#include "oracles/check.h"
#include "oracles/testing/op_checks.h"
#include "reference/kernel.h"
#include "tests/test_util.h"

namespace parity::reference {
namespace {

// A reference-only op: production has no schema or kernel for it.
template <typename T>
void ReferenceOnlyFrob(OpContext<T>& c) {
  c.SetOutput(0, c.Input(0).Clone());
}
void RegisterReferenceOnlyFrob(Registry* r) {
  r->Add({"ReferenceOnlyFrob", 1, 1, 1, 1, {}, PARITY_REF_KERNEL(ReferenceOnlyFrob)});
}
PARITY_REFERENCE_FAMILY(RegisterReferenceOnlyFrob);

}  // namespace
}  // namespace parity::reference

namespace parity::testing {
namespace {

// x is drawn from [-1, 1], so some entries are negative. A Tanh kernel that adds a check Caffe2
// does not make: it rejects negative inputs.
class PickyTanh final : public Operator {
 public:
  using Operator::Operator;
  void Run() override {
    const Tensor& x = Input(0);
    for (int64_t i = 0; i < x.numel(); ++i) {
      PARITY_ENFORCE(x.data<float>()[i] >= 0, ErrorKind::kBadArgument, label(), ": negative input");
    }
    Tensor* y = Output(0);
    y->Resize(x.dims());
    for (int64_t i = 0; i < x.numel(); ++i) {
      y->mutable_data<float>()[i] = std::tanh(x.data<float>()[i]);
    }
  }
};
PARITY_REGISTER_CPU_OPERATOR_WITH_ENGINE(Tanh, "PICKY", PickyTanh);
PARITY_REGISTER_BACKEND(oracles::MakeProductionBackend("picky-tanh", "PICKY",
                                                       "Tanh that rejects negative inputs"));

Case ReluThenTanh() {
  Case c = oracles::SingleOpCase(MakeOp("Relu", {"x"}, {"r"}),
                                 {{"x", RandomTensor({2, 3}, 5, -1.0f, 1.0f)}});
  *c.mutable_net()->add_op() = MakeOp("Tanh", {"x"}, {"y"});
  c.mutable_net()->clear_external_output();
  c.mutable_net()->add_external_output("y");
  return c;
}

OracleVerdict Verdict(const Case& c, const std::string& oracle, const std::string& backend) {
  oracles::CheckRequest request;
  request.oracles = {oracle};
  request.backend = backend;
  return oracles::CheckCase(c, request).verdicts(0);
}

TEST(ValidityOracle, NetsBothHalvesRunAreValid) {
  EXPECT_EQ(Verdict(ReluThenTanh(), "validity", "production").status(), OracleVerdict::OK);
}

TEST(ValidityOracle, ARejectionOnlyOneHalfMakesIsAFindingBlamedOnTheOp) {
  const OracleVerdict verdict = Verdict(ReluThenTanh(), "validity", "picky-tanh");
  ASSERT_EQ(verdict.status(), OracleVerdict::FINDING) << verdict.DebugString();
  EXPECT_EQ(verdict.finding().signature().error_class(), "rejected by production only");
  EXPECT_EQ(verdict.finding().blamed_op_type(), "Tanh");
  EXPECT_EQ(verdict.finding().error_kind(), "bad argument");
  EXPECT_NE(verdict.finding().message().find("negative input"), std::string::npos)
      << verdict.finding().message();
  // The forward oracle compares values only where both ran, and says why it did not here.
  const OracleVerdict forward = Verdict(ReluThenTanh(), "forward", "picky-tanh");
  EXPECT_EQ(forward.status(), OracleVerdict::NOT_APPLICABLE);
  EXPECT_NE(forward.reason().find("validity oracle"), std::string::npos) << forward.reason();
}

TEST(ValidityOracle, ANetBothHalvesRejectIsBadInputNotAFinding) {
  Case c = ReluThenTanh();
  auto* arg = c.mutable_net()->mutable_op(1)->add_arg();
  arg->set_name("unused");
  *c.mutable_net()->mutable_op(1)->add_arg() = *arg;  // the same argument twice
  const OracleVerdict verdict = Verdict(c, "validity", "production");
  EXPECT_EQ(verdict.status(), OracleVerdict::REJECTED) << verdict.DebugString();
  EXPECT_NE(verdict.reason().find("given twice"), std::string::npos) << verdict.reason();
}

TEST(ValidityOracle, AnOpOneEngineLacksIsACapabilityGapNotAFinding) {
  // An op only the reference has (registered below, as an out-of-tree reference family would).
  Case c = ReluThenTanh();
  *c.mutable_net()->add_op() = MakeOp("ReferenceOnlyFrob", {"x"}, {"z"});
  const OracleVerdict verdict = Verdict(c, "validity", "production");
  EXPECT_EQ(verdict.status(), OracleVerdict::NOT_APPLICABLE) << verdict.DebugString();
  EXPECT_NE(verdict.reason().find("unknown op"), std::string::npos) << verdict.reason();
}

}  // namespace
}  // namespace parity::testing
