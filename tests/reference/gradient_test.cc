// Gradient kernels: a few hand-computed cases, then every kernel against central finite
// differences of its forward op (L = sum over outputs of <w, out>, with w fed as the dY inputs).
#include <cmath>

#include "tests/reference/test_util.h"

namespace parity::reference::testing {
namespace {

TEST(Gradient, HandComputed) {
  EXPECT_VALUES_NEAR(RunOp(Op("ReluGradient", {"y", "dy"}, {"dx"}),
                           {{"y", F({2}, {0, 2})}, {"dy", F({2}, {5, 7})}}, "dx"),
                     (std::vector<double>{0, 7}), 0);
  EXPECT_VALUES_NEAR(RunOp(Op("SigmoidGradient", {"y", "dy"}, {"dx"}),
                           {{"y", F({1}, {0.5})}, {"dy", F({1}, {2})}}, "dx"),
                     (std::vector<double>{0.5}), 0);
  EXPECT_VALUES_NEAR(RunOp(Op("TanhGradient", {"y", "dy"}, {"dx"}),
                           {{"y", F({1}, {0.5})}, {"dy", F({1}, {2})}}, "dx"),
                     (std::vector<double>{1.5}), 0);
  // FC with dY = I: dW = dY^T X = X, db = (1, 1), dX = dY W = W.
  RunResult fc = RunOps({Op("FCGradient", {"x", "w", "dy"}, {"dw", "db", "dx"})},
                        {{"x", F({2, 3}, {1, 2, 3, 4, 5, 6})},
                         {"w", F({2, 3}, {1, 0, 1, 0, 1, 0})},
                         {"dy", F({2, 2}, {1, 0, 0, 1})}});
  EXPECT_VALUES_NEAR(fc.blobs.at("dw"), (std::vector<double>{1, 2, 3, 4, 5, 6}), 0);
  EXPECT_VALUES_NEAR(fc.blobs.at("db"), (std::vector<double>{1, 1}), 0);
  EXPECT_VALUES_NEAR(fc.blobs.at("dx"), (std::vector<double>{1, 0, 1, 0, 1, 0}), 0);
  // Softmax row (1/4, 3/4) with dY = (1, 0): sum dY*Y = 1/4, dX = Y*(dY - 1/4).
  EXPECT_VALUES_NEAR(RunOp(Op("SoftmaxGradient", {"y", "dy"}, {"dx"}),
                           {{"y", F({1, 2}, {0.25, 0.75})}, {"dy", F({1, 2}, {1, 0})}}, "dx"),
                     (std::vector<double>{0.1875, -0.1875}), 0);
  // MaxPool ties: both 3s are the max of the single 2x2 window and both get dY.
  EXPECT_VALUES_NEAR(RunOp(Op("MaxPoolGradient", {"x", "y", "dy"}, {"dx"}).I("kernel", 2),
                           {{"x", F({1, 1, 2, 2}, {1, 3, 3, 2})},
                            {"y", F({1, 1, 1, 1}, {3})},
                            {"dy", F({1, 1, 1, 1}, {10})}},
                           "dx"),
                     (std::vector<double>{0, 10, 10, 0}), 0);
  // Max ties across inputs: both inputs equal to the max get dY.
  RunResult mx =
      RunOps({Op("MaxGradient", {"y", "dy", "a", "b"}, {"da", "db"})}, {{"y", F({2}, {3, 4})},
                                                                        {"dy", F({2}, {1, 2})},
                                                                        {"a", F({2}, {3, 4})},
                                                                        {"b", F({2}, {3, 1})}});
  EXPECT_VALUES_NEAR(mx.blobs.at("da"), (std::vector<double>{1, 2}), 0);
  EXPECT_VALUES_NEAR(mx.blobs.at("db"), (std::vector<double>{1, 0}), 0);
  // 1x1 conv with w = 3 over [[1,2],[3,4]], dY all ones: dW = 10, db = 4, dX = 3.
  RunResult cv = RunOps({Op("ConvGradient", {"x", "w", "dy"}, {"dw", "db", "dx"}).I("kernel", 1)},
                        {{"x", F({1, 1, 2, 2}, {1, 2, 3, 4})},
                         {"w", F({1, 1, 1, 1}, {3})},
                         {"dy", F({1, 1, 2, 2}, {1, 1, 1, 1})}});
  EXPECT_VALUES_NEAR(cv.blobs.at("dw"), (std::vector<double>{10}), 0);
  EXPECT_VALUES_NEAR(cv.blobs.at("db"), (std::vector<double>{4}), 0);
  EXPECT_VALUES_NEAR(cv.blobs.at("dx"), (std::vector<double>{3, 3, 3, 3}), 0);
  RunResult nb =
      RunOps({Op("ConvGradient", {"x", "w", "dy"}, {"dw", "dx"}).I("kernel", 1).I("no_bias", 1)},
             {{"x", F({1, 1, 2, 2}, {1, 2, 3, 4})},
              {"w", F({1, 1, 1, 1}, {3})},
              {"dy", F({1, 1, 2, 2}, {1, 1, 1, 1})}});
  EXPECT_VALUES_NEAR(nb.blobs.at("dx"), (std::vector<double>{3, 3, 3, 3}), 0);
  // Broadcast Add: dB sums dC over the broadcast rows.
  RunResult ag = RunOps(
      {Op("AddGradient", {"dc", "a", "b"}, {"da", "db"})},
      {{"dc", F({2, 2}, {1, 2, 3, 4})}, {"a", F({2, 2}, {0, 0, 0, 0})}, {"b", F({2}, {0, 0})}});
  EXPECT_VALUES_NEAR(ag.blobs.at("da"), (std::vector<double>{1, 2, 3, 4}), 0);
  EXPECT_VALUES_NEAR(ag.blobs.at("db"), (std::vector<double>{4, 6}), 0);
}

// ---- Finite differences ----

struct GradCase {
  caffe2::OperatorDef fwd;
  Tensors inputs;
  // Forward output -> its weight w (fed to the gradient op as blob "d_<output>").
  std::map<std::string, std::vector<double>> weights;
  caffe2::OperatorDef grad;
  // Forward input -> the gradient op's output holding dL/d(input).
  std::map<std::string, std::string> wrt;
};

double Loss(const GradCase& g, const Tensors& in) {
  RunResult r = RunNet(MakeNet({g.fwd}), in);
  double l = 0;
  for (const auto& [out, w] : g.weights) {
    const auto v = Values(r.blobs.at(out));
    EXPECT_EQ(v.size(), w.size()) << out;
    for (size_t k = 0; k < w.size() && k < v.size(); ++k) l += w[k] * v[k];
  }
  return l;
}

void CheckGradient(const GradCase& g, double tol = 1e-6) {
  Tensors in = g.inputs;
  for (const auto& [out, w] : g.weights) {
    RunResult r = RunNet(MakeNet({g.fwd}), g.inputs);
    in["d_" + out] = F(Dims(r.blobs.at(out)), w);
  }
  RunResult analytic = RunNet(MakeNet({g.fwd, g.grad}), in);
  for (const auto& [x, gx] : g.wrt) {
    const auto got = Values(analytic.blobs.at(gx));
    ASSERT_EQ(got.size(), static_cast<size_t>(g.inputs.at(x).double_data_size())) << x;
    for (int k = 0; k < g.inputs.at(x).double_data_size(); ++k) {
      const double h = 1e-6;
      Tensors plus = g.inputs, minus = g.inputs;
      plus[x].set_double_data(k, plus[x].double_data(k) + h);
      minus[x].set_double_data(k, minus[x].double_data(k) - h);
      const double numeric = (Loss(g, plus) - Loss(g, minus)) / (2 * h);
      EXPECT_NEAR(got[k], numeric, tol * (1 + std::abs(numeric)))
          << g.grad.type() << " d/d" << x << "[" << k << "]";
    }
  }
}

TEST(Gradient, UnaryKernelsMatchFiniteDifferences) {
  const Tensors x = {{"x", F({4}, {-1.3, -0.4, 0.6, 1.7})}};
  const std::vector<double> w = {0.3, -1.1, 0.7, 2.0};
  struct U {
    const char* fwd;
    const char* grad;
    bool uses_y;
  };
  for (const U& u : {U{"Relu", "ReluGradient", true}, U{"Sigmoid", "SigmoidGradient", true},
                     U{"Tanh", "TanhGradient", true}, U{"Softsign", "SoftsignGradient", false},
                     U{"Abs", "AbsGradient", false}, U{"Reciprocal", "ReciprocalGradient", true},
                     U{"Sin", "SinGradient", false}, U{"Cos", "CosGradient", false},
                     U{"Elu", "EluGradient", true}, U{"LeakyRelu", "LeakyReluGradient", true},
                     U{"Tan", "TanGradient", false}, U{"Atan", "AtanGradient", false},
                     U{"Sinh", "SinhGradient", false}, U{"Cosh", "CoshGradient", false},
                     U{"Asinh", "AsinhGradient", false}, U{"Erf", "ErfGradient", false}}) {
    CheckGradient({Op(u.fwd, {"x"}, {"y"}),
                   x,
                   {{"y", w}},
                   Op(u.grad, {u.uses_y ? "y" : "x", "d_y"}, {"dx"}),
                   {{"x", "dx"}}});
  }
  CheckGradient({Op("Clip", {"x"}, {"y"}).F("min", -1).F("max", 1),
                 x,
                 {{"y", w}},
                 Op("ClipGradient", {"y", "d_y"}, {"dx"}).F("min", -1).F("max", 1),
                 {{"x", "dx"}}});
}

TEST(Gradient, BinaryAndReductionKernelsMatchFiniteDifferences) {
  const Tensors in = {{"a", F({2, 3}, {0.5, -1, 2, 1.5, 0.25, -0.75})},
                      {"b", F({3}, {1.5, -2, 0.8})}};
  const std::vector<double> w = {1, -2, 0.5, 0.3, 1.2, -0.6};
  for (const char* op : {"Add", "Sub", "Mul"}) {
    CheckGradient({Op(op, {"a", "b"}, {"c"}),
                   in,
                   {{"c", w}},
                   Op(std::string(op) + "Gradient", {"d_c", "a", "b"}, {"da", "db"}),
                   {{"a", "da"}, {"b", "db"}}});
  }
  CheckGradient({Op("Div", {"a", "b"}, {"c"}),
                 in,
                 {{"c", w}},
                 Op("DivGradient", {"d_c", "a", "b", "c"}, {"da", "db"}),
                 {{"a", "da"}, {"b", "db"}}});
  // Legacy broadcast along axis 0.
  const Tensors lin = {{"a", in.at("a")}, {"b", F({2}, {1.5, -2})}};
  CheckGradient({Op("Mul", {"a", "b"}, {"c"}).I("broadcast", 1).I("axis", 0),
                 lin,
                 {{"c", w}},
                 Op("MulGradient", {"d_c", "a", "b"}, {"da", "db"}).I("broadcast", 1).I("axis", 0),
                 {{"a", "da"}, {"b", "db"}}});
  // CumSum's maker: the CumSum of dY with reverse flipped.
  for (int64_t reverse : {0, 1}) {
    CheckGradient({Op("CumSum", {"a"}, {"y"}).I("axis", 1).I("exclusive", 1).I("reverse", reverse),
                   in,
                   {{"y", w}},
                   Op("CumSum", {"d_y"}, {"da"}).I("axis", 1).I("exclusive", 1).I("reverse", 1 - reverse),
                   {{"a", "da"}}});
  }
  for (const char* op : {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd"}) {
    CheckGradient({Op(op, {"a"}, {"y"}).Ints("axes", {1}),
                   in,
                   {{"y", {0.7, -1.3}}},
                   Op(std::string(op) + "Gradient", {"d_y", "a", "y"}, {"da"}).Ints("axes", {1}),
                   {{"a", "da"}}});
  }
  CheckGradient({Op("SumElements", {"a"}, {"y"}).I("average", 1),
                 in,
                 {{"y", {1.7}}},
                 Op("SumElementsGradient", {"a", "d_y"}, {"da"}).I("average", 1),
                 {{"a", "da"}}});
  CheckGradient({Op("Tile", {"b"}, {"y"}).I("tiles", 2).I("axis", 0),
                 in,
                 {{"y", w}},
                 Op("TileGradient", {"d_y"}, {"db"}).I("tiles", 2).I("axis", 0),
                 {{"b", "db"}}});
  CheckGradient(
      {Op("Slice", {"a"}, {"y"}).Ints("starts", {0, 1}).Ints("ends", {-1, 3}),
       in,
       {{"y", {1, 2, 3, 4}}},
       Op("SliceGradient", {"a", "d_y"}, {"da"}).Ints("starts", {0, 1}).Ints("ends", {-1, 3}),
       {{"a", "da"}}});
}

// The gradient ops that had no reference kernel (GatherGradient, MeanGradient, PowGradient in
// both forms, affine LayerNormGradient), each against central differences of its forward op.
TEST(Gradient, GatherMeanPowAndAffineLayerNormKernelsMatchFiniteDifferences) {
  const Tensors pos = {{"a", F({2, 3}, {0.5, 1.2, 2, 1.5, 0.25, 0.75})},
                       {"e", F({3}, {1.5, -0.5, 2.2})},
                       {"a2", F({2, 3}, {0.3, -0.2, 0.1, 0.9, -1, 0.4})},
                       {"idx", Int({3}, {1, 0, -1})}};
  const std::vector<double> w = {1, -2, 0.5, 0.3, 1.2, -0.6};
  CheckGradient({Op("Pow", {"a", "e"}, {"y"}),
                 pos,
                 {{"y", w}},
                 Op("PowGradient", {"d_y", "a", "e", "y"}, {"da", "de"}),
                 {{"a", "da"}, {"e", "de"}}});
  CheckGradient({Op("Pow", {"a"}, {"y"}).F("exponent", 2.5),
                 pos,
                 {{"y", w}},
                 Op("PowGradient", {"d_y", "a", "y"}, {"da"}).F("exponent", 2.5),
                 {{"a", "da"}}});
  CheckGradient({Op("Mean", {"a", "a2"}, {"y"}),
                 pos,
                 {{"y", w}},
                 Op("MeanGradient", {"d_y"}, {"da", "da2"}),
                 {{"a", "da"}, {"a2", "da2"}}});
  // Rows 1, 0 and (wrapped) 1 again: row 1 accumulates two slices of dY.
  CheckGradient({Op("Gather", {"a", "idx"}, {"y"}),
                 pos,
                 {{"y", {1, -2, 0.5, 0.3, 1.2, -0.6, 2, 0.1, -1}}},
                 Op("GatherGradient", {"a", "idx", "d_y"}, {"da"}),
                 {{"a", "da"}}});
  // Mod (both sign rules) with A / B away from integers: q = trunc or floor of A / B.
  const Tensors mod = {{"a", F({2, 3}, {2.3, -2.3, 5.7, -0.4, 3.3, -7.9})},
                       {"b", F({3}, {1.0, -2.0, 0.9})}};
  for (int64_t floored : {0, 1}) {
    CheckGradient({Op("Mod", {"a", "b"}, {"y"}).I("sign_follow_divisor", floored),
                   mod,
                   {{"y", w}},
                   Op("ModGradient", {"d_y", "a", "b", "y"}, {"da", "db"})
                       .I("sign_follow_divisor", floored),
                   {{"a", "da"}, {"b", "db"}}});
  }
  // GatherElements along axis 1 with a repeated and a wrapped pick.
  CheckGradient({Op("GatherElements", {"a", "ge"}, {"y"}).I("axis", 1),
                 {{"a", pos.at("a")}, {"ge", I64({2, 2}, {2, -1, 0, 0})}},
                 {{"y", {1, -2, 0.5, 0.3}}},
                 Op("GatherElementsGradient", {"a", "ge", "d_y"}, {"da"}).I("axis", 1),
                 {{"a", "da"}}});
  // Where with C [2, 1] over X [2, 3] and a broadcast Y [3].
  CheckGradient({Op("Where", {"c", "a", "e"}, {"y"}),
                 {{"c", Bool({2, 1}, {1, 0})}, {"a", pos.at("a")}, {"e", pos.at("e")}},
                 {{"y", w}},
                 Op("WhereGradient", {"c", "a", "e", "d_y"}, {"da", "de"}),
                 {{"a", "da"}, {"e", "de"}}});
  const Tensors ln = {{"x", F({2, 3}, {0.2, -1, 0.5, 1.5, 0.1, -0.3})},
                      {"gamma", F({3}, {1.5, -0.5, 0.8})},
                      {"beta", F({3}, {0.1, 0.2, -0.3})}};
  CheckGradient(
      {Op("LayerNorm", {"x", "gamma", "beta"}, {"y", "mean", "std"}).I("elementwise_affine", 1),
       ln,
       {{"y", w}},
       Op("LayerNormGradient", {"d_y", "y", "mean", "std", "x", "gamma"}, {"dx", "dg", "db"})
           .I("elementwise_affine", 1),
       {{"x", "dx"}, {"gamma", "dg"}, {"beta", "db"}}});
}

TEST(Gradient, LinalgNormAndLossKernelsMatchFiniteDifferences) {
  const Tensors fc = {{"x", F({1, 2, 3}, {0.1, -0.5, 0.9, 1.2, 0.3, -0.7})},
                      {"w", F({2, 3}, {0.4, -0.2, 0.6, -0.9, 0.5, 0.1})},
                      {"b", F({2}, {0.05, -0.1})}};
  CheckGradient({Op("FC", {"x", "w", "b"}, {"y"}).I("axis", 2),
                 fc,
                 {{"y", {1, -0.5, 0.25, 2}}},
                 Op("FCGradient", {"x", "w", "d_y"}, {"dw", "db", "dx"}).I("axis", 2),
                 {{"x", "dx"}, {"w", "dw"}, {"b", "db"}}});
  const Tensors sm = {{"x", F({2, 3}, {0.2, -1, 0.5, 1.5, 0.1, -0.3})},
                      {"l", Int({2}, {2, 0})},
                      {"wt", F({2}, {0.5, 2})}};
  CheckGradient({Op("Softmax", {"x"}, {"y"}),
                 sm,
                 {{"y", {1, -2, 0.5, 0.3, 0.7, -1}}},
                 Op("SoftmaxGradient", {"y", "d_y"}, {"dx"}),
                 {{"x", "dx"}}});
  CheckGradient(
      {Op("SoftmaxWithLoss", {"x", "l", "wt"}, {"p", "loss"}).F("scale", 1.5),
       sm,
       {{"loss", {2.0}}},
       Op("SoftmaxWithLossGradient", {"x", "l", "wt", "p", "d_loss"}, {"dx"}).F("scale", 1.5),
       {{"x", "dx"}}});
  CheckGradient({Op("LayerNorm", {"x"}, {"y", "mean", "std"}),
                 sm,
                 {{"y", {1, -2, 0.5, 0.3, 0.7, -1}}},
                 Op("LayerNormGradient", {"d_y", "y", "mean", "std", "x"}, {"dx"}),
                 {{"x", "dx"}}});
  const Tensors xe = {{"x", F({2, 2}, {0.3, -1.2, 2.0, 0.1})},
                      {"t", F({2, 2}, {1, 0, 0.25, 0.5})},
                      {"p", F({2, 3}, {0.2, 0.5, 0.3, 0.1, 0.1, 0.8})},
                      {"l", Int({2}, {1, 2})}};
  CheckGradient({Op("SigmoidCrossEntropyWithLogits", {"x", "t"}, {"y"}),
                 xe,
                 {{"y", {0.7, -1.5}}},
                 Op("SigmoidCrossEntropyWithLogitsGradient", {"d_y", "x", "t"}, {"dx"}),
                 {{"x", "dx"}}});
  CheckGradient({Op("LabelCrossEntropy", {"p", "l"}, {"y"}),
                 xe,
                 {{"y", {0.7, -1.5}}},
                 Op("LabelCrossEntropyGradient", {"p", "l", "d_y"}, {"dp"}),
                 {{"p", "dp"}}});
  CheckGradient({Op("SquaredL2Distance", {"x", "t"}, {"y"}),
                 xe,
                 {{"y", {0.7, -1.5}}},
                 Op("SquaredL2DistanceGradient", {"x", "t", "d_y"}, {"dx", "dt"}),
                 {{"x", "dx"}, {"t", "dt"}}});
  CheckGradient({Op("AveragedLoss", {"x"}, {"y"}),
                 xe,
                 {{"y", {1.3}}},
                 Op("AveragedLossGradient", {"x", "d_y"}, {"dx"}),
                 {{"x", "dx"}}});
  // ONNX's class losses over [N, C, d] = [2, 3, 2] with weights and an ignored position.
  const Tensors cl = {{"x", F({2, 3, 2}, {0.2, -1, 0.5, 1.5, 0.1, -0.3, 0.9, -0.4, 1.1, 0.6,
                                          -0.8, 0.3})},
                      {"t", I64({2, 2}, {2, -1, 0, 1})},
                      {"w", F({3}, {0.5, 2, 1.5})}};
  for (const char* type : {"NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss"}) {
    CheckGradient({Op(type, {"x", "t", "w"}, {"y"}).S("reduction", "none").I("ignore_index", -1),
                   cl,
                   {{"y", {0.7, -1.5, 0.4, 2}}},
                   Op(std::string(type) + "Gradient", {"x", "t", "w", "d_y"}, {"dx"})
                       .S("reduction", "none")
                       .I("ignore_index", -1),
                   {{"x", "dx"}}});
    CheckGradient({Op(type, {"x", "t", "w"}, {"y"}).I("ignore_index", -1),
                   cl,
                   {{"y", {1.3}}},
                   Op(std::string(type) + "Gradient", {"x", "t", "w", "d_y"}, {"dx"})
                       .I("ignore_index", -1),
                   {{"x", "dx"}}});
  }
  // SpatialBN training: outputs 1, 2 are the in-place running stats (weight 0).
  const Tensors bn = {{"x", F({2, 2, 1, 2}, {0.5, -1, 2, 0.3, 1.1, 0.2, -0.4, 0.9})},
                      {"s", F({2}, {1.5, -0.5})},
                      {"b", F({2}, {0.1, 0.2})},
                      {"m", F({2}, {0, 0})},
                      {"v", F({2}, {1, 1})}};
  CheckGradient({Op("SpatialBN", {"x", "s", "b", "m", "v"}, {"y", "m", "v", "sm", "siv"}),
                 bn,
                 {{"y", {1, -2, 0.5, 0.3, 0.7, -1, 0.2, 0.9}}},
                 Op("SpatialBNGradient", {"x", "s", "d_y", "sm", "siv"}, {"dx", "ds", "db"}),
                 {{"x", "dx"}, {"s", "ds"}, {"b", "db"}}},
                1e-5);
}

TEST(Gradient, ConvPoolAndRnnUnitKernelsMatchFiniteDifferences) {
  std::vector<double> xv;
  for (int k = 0; k < 2 * 4 * 4; ++k) xv.push_back(std::sin(1.7 * k + 0.3));
  const Tensors cv = {{"x", F({1, 2, 4, 4}, xv)},
                      {"w", F({2, 1, 2, 2}, {0.5, -0.3, 0.8, 0.1, -0.6, 0.2, 0.4, 0.9})},
                      {"b", F({2}, {0.1, -0.2})}};
  // Group 2, stride 2, asymmetric pads, dilation 2.
  auto conv = [](const std::string& type, std::vector<std::string> in,
                 std::vector<std::string> out) {
    return Op(type, in, out)
        .I("kernel", 2)
        .I("group", 2)
        .I("stride", 2)
        .Ints("pads", {1, 0, 0, 1})
        .I("dilation", 2);
  };
  RunResult cr = RunNet(MakeNet({conv("Conv", {"x", "w", "b"}, {"y"})}), cv);
  std::vector<double> w;
  for (size_t k = 0; k < Values(cr.blobs.at("y")).size(); ++k) w.push_back(std::cos(0.9 * k));
  CheckGradient({conv("Conv", {"x", "w", "b"}, {"y"}),
                 cv,
                 {{"y", w}},
                 conv("ConvGradient", {"x", "w", "d_y"}, {"dw", "db", "dx"}),
                 {{"x", "dx"}, {"w", "dw"}, {"b", "db"}}});
  auto pool = [](const std::string& type, std::vector<std::string> in,
                 std::vector<std::string> out) {
    return Op(type, in, out).I("kernel", 3).I("stride", 2).I("pad", 1);
  };
  RunResult pr = RunNet(MakeNet({pool("AveragePool", {"x"}, {"y"})}), cv);
  std::vector<double> pw;
  for (size_t k = 0; k < Values(pr.blobs.at("y")).size(); ++k) pw.push_back(std::cos(0.7 * k));
  CheckGradient({pool("AveragePool", {"x"}, {"y"}),
                 cv,
                 {{"y", pw}},
                 pool("AveragePoolGradient", {"x", "y", "d_y"}, {"dx"}),
                 {{"x", "dx"}}});
  CheckGradient({pool("MaxPool", {"x"}, {"y"}),
                 cv,
                 {{"y", pw}},
                 pool("MaxPoolGradient", {"x", "y", "d_y"}, {"dx"}),
                 {{"x", "dx"}}});

  // LSTMUnit with N = 2, D = 2; row 1 is past its length (pass-through gradients).
  const Tensors lstm = {{"h", F({1, 2, 2}, {0.1, -0.2, 0.3, 0.4})},
                        {"c", F({1, 2, 2}, {0.5, -0.6, 0.7, 0.8})},
                        {"g", F({1, 2, 8}, {0.1, 0.2, -0.3, 0.4, 0.5, -0.6, 0.7, 0.8, 0.9, -1.0,
                                            1.1, 1.2, -1.3, 1.4, 1.5, -1.6})},
                        {"len", Int({2}, {3, 1})},
                        {"t", Int({1}, {1})}};
  for (int drop : {0, 1}) {
    CheckGradient({Op("LSTMUnit", {"h", "c", "g", "len", "t"}, {"ho", "co"})
                       .F("forget_bias", 0.5)
                       .I("drop_states", drop),
                   lstm,
                   {{"ho", {1, -0.5, 0.3, 2}}, {"co", {0.2, 0.7, -1.1, 0.4}}},
                   Op("LSTMUnitGradient", {"h", "c", "g", "len", "t", "ho", "co", "d_ho", "d_co"},
                      {"dh", "dc", "dg"})
                       .F("forget_bias", 0.5)
                       .I("drop_states", drop),
                   {{"h", "dh"}, {"c", "dc"}, {"g", "dg"}}});
  }
  const Tensors gru = {
      {"h", F({1, 2, 2}, {0.1, -0.2, 0.3, 0.4})},
      {"g", F({1, 2, 6}, {0.1, 0.2, -0.3, 0.4, 0.5, -0.6, 0.9, -1.0, 1.1, 1.2, -1.3, 1.4})},
      {"len", Int({2}, {1, 3})},
      {"t", Int({1}, {1})}};
  CheckGradient({Op("GRUUnit", {"h", "g", "len", "t"}, {"ho"}),
                 gru,
                 {{"ho", {1, -0.5, 0.3, 2}}},
                 Op("GRUUnitGradient", {"h", "g", "len", "t", "ho", "d_ho"}, {"dh", "dg"}),
                 {{"h", "dh"}, {"g", "dg"}}});
}

}  // namespace
}  // namespace parity::reference::testing
