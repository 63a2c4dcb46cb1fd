// A wrong backward net is blamed where it went wrong: a gradient maker with a bug is named as that
// op's maker, a builder that accumulates gradients wrongly is named as wiring, and a shape gone
// wrong upstream is blamed on the op that made it, not on the later op that rejects it.
#include "oracles/backward_localize.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>

#include "core/grad/backward.h"
#include "core/grad/gradient.h"
#include "core/operator.h"
#include "core/tensor_proto.h"
#include "oracles/backend.h"
#include "oracles/check.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

// A Case of `ops` fed `inputs` (every input differentiated), with `outputs` compared.
Case NetCase(const std::vector<caffe2::OperatorDef>& ops,
             const std::vector<std::pair<std::string, Tensor>>& inputs,
             const std::vector<std::string>& outputs) {
  Case c;
  c.set_seed(7);
  for (const auto& op : ops) *c.mutable_net()->add_op() = op;
  for (const auto& [name, tensor] : inputs) {
    *c.add_inputs() = TensorToProto(tensor, name);
    c.mutable_net()->add_external_input(name);
  }
  for (const auto& y : outputs) c.mutable_net()->add_external_output(y);
  return c;
}

OracleVerdict Check(const Case& c, const std::string& oracle,
                    const std::string& backend = "production") {
  oracles::CheckRequest request;
  request.oracles = {oracle};
  request.backend = backend;
  return oracles::CheckCase(c, request).verdicts(0);
}

// Restores the registry entry of `type` when the test ends.
class MakerSwap {
 public:
  MakerSwap(const std::string& type, GradientEntry entry)
      : type_(type), original_(GradientRegistry::Replace(type, std::move(entry))) {}
  ~MakerSwap() { GradientRegistry::Replace(type_, original_); }

 private:
  std::string type_;
  GradientEntry original_;
};

TEST(BackwardLocalize, AWrongMakerIsNamedAsTheMaker) {
  // x -> Tanh -> t -> FC -> y. Tanh's maker wires X where TanhGradient reads Y.
  const Case c = NetCase(
      {MakeOp("Tanh", {"x"}, {"t"}), MakeOp("FC", {"t", "w", "b"}, {"y"})},
      {{"x", RandomTensor({3, 4}, 1)}, {"w", RandomTensor({2, 4}, 2)}, {"b", RandomTensor({2}, 3)}},
      {"y"});
  ASSERT_EQ(Check(c, "gradient").status(), OracleVerdict::OK);
  GradientEntry wrong = *GradientRegistry::Find("Tanh");
  GradientMaker right = wrong.maker;
  wrong.maker = [right](GradientContext& g) {
    Ops ops = right(g);
    for (int i = 0; i < ops[0].input_size(); ++i) {
      if (ops[0].input(i) == g.O(0)) ops[0].set_input(i, g.I(0));
    }
    return ops;
  };
  MakerSwap swap("Tanh", wrong);
  const OracleVerdict verdict = Check(c, "gradient");
  ASSERT_EQ(verdict.status(), OracleVerdict::FINDING) << verdict.DebugString();
  const Finding& finding = verdict.finding();
  EXPECT_EQ(finding.signature().error_class(), oracles::kGradientMaker) << finding.message();
  EXPECT_EQ(finding.blamed_op_index(), 0) << finding.message();
  EXPECT_EQ(finding.blamed_op_type(), "Tanh");
  EXPECT_NE(finding.message().find("Tanh)'s gradient maker is wrong on the op alone"),
            std::string::npos)
      << finding.message();
}

TEST(BackwardLocalize, AWrongAccumulationIsNamedAsWiring) {
  // x feeds two FCs: its gradient is the Sum of theirs. The builder's Sum loses one of them.
  const Case c =
      NetCase({MakeOp("FC", {"x", "w0", "b0"}, {"y0"}), MakeOp("FC", {"x", "w1", "b1"}, {"y1"})},
              {{"x", RandomTensor({3, 4}, 1)},
               {"w0", RandomTensor({2, 4}, 2)},
               {"b0", RandomTensor({2}, 3)},
               {"w1", RandomTensor({3, 4}, 4)},
               {"b1", RandomTensor({3}, 5)}},
              {"y0", "y1"});
  ASSERT_EQ(Check(c, "gradient").status(), OracleVerdict::OK);
  BackwardPassEdit previous = ReplaceBackwardPassEdit([](BackwardPass* pass) {
    for (auto& op : pass->ops) {
      if (op.type() == "Sum" && op.input_size() > 1) op.mutable_input()->RemoveLast();
    }
  });
  const OracleVerdict verdict = Check(c, "gradient");
  ReplaceBackwardPassEdit(previous);
  ASSERT_EQ(verdict.status(), OracleVerdict::FINDING) << verdict.DebugString();
  const Finding& finding = verdict.finding();
  EXPECT_EQ(finding.signature().error_class(), oracles::kGradientWiring) << finding.message();
  EXPECT_EQ(finding.blamed_op_index(), 0) << finding.message();  // x's first consumer
  EXPECT_NE(finding.message().find("wrong gradient of 'x'"), std::string::npos)
      << finding.message();
}

// Tile along axis 1 where the op says axis 0: a wrong shape that the next op rejects.
class TileOnTheWrongAxis final : public Operator {
 public:
  using Operator::Operator;
  void Run() override {
    caffe2::OperatorDef inner = def();
    for (auto& arg : *inner.mutable_arg()) {
      if (arg.name() == "axis") arg.set_i(arg.i() + 1);
    }
    RunDefaultKernel(inner, workspace());
  }
};
PARITY_REGISTER_CPU_OPERATOR_WITH_ENGINE(Tile, "WRONG_AXIS_TEST", TileOnTheWrongAxis);
PARITY_REGISTER_BACKEND(oracles::MakeProductionBackend("tile-wrong-axis", "WRONG_AXIS_TEST",
                                                       "Tile along the next axis"));

TEST(UpstreamBlame, AnOpRejectingAWrongShapeMadeUpstreamIsNotBlamed) {
  const Case c = NetCase(
      {MakeOp("Tile", {"x"}, {"t"}, {{"tiles", 2}, {"axis", 0}}), MakeOp("Add", {"t", "z"}, {"y"})},
      {{"x", RandomTensor({2, 3}, 1)}, {"z", RandomTensor({4, 3}, 2)}}, {"y"});
  ASSERT_EQ(Check(c, "validity").status(), OracleVerdict::OK);
  const OracleVerdict verdict = Check(c, "validity", "tile-wrong-axis");
  ASSERT_EQ(verdict.status(), OracleVerdict::FINDING) << verdict.DebugString();
  EXPECT_EQ(verdict.finding().blamed_op_type(), "Tile") << verdict.finding().message();
  EXPECT_NE(verdict.finding().message().find("op #1 (Add)"), std::string::npos)
      << verdict.finding().message();
}

}  // namespace
}  // namespace parity::testing
