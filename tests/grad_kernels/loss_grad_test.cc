// Gradient kernels of the losses against hand-derived values, gradient checks of every loss
// (every differentiable input) against the reference, and one error per check.
#include <numeric>

#include "oracles/describe.h"
#include "oracles/testing/op_checks.h"
#include "tests/grad_kernels/grad_test_util.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

// ---------------------------------------------------------------------------------------------
// Hand-derived values

TEST(SquaredL2DistanceGradient, Values) {
  // X - Y = [[1, 2], [2, 3]], dDist = [2, -1]: dX = [[2, 4], [-2, -3]], dY = -dX.
  auto ws = RunOp(MakeOp("SquaredL2DistanceGradient", {"x", "y", "dd"}, {"dx", "dy"}),
                  {{"x", MakeTensor<float>({2, 2}, {1, 2, 3, 4})},
                   {"y", MakeTensor<float>({2, 2}, {0, 0, 1, 1})},
                   {"dd", MakeTensor<float>({2}, {2, -1})}});
  ExpectTensorNear(ws->GetTensor("dx"), {2, 2}, {2, 4, -2, -3});
  ExpectTensorNear(ws->GetTensor("dy"), {2, 2}, {-2, -4, 2, 3});
}

TEST(AveragedLossGradient, Values) {
  // dLoss 2 over 4 elements.
  auto ws = RunOp(MakeOp("AveragedLossGradient", {"x", "dl"}, {"dx"}),
                  {{"x", Distinct({2, 2})}, {"dl", MakeTensor<float>({}, {2})}});
  ExpectTensorNear(ws->GetTensor("dx"), {2, 2}, {0.5, 0.5, 0.5, 0.5});
}

TEST(LabelCrossEntropyGradient, Values) {
  // Labels [1, 0]: -3 / 0.75 = -4 at [0, 1], -1 / 0.5 = -2 at [1, 0].
  auto ws = RunOp(MakeOp("LabelCrossEntropyGradient", {"x", "l", "dy"}, {"dx"}),
                  {{"x", MakeTensor<float>({2, 2}, {0.25, 0.75, 0.5, 0.5})},
                   {"l", MakeTensor<int32_t>({2}, {1, 0})},
                   {"dy", MakeTensor<float>({2}, {3, 1})}});
  ExpectTensorNear(ws->GetTensor("dx"), {2, 2}, {0, -4, -2, 0});
}

TEST(SoftmaxWithLossGradient, Values) {
  const auto p = MakeTensor<float>({2, 2}, {0.25, 0.75, 0.5, 0.5});
  const auto dl = MakeTensor<float>({}, {2});
  // Labels [0, 1], no weights: factor dLoss / N = 1; dX = P - onehot.
  auto ws = RunOp(
      MakeOp("SoftmaxWithLossGradient", {"x", "l", "p", "dl"}, {"dx"}),
      {{"x", Distinct({2, 2})}, {"l", MakeTensor<int64_t>({2}, {0, 1})}, {"p", p}, {"dl", dl}});
  ExpectTensorNear(ws->GetTensor("dx"), {2, 2}, {-0.75, 0.75, 0.5, -0.5});
  // Weights [1, 3]: factor 2 / 4; row 0 * 0.5, row 1 * 1.5; scale 2 doubles everything.
  ws = RunOp(
      MakeOp("SoftmaxWithLossGradient", {"x", "l", "w", "p", "dl"}, {"dx"}, {{"scale", 2.0f}}),
      {{"x", Distinct({2, 2})},
       {"l", MakeTensor<int32_t>({2, 1}, {0, 1})},
       {"w", MakeTensor<float>({2}, {1, 3})},
       {"p", p},
       {"dl", dl}});
  ExpectTensorNear(ws->GetTensor("dx"), {2, 2}, {-0.75, 0.75, 1.5, -1.5});
  // Label probabilities [[0, 1], [0.5, 0.5]]: dX = P - q = [[0.25, -0.25], [0, 0]].
  ws = RunOp(MakeOp("SoftmaxWithLossGradient", {"x", "q", "p", "dl"}, {"dx"}, {{"label_prob", 1}}),
             {{"x", Distinct({2, 2})},
              {"q", MakeTensor<float>({2, 2}, {0, 1, 0.5, 0.5})},
              {"p", p},
              {"dl", MakeTensor<float>({}, {2})}});
  ExpectTensorNear(ws->GetTensor("dx"), {2, 2}, {0.25, -0.25, 0, 0});
  // Weights summing to 0: the loss is the constant 0.
  ws = RunOp(MakeOp("SoftmaxWithLossGradient", {"x", "l", "w", "p", "dl"}, {"dx"}),
             {{"x", Distinct({2, 2})},
              {"l", MakeTensor<int32_t>({2}, {0, 1})},
              {"w", MakeTensor<float>({2}, {0, 0})},
              {"p", p},
              {"dl", dl}});
  ExpectTensorNear(ws->GetTensor("dx"), {2, 2}, {0, 0, 0, 0});
}

TEST(SigmoidCrossEntropyWithLogitsGradient, Values) {
  // x = [0, 0] (s = 0.5), t = [1, 0], dLoss [1], last dim 2:
  //   default  (s - t) / 2               = [-0.25, 0.25]
  //   log_D    -(2t - 1)(1 - s) / 2      = [-0.25, 0.25]
  //   unjoined -(t - (1 - t) s) / 2      = [-0.5, 0.25]
  const std::map<std::string, Tensor> in = {{"dl", MakeTensor<float>({1}, {1})},
                                            {"x", MakeTensor<float>({1, 2}, {0, 0})},
                                            {"t", MakeTensor<float>({1, 2}, {1, 0})}};
  auto ws = RunOp(MakeOp("SigmoidCrossEntropyWithLogitsGradient", {"dl", "x", "t"}, {"dx"}), in);
  ExpectTensorNear(ws->GetTensor("dx"), {1, 2}, {-0.25, 0.25});
  ws = RunOp(MakeOp("SigmoidCrossEntropyWithLogitsGradient", {"dl", "x", "t"}, {"dx"},
                    {{"log_D_trick", 1}}),
             in);
  ExpectTensorNear(ws->GetTensor("dx"), {1, 2}, {-0.25, 0.25});
  ws = RunOp(MakeOp("SigmoidCrossEntropyWithLogitsGradient", {"dl", "x", "t"}, {"dx"},
                    {{"unjoined_lr_loss", 1}}),
             in);
  ExpectTensorNear(ws->GetTensor("dx"), {1, 2}, {-0.5, 0.25});
}

// ---------------------------------------------------------------------------------------------
// Gradient checks against the reference

TEST(LossGradientChecks, SquaredL2DistanceAndAveragedLoss) {
  const auto op = MakeOp("SquaredL2Distance", {"x", "y"}, {"d"});
  const oracles::NamedTensors in = {{"x", Distinct({3, 2, 2})}, {"y", Distinct({3, 2, 2}, 5)}};
  EXPECT_GRADIENT_CHECKS(op, in, 0);
  EXPECT_GRADIENT_CHECKS(op, in, 1);
  EXPECT_GRADIENT_CHECKS(MakeOp("AveragedLoss", {"x"}, {"y"}), {{"x", Distinct({2, 3})}}, 0);
}

TEST(LossGradientChecks, LabelCrossEntropy) {
  EXPECT_GRADIENT_CHECKS(MakeOp("LabelCrossEntropy", {"x", "l"}, {"y"}),
                         {{"x", Probabilities({3, 4})}, {"l", MakeTensor<int32_t>({3}, {0, 3, 3})}},
                         0);
}

TEST(LossGradientChecks, SoftmaxWithLoss) {
  EXPECT_TRUE(GradientChecksOn(
      MakeOp("SoftmaxWithLoss", {"x", "l"}, {"p", "loss"}),
      {{"x", Distinct({3, 4})}, {"l", MakeTensor<int32_t>({3}, {1, 0, 3})}}, 0, {"loss"}));
  EXPECT_TRUE(
      GradientChecksOn(MakeOp("SoftmaxWithLoss", {"x", "l", "w"}, {"p", "loss"}, {{"scale", 0.5f}}),
                       {{"x", Distinct({3, 4})},
                        {"l", MakeTensor<int32_t>({3, 1}, {2, 2, 0})},
                        {"w", Probabilities({3}, 2)}},
                       0, {"loss"}));
  EXPECT_TRUE(
      GradientChecksOn(MakeOp("SoftmaxWithLoss", {"x", "q"}, {"p", "loss"}, {{"label_prob", 1}}),
                       {{"x", Distinct({2, 3})},
                        {"q", MakeTensor<float>({2, 3}, {0.2f, 0.3f, 0.5f, 0.6f, 0.1f, 0.3f})}},
                       0, {"loss"}));
  // axis 2 of [2, 2, 3]: N = 4 rows. (Caffe2 also takes labels [2, 2] here, rank == axis with
  // N elements; the reference accepts only [4] / [4, 1], so the check uses [4, 1].)
  EXPECT_TRUE(GradientChecksOn(
      MakeOp("SoftmaxWithLoss", {"x", "l"}, {"p", "loss"}, {{"axis", 2}}),
      {{"x", Distinct({2, 2, 3})}, {"l", MakeTensor<int32_t>({4, 1}, {0, 1, 2, 1})}}, 0, {"loss"}));
}

// ONNX's class losses over [N, C, d]: every reduction, weights, an ignored position.
TEST(LossGradientChecks, ClassLosses) {
  const oracles::NamedTensors in = {{"x", Distinct({2, 3, 2})},
                                    {"t", MakeTensor<int64_t>({2, 2}, {2, -1, 0, 1})},
                                    {"w", Probabilities({3}, 2)}};
  for (const char* type : {"NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss"}) {
    for (const char* reduction : {"none", "sum", "mean"}) {
      EXPECT_GRADIENT_CHECKS(MakeOp(type, {"x", "t", "w"}, {"y"},
                                    {{"reduction", reduction}, {"ignore_index", -1}}),
                             in, 0)
          << type << " " << reduction;
    }
    EXPECT_GRADIENT_CHECKS(
        MakeOp(type, {"x", "u"}, {"y"}),
        {{"x", Distinct({3, 4})}, {"u", MakeTensor<int32_t>({3}, {3, 0, 3})}}, 0)
        << type;
  }
  // log_prob (output 1) carries no gradient: the check weighs the loss alone.
  EXPECT_TRUE(GradientChecksOn(
      MakeOp("SoftmaxCrossEntropyLoss", {"x", "u"}, {"loss", "lp"}),
      {{"x", Distinct({3, 4})}, {"u", MakeTensor<int32_t>({3}, {1, 2, 0})}}, 0, {"loss"}));
}

TEST(LossGradientChecks, SigmoidCrossEntropyWithLogits) {
  const oracles::NamedTensors in = {{"x", Distinct({2, 3})}, {"t", Probabilities({2, 3}, 4)}};
  EXPECT_GRADIENT_CHECKS(MakeOp("SigmoidCrossEntropyWithLogits", {"x", "t"}, {"y"}), in, 0);
  EXPECT_GRADIENT_CHECKS(MakeOp("SigmoidCrossEntropyWithLogits", {"x", "t"}, {"y"}),
                         {{"x", Distinct({4})}, {"t", Probabilities({4}, 2)}}, 0);
  // log_D_trick and unjoined_lr_loss: the reference does not implement them yet, so only the
  // hand-derived values above cover their gradients.
}

// ---------------------------------------------------------------------------------------------
// Errors

TEST(LossGradients, Errors) {
  const auto x = Distinct({2, 2});
  ExpectError(
      [&] {
        RunOp(MakeOp("SquaredL2DistanceGradient", {"x", "y", "dd"}, {"dx", "dy"}),
              {{"x", x}, {"y", Distinct({2, 3})}, {"dd", Distinct({2})}});
      },
      ErrorKind::kShapeMismatch, {"same dtype and shape"});
  ExpectError(
      [&] {
        RunOp(MakeOp("SquaredL2DistanceGradient", {"x", "y", "dd"}, {"dx", "dy"}),
              {{"x", x}, {"y", x}, {"dd", Distinct({3})}});
      },
      ErrorKind::kShapeMismatch, {"dDistance 'dd'", "[2]"});
  ExpectError(
      [&] {
        RunOp(MakeOp("SquaredL2DistanceGradient", {"x", "y", "dd"}, {"dx"}),
              {{"x", x}, {"y", x}, {"dd", Distinct({2})}});
      },
      ErrorKind::kBadArgument, {"SquaredL2DistanceGradient"});
  ExpectError(
      [&] {
        RunOp(MakeOp("AveragedLossGradient", {"x", "dl"}, {"dx"}),
              {{"x", x}, {"dl", Distinct({2})}});
      },
      ErrorKind::kShapeMismatch, {"'dl'", "one element"});
  ExpectError(
      [&] {
        RunOp(MakeOp("LabelCrossEntropyGradient", {"x", "l", "dy"}, {"dx"}),
              {{"x", x}, {"l", MakeTensor<int32_t>({2}, {0, 2})}, {"dy", Distinct({2})}});
      },
      ErrorKind::kBadArgument, {"label 2", "out of range"});
  ExpectError(
      [&] {
        RunOp(MakeOp("LabelCrossEntropyGradient", {"x", "l", "dy"}, {"dx"}),
              {{"x", x}, {"l", MakeTensor<int32_t>({3}, {0, 1, 1})}, {"dy", Distinct({2})}});
      },
      ErrorKind::kShapeMismatch, {"labels [3]"});
  ExpectError(
      [&] {
        RunOp(MakeOp("LabelCrossEntropyGradient", {"x", "l", "dy"}, {"dx"}),
              {{"x", x}, {"l", MakeTensor<int32_t>({2}, {0, 1})}, {"dy", Distinct({3})}});
      },
      ErrorKind::kShapeMismatch, {"dY 'dy'"});
  ExpectError(
      [&] {
        RunOp(MakeOp("LabelCrossEntropyGradient", {"x", "l", "dy"}, {"dx"}),
              {{"x", x}, {"l", MakeTensor<float>({2}, {0, 1})}, {"dy", Distinct({2})}});
      },
      ErrorKind::kShapeMismatch, {"int32 or int64"});
}

TEST(SoftmaxWithLossGradient, Errors) {
  const auto x = Distinct({2, 2});
  const auto dl = MakeTensor<float>({}, {1});
  const auto l = MakeTensor<int32_t>({2}, {0, 1});
  ExpectError(
      [&] {
        RunOp(MakeOp("SoftmaxWithLossGradient", {"x", "l", "p"}, {"dx"}),
              {{"x", x}, {"l", l}, {"p", x}});
      },
      ErrorKind::kBadArgument, {"SoftmaxWithLossGradient"});
  ExpectError(
      [&] {
        RunOp(MakeOp("SoftmaxWithLossGradient", {"x", "l", "p", "dl"}, {"dx"}, {{"order", "NHWC"}}),
              {{"x", x}, {"l", l}, {"p", x}, {"dl", dl}});
      },
      ErrorKind::kBadArgument, {"'order'"});
  ExpectError(
      [&] {
        RunOp(MakeOp("SoftmaxWithLossGradient", {"x", "l", "p", "dl"}, {"dx"}),
              {{"x", x}, {"l", MakeTensor<int32_t>({2}, {0, 5})}, {"p", x}, {"dl", dl}});
      },
      ErrorKind::kBadArgument, {"label 5"});
  ExpectError(
      [&] {
        RunOp(MakeOp("SoftmaxWithLossGradient", {"x", "l", "p", "dl"}, {"dx"}),
              {{"x", x}, {"l", MakeTensor<int32_t>({3}, {0, 1, 1})}, {"p", x}, {"dl", dl}});
      },
      ErrorKind::kShapeMismatch, {"one label per row"});
  ExpectError(
      [&] {
        RunOp(MakeOp("SoftmaxWithLossGradient", {"x", "l", "p", "dl"}, {"dx"}),
              {{"x", x}, {"l", l}, {"p", Distinct({2, 3})}, {"dl", dl}});
      },
      ErrorKind::kShapeMismatch, {"softmax 'p'"});
  ExpectError(
      [&] {
        RunOp(MakeOp("SoftmaxWithLossGradient", {"x", "l", "p", "dl"}, {"dx"}),
              {{"x", x}, {"l", l}, {"p", x}, {"dl", Distinct({2})}});
      },
      ErrorKind::kShapeMismatch, {"dLoss 'dl'", "scalar"});
  ExpectError(
      [&] {
        RunOp(MakeOp("SoftmaxWithLossGradient", {"x", "l", "w", "p", "dl"}, {"dx"}),
              {{"x", x}, {"l", l}, {"w", Distinct({3})}, {"p", x}, {"dl", dl}});
      },
      ErrorKind::kShapeMismatch, {"weights 'w'"});
  ExpectError(
      [&] {
        RunOp(MakeOp("SoftmaxWithLossGradient", {"x", "l", "p", "dl"}, {"dx"}, {{"axis", 3}}),
              {{"x", x}, {"l", l}, {"p", x}, {"dl", dl}});
      },
      ErrorKind::kBadArgument, {"axis 3"});
}

TEST(SigmoidCrossEntropyWithLogitsGradient, Errors) {
  const auto x = Distinct({2, 2});
  ExpectError(
      [&] {
        RunOp(MakeOp("SigmoidCrossEntropyWithLogitsGradient", {"dl", "x", "t"}, {"dx"},
                     {{"log_D_trick", 1}, {"unjoined_lr_loss", 1}}),
              {{"dl", Distinct({2})}, {"x", x}, {"t", x}});
      },
      ErrorKind::kBadArgument, {"cannot both be set"});
  ExpectError(
      [&] {
        RunOp(MakeOp("SigmoidCrossEntropyWithLogitsGradient", {"dl", "x", "t"}, {"dx"}),
              {{"dl", Distinct({2})}, {"x", x}, {"t", Distinct({2, 3})}});
      },
      ErrorKind::kShapeMismatch, {"same shape"});
  ExpectError(
      [&] {
        RunOp(MakeOp("SigmoidCrossEntropyWithLogitsGradient", {"dl", "x", "t"}, {"dx"}),
              {{"dl", Distinct({3})}, {"x", x}, {"t", x}});
      },
      ErrorKind::kShapeMismatch, {"dLoss 'dl'", "[2]"});
  ExpectError(
      [&] {
        RunOp(MakeOp("SigmoidCrossEntropyWithLogitsGradient", {"dl", "x", "t"}, {"dx"}),
              {{"dl", Distinct({2})}, {"x", x}, {"t", MakeTensor<double>({2, 2}, {0, 0, 0, 0})}});
      },
      ErrorKind::kShapeMismatch, {"'t'", "float"});
}

}  // namespace
}  // namespace parity::testing
