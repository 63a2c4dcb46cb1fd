// ONNX's class losses, NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss, and their gradients
// against hand-worked values. X = [[-1, -2, -3], [-4, -5, -6]] with targets [2, 0] reads -3 and -4.
#include <cmath>

#include "core/schema.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

const std::vector<float> kX = {-1, -2, -3, -4, -5, -6};

Tensor Output(const caffe2::OperatorDef& op, const std::map<std::string, Tensor>& in,
              const std::string& out = "y") {
  auto ws = RunOp(op, in);
  Tensor t;
  t.CopyFrom(ws->GetTensor(out));
  return t;
}

std::map<std::string, Tensor> Inputs(bool weighted) {
  std::map<std::string, Tensor> in = {{"x", MakeTensor<float>({2, 3}, kX)},
                                      {"t", MakeTensor<int64_t>({2}, {2, 0})}};
  if (weighted) in["w"] = MakeTensor<float>({3}, {0.5f, 1, 2});
  return in;
}

TEST(NegativeLogLikelihoodLoss, Reductions) {
  const auto nll = [](const char* reduction, bool weighted) {
    std::vector<std::string> inputs = {"x", "t"};
    if (weighted) inputs.push_back("w");
    return MakeOp("NegativeLogLikelihoodLoss", inputs, {"y"}, {{"reduction", reduction}});
  };
  ExpectTensorNear(Output(nll("none", false), Inputs(false)), {2}, {3, 4});
  ExpectTensorNear(Output(nll("sum", false), Inputs(false)), {}, {7});
  ExpectTensorNear(Output(nll("mean", false), Inputs(false)), {}, {3.5});
  // Weights [0.5, 1, 2]: 2 * 3 and 0.5 * 4; the mean divides by 2 + 0.5.
  ExpectTensorNear(Output(nll("none", true), Inputs(true)), {2}, {6, 2});
  ExpectTensorNear(Output(nll("sum", true), Inputs(true)), {}, {8});
  ExpectTensorNear(Output(nll("mean", true), Inputs(true)), {}, {3.2});
}

TEST(NegativeLogLikelihoodLoss, IgnoreIndexAndSpatialDims) {
  // Class 2 ignored: only row 1 counts (4), and the mean's weight sum is 1.
  ExpectTensorNear(
      Output(MakeOp("NegativeLogLikelihoodLoss", {"x", "t"}, {"y"}, {{"ignore_index", 2}}),
             Inputs(false)),
      {}, {4});
  // Every position ignored: 0 / 0.
  const Tensor nan =
      Output(MakeOp("NegativeLogLikelihoodLoss", {"x", "t"}, {"y"}, {{"ignore_index", -1}}),
             {{"x", MakeTensor<float>({2, 3}, kX)}, {"t", MakeTensor<int32_t>({2}, {-1, -1})}});
  EXPECT_TRUE(std::isnan(Values<float>(nan)[0]));
  // X [1, 2, 2] = [[[-1, -2], [-3, -4]]], target [[1, 0]]: X[0, 1, 0] = -3 and X[0, 0, 1] = -2.
  ExpectTensorNear(
      Output(MakeOp("NegativeLogLikelihoodLoss", {"x", "t"}, {"y"}, {{"reduction", "none"}}),
             {{"x", MakeTensor<double>({1, 2, 2}, {-1, -2, -3, -4})},
              {"t", MakeTensor<int64_t>({1, 2}, {1, 0})}}),
      {1, 2}, {3, 2});
}

TEST(NegativeLogLikelihoodLossGradient, MeanWithWeights) {
  // dLoss = 1, weight sum 2.5: -2 / 2.5 at (0, 2) and -0.5 / 2.5 at (1, 0).
  auto in = Inputs(true);
  in["g"] = MakeTensor<float>({}, {1});
  ExpectTensorNear(
      Output(MakeOp("NegativeLogLikelihoodLossGradient", {"x", "t", "w", "g"}, {"dx"}), in, "dx"),
      {2, 3}, {0, 0, -0.8, -0.2, 0, 0});
}

TEST(SoftmaxCrossEntropyLoss, LossAndLogProb) {
  // Scores [0, 0]: log_prob = -ln 2 each; the loss of label 1 is ln 2.
  auto ws = RunOp(MakeOp("SoftmaxCrossEntropyLoss", {"s", "l"}, {"y", "lp"}),
                  {{"s", MakeTensor<float>({1, 2}, {0, 0})}, {"l", MakeTensor<int64_t>({1}, {1})}});
  ExpectTensorNear(ws->GetTensor("y"), {}, {std::log(2.0)});
  ExpectTensorNear(ws->GetTensor("lp"), {1, 2}, {-std::log(2.0), -std::log(2.0)});
  // Scores [1, 2, 3], label 2: log(e^-2 + e^-1 + 1); large logits do not overflow.
  const double expected = std::log(std::exp(-2.0) + std::exp(-1.0) + 1.0);
  ExpectTensorNear(Output(MakeOp("SoftmaxCrossEntropyLoss", {"s", "l"}, {"y"}),
                          {{"s", MakeTensor<float>({1, 3}, {1001, 1002, 1003})},
                           {"l", MakeTensor<int32_t>({1}, {2})}}),
                   {}, {expected}, 1e-5);
}

TEST(SoftmaxCrossEntropyLossGradient, SoftmaxMinusOneHot) {
  // Scores [0, 0], label 1, dLoss 2: (0.5 - 0, 0.5 - 1) * 2.
  ExpectTensorNear(Output(MakeOp("SoftmaxCrossEntropyLossGradient", {"s", "l", "g"}, {"ds"}),
                          {{"s", MakeTensor<float>({1, 2}, {0, 0})},
                           {"l", MakeTensor<int64_t>({1}, {1})},
                           {"g", MakeTensor<float>({}, {2})}},
                          "ds"),
                   {1, 2}, {1, -1});
}

TEST(ClassLosses, Errors) {
  ExpectError(
      [] {
        RunOp(MakeOp("NegativeLogLikelihoodLoss", {"x", "t"}, {"y"}),
              {{"x", MakeTensor<float>({2, 3}, kX)}, {"t", MakeTensor<int64_t>({2}, {3, 0})}});
      },
      ErrorKind::kBadArgument, {"NegativeLogLikelihoodLoss", "target 3", "[0, 3)"});
  ExpectError(
      [] {
        RunOp(MakeOp("NegativeLogLikelihoodLoss", {"x", "t"}, {"y"}),
              {{"x", MakeTensor<float>({2, 3}, kX)}, {"t", MakeTensor<int64_t>({3}, {0, 0, 0})}});
      },
      ErrorKind::kShapeMismatch, {"NegativeLogLikelihoodLoss", "'t'", "[2]"});
  ExpectError(
      [] {
        RunOp(MakeOp("SoftmaxCrossEntropyLoss", {"x", "t", "w"}, {"y"}),
              {{"x", MakeTensor<float>({2, 3}, kX)},
               {"t", MakeTensor<int64_t>({2}, {0, 0})},
               {"w", MakeTensor<float>({2}, {1, 1})}});
      },
      ErrorKind::kShapeMismatch, {"SoftmaxCrossEntropyLoss", "'w'", "one weight per class"});
  ExpectError(
      [] {
        RunOp(MakeOp("SoftmaxCrossEntropyLoss", {"x", "t"}, {"y"}, {{"reduction", "max"}}),
              {{"x", MakeTensor<float>({2, 3}, kX)}, {"t", MakeTensor<int64_t>({2}, {0, 0})}});
      },
      ErrorKind::kBadArgument, {"SoftmaxCrossEntropyLoss", "reduction", "max"});
  ExpectError(
      [] {
        RunOp(MakeOp("NegativeLogLikelihoodLoss", {"x", "t"}, {"y"}),
              {{"x", MakeTensor<int32_t>({1, 2}, {1, 2})}, {"t", MakeTensor<int64_t>({1}, {0})}});
      },
      ErrorKind::kShapeMismatch, {"NegativeLogLikelihoodLoss", "float or double"});
}

}  // namespace
}  // namespace parity::testing
