// SpatialBN, LayerNorm and LRN against hand-computed values.
#include <cmath>

#include "core/grad/gradient.h"
#include "core/schema.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

constexpr double kEps = 1e-5;  // The default epsilon of both ops.

std::vector<TensorType> Infer(const caffe2::OperatorDef& def, const std::vector<TensorType>& in) {
  return OpSchemaRegistry::Get(def.type()).InferShapes(def, in);
}

caffe2::OperatorDef TrainBN(std::vector<TestArg> args = {}) {
  return MakeOp("SpatialBN", {"x", "s", "b", "rm", "rv"}, {"y", "rm", "rv", "sm", "sv"}, args);
}

TEST(SpatialBN, TestModeUsesGivenStats) {
  // NCHW [1, 2, 1, 2]: channel 0 = [1, 3], channel 1 = [2, 6]; mean [2, 4], var [1, 4],
  // scale [1, 2], bias [0, 1]: y = (x - mean) / sqrt(var + eps) * scale + bias.
  auto ws = RunOp(MakeOp("SpatialBN", {"x", "s", "b", "m", "v"}, {"y"}, {{"is_test", 1}}),
                  {{"x", MakeTensor<float>({1, 2, 1, 2}, {1, 3, 2, 6})},
                   {"s", MakeTensor<float>({2}, {1, 2})},
                   {"b", MakeTensor<float>({2}, {0, 1})},
                   {"m", MakeTensor<float>({2}, {2, 4})},
                   {"v", MakeTensor<float>({2}, {1, 4})}});
  const double r0 = 1 / std::sqrt(1 + kEps), r1 = 1 / std::sqrt(4 + kEps);
  ExpectTensorNear(ws->GetTensor("y"), {1, 2, 1, 2},
                   {-1 * r0, 1 * r0, -2 * r1 * 2 + 1, 2 * r1 * 2 + 1}, 1e-6);
}

TEST(SpatialBN, TrainingModeNCHW) {
  // One channel, values 1, 2, 3, 4 (N = 2, HxW = 2): mean 2.5, biased var 1.25.
  // Running stats with momentum 0.9 from mean 1, var 2:
  //   mean 0.1 * 2.5 + 0.9 * 1 = 1.15; var 0.1 * 1.25 * 4/3 + 0.9 * 2 = 1.9666667 (unbiased).
  // y = (x - 2.5) / sqrt(1.25 + eps) * 2 + 0.5.
  auto ws = RunOp(TrainBN(), {{"x", MakeTensor<float>({2, 1, 1, 2}, {1, 2, 3, 4})},
                              {"s", MakeTensor<float>({1}, {2})},
                              {"b", MakeTensor<float>({1}, {0.5})},
                              {"rm", MakeTensor<float>({1}, {1})},
                              {"rv", MakeTensor<float>({1}, {2})}});
  const double r = 1 / std::sqrt(1.25 + kEps);
  ExpectTensorNear(ws->GetTensor("y"), {2, 1, 1, 2},
                   {-1.5 * r * 2 + 0.5, -0.5 * r * 2 + 0.5, 0.5 * r * 2 + 0.5, 1.5 * r * 2 + 0.5},
                   1e-5);
  ExpectTensorNear(ws->GetTensor("rm"), {1}, {1.15});
  ExpectTensorNear(ws->GetTensor("rv"), {1}, {0.1 * 1.25 * 4 / 3 + 0.9 * 2});
  ExpectTensorNear(ws->GetTensor("sm"), {1}, {2.5});
  ExpectTensorNear(ws->GetTensor("sv"), {1}, {r});
}

TEST(SpatialBN, NumBatchesUsesSums) {
  // num_batches 2 over X [1, 1, 1, 2]: n = 2 * 1 * 2 = 4; sums 10, sumsq 30 give mean 2.5 and
  // var 30/4 - 2.5^2 = 1.25 (the statistics of the NCHW case above), so the same updates follow.
  auto ws = RunOp(MakeOp("SpatialBN", {"x", "s", "b", "rm", "rv", "sum", "sumsq"},
                         {"y", "rm", "rv", "sm", "sv"}, {{"num_batches", 2}}),
                  {{"x", MakeTensor<float>({1, 1, 1, 2}, {1, 2})},
                   {"s", MakeTensor<float>({1}, {2})},
                   {"b", MakeTensor<float>({1}, {0.5})},
                   {"rm", MakeTensor<float>({1}, {1})},
                   {"rv", MakeTensor<float>({1}, {2})},
                   {"sum", MakeTensor<float>({1}, {10})},
                   {"sumsq", MakeTensor<float>({1}, {30})}});
  const double r = 1 / std::sqrt(1.25 + kEps);
  ExpectTensorNear(ws->GetTensor("y"), {1, 1, 1, 2}, {-1.5 * r * 2 + 0.5, -0.5 * r * 2 + 0.5}, 1e-5);
  ExpectTensorNear(ws->GetTensor("rm"), {1}, {1.15});
  ExpectTensorNear(ws->GetTensor("rv"), {1}, {0.1 * 1.25 * 4 / 3 + 0.9 * 2});
}

TEST(SpatialBN, TrainingModeNHWCAccumulatesOverRuns) {
  // NHWC [1, 2, 2]: channel 0 = {1, 3} (mean 2, var 1), channel 1 = {10, 20} (mean 15, var 25).
  // momentum 0.5, n = 2 (unbias factor 2), running stats start at 0:
  //   run 1: mean 0.5 * [2, 15] = [1, 7.5]; var 0.5 * 2 * [1, 25] = [1, 25].
  //   run 2: mean 0.5 * [2, 15] + 0.5 * [1, 7.5] = [1.5, 11.25];
  //          var 0.5 * 2 * [1, 25] + 0.5 * [1, 25] = [1.5, 37.5].
  Workspace ws;
  *ws.CreateTensor("x") = MakeTensor<double>({1, 2, 2}, {1, 10, 3, 20});
  *ws.CreateTensor("s") = MakeTensor<double>({2}, {1, 1});
  *ws.CreateTensor("b") = MakeTensor<double>({2}, {0, 0});
  *ws.CreateTensor("rm") = MakeTensor<double>({2}, {0, 0});
  *ws.CreateTensor("rv") = MakeTensor<double>({2}, {0, 0});
  caffe2::NetDef net;
  net.set_name("bn");
  *net.add_op() = TrainBN({{"order", "NHWC"}, {"momentum", 0.5f}});
  ws.CreateNet(net);
  ws.RunNet("bn");
  ExpectTensorNear(ws.GetTensor("rm"), {2}, {1, 7.5});
  ExpectTensorNear(ws.GetTensor("rv"), {2}, {1, 25});
  ExpectTensorNear(ws.GetTensor("sm"), {2}, {2, 15});
  ExpectTensorNear(ws.GetTensor("sv"), {2}, {1 / std::sqrt(1 + kEps), 1 / std::sqrt(25 + kEps)}, 1e-12);
  const double a = 1 / std::sqrt(1 + kEps), c = 5 / std::sqrt(25 + kEps);
  ExpectTensorNear(ws.GetTensor("y"), {1, 2, 2}, {-a, -c, a, c}, 1e-12);
  ws.RunNet("bn");
  ExpectTensorNear(ws.GetTensor("rm"), {2}, {1.5, 11.25});
  ExpectTensorNear(ws.GetTensor("rv"), {2}, {1.5, 37.5});
}

TEST(SpatialBN, EmptyBatch) {
  auto ws = RunOp(TrainBN(), {{"x", MakeTensor<float>({0, 2, 3}, {})},
                              {"s", MakeTensor<float>({2}, {1, 1})},
                              {"b", MakeTensor<float>({2}, {0, 0})},
                              {"rm", MakeTensor<float>({2}, {4, 5})},
                              {"rv", MakeTensor<float>({2}, {6, 7})}});
  EXPECT_EQ(ws->GetTensor("y").dims(), (Ints{0, 2, 3}));
  ExpectTensorNear(ws->GetTensor("rm"), {2}, {4, 5});
  ExpectTensorNear(ws->GetTensor("sm"), {2}, {0, 0});
}

TEST(SpatialBN, Errors) {
  std::map<std::string, Tensor> in{{"x", MakeTensor<float>({1, 2, 1, 2}, {1, 3, 2, 6})},
                                   {"s", MakeTensor<float>({3}, {1, 1, 1})},
                                   {"b", MakeTensor<float>({2}, {0, 0})},
                                   {"rm", MakeTensor<float>({2}, {0, 0})},
                                   {"rv", MakeTensor<float>({2}, {1, 1})}};
  ExpectError([&] { RunOp(TrainBN(), in); }, ErrorKind::kShapeMismatch,
              {"SpatialBN", "'s'", "[1, 2, 1, 2]", "[3]"});
  in["s"] = MakeTensor<float>({2}, {1, 1});
  ExpectError([&] {
    RunOp(MakeOp("SpatialBN", {"x", "s", "b", "rm", "rv"}, {"y", "m2", "v2", "sm", "sv"}), in);
  }, ErrorKind::kBadArgument, {"SpatialBN", "same blob"});
  ExpectError([&] {
    RunOp(MakeOp("SpatialBN", {"x", "s", "b", "rm", "rv"}, {"y"}), in);
  }, ErrorKind::kBadArgument, {"SpatialBN", "5 outputs"});
  ExpectError([&] { RunOp(TrainBN({{"momentum", 1.5f}}), in); }, ErrorKind::kBadArgument,
              {"SpatialBN", "momentum"});
  ExpectError([&] { RunOp(TrainBN({{"order", "CHWN"}}), in); }, ErrorKind::kBadArgument,
              {"SpatialBN", "order"});
  in["x"] = MakeTensor<float>({2}, {1, 2});
  ExpectError([&] { RunOp(TrainBN(), in); }, ErrorKind::kShapeMismatch, {"SpatialBN", "rank >= 2"});
}

TEST(SpatialBN, ShapeInference) {
  auto out = Infer(TrainBN({{"order", "NHWC"}}), {{DataType::kFloat, {4, 5, 5, 3}, true},
                                                  {DataType::kFloat, {3}, true},
                                                  {DataType::kFloat, {3}, true},
                                                  {DataType::kFloat, {3}, true},
                                                  {DataType::kFloat, {3}, true}});
  ASSERT_EQ(out.size(), 5u);
  EXPECT_EQ(out[0].dims, (Ints{4, 5, 5, 3}));
  EXPECT_EQ(out[4].dims, (Ints{3}));
  EXPECT_FALSE(OpSchemaRegistry::Get("SpatialBN").IsDifferentiable(3));
}

TEST(LayerNorm, RowsAtAxisOneAndNegativeAxis) {
  // Rows [1, 2, 3] (mean 2, var 2/3) and [2, 4, 6] (mean 4, var 8/3); std = sqrt(var + eps).
  const double s0 = std::sqrt(2.0 / 3 + kEps), s1 = std::sqrt(8.0 / 3 + kEps);
  for (int axis : {1, -1}) {
    auto ws = RunOp(MakeOp("LayerNorm", {"x"}, {"y", "mean", "std"}, {{"axis", axis}}),
                    {{"x", MakeTensor<float>({2, 3}, {1, 2, 3, 2, 4, 6})}});
    ExpectTensorNear(ws->GetTensor("y"), {2, 3}, {-1 / s0, 0, 1 / s0, -2 / s1, 0, 2 / s1}, 1e-5);
    ExpectTensorNear(ws->GetTensor("mean"), {2, 1}, {2, 4}, 1e-6);
    ExpectTensorNear(ws->GetTensor("std"), {2, 1}, {s0, s1}, 1e-6);
  }
}

TEST(LayerNorm, AxisZeroAndAffine) {
  // All six values: mean 3, var (4 + 1 + 0 + 1 + 1 + 9) / 6 = 16/6; moments dims [1].
  auto x = MakeTensor<double>({2, 3}, {1, 2, 3, 2, 4, 6});
  auto ws = RunOp(MakeOp("LayerNorm", {"x"}, {"y", "mean", "std"}, {{"axis", 0}}), {{"x", x}});
  ExpectTensorNear(ws->GetTensor("mean"), {1}, {3}, 1e-12);
  ExpectTensorNear(ws->GetTensor("std"), {1}, {std::sqrt(16.0 / 6 + kEps)}, 1e-12);
  // gamma [1, 2, 3], beta [0, 0, 1] on the rows of axis 1: row 0 = [-1/s0, 0, 3/s0 + 1].
  const double s0 = std::sqrt(2.0 / 3 + kEps), s1 = std::sqrt(8.0 / 3 + kEps);
  ws = RunOp(MakeOp("LayerNorm", {"x", "g", "b"}, {"y", "mean", "std"}, {{"elementwise_affine", 1}}),
             {{"x", x}, {"g", MakeTensor<double>({3}, {1, 2, 3})},
              {"b", MakeTensor<double>({3}, {0, 0, 1})}});
  ExpectTensorNear(ws->GetTensor("y"), {2, 3},
                   {-1 / s0, 0, 3 / s0 + 1, -2 / s1, 0, 6 / s1 + 1}, 1e-12);
}

TEST(LayerNorm, ErrorsAndShapeInference) {
  auto x = MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  ExpectError([&] {
    RunOp(MakeOp("LayerNorm", {"x"}, {"y", "m", "s"}, {{"elementwise_affine", 1}}), {{"x", x}});
  }, ErrorKind::kBadArgument, {"LayerNorm", "gamma"});
  ExpectError([&] {
    RunOp(MakeOp("LayerNorm", {"x", "g", "b"}, {"y", "m", "s"}, {{"elementwise_affine", 1}}),
          {{"x", x}, {"g", MakeTensor<float>({2}, {1, 1})}, {"b", MakeTensor<float>({3}, {0, 0, 0})}});
  }, ErrorKind::kShapeMismatch, {"LayerNorm", "'g'", "[2, 3]", "3 elements"});
  ExpectError([&] { RunOp(MakeOp("LayerNorm", {"x"}, {"y", "m", "s"}, {{"axis", 2}}), {{"x", x}}); },
              ErrorKind::kBadArgument, {"LayerNorm", "axis 2"});
  auto out = Infer(MakeOp("LayerNorm", {"x"}, {"y", "m", "s"}, {{"axis", -1}}),
                   {{DataType::kFloat, {2, 3, 4}, true}});
  EXPECT_EQ(out[1].dims, (Ints{2, 3, 1}));
  EXPECT_EQ(out[2].dims, (Ints{2, 3, 1}));
}

// LRN over X [1, 3, 1, 1] = (1, 2, 3) with alpha = 3 (alpha / size = 1 for size 3), beta 0.5,
// bias 1: the windows are {0, 1}, {0, 1, 2}, {1, 2} (clipped at the edges, still divided by
// size), so scale = (1 + 1 + 4, 1 + 1 + 4 + 9, 1 + 4 + 9) = (6, 15, 14) and Y = X / sqrt(scale).
TEST(LRN, ClippedWindowsDividedBySize) {
  const std::vector<TestArg> args = {{"size", 3}, {"alpha", 3.0f}, {"beta", 0.5f}};
  auto ws = RunOp(MakeOp("LRN", {"x"}, {"y", "s"}, args),
                  {{"x", MakeTensor<float>({1, 3, 1, 1}, {1, 2, 3})}});
  ExpectTensorNear(ws->GetTensor("y"), {1, 3, 1, 1},
                   {1 / std::sqrt(6.0), 2 / std::sqrt(15.0), 3 / std::sqrt(14.0)});
  ExpectTensorNear(ws->GetTensor("s"), {1, 3, 1, 1}, {6, 15, 14});
  // NHWC, the same channels last; size 5 covers all three channels: scale = 1 + 3/5 * 14 = 9.4;
  // bias 2 and beta 1 with size 1: scale = 2 + 0.5 * x^2.
  ws = RunOp(MakeOp("LRN", {"x"}, {"y"},
                    {{"size", 5}, {"alpha", 3.0f}, {"beta", 0.5f}, {"order", "NHWC"}}),
             {{"x", MakeTensor<double>({1, 1, 1, 3}, {1, 2, 3})}});
  const double r = 1 / std::sqrt(9.4);
  ExpectTensorNear(ws->GetTensor("y"), {1, 1, 1, 3}, {r, 2 * r, 3 * r}, 1e-12);
  ws = RunOp(
      MakeOp("LRN", {"x"}, {"y"}, {{"size", 1}, {"alpha", 0.5f}, {"beta", 1.0f}, {"bias", 2.0f}}),
      {{"x", MakeTensor<float>({1, 2, 1, 2}, {1, 2, -2, 0})}});
  ExpectTensorNear(ws->GetTensor("y"), {1, 2, 1, 2}, {1 / 2.5, 2 / 4.0, -2 / 4.0, 0});
}

// size 1: y = x (b + a x^2)^-beta, dy/dx = (b + a x^2)^-beta - 2 a beta x^2 (b + a x^2)^(-beta-1).
// At x = 1, a = 3, b = 1, beta = 0.5: 4^-0.5 - 3 * 4^-1.5 = 0.125. Then the full chain rule
// across channels against central differences of sum(dY * Y), in double.
TEST(LRN, GradientByHandAndByFiniteDifferences) {
  const std::vector<TestArg> one = {{"size", 1}, {"alpha", 3.0f}, {"beta", 0.5f}};
  auto ws = RunOp(MakeOp("LRNGradient", {"x", "y", "dy"}, {"dx"}, one),
                  {{"x", MakeTensor<float>({1, 1, 1, 1}, {1})},
                   {"y", MakeTensor<float>({1, 1, 1, 1}, {0.5f})},
                   {"dy", MakeTensor<float>({1, 1, 1, 1}, {2})}});
  ExpectTensorNear(ws->GetTensor("dx"), {1, 1, 1, 1}, {0.25});
  for (const char* order : {"NCHW", "NHWC"}) {
    const std::vector<TestArg> args = {
        {"size", 3}, {"alpha", 2.0f}, {"beta", 0.75f}, {"bias", 0.5f}, {"order", order}};
    const std::vector<int64_t> dims = {2, 4, 1, 3};
    std::vector<double> x(24), dy(24);
    for (int i = 0; i < 24; ++i) {
      x[i] = std::sin(1.3 * i + 0.2);
      dy[i] = std::cos(0.7 * i);
    }
    auto forward = [&](const std::vector<double>& v) {
      return Values<double>(
          RunOp(MakeOp("LRN", {"x"}, {"y"}, args), {{"x", MakeTensor<double>(dims, v)}})
              ->GetTensor("y"));
    };
    const std::vector<double> y = forward(x);
    ws = RunOp(MakeOp("LRNGradient", {"x", "y", "dy"}, {"dx"}, args),
               {{"x", MakeTensor<double>(dims, x)},
                {"y", MakeTensor<double>(dims, y)},
                {"dy", MakeTensor<double>(dims, dy)}});
    const std::vector<double> dx = Values<double>(ws->GetTensor("dx"));
    for (int i = 0; i < 24; ++i) {
      std::vector<double> up = x, down = x;
      up[i] += 1e-6;
      down[i] -= 1e-6;
      const std::vector<double> yu = forward(up), yd = forward(down);
      double fd = 0;
      for (int k = 0; k < 24; ++k) fd += dy[k] * (yu[k] - yd[k]) / 2e-6;
      EXPECT_NEAR(dx[i], fd, 1e-7) << order << " element " << i;
    }
  }
}

TEST(LRN, ArgumentChecksAndGradientMaker) {
  const Tensor x = MakeTensor<float>({1, 2, 1, 1}, {1, 2});
  ExpectError(
      [&] {
        RunOp(MakeOp("LRN", {"x"}, {"y"}, {{"size", 4}, {"alpha", 1.0f}, {"beta", 1.0f}}),
              {{"x", x}});
      },
      ErrorKind::kBadArgument, {"LRN", "'size' = 4", "odd"});
  // Caffe2's defaults alpha = beta = 0 (and size 0) must be overridden.
  ExpectError(
      [&] {
        RunOp(MakeOp("LRN", {"x"}, {"y"}, {{"size", 3}, {"beta", 1.0f}}), {{"x", x}});
      },
      ErrorKind::kBadArgument, {"'alpha' = 0"});
  ExpectError(
      [&] {
        RunOp(MakeOp("LRN", {"x"}, {"y"}, {{"size", 3}, {"alpha", 1.0f}}), {{"x", x}});
      },
      ErrorKind::kBadArgument, {"'beta' = 0"});
  ExpectError(
      [&] {
        RunOp(MakeOp("LRN", {"x"}, {"y"}, {{"alpha", 1.0f}, {"beta", 1.0f}}), {{"x", x}});
      },
      ErrorKind::kBadArgument, {"'size' = 0"});
  ExpectError(
      [&] {
        RunOp(MakeOp("LRN", {"x"}, {"y"}, {{"size", 3}, {"alpha", 1.0f}, {"beta", 1.0f}}),
              {{"x", MakeTensor<float>({2, 1}, {1, 2})}});
      },
      ErrorKind::kShapeMismatch, {"4-D"});
  ExpectError(
      [&] {
        RunOp(MakeOp("LRNGradient", {"x", "x", "d"}, {"dx"},
                     {{"size", 3}, {"alpha", 1.0f}, {"beta", 1.0f}}),
              {{"x", x}, {"d", MakeTensor<float>({1, 1, 2, 1}, {1, 2})}});
      },
      ErrorKind::kShapeMismatch, {"'d'", "dims of X"});
  GradientOpsMeta g = GetGradientForOp(
      MakeOp("LRN", {"x"}, {"y", "s"}, {{"size", 3}, {"alpha", 1.0f}, {"beta", 1.0f}}),
      {"y_grad", ""});
  ASSERT_EQ(g.ops.size(), 1u);
  EXPECT_EQ(g.ops[0].type(), "LRNGradient");
  EXPECT_EQ(std::vector<std::string>(g.ops[0].input().begin(), g.ops[0].input().end()),
            (std::vector<std::string>{"x", "y", "y_grad"}));
}

}  // namespace
}  // namespace parity::testing
