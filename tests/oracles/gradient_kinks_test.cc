// The gradient oracle at kinks: an input sitting on a kink is nudged off it and the net is still
// checked (it used to give up with "not smooth"), and where finite differences cannot be trusted
// the op to blame is named.
#include <gtest/gtest.h>

#include "core/operator.h"
#include "core/tensor_proto.h"
#include "oracles/backend.h"
#include "oracles/check.h"
#include "oracles/smoothness.h"
#include "oracles/testing/op_checks.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

// Relu(x) with an element of x exactly 0 (the kink): checked after nudging, not given up on.
TEST(GradientKinks, InputOnAKinkIsNudgedAndChecked) {
  Case c = oracles::SingleOpCase(MakeOp("Relu", {"x"}, {"y"}),
                                 {{"x", MakeTensor<float>({4}, {0.5f, 0.0f, -0.25f, 0.75f})}});
  oracles::CheckRequest request;
  request.oracles = {"gradient"};
  const CaseReport report = oracles::CheckCase(c, request);
  EXPECT_EQ(report.verdicts(0).status(), OracleVerdict::OK) << report.DebugString();
}

// ReluGradient doubled: a wrong gradient kernel, reached through a test-only backend.
class DoubledReluGradient final : public Operator {
 public:
  using Operator::Operator;
  void Run() override {
    const Tensor& y = Input(0);
    const Tensor& dy = Input(1);
    Tensor* dx = Output(0);
    dx->Resize(y.dims());
    for (int64_t i = 0; i < y.numel(); ++i) {
      dx->mutable_data<float>()[i] = y.data<float>()[i] > 0 ? 2 * dy.data<float>()[i] : 0.0f;
    }
  }
};
PARITY_REGISTER_CPU_OPERATOR_WITH_ENGINE(ReluGradient, "KINKS_DOUBLED", DoubledReluGradient);
PARITY_REGISTER_BACKEND(oracles::MakeProductionBackend("kinks-doubled-relu-grad", "KINKS_DOUBLED",
                                                       "ReluGradient doubled"));

// The same input on a kink under that wrong kernel: the nudged check finds the bug, so nudging
// does not hide what it is there to check.
TEST(GradientKinks, NudgedCheckStillFindsAWrongGradient) {
  Case c = oracles::SingleOpCase(MakeOp("Relu", {"x"}, {"y"}),
                                 {{"x", MakeTensor<float>({4}, {0.5f, 0.0f, -0.25f, 0.75f})}});
  oracles::CheckRequest request;
  request.oracles = {"gradient"};
  request.backend = "kinks-doubled-relu-grad";
  const CaseReport report = oracles::CheckCase(c, request);
  ASSERT_EQ(report.verdicts(0).status(), OracleVerdict::FINDING) << report.DebugString();
  EXPECT_EQ(report.verdicts(0).finding().blamed_op_type(), "ReluGradient");
}

// y = Relu(x · w) with w moving along the direction: x·w crosses 0 at element 1 exactly at the
// point, so the kink is in op #1's output element 1, and LocateKink names it.
TEST(GradientKinks, LocateKinkNamesTheOpAndElement) {
  Case c;
  caffe2::NetDef* net = c.mutable_net();
  *net->add_op() = MakeOp("Mul", {"x", "w"}, {"p"});
  *net->add_op() = MakeOp("Relu", {"p"}, {"y"});
  net->add_external_output("y");
  *c.add_inputs() = TensorToProto(MakeTensor<float>({2}, {1.0f, 2.0f}), "x");
  *c.add_inputs() = TensorToProto(MakeTensor<float>({2}, {0.5f, 0.0f}), "w");
  oracles::Blobs base;
  for (const auto& t : c.inputs()) base[t.name()] = t;
  EXPECT_EQ(oracles::LocateKink(c, base, {{"w", {1.0, 1.0}}}), "op #1 (Relu) output 'y' element 1");
  // Along x alone, x·w at element 1 stays 0: no kink is crossed.
  EXPECT_EQ(oracles::LocateKink(c, base, {{"x", {1.0, 1.0}}}), "");
}

}  // namespace
}  // namespace parity::testing
