// The gradient oracle checks each input's gradient with its own projection and tolerance: a bias
// gradient 10% off, hidden in one vᵀJu over a wide FC's weights and inputs, is found and named.
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "core/operator.h"
#include "core/tensor_proto.h"
#include "oracles/backend.h"
#include "oracles/check.h"
#include "oracles/testing/op_checks.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

// FCGradient (X, W, dY) -> (dW, db, dX) by the default kernel, then `Bug` applied to db.
template <void (*Bug)(Tensor* db)>
class FcGradientWithBug final : public Operator {
 public:
  using Operator::Operator;
  void Run() override {
    RunDefaultKernel(def(), workspace());
    Bug(Output(1));
  }
};

void DbTenPercentOff(Tensor* db) {
  for (int64_t i = 0; i < db->numel(); ++i) db->mutable_data<float>()[i] *= 1.1f;
}
// Small, but far above f32 rounding.
void DbShifted(Tensor* db) {
  for (int64_t i = 0; i < db->numel(); ++i) db->mutable_data<float>()[i] += 1e-3f;
}
// A NaN fails every comparison, so a check written as `error > allowed` passes it (found by the
// mutant SPATIALBN_MAKER_MEAN_VAR_SWAPPED, whose gradient is the square root of a negative mean).
void DbNan(Tensor* db) { db->mutable_data<float>()[0] = std::nanf(""); }

// SubGradient (dY, A, B) -> (dA, dB) by the default kernel, then 1e-3 added to dB.
class SubGradientBiasShifted final : public Operator {
 public:
  using Operator::Operator;
  void Run() override {
    RunDefaultKernel(def(), workspace());
    DbShifted(Output(1));
  }
};
PARITY_REGISTER_CPU_OPERATOR_WITH_ENGINE(SubGradient, "PER_INPUT_SUB_DB_SHIFTED",
                                         SubGradientBiasShifted);
PARITY_REGISTER_BACKEND(oracles::MakeProductionBackend("per-input-sub-bias-shifted",
                                                       "PER_INPUT_SUB_DB_SHIFTED",
                                                       "SubGradient with 1e-3 added to dB"));

using FcGradientBiasOff = FcGradientWithBug<&DbTenPercentOff>;
using FcGradientBiasShifted = FcGradientWithBug<&DbShifted>;
using FcGradientBiasNan = FcGradientWithBug<&DbNan>;
PARITY_REGISTER_CPU_OPERATOR_WITH_ENGINE(FCGradient, "PER_INPUT_DB_OFF", FcGradientBiasOff);
PARITY_REGISTER_CPU_OPERATOR_WITH_ENGINE(FCGradient, "PER_INPUT_DB_SHIFTED", FcGradientBiasShifted);
PARITY_REGISTER_CPU_OPERATOR_WITH_ENGINE(FCGradient, "PER_INPUT_DB_NAN", FcGradientBiasNan);
PARITY_REGISTER_BACKEND(oracles::MakeProductionBackend("per-input-db-off", "PER_INPUT_DB_OFF",
                                                       "FCGradient with db 10% off"));
PARITY_REGISTER_BACKEND(oracles::MakeProductionBackend("per-input-db-shifted",
                                                       "PER_INPUT_DB_SHIFTED",
                                                       "FCGradient with 1e-3 added to db"));
PARITY_REGISTER_BACKEND(oracles::MakeProductionBackend("per-input-db-nan", "PER_INPUT_DB_NAN",
                                                       "FCGradient with a NaN in db"));

TEST(GradientPerInput, ASmallInputsWrongGradientIsFoundAndNamed) {
  // y = FC(x [32, 48], w [3, 48], b [3]): x and w hold 1,680 elements, b three.
  Case c =
      oracles::SingleOpCase(MakeOp("FC", {"x", "w", "b"}, {"y"}), {{"x", RandomTensor({32, 48}, 1)},
                                                                   {"w", RandomTensor({3, 48}, 2)},
                                                                   {"b", RandomTensor({3}, 3)}});
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

// Found by a default campaign (seed 28): an Exp chain reaching 1e78 in f64 beside an output that
// depends linearly on the bias. Finite differences of the summed objective lost the bias's
// sensitivity to rounding against 1e78 (a "gradient wiring" finding with finite differences 0);
// each output's own change, summed, keeps it.
Case BiasBesideAHugeOutput() {
  Case c;
  caffe2::NetDef* net = c.mutable_net();
  *net->add_op() = MakeOp("FC", {"x", "w", "b"}, {"y"});
  *net->add_op() = MakeOp("Exp", {"c"}, {"e1"});
  *net->add_op() = MakeOp("Exp", {"e1"}, {"e2"});
  *net->add_op() = MakeOp("Exp", {"e2"}, {"e3"});
  *net->add_op() = MakeOp("Exp", {"e3"}, {"huge"});
  net->add_external_output("y");
  net->add_external_output("huge");
  *c.add_inputs() = TensorToProto(RandomTensor({2, 3}, 1), "x");
  *c.add_inputs() = TensorToProto(RandomTensor({2, 3}, 2), "w");
  *c.add_inputs() = TensorToProto(RandomTensor({2}, 3), "b");
  // exp(exp(exp(exp(0.5)))) = e^181 ≈ 1e78 in f64, inf in f32.
  *c.add_inputs() = TensorToProto(MakeTensor<float>({2}, {0.5f, 0.4f}), "c");
  c.add_grad_inputs("x");
  c.add_grad_inputs("w");
  c.add_grad_inputs("b");
  c.set_seed(7);
  return c;
}

TEST(GradientPerInput, AHugeUnmovedOutputDoesNotHideASmallSensitivity) {
  const Case c = BiasBesideAHugeOutput();
  oracles::CheckRequest request;
  request.oracles = {"gradient"};
  const OracleVerdict right = oracles::CheckCase(c, request).verdicts(0);
  EXPECT_EQ(right.status(), OracleVerdict::OK) << right.DebugString();
  request.backend = "per-input-db-off";
  const OracleVerdict wrong = oracles::CheckCase(c, request).verdicts(0);
  ASSERT_EQ(wrong.status(), OracleVerdict::FINDING) << wrong.DebugString();
  EXPECT_NE(wrong.finding().message().find("input 'b'"), std::string::npos)
      << wrong.finding().message();
}

TEST(GradientPerInput, ANanGradientIsAMismatch) {
  Case c =
      oracles::SingleOpCase(MakeOp("FC", {"x", "w", "b"}, {"y"}), {{"x", RandomTensor({4, 3}, 1)},
                                                                   {"w", RandomTensor({2, 3}, 2)},
                                                                   {"b", RandomTensor({2}, 3)}});
  oracles::CheckRequest request;
  request.oracles = {"gradient"};
  request.backend = "per-input-db-nan";
  const OracleVerdict verdict = oracles::CheckCase(c, request).verdicts(0);
  ASSERT_EQ(verdict.status(), OracleVerdict::FINDING) << verdict.DebugString();
  EXPECT_NE(verdict.finding().message().find("input 'b'"), std::string::npos)
      << verdict.finding().message();
}

// A bias in front of a LayerNorm over the whole tensor (the campaign's net, kept whole: the
// random directions follow from the seed and the net's inputs and outputs): the shift drops out,
// the bias's true gradient is 0, and the backward net sums terms of ~10 that cancel. Production's
// f32 result
// (~6e-5) is rounding, as the f32 reference's is: the first false positive of the per-input
// tolerance, found by a 150-second campaign (seed 17395042198743290751).
Case BiasBeforeLayerNorm() {
  Case c;
  const bool parsed = google::protobuf::TextFormat::ParseFromString(
      R"pb(
        net {
          op { input: "x0" output: "t0" type: "Abs" }
          op {
            input: "x0"
            input: "p0"
            input: "p1"
            output: "t1"
            type: "FC"
            arg { name: "axis" i: 2 }
          }
          op {
            input: "x0"
            output: "t2"
            type: "Clip"
            arg { name: "min" f: -0.164999992 }
            arg { name: "max" f: 0.005 }
          }
          op {
            input: "t1"
            output: "t3"
            output: "t3_1"
            output: "t3_2"
            type: "LayerNorm"
            arg { name: "axis" i: -3 }
            arg { name: "epsilon" f: 0.001 }
          }
          external_input: "x0"
          external_input: "p0"
          external_input: "p1"
          external_output: "t0"
          external_output: "t2"
          external_output: "t3_2"
          external_output: "t3_1"
          external_output: "t3"
        }
        inputs {
          name: "x0"
          dims: 3
          dims: 2
          dims: 1
          data_type: FLOAT
          float_data: [ -0.44, -0.992, -0.121, -0.736, -0.191, -0.3 ]
        }
        inputs { name: "p0" dims: 1 dims: 1 data_type: FLOAT float_data: -0.27 }
        inputs { name: "p1" dims: 1 data_type: FLOAT float_data: -0.878 }
        seed: 17395042198743290751
        grad_inputs: "x0"
        grad_inputs: "p0"
        grad_inputs: "p1"
      )pb",
      &c);
  EXPECT_TRUE(parsed);
  return c;
}

TEST(GradientPerInput, CancellingTermsOfAZeroGradientAreRoundingNotAFinding) {
  oracles::CheckRequest request;
  request.oracles = {"gradient"};
  const OracleVerdict verdict = oracles::CheckCase(BiasBeforeLayerNorm(), request).verdicts(0);
  EXPECT_EQ(verdict.status(), OracleVerdict::OK) << verdict.DebugString();
}

TEST(GradientPerInput, TheF32AllowanceStillFindsASmallWrongTerm) {
  oracles::CheckRequest request;
  request.oracles = {"gradient"};
  request.backend = "per-input-db-shifted";
  const OracleVerdict verdict = oracles::CheckCase(BiasBeforeLayerNorm(), request).verdicts(0);
  ASSERT_EQ(verdict.status(), OracleVerdict::FINDING) << verdict.DebugString();
  EXPECT_NE(verdict.finding().message().find("input 'p1'"), std::string::npos)
      << verdict.finding().message();
}

// Found by a 10-minute campaign (seed 20261124; the net kept whole, with its parser-hostile
// names, since the random directions follow from the case): a Relu input at -0.0005 sits inside the
// finite-difference step, its kink too small for the smoothness test, and the extrapolated
// derivative is 3e-4 off. The two Richardson extrapolations disagree by about as much: that
// disagreement is the finite differences' own error, and the comparison allows it.
TEST(GradientPerInput, ASmallKinkInsideTheStepIsFiniteDifferenceErrorNotAFinding) {
  Case c;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      R"pb(
        net {
          name: "fuzz_net"
          op {
            input: "x0\\"
            output: "t0\\"
            name: "//c"
            type: "Relu"
            arg { name: "parity_note" s: "\'q\'" }
          }
          op {
            input: "x0\\"
            input: "p0\\"
            output: "t1\\"
            name: "\\n"
            type: "Gather"
            arg { name: "axis" i: 1 }
            arg { name: "parity_note" s: "<b>&amp;" }
          }
          op {
            input: "x0\\"
            output: "t2\\"
            name: ""
            type: "Flatten"
            arg { name: "axis" i: 2 }
            arg { name: "parity_note" s: "op #9" }
          }
          op {
            input: "t1\\"
            output: "t1\\"
            name: "\360\237\230\200"
            type: "Clip"
            arg { name: "max" f: 0.164999992 }
            arg { name: "parity_note" s: "//c" }
          }
          op {
            input: "t2\\"
            output: "t4\\"
            name: "#c"
            type: "Clip"
            arg { name: "min" f: -0.204999983 }
            arg { name: "max" f: 0.095 }
            arg { name: "parity_note" s: "\360\237\230\200" }
          }
          external_input: "x0\\"
          external_input: "p0\\"
          external_output: "t0\\"
          external_output: "t1\\"
          external_output: "t4\\"
        }
        inputs {
          dims: 3
          dims: 2
          dims: 1
          data_type: FLOAT
          float_data: -0.625661552
          float_data: -0.0435626917
          float_data: -0.967079222
          float_data: -0.651930451
          float_data: -0.000499434362
          float_data: -0.208396047
          name: "x0\\"
        }
        inputs { dims: 3 data_type: INT32 int32_data: 1 int32_data: 0 int32_data: 1 name: "p0\\" }
        seed: 10170581849715025531
        generator_version: "parity-gen-2"
        description: "net of 5 ops"
        grad_inputs: "x0\\"
      )pb",
      &c));
  oracles::CheckRequest request;
  request.oracles = {"gradient"};
  request.tolerance = "exact";  // the campaign's: the loosest class of its ops (fuzz specs)
  const OracleVerdict verdict = oracles::CheckCase(c, request).verdicts(0);
  EXPECT_NE(verdict.status(), OracleVerdict::FINDING) << verdict.DebugString();
}

// Found by the same campaign: a scalar subtracted before a LayerNorm has a zero gradient, which
// the backward net sums from cancelling terms. Production's f32 rounding (4e-5) was 8x more than
// the f32 reference's in that one realization; sampled over inputs moved by one ulp, the f32
// reference's rounding covers it.
TEST(GradientPerInput, RoundingOfACancellingSumIsSampledNotTakenFromOneRealization) {
  Case c;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      R"pb(
        net {
          name: "fuzz_net"
          op {
            input: "x0"
            input: "p0"
            output: "t0"
            type: "BatchMatMul"
            arg { name: "trans_a" i: 1 }
          }
          op { input: "t0" input: "p1" output: "t1" type: "Sub" }
          op {
            input: "t1"
            input: "p2"
            input: "p3"
            output: "t2"
            output: "t2_1"
            output: "t2_2"
            type: "LayerNorm"
            arg { name: "axis" i: -3 }
            arg { name: "epsilon" f: 0.001 }
            arg { name: "elementwise_affine" i: 1 }
          }
          external_input: "x0"
          external_input: "p0"
          external_input: "p1"
          external_input: "p2"
          external_input: "p3"
          external_output: "t2_2"
          external_output: "t2_1"
          external_output: "t2"
        }
        inputs {
          dims: 1
          dims: 3
          dims: 3
          data_type: FLOAT
          float_data: -0.562
          float_data: -0.305
          float_data: -0.81
          float_data: -0.464
          float_data: -0.547
          float_data: -0.394
          float_data: -0.636
          float_data: -0.323
          float_data: -0.434
          name: "x0"
        }
        inputs {
          dims: 1
          dims: 3
          dims: 1
          data_type: FLOAT
          float_data: -0.122
          float_data: -0.797
          float_data: -0.275
          name: "p0"
        }
        inputs { dims: 1 data_type: FLOAT float_data: -0.855 name: "p1" }
        inputs {
          dims: 1
          dims: 3
          dims: 1
          data_type: FLOAT
          float_data: 1.21625
          float_data: 1.21475
          float_data: 0.701
          name: "p2"
        }
        inputs {
          dims: 1
          dims: 3
          dims: 1
          data_type: FLOAT
          float_data: -0.164
          float_data: -0.049
          float_data: -0.162
          name: "p3"
        }
        seed: 13407363550841453187
        generator_version: "parity-gen-2"
        description: "net of 3 ops"
        grad_inputs: "x0"
        grad_inputs: "p0"
        grad_inputs: "p1"
        grad_inputs: "p2"
        grad_inputs: "p3"
      )pb",
      &c));
  oracles::CheckRequest request;
  request.oracles = {"gradient"};
  request.tolerance = "accumulation";  // the campaign's (BatchMatMul's class)
  EXPECT_EQ(oracles::CheckCase(c, request).verdicts(0).status(), OracleVerdict::OK);
  // A wrong bias gradient on the same net is still found.
  request.backend = "per-input-sub-bias-shifted";
  const OracleVerdict verdict = oracles::CheckCase(c, request).verdicts(0);
  ASSERT_EQ(verdict.status(), OracleVerdict::FINDING) << verdict.DebugString();
  EXPECT_NE(verdict.finding().message().find("input 'p1'"), std::string::npos)
      << verdict.finding().message();
}

}  // namespace
}  // namespace parity::testing

namespace parity::testing {
namespace {

// A derivative past f32's range cannot come out of an f32 backward pass (a 220k-case campaign
// found such a Sqr chain): no verdict, where comparing would call inf - inf a wrong gradient.
TEST(GradientPerInput, ADerivativeBeyondF32RangeIsNotFiniteNotAFinding) {
  Case c;
  *c.mutable_net()->add_op() = MakeOp("Scale", {"x"}, {"t"}, {{"scale", 1e30f}});
  *c.mutable_net()->add_op() = MakeOp("Scale", {"t"}, {"y"}, {{"scale", 1e30f}});
  // y = 1e60 x = 1e35 fits f32, its derivative 1e60 does not: the f32 backward pass gives inf.
  *c.add_inputs() = TensorToProto(MakeTensor<float>({1}, {1e-25f}), "x");
  c.add_grad_inputs("x");
  oracles::CheckRequest request;
  request.oracles = {"gradient"};
  const CaseReport report = oracles::CheckCase(c, request);
  ASSERT_EQ(report.verdicts_size(), 1);
  EXPECT_EQ(report.verdicts(0).status(), OracleVerdict::NOT_APPLICABLE)
      << report.verdicts(0).DebugString();
  EXPECT_EQ(report.verdicts(0).reason().rfind("not finite", 0), 0u) << report.verdicts(0).reason();
}

// An intermediate that overflows even in f64 while the output stays finite (Atan saturates): the
// derivative has no value there, finite differences see a flat function and the backward pass
// multiplies inf by 0. A While-loop campaign case did this, and was reported as gradient wiring.
TEST(GradientPerInput, AnOverflowedIntermediateIsNotFiniteNotAFinding) {
  Case c;
  *c.mutable_net()->add_op() = MakeOp("Exp", {"x"}, {"e1"});
  *c.mutable_net()->add_op() = MakeOp("Exp", {"e1"}, {"e2"});  // exp(exp(10)) overflows f64
  *c.mutable_net()->add_op() = MakeOp("Atan", {"e2"}, {"y"});
  c.mutable_net()->add_external_output("y");  // only the final, finite y is compared
  *c.add_inputs() = TensorToProto(MakeTensor<float>({2}, {10.0f, 0.0f}), "x");
  c.add_grad_inputs("x");
  oracles::CheckRequest request;
  request.oracles = {"gradient"};
  const CaseReport report = oracles::CheckCase(c, request);
  ASSERT_EQ(report.verdicts_size(), 1);
  EXPECT_EQ(report.verdicts(0).status(), OracleVerdict::NOT_APPLICABLE)
      << report.verdicts(0).DebugString();
  EXPECT_EQ(report.verdicts(0).reason(),
            "not finite: op #1 (Exp) wrote inf or NaN to 'e2' in the f64 reference, so the "
            "derivative there has no value");
  // Without the overflow (x = [1, 0]) the same net gets a verdict, and it is right.
  *c.mutable_inputs(0) = TensorToProto(MakeTensor<float>({2}, {1.0f, 0.0f}), "x");
  EXPECT_EQ(oracles::CheckCase(c, request).verdicts(0).status(), OracleVerdict::OK);
}

// An intermediate past f32's range but within f64's: cosh(sinh(-5.8)) = cosh(-165) ≈ 2e71, inf
// in f32, clipped to 0.045 above. The f64 finite differences see a flat function (0); an f32
// backward pass multiplies ClipGradient's 0 by sinh(-165) = -inf. The f32 reference does the same
// on the same backward net, so there is no verdict (a slice of the default campaign found it).
TEST(GradientPerInput, AnIntermediatePastF32RangeOnlyIsNotFiniteNotAFinding) {
  Case c;
  *c.mutable_net()->add_op() = MakeOp("Sinh", {"x"}, {"s"});
  *c.mutable_net()->add_op() = MakeOp("Cosh", {"s"}, {"t"});
  *c.mutable_net()->add_op() = MakeOp("Clip", {"t"}, {"t"}, {{"max", 0.045f}});
  c.mutable_net()->add_external_output("t");
  *c.add_inputs() = TensorToProto(MakeTensor<float>({2}, {-5.8f, -5.7f}), "x");
  c.add_grad_inputs("x");
  oracles::CheckRequest request;
  request.oracles = {"gradient"};
  const OracleVerdict verdict = oracles::CheckCase(c, request).verdicts(0);
  EXPECT_EQ(verdict.status(), OracleVerdict::NOT_APPLICABLE) << verdict.DebugString();
  EXPECT_EQ(verdict.reason(),
            "not finite: op #1 (Cosh) wrote inf or NaN to 't' in the f32 reference, whose gradient "
            "is not finite either");
  // In f32's range (x = -2: cosh(sinh(-2)) ≈ 19, still clipped) the gradient, 0, is checked.
  *c.mutable_inputs(0) = TensorToProto(MakeTensor<float>({2}, {-2.0f, -1.5f}), "x");
  EXPECT_EQ(oracles::CheckCase(c, request).verdicts(0).status(), OracleVerdict::OK);
}

}  // namespace
}  // namespace parity::testing
