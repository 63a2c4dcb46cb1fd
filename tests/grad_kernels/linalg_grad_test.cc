// FCGradient / FCTransposedGradient against hand-derived values (worked out in comments), their
// schema checks, and the gradient oracle (production backward pass vs central differences of the
// f64 reference) on FC, FCTransposed, MatMul (all four transpose combinations) and BatchMatMul,
// whose gradients the makers build from MatMul / BatchMatMul ops.
#include <random>

#include "core/schema.h"
#include "oracles/backend.h"
#include "oracles/testing/op_checks.h"
#include "tests/grad_kernels/grad_test_util.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

// X [2, 3] = [[1, 2, 3], [4, 5, 6]], W (FC, [N, K] = [2, 3]) = [[1, 0, -1], [2, 1, 0]],
// dY [2, 2] = [[1, 2], [3, 4]].
//   dW = dY^T X: row 0 = 1 * [1, 2, 3] + 3 * [4, 5, 6] = [13, 17, 21]
//                row 1 = 2 * [1, 2, 3] + 4 * [4, 5, 6] = [18, 24, 30]
//   db = column sums of dY = [1 + 3, 2 + 4] = [4, 6]
//   dX = dY W:   row 0 = 1 * [1, 0, -1] + 2 * [2, 1, 0] = [5, 2, -1]
//                row 1 = 3 * [1, 0, -1] + 4 * [2, 1, 0] = [11, 4, -3]
const std::vector<float> kX = {1, 2, 3, 4, 5, 6};
const std::vector<float> kW = {1, 0, -1, 2, 1, 0};
const std::vector<float> kWt = {1, 2, 0, 1, -1, 0};  // kW transposed: [K, N] = [3, 2]
const std::vector<float> kDy = {1, 2, 3, 4};

TEST(FCGradient, HandDerived) {
  auto ws = RunOp(MakeOp("FCGradient", {"x", "w", "dy"}, {"dw", "db", "dx"}),
                  {{"x", MakeTensor<float>({2, 3}, kX)},
                   {"w", MakeTensor<float>({2, 3}, kW)},
                   {"dy", MakeTensor<float>({2, 2}, kDy)}});
  ExpectTensorNear(ws->GetTensor("dw"), {2, 3}, {13, 17, 21, 18, 24, 30});
  ExpectTensorNear(ws->GetTensor("db"), {2}, {4, 6});
  ExpectTensorNear(ws->GetTensor("dx"), {2, 3}, {5, 2, -1, 11, 4, -3});
}

TEST(FCTransposedGradient, HandDerived) {
  // W [K, N] = [3, 2] is kW transposed; dW = X^T dY is the transpose of FC's dW:
  // [[13, 18], [17, 24], [21, 30]]; db as FC's; dX = dY W^T = FC's dX.
  auto ws = RunOp(MakeOp("FCTransposedGradient", {"x", "w", "dy"}, {"dw", "db", "dx"}),
                  {{"x", MakeTensor<float>({2, 3}, kX)},
                   {"w", MakeTensor<float>({3, 2}, kWt)},
                   {"dy", MakeTensor<float>({2, 2}, kDy)}});
  ExpectTensorNear(ws->GetTensor("dw"), {3, 2}, {13, 18, 17, 24, 21, 30});
  ExpectTensorNear(ws->GetTensor("db"), {2}, {4, 6});
  ExpectTensorNear(ws->GetTensor("dx"), {2, 3}, {5, 2, -1, 11, 4, -3});
}

TEST(FCGradient, TwoOutputsComputeNoDx) {
  auto ws = RunOp(MakeOp("FCGradient", {"x", "w", "dy"}, {"dw", "db"}),
                  {{"x", MakeTensor<float>({2, 3}, kX)},
                   {"w", MakeTensor<float>({2, 3}, kW)},
                   {"dy", MakeTensor<float>({2, 2}, kDy)}});
  ExpectTensorNear(ws->GetTensor("dw"), {2, 3}, {13, 17, 21, 18, 24, 30});
  ExpectTensorNear(ws->GetTensor("db"), {2}, {4, 6});
  EXPECT_FALSE(ws->HasBlob("dx"));
}

TEST(FCGradient, AxesCoerceAsTheForwardDoes) {
  // X [1, 2, 3] at axis 2 is [M, K] = [2, 3]; W [2, 1, 3] at axis_w 1 is [N, K] = [2, 3]; dY is
  // the forward output [1, 2, 2]. Same numbers as HandDerived; dW and dX keep W's and X's dims.
  auto ws = RunOp(
      MakeOp("FCGradient", {"x", "w", "dy"}, {"dw", "db", "dx"}, {{"axis", 2}, {"axis_w", 1}}),
      {{"x", MakeTensor<float>({1, 2, 3}, kX)},
       {"w", MakeTensor<float>({2, 1, 3}, kW)},
       {"dy", MakeTensor<float>({1, 2, 2}, kDy)}});
  ExpectTensorNear(ws->GetTensor("dw"), {2, 1, 3}, {13, 17, 21, 18, 24, 30});
  ExpectTensorNear(ws->GetTensor("db"), {2}, {4, 6});
  ExpectTensorNear(ws->GetTensor("dx"), {1, 2, 3}, {5, 2, -1, 11, 4, -3});
}

TEST(FCGradient, NegativeAxis) {
  // axis -1 on X [2, 3] is axis 1: the HandDerived case.
  auto ws = RunOp(
      MakeOp("FCGradient", {"x", "w", "dy"}, {"dw", "db", "dx"}, {{"axis", -1}, {"axis_w", -1}}),
      {{"x", MakeTensor<float>({2, 3}, kX)},
       {"w", MakeTensor<float>({2, 3}, kW)},
       {"dy", MakeTensor<float>({2, 2}, kDy)}});
  ExpectTensorNear(ws->GetTensor("dx"), {2, 3}, {5, 2, -1, 11, 4, -3});
}

TEST(FCGradient, Double) {
  std::vector<double> x(kX.begin(), kX.end()), w(kW.begin(), kW.end()), dy(kDy.begin(), kDy.end());
  auto ws = RunOp(MakeOp("FCGradient", {"x", "w", "dy"}, {"dw", "db", "dx"}),
                  {{"x", MakeTensor<double>({2, 3}, x)},
                   {"w", MakeTensor<double>({2, 3}, w)},
                   {"dy", MakeTensor<double>({2, 2}, dy)}});
  EXPECT_EQ(ws->GetTensor("dw").dtype(), DataType::kDouble);
  EXPECT_EQ(ws->GetTensor("db").dtype(), DataType::kDouble);
  ExpectTensorNear(ws->GetTensor("dw"), {2, 3}, {13, 17, 21, 18, 24, 30});
  ExpectTensorNear(ws->GetTensor("db"), {2}, {4, 6});
  ExpectTensorNear(ws->GetTensor("dx"), {2, 3}, {5, 2, -1, 11, 4, -3});
}

TEST(FCGradient, EmptyBatchGivesZeroGradients) {
  // M = 0: no rows, so dW and db are sums over nothing.
  auto ws = RunOp(MakeOp("FCGradient", {"x", "w", "dy"}, {"dw", "db", "dx"}),
                  {{"x", MakeTensor<float>({0, 3}, {})},
                   {"w", MakeTensor<float>({2, 3}, kW)},
                   {"dy", MakeTensor<float>({0, 2}, {})}});
  ExpectTensorNear(ws->GetTensor("dw"), {2, 3}, {0, 0, 0, 0, 0, 0});
  ExpectTensorNear(ws->GetTensor("db"), {2}, {0, 0});
  ExpectTensorNear(ws->GetTensor("dx"), {0, 3}, {});
}

TEST(FCGradient, RepeatedRunsOverwrite) {
  // A net run twice with a new dY: outputs are overwritten, not accumulated.
  Workspace ws;
  ws.CreateTensor("x")->CopyFrom(MakeTensor<float>({2, 3}, kX));
  ws.CreateTensor("w")->CopyFrom(MakeTensor<float>({2, 3}, kW));
  ws.CreateTensor("dy")->CopyFrom(MakeTensor<float>({2, 2}, {9, 9, 9, 9}));
  caffe2::NetDef net;
  net.set_name("grad");
  *net.add_op() = MakeOp("FCGradient", {"x", "w", "dy"}, {"dw", "db", "dx"});
  ws.CreateNet(net);
  ws.RunNet("grad");
  ws.CreateTensor("dy")->CopyFrom(MakeTensor<float>({2, 2}, kDy));
  ws.RunNet("grad");
  ExpectTensorNear(ws.GetTensor("dw"), {2, 3}, {13, 17, 21, 18, 24, 30});
  ExpectTensorNear(ws.GetTensor("db"), {2}, {4, 6});
  ExpectTensorNear(ws.GetTensor("dx"), {2, 3}, {5, 2, -1, 11, 4, -3});
}

TEST(FCGradient, ShapeInference) {
  auto out = Infer(MakeOp("FCGradient", {"x", "w", "dy"}, {"dw", "db", "dx"}, {{"axis", 2}}),
                   {Type({4, 5, 6}), Type({7, 6}), Type({4, 5, 7})});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].dims, (Ints{7, 6}));
  EXPECT_EQ(out[1].dims, (Ints{7}));
  EXPECT_EQ(out[2].dims, (Ints{4, 5, 6}));
  auto two = Infer(MakeOp("FCTransposedGradient", {"x", "w", "dy"}, {"dw", "db"}),
                   {Type({4, 6}, DataType::kDouble), Type({6, 7}, DataType::kDouble),
                    Type({4, 7}, DataType::kDouble)});
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0].dims, (Ints{6, 7}));
  EXPECT_EQ(two[0].dtype, DataType::kDouble);
  EXPECT_EQ(two[1].dims, (Ints{7}));
}

// ---- errors: one per check ----

std::map<std::string, Tensor> FcInputs() {
  return {{"x", MakeTensor<float>({2, 3}, kX)},
          {"w", MakeTensor<float>({2, 3}, kW)},
          {"dy", MakeTensor<float>({2, 2}, kDy)}};
}

TEST(FCGradientErrors, Arity) {
  ExpectError(
      [] {
        RunOp(MakeOp("FCGradient", {"x", "w"}, {"dw", "db"}), FcInputs());
      },
      ErrorKind::kBadArgument, {"FCGradient", "takes 3 inputs"});
  ExpectError(
      [] {
        RunOp(MakeOp("FCGradient", {"x", "w", "dy"}, {"dw"}), FcInputs());
      },
      ErrorKind::kBadArgument, {"FCGradient", "2 to 3 outputs"});
}

TEST(FCGradientErrors, ArgumentType) {
  // The forward's arguments are declared on the gradient, so a copied axis is type-checked.
  ExpectError(
      [] {
        RunOp(MakeOp("FCGradient", {"x", "w", "dy"}, {"dw", "db"}, {{"axis", 1.5f}}), FcInputs());
      },
      ErrorKind::kBadArgument, {"axis"});
}

TEST(FCGradientErrors, AxisOutOfRange) {
  ExpectError(
      [] {
        RunOp(MakeOp("FCGradient", {"x", "w", "dy"}, {"dw", "db"}, {{"axis", 2}}), FcInputs());
      },
      ErrorKind::kBadArgument, {"FCGradient", "'axis' = 2"});
}

TEST(FCGradientErrors, InnerSizesDiffer) {
  auto inputs = FcInputs();
  inputs["w"] = MakeTensor<float>({3, 2}, kWt);  // FC wants [N, K]: K = 2 != 3
  ExpectError(
      [&] {
        RunOp(MakeOp("FCGradient", {"x", "w", "dy"}, {"dw", "db"}), inputs);
      },
      ErrorKind::kShapeMismatch, {"FCGradient", "K = 3", "[3, 2]"});
}

TEST(FCGradientErrors, DyCount) {
  auto inputs = FcInputs();
  inputs["dy"] = MakeTensor<float>({2, 3}, kX);
  ExpectError(
      [&] {
        RunOp(MakeOp("FCGradient", {"x", "w", "dy"}, {"dw", "db", "dx"}), inputs);
      },
      ErrorKind::kShapeMismatch, {"FCGradient", "dY [2, 3]", "M x N = 2 x 2"});
}

TEST(FCGradientErrors, MixedDtypes) {
  auto inputs = FcInputs();
  inputs["dy"] = MakeTensor<double>({2, 2}, {1, 2, 3, 4});
  ExpectError(
      [&] {
        RunOp(MakeOp("FCGradient", {"x", "w", "dy"}, {"dw", "db"}), inputs);
      },
      ErrorKind::kShapeMismatch, {"FCGradient", "dY is double"});
  inputs = FcInputs();
  inputs["w"] = MakeTensor<double>({2, 3}, {1, 0, -1, 2, 1, 0});
  ExpectError(
      [&] {
        RunOp(MakeOp("FCGradient", {"x", "w", "dy"}, {"dw", "db"}), inputs);
      },
      ErrorKind::kShapeMismatch, {"FCGradient", "W is double"});
}

TEST(FCGradientErrors, IntegerInputs) {
  std::map<std::string, Tensor> inputs = {{"x", MakeTensor<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6})},
                                          {"w", MakeTensor<int32_t>({3, 2}, {1, 0, 1, 2, 1, 0})},
                                          {"dy", MakeTensor<int32_t>({2, 2}, {1, 2, 3, 4})}};
  ExpectError(
      [&] {
        RunOp(MakeOp("FCTransposedGradient", {"x", "w", "dy"}, {"dw", "db"}), inputs);
      },
      ErrorKind::kShapeMismatch, {"FCTransposedGradient", "float or double"});
}

TEST(FCGradientErrors, ShapeInferenceRaisesTheSame) {
  ExpectError(
      [] {
        Infer(MakeOp("FCGradient", {"x", "w", "dy"}, {"dw", "db"}),
              {Type({2, 3}), Type({2, 3}), Type({2, 5})});
      },
      ErrorKind::kShapeMismatch, {"dY [2, 5]"});
  ExpectError(
      [] {
        Infer(MakeOp("FCGradient", {"x", "w", "dy"}, {"dw", "db"}),
              {Type({2, 3}), Type({2, 3}, DataType::kDouble), Type({2, 2})});
      },
      ErrorKind::kShapeMismatch, {"W is double"});
}

// ---- the gradient oracle ----

// FCGradient with db doubled, registered under a test-only engine: the oracle must catch it (so
// the checks below do exercise the production gradient kernel).
class FcGradientDoubledBiasMutant final : public Operator {
 public:
  using Operator::Operator;
  void Run() override {
    const Tensor& x = Input(0);
    const Tensor& w = Input(1);
    const Tensor& dy = Input(2);
    const int64_t m = x.dim(0), k = x.dim(1), n = w.dim(0);
    Tensor* dw = Output(0);
    Tensor* db = Output(1);
    Tensor* dx = Output(2);
    dw->Resize(w.dims());
    db->Resize({n});
    dx->Resize(x.dims());
    float* gw = dw->mutable_data<float>();
    float* gb = db->mutable_data<float>();
    float* gx = dx->mutable_data<float>();
    std::fill(gw, gw + n * k, 0.0f);
    std::fill(gb, gb + n, 0.0f);
    std::fill(gx, gx + m * k, 0.0f);
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        const float g = dy.data<float>()[i * n + j];
        gb[j] += 2 * g;
        for (int64_t l = 0; l < k; ++l) {
          gw[j * k + l] += g * x.data<float>()[i * k + l];
          gx[i * k + l] += g * w.data<float>()[j * k + l];
        }
      }
    }
  }
};
PARITY_REGISTER_CPU_OPERATOR_WITH_ENGINE(FCGradient, "MUTANT_TEST_DOUBLED_DB",
                                         FcGradientDoubledBiasMutant);
// The backend under test: production with this one kernel swapped.
PARITY_REGISTER_BACKEND(oracles::MakeProductionBackend("MUTANT_TEST_DOUBLED_DB",
                                                       "MUTANT_TEST_DOUBLED_DB",
                                                       "production with a wrong kernel"));

TEST(LinalgGradientOracle, CatchesAMutantGradientKernel) {
  const auto op = MakeOp("FC", {"x", "w", "b"}, {"y"});
  const oracles::NamedTensors inputs = {
      {"x", Random({4, 5}, 1)}, {"w", Random({3, 5}, 2)}, {"b", Random({3}, 3)}};
  oracles::CheckOptions options;
  options.backend = "MUTANT_TEST_DOUBLED_DB";
  EXPECT_TRUE(oracles::GradientChecks(op, inputs, 0, options)) << "dX is right in the mutant";
  ::testing::AssertionResult result = oracles::GradientChecks(op, inputs, 2, options);
  ASSERT_FALSE(result);
  EXPECT_NE(std::string(result.message()).find("gradient mismatch"), std::string::npos)
      << result.message();
}

oracles::NamedTensors FcOracleInputs(const Ints& x, const Ints& w, int64_t n) {
  return {{"x", Random(x, 1)}, {"w", Random(w, 2)}, {"b", Random({n}, 3)}};
}

TEST(LinalgGradientOracle, FC) {
  const auto op = MakeOp("FC", {"x", "w", "b"}, {"y"});
  const auto inputs = FcOracleInputs({4, 5}, {3, 5}, 3);
  for (int i = 0; i < 3; ++i) EXPECT_GRADIENT_CHECKS(op, inputs, i) << "input " << i;
}

TEST(LinalgGradientOracle, FCWithAxes) {
  // X [2, 3, 4] at axis 2: M = 6, K = 4; W [5, 2, 2] at axis_w 1: N = 5, K = 4.
  const auto op = MakeOp("FC", {"x", "w", "b"}, {"y"}, {{"axis", 2}, {"axis_w", 1}});
  const auto inputs = FcOracleInputs({2, 3, 4}, {5, 2, 2}, 5);
  for (int i = 0; i < 3; ++i) EXPECT_GRADIENT_CHECKS(op, inputs, i) << "input " << i;
}

// FCRelu's gradient is ReluGradient then FCGradient (linalg/makers.cc), checked end to end against
// finite differences of the reference's FCRelu (these inputs keep every output of the FC away from
// the Relu's kink).
TEST(LinalgGradientOracle, FCRelu) {
  const auto op = MakeOp("FCRelu", {"x", "w", "b"}, {"y"});
  const auto inputs = FcOracleInputs({4, 5}, {3, 5}, 3);
  for (int i = 0; i < 3; ++i) EXPECT_GRADIENT_CHECKS(op, inputs, i) << "input " << i;
  const auto axes = MakeOp("FCRelu", {"x", "w", "b"}, {"y"}, {{"axis", 2}, {"axis_w", 1}});
  const auto axes_inputs = FcOracleInputs({2, 3, 4}, {5, 2, 2}, 5);
  for (int i = 0; i < 3; ++i) EXPECT_GRADIENT_CHECKS(axes, axes_inputs, i) << "input " << i;
}

TEST(LinalgGradientOracle, FCTransposed) {
  const auto op = MakeOp("FCTransposed", {"x", "w", "b"}, {"y"});
  const auto inputs = FcOracleInputs({4, 5}, {5, 3}, 3);
  for (int i = 0; i < 3; ++i) EXPECT_GRADIENT_CHECKS(op, inputs, i) << "input " << i;
}

TEST(LinalgGradientOracle, FCTransposedWithAxes) {
  // X [3, 2, 2] at axis 1: M = 3, K = 4; W [4, 2, 3] at axis_w 1: K = 4, N = 6.
  const auto op = MakeOp("FCTransposed", {"x", "w", "b"}, {"y"}, {{"axis", 1}, {"axis_w", 1}});
  const auto inputs = FcOracleInputs({3, 2, 2}, {4, 2, 3}, 6);
  for (int i = 0; i < 3; ++i) EXPECT_GRADIENT_CHECKS(op, inputs, i) << "input " << i;
}

TEST(LinalgGradientOracle, MatMulAllTransposes) {
  // op(A) [M, K] = [3, 4], op(B) [K, N] = [4, 5]; stored transposed where the flag says so.
  for (int ta = 0; ta < 2; ++ta) {
    for (int tb = 0; tb < 2; ++tb) {
      const auto op = MakeOp("MatMul", {"a", "b"}, {"y"}, {{"trans_a", ta}, {"trans_b", tb}});
      const oracles::NamedTensors inputs = {{"a", Random(ta ? Ints{4, 3} : Ints{3, 4}, 4)},
                                            {"b", Random(tb ? Ints{5, 4} : Ints{4, 5}, 5)}};
      for (int i = 0; i < 2; ++i) {
        EXPECT_GRADIENT_CHECKS(op, inputs, i)
            << "trans_a " << ta << " trans_b " << tb << " input " << i;
      }
    }
  }
}

TEST(LinalgGradientOracle, BatchMatMul) {
  // A [2, 3, 4] (or [2, 4, 3] with trans_a) times B [2, 4, 5] (or [2, 5, 4]).
  for (int ta = 0; ta < 2; ++ta) {
    for (int tb = 0; tb < 2; ++tb) {
      const auto op = MakeOp("BatchMatMul", {"a", "b"}, {"y"}, {{"trans_a", ta}, {"trans_b", tb}});
      const oracles::NamedTensors inputs = {{"a", Random(ta ? Ints{2, 4, 3} : Ints{2, 3, 4}, 6)},
                                            {"b", Random(tb ? Ints{2, 5, 4} : Ints{2, 4, 5}, 7)}};
      for (int i = 0; i < 2; ++i) {
        EXPECT_GRADIENT_CHECKS(op, inputs, i)
            << "trans_a " << ta << " trans_b " << tb << " input " << i;
      }
    }
  }
}

TEST(LinalgGradientOracle, BatchMatMulTwoBatchDims) {
  const auto op = MakeOp("BatchMatMul", {"a", "b"}, {"y"});
  const oracles::NamedTensors inputs = {{"a", Random({2, 2, 3, 2}, 8)},
                                        {"b", Random({2, 2, 2, 3}, 9)}};
  for (int i = 0; i < 2; ++i) EXPECT_GRADIENT_CHECKS(op, inputs, i) << "input " << i;
}

}  // namespace
}  // namespace parity::testing

namespace parity::testing {
namespace {

TEST(MatMulGradientChecks, ThreeDimensionalOperandGetsItsDimsBack) {
  // A is [2, 2, 3], coerced to [2, 6] at axis_a = 1; B is [6, 2].
  std::vector<float> a(12), b(12);
  for (int i = 0; i < 12; ++i) {
    a[i] = 0.1f * static_cast<float>(i) - 0.5f;
    b[i] = 0.05f * static_cast<float>(11 - i) - 0.2f;
  }
  oracles::NamedTensors inputs = {{"a", MakeTensor<float>({2, 2, 3}, a)},
                                  {"b", MakeTensor<float>({6, 2}, b)}};
  EXPECT_GRADIENT_CHECKS(MakeOp("MatMul", {"a", "b"}, {"c"}), inputs, 0);
  EXPECT_GRADIENT_CHECKS(MakeOp("MatMul", {"a", "b"}, {"c"}), inputs, 1);
}

}  // namespace
}  // namespace parity::testing
