// SpatialBN and LayerNorm against hand-computed values.
#include <cmath>

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

}  // namespace
}  // namespace parity::testing
