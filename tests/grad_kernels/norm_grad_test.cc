// Gradient kernels of the normalizations: SpatialBNGradient and LayerNormGradient against
// hand-derived values, gradient checks of SpatialBN and LayerNorm (every differentiable input)
// against the reference, and one error per check.
#include <numeric>

#include "oracles/describe.h"
#include "oracles/testing/op_checks.h"
#include "tests/grad_kernels/grad_test_util.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

// ---------------------------------------------------------------------------------------------
// Hand-derived values

TEST(SpatialBNGradient, IsTestHoldsStatisticsConstant) {
  // C = 1, X = [1, 3], mean 1, var 3, epsilon 1: rstd = 1/2. scale 2, dY = [1, 1]:
  // dX = 2 * 1/2 * dY = [1, 1]; dscale = 1*0*1/2 + 1*2*1/2 = 1; dbias = 2.
  auto ws = RunOp(MakeOp("SpatialBNGradient", {"x", "s", "dy", "m", "v"}, {"dx", "ds", "db"},
                         {{"is_test", 1}, {"epsilon", 1.0f}}),
                  {{"x", MakeTensor<float>({1, 1, 2}, {1, 3})},
                   {"s", MakeTensor<float>({1}, {2})},
                   {"dy", MakeTensor<float>({1, 1, 2}, {1, 1})},
                   {"m", MakeTensor<float>({1}, {1})},
                   {"v", MakeTensor<float>({1}, {3})}});
  ExpectTensorNear(ws->GetTensor("dx"), {1, 1, 2}, {1, 1});
  ExpectTensorNear(ws->GetTensor("ds"), {1}, {1});
  ExpectTensorNear(ws->GetTensor("db"), {1}, {2});
}

TEST(SpatialBNGradient, TrainingThroughBatchStatistics) {
  // X [3, 2] (N = 3, C = 2, HxW = 1; NCHW and NHWC coincide at rank 2). Given saved mean [1, 5]
  // and inv_std [1, 1]: channel 0 xhat = [-1, 0, 1], channel 1 xhat = 0. scale [2, 1],
  // dY = [[1, 1], [0, 2], [0, 3]], M = 3.
  // Channel 0: dbias = 1, dscale = -1, dX = 2 * (dY - 1/3 + xhat/3) = [2/3, -2/3, 0].
  // Channel 1: dbias = 6, dscale = 0, dX = 1 * (dY - 2) = [-1, 0, 1].
  for (const char* order : {"NCHW", "NHWC"}) {
    auto ws = RunOp(MakeOp("SpatialBNGradient", {"x", "s", "dy", "m", "r"}, {"dx", "ds", "db"},
                           {{"order", order}}),
                    {{"x", MakeTensor<float>({3, 2}, {0, 5, 1, 5, 2, 5})},
                     {"s", MakeTensor<float>({2}, {2, 1})},
                     {"dy", MakeTensor<float>({3, 2}, {1, 1, 0, 2, 0, 3})},
                     {"m", MakeTensor<float>({2}, {1, 5})},
                     {"r", MakeTensor<float>({2}, {1, 1})}});
    ExpectTensorNear(ws->GetTensor("dx"), {3, 2}, {2.0 / 3, -1, -2.0 / 3, 0, 0, 1}, 1e-6, 1e-5);
    ExpectTensorNear(ws->GetTensor("ds"), {2}, {-1, 0});
    ExpectTensorNear(ws->GetTensor("db"), {2}, {1, 6});
  }
}

TEST(SpatialBNGradient, AChannelFarFromZeroKeepsItsPrecision) {
  // One channel at 1000 with a spread of 2^-7 (every value exact in f32): mean 1000, inv_std 128,
  // so xhat = [-1, 0, 1]. dY = [1, 0, 0], scale 1: dbias = 1, dscale = -1 and
  // dX = 128 * (dY - 1/3 + xhat / 3) = [128/3, -128/3, 0]. Folding the mean into the constant term
  // (b * x + k with b * x ~ 5e6) loses ~0.5 of these ~43 in f32; centering first keeps ~1e-6.
  const float d = 1.0f / 128;
  auto ws = RunOp(MakeOp("SpatialBNGradient", {"x", "s", "dy", "m", "r"}, {"dx", "ds", "db"}),
                  {{"x", MakeTensor<float>({3, 1}, {1000 - d, 1000, 1000 + d})},
                   {"s", MakeTensor<float>({1}, {1})},
                   {"dy", MakeTensor<float>({3, 1}, {1, 0, 0})},
                   {"m", MakeTensor<float>({1}, {1000})},
                   {"r", MakeTensor<float>({1}, {128})}});
  ExpectTensorNear(ws->GetTensor("dx"), {3, 1}, {128.0 / 3, -128.0 / 3, 0}, 1e-4, 1e-6);
  ExpectTensorNear(ws->GetTensor("ds"), {1}, {-1});
  ExpectTensorNear(ws->GetTensor("db"), {1}, {1});
}

TEST(LayerNormGradient, Plain) {
  // Row X = [-1, 1, 3], mean 1, std 2: xhat = [-1, 0, 1]. dY = [1, 0, 0]: mean(dY) = 1/3,
  // mean(dY * xhat) = -1/3; dX = (dY - 1/3 + xhat/3) / 2 = [1/6, -1/6, 0].
  // Row 2: X = [0, 1, 2], mean 1, std 1, dY = [1, 1, 1]: dX = dY - 1 - 0 = 0.
  auto ws = RunOp(MakeOp("LayerNormGradient", {"dy", "y", "m", "s", "x"}, {"dx"}),
                  {{"dy", MakeTensor<double>({2, 3}, {1, 0, 0, 1, 1, 1})},
                   {"y", MakeTensor<double>({2, 3}, {0, 0, 0, 0, 0, 0})},
                   {"m", MakeTensor<double>({2, 1}, {1, 1})},
                   {"s", MakeTensor<double>({2, 1}, {2, 1})},
                   {"x", MakeTensor<double>({2, 3}, {-1, 1, 3, 0, 1, 2})}});
  ExpectTensorNear(ws->GetTensor("dx"), {2, 3}, {1.0 / 6, -1.0 / 6, 0, 0, 0, 0}, 1e-12);
}

TEST(LayerNormGradient, ElementwiseAffine) {
  // X = [0, 1, 2], mean 1, std 1: xhat = [-1, 0, 1]. gamma [2, 1, 1], dY [1, 0, 0]:
  // g = dY * gamma = [2, 0, 0], mean(g) = 2/3, mean(g * xhat) = -2/3;
  // dX = g - 2/3 + 2/3 xhat = [2/3, -2/3, 0]; dgamma = dY * xhat = [-1, 0, 0]; dbeta = dY.
  auto ws = RunOp(MakeOp("LayerNormGradient", {"dy", "y", "m", "s", "x", "g"}, {"dx", "dg", "db"},
                         {{"elementwise_affine", 1}}),
                  {{"dy", MakeTensor<float>({1, 3}, {1, 0, 0})},
                   {"y", MakeTensor<float>({1, 3}, {0, 0, 0})},
                   {"m", MakeTensor<float>({1, 1}, {1})},
                   {"s", MakeTensor<float>({1, 1}, {1})},
                   {"x", MakeTensor<float>({1, 3}, {0, 1, 2})},
                   {"g", MakeTensor<float>({3}, {2, 1, 1})}});
  ExpectTensorNear(ws->GetTensor("dx"), {1, 3}, {2.0 / 3, -2.0 / 3, 0});
  ExpectTensorNear(ws->GetTensor("dg"), {3}, {-1, 0, 0});
  ExpectTensorNear(ws->GetTensor("db"), {3}, {1, 0, 0});
}

// ---------------------------------------------------------------------------------------------
// Gradient checks against the reference

TEST(NormGradientChecks, SpatialBNTraining) {
  for (const char* order : {"NCHW", "NHWC"}) {
    const auto op = MakeOp("SpatialBN", {"x", "s", "b", "rm", "rv"}, {"y", "rm", "rv", "sm", "sv"},
                           {{"order", order}, {"epsilon", 1e-3f}});
    const oracles::NamedTensors in = {{"x", Distinct({3, 2, 2, 2})},
                                      {"s", Positive({2})},
                                      {"b", Distinct({2}, 3)},
                                      {"rm", Distinct({2}, 4)},
                                      {"rv", Positive({2}, 5)}};
    for (int i = 0; i < 3; ++i)
      EXPECT_TRUE(GradientChecksOn(op, in, i, {"y"})) << order << " input " << i;
  }
}

TEST(NormGradientChecks, SpatialBNTest) {
  for (const char* order : {"NCHW", "NHWC"}) {
    const auto op =
        MakeOp("SpatialBN", {"x", "s", "b", "m", "v"}, {"y"}, {{"order", order}, {"is_test", 1}});
    const oracles::NamedTensors in = {{"x", Distinct({2, 3, 2})},
                                      {"s", Positive({order[1] == 'C' ? 3 : 2})},
                                      {"b", Distinct({order[1] == 'C' ? 3 : 2}, 3)},
                                      {"m", Distinct({order[1] == 'C' ? 3 : 2}, 4)},
                                      {"v", Positive({order[1] == 'C' ? 3 : 2}, 5)}};
    for (int i = 0; i < 3; ++i) EXPECT_GRADIENT_CHECKS(op, in, i) << order << " input " << i;
  }
}

TEST(NormGradientChecks, LayerNorm) {
  EXPECT_TRUE(GradientChecksOn(MakeOp("LayerNorm", {"x"}, {"y", "m", "s"}),
                               {{"x", Distinct({3, 4})}}, 0, {"y"}));
  EXPECT_TRUE(GradientChecksOn(
      MakeOp("LayerNorm", {"x"}, {"y", "m", "s"}, {{"axis", -2}, {"epsilon", 1e-3f}}),
      {{"x", Distinct({2, 3, 2})}}, 0, {"y"}));
  const auto affine = MakeOp("LayerNorm", {"x", "g", "b"}, {"y", "m", "s"},
                             {{"axis", 1}, {"elementwise_affine", 1}});
  const oracles::NamedTensors in = {
      {"x", Distinct({2, 2, 3})}, {"g", Positive({2, 3})}, {"b", Distinct({2, 3}, 3)}};
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(GradientChecksOn(affine, in, i, {"y"})) << "input " << i;
}

// ---------------------------------------------------------------------------------------------
// Errors

oracles::NamedTensors BNGradInputs() {
  return {{"x", Distinct({2, 2})},
          {"s", Positive({2})},
          {"dy", Distinct({2, 2})},
          {"m", Distinct({2})},
          {"v", Positive({2})}};
}

std::map<std::string, Tensor> AsMap(const oracles::NamedTensors& in) {
  return std::map<std::string, Tensor>(in.begin(), in.end());
}

TEST(SpatialBNGradient, Errors) {
  const std::vector<std::string> ins = {"x", "s", "dy", "m", "v"};
  const std::vector<std::string> outs = {"dx", "ds", "db"};
  auto in = AsMap(BNGradInputs());
  ExpectError(
      [&] {
        RunOp(MakeOp("SpatialBNGradient", {"x", "s", "dy", "m"}, outs), in);
      },
      ErrorKind::kBadArgument, {"SpatialBNGradient"});
  ExpectError(
      [&] {
        RunOp(MakeOp("SpatialBNGradient", ins, outs, {{"num_batches", 2}}), in);
      },
      ErrorKind::kBadArgument, {"num_batches 2"});
  ExpectError(
      [&] {
        RunOp(MakeOp("SpatialBNGradient", ins, outs, {{"order", "CHW"}}), in);
      },
      ErrorKind::kBadArgument, {"'order'"});
  ExpectError(
      [&] {
        RunOp(MakeOp("SpatialBNGradient", ins, outs, {{"epsilon", 0.0f}}), in);
      },
      ErrorKind::kBadArgument, {"epsilon"});
  auto bad = in;
  bad["dy"] = Distinct({2, 3});
  ExpectError([&] { RunOp(MakeOp("SpatialBNGradient", ins, outs), bad); },
              ErrorKind::kShapeMismatch, {"'dy'", "dims of X"});
  bad = in;
  bad["s"] = Positive({3});
  ExpectError([&] { RunOp(MakeOp("SpatialBNGradient", ins, outs), bad); },
              ErrorKind::kShapeMismatch, {"'s'", "2 elements"});
  bad = in;
  bad["x"] = Distinct({2});
  bad["dy"] = Distinct({2});
  ExpectError([&] { RunOp(MakeOp("SpatialBNGradient", ins, outs), bad); },
              ErrorKind::kShapeMismatch, {"rank >= 2"});
  bad = in;
  bad["x"] = MakeTensor<int32_t>({2, 2}, {1, 2, 3, 4});
  ExpectError([&] { RunOp(MakeOp("SpatialBNGradient", ins, outs), bad); },
              ErrorKind::kShapeMismatch, {"float or double"});
}

TEST(LayerNormGradient, Errors) {
  std::map<std::string, Tensor> in = {{"dy", Distinct({2, 3})}, {"y", Distinct({2, 3})},
                                      {"m", Distinct({2, 1})},  {"s", Positive({2, 1})},
                                      {"x", Distinct({2, 3})},  {"g", Positive({3})}};
  const std::vector<std::string> ins = {"dy", "y", "m", "s", "x"};
  // elementwise_affine=1 needs gamma and the dgamma / dbeta outputs (Caffe2's 6-input form).
  ExpectError(
      [&] {
        RunOp(MakeOp("LayerNormGradient", ins, {"dx"}, {{"elementwise_affine", 1}}), in);
      },
      ErrorKind::kBadArgument, {"elementwise_affine=1", "gamma"});
  // Arity: 6 inputs come with 3 outputs.
  ExpectError(
      [&] {
        RunOp(MakeOp("LayerNormGradient", {"dy", "y", "m", "s", "x", "g"}, {"dx"}), in);
      },
      ErrorKind::kBadArgument, {"LayerNormGradient"});
  ExpectError(
      [&] {
        RunOp(MakeOp("LayerNormGradient", ins, {"dx"}, {{"axis", 2}}), in);
      },
      ErrorKind::kBadArgument, {"axis 2"});
  auto bad = in;
  bad["dy"] = Distinct({3, 2});
  ExpectError([&] { RunOp(MakeOp("LayerNormGradient", ins, {"dx"}), bad); },
              ErrorKind::kShapeMismatch, {"dY 'dy'", "[2, 3]"});
  bad = in;
  bad["m"] = Distinct({2});
  ExpectError([&] { RunOp(MakeOp("LayerNormGradient", ins, {"dx"}), bad); },
              ErrorKind::kShapeMismatch, {"mean 'm'", "[2, 1]"});
  bad = in;
  bad["g"] = Positive({2});
  ExpectError(
      [&] {
        RunOp(MakeOp("LayerNormGradient", {"dy", "y", "m", "s", "x", "g"}, {"dx", "dg", "db"},
                     {{"elementwise_affine", 1}}),
              bad);
      },
      ErrorKind::kShapeMismatch, {"gamma 'g'", "3 elements"});
}

}  // namespace
}  // namespace parity::testing
