// Losses against hand-computed values.
#include <cmath>

#include "core/schema.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

std::vector<TensorType> Infer(const caffe2::OperatorDef& def, const std::vector<TensorType>& in) {
  return OpSchemaRegistry::Get(def.type()).InferShapes(def, in);
}

TEST(SquaredL2Distance, PerRow) {
  // Rows [1, 2] - [0, 0] and [3, 4] - [1, 1]: 0.5 * (1 + 4) = 2.5, 0.5 * (4 + 9) = 6.5.
  auto ws = RunOp(MakeOp("SquaredL2Distance", {"x", "y"}, {"d"}),
                  {{"x", MakeTensor<float>({2, 2}, {1, 2, 3, 4})},
                   {"y", MakeTensor<float>({2, 2}, {0, 0, 1, 1})}});
  ExpectTensorNear(ws->GetTensor("d"), {2}, {2.5, 6.5});
  // A scalar is one row: 0.5 * (3 - 1)^2 = 2, dims [1].
  ws = RunOp(MakeOp("SquaredL2Distance", {"x", "y"}, {"d"}),
             {{"x", MakeTensor<double>({}, {3})}, {"y", MakeTensor<double>({}, {1})}});
  ExpectTensorNear(ws->GetTensor("d"), {1}, {2});
  ExpectError([] {
    RunOp(MakeOp("SquaredL2Distance", {"x", "y"}, {"d"}),
          {{"x", MakeTensor<float>({2, 2}, {1, 2, 3, 4})}, {"y", MakeTensor<float>({4}, {0, 0, 1, 1})}});
  }, ErrorKind::kShapeMismatch, {"SquaredL2Distance", "[2, 2]", "[4]"});
}

TEST(AveragedLoss, ScalarMean) {
  // (1 + 2 + 3 + 6) / 4 = 3, as a scalar.
  auto ws = RunOp(MakeOp("AveragedLoss", {"x"}, {"l"}), {{"x", MakeTensor<float>({2, 2}, {1, 2, 3, 6})}});
  ExpectTensorNear(ws->GetTensor("l"), {}, {3});
  EXPECT_EQ(Infer(MakeOp("AveragedLoss", {"x"}, {"l"}), {{DataType::kFloat, {5, 2}, true}})[0].dims,
            Ints{});
}

TEST(LabelCrossEntropy, PicksLabelProbability) {
  // -log 0.5 = 0.69314718, -log 0.8 = 0.22314355; a zero probability is floored at 1e-20:
  // -log 1e-20 = 46.0517019.
  auto x = MakeTensor<float>({3, 3}, {0.2, 0.5, 0.3, 0.1, 0.1, 0.8, 0, 1, 0});
  auto ws = RunOp(MakeOp("LabelCrossEntropy", {"x", "l"}, {"y"}),
                  {{"x", x}, {"l", MakeTensor<int32_t>({3}, {1, 2, 0})}});
  ExpectTensorNear(ws->GetTensor("y"), {3}, {0.69314718, 0.22314355, 46.0517019}, 1e-5);
  ws = RunOp(MakeOp("LabelCrossEntropy", {"x", "l"}, {"y"}),
             {{"x", x}, {"l", MakeTensor<int64_t>({3, 1}, {1, 1, 1})}});
  ExpectTensorNear(ws->GetTensor("y"), {3}, {0.69314718, -std::log(0.1), 0}, 1e-5);
}

TEST(LabelCrossEntropy, Errors) {
  auto x = MakeTensor<float>({2, 3}, {0.2, 0.5, 0.3, 0.1, 0.1, 0.8});
  ExpectError([&] {
    RunOp(MakeOp("LabelCrossEntropy", {"x", "l"}, {"y"}), {{"x", x}, {"l", MakeTensor<int32_t>({2}, {1, 3})}});
  }, ErrorKind::kBadArgument, {"LabelCrossEntropy", "label 3", "[0, 3)", "[2, 3]"});
  ExpectError([&] {
    RunOp(MakeOp("LabelCrossEntropy", {"x", "l"}, {"y"}), {{"x", x}, {"l", MakeTensor<int32_t>({2}, {-1, 0})}});
  }, ErrorKind::kBadArgument, {"LabelCrossEntropy", "label -1"});
  ExpectError([&] {
    RunOp(MakeOp("LabelCrossEntropy", {"x", "l"}, {"y"}), {{"x", x}, {"l", MakeTensor<int32_t>({3}, {0, 0, 0})}});
  }, ErrorKind::kShapeMismatch, {"LabelCrossEntropy", "[3]", "[2, 3]"});
  ExpectError([&] {
    RunOp(MakeOp("LabelCrossEntropy", {"x", "l"}, {"y"}), {{"x", x}, {"l", MakeTensor<float>({2}, {0, 0})}});
  }, ErrorKind::kShapeMismatch, {"LabelCrossEntropy", "int32 or int64"});
}

// logits [[0, ln 3], [ln 4, 0]]: softmax rows [1/4, 3/4] and [4/5, 1/5].
Tensor Logits() { return MakeTensor<float>({2, 2}, {0, std::log(3.0f), std::log(4.0f), 0}); }

TEST(SoftmaxWithLoss, IntLabelsAndWeights) {
  // Labels [1, 1]: losses -log 0.75 = 0.28768207 and -log 0.2 = 1.60943791; mean 0.94855999.
  auto ws = RunOp(MakeOp("SoftmaxWithLoss", {"x", "l"}, {"p", "loss"}),
                  {{"x", Logits()}, {"l", MakeTensor<int32_t>({2}, {1, 1})}});
  ExpectTensorNear(ws->GetTensor("p"), {2, 2}, {0.25, 0.75, 0.8, 0.2}, 1e-6);
  ExpectTensorNear(ws->GetTensor("loss"), {}, {0.94855999}, 1e-6);
  // Weights [1, 3]: (0.28768207 + 3 * 1.60943791) / 4 = 1.27899895; scale 2 doubles it.
  ws = RunOp(MakeOp("SoftmaxWithLoss", {"x", "l", "w"}, {"p", "loss"}, {{"scale", 2.0f}}),
             {{"x", Logits()}, {"l", MakeTensor<int64_t>({2, 1}, {1, 1})},
              {"w", MakeTensor<float>({2}, {1, 3})}});
  ExpectTensorNear(ws->GetTensor("loss"), {}, {2 * 1.27899895}, 1e-6);
  // All weights zero: Caffe2 outputs 0.
  ws = RunOp(MakeOp("SoftmaxWithLoss", {"x", "l", "w"}, {"p", "loss"}),
             {{"x", Logits()}, {"l", MakeTensor<int32_t>({2}, {1, 1})},
              {"w", MakeTensor<float>({2}, {0, 0})}});
  ExpectTensorNear(ws->GetTensor("loss"), {}, {0});
}

TEST(SoftmaxWithLoss, LabelProbabilities) {
  // Row 0 with [0.5, 0.5]: -(0.5 log 0.25 + 0.5 log 0.75) = 0.83698822; row 1 with [1, 0]:
  // -log 0.8 = 0.22314355; mean 0.53006588.
  auto ws = RunOp(MakeOp("SoftmaxWithLoss", {"x", "l"}, {"p", "loss"}, {{"label_prob", 1}}),
                  {{"x", Logits()}, {"l", MakeTensor<float>({2, 2}, {0.5, 0.5, 1, 0})}});
  ExpectTensorNear(ws->GetTensor("loss"), {}, {0.53006588}, 1e-6);
  ExpectError([] {
    RunOp(MakeOp("SoftmaxWithLoss", {"x", "l"}, {"p", "loss"}, {{"label_prob", 1}}),
          {{"x", Logits()}, {"l", MakeTensor<float>({2, 2}, {0.5, 0.6, 1, 0})}});
  }, ErrorKind::kBadArgument, {"SoftmaxWithLoss", "sum to 1.1"});
}

TEST(SoftmaxWithLoss, AxisCoercion) {
  // logits [1, 2, 2] at axis 2: 2 rows of 2 (the rows above), labels of dims [1, 2].
  auto ws = RunOp(MakeOp("SoftmaxWithLoss", {"x", "l"}, {"p", "loss"}, {{"axis", 2}}),
                  {{"x", MakeTensor<float>({1, 2, 2}, {0, std::log(3.0f), std::log(4.0f), 0})},
                   {"l", MakeTensor<int32_t>({1, 2}, {1, 1})}});
  EXPECT_EQ(ws->GetTensor("p").dims(), (Ints{1, 2, 2}));
  ExpectTensorNear(ws->GetTensor("loss"), {}, {0.94855999}, 1e-6);
}

TEST(SoftmaxWithLoss, Errors) {
  ExpectError([] {
    RunOp(MakeOp("SoftmaxWithLoss", {"x", "l"}, {"p", "loss"}),
          {{"x", Logits()}, {"l", MakeTensor<int32_t>({2}, {0, 2})}});
  }, ErrorKind::kBadArgument, {"SoftmaxWithLoss", "label 2", "[0, 2)"});
  ExpectError([] {
    RunOp(MakeOp("SoftmaxWithLoss", {"x", "l"}, {"p", "loss"}),
          {{"x", Logits()}, {"l", MakeTensor<int32_t>({3}, {0, 0, 0})}});
  }, ErrorKind::kShapeMismatch, {"SoftmaxWithLoss", "[3]", "[2, 2]"});
  ExpectError([] {
    RunOp(MakeOp("SoftmaxWithLoss", {"x", "l", "w"}, {"p", "loss"}),
          {{"x", Logits()}, {"l", MakeTensor<int32_t>({2}, {0, 0})}, {"w", MakeTensor<float>({1}, {1})}});
  }, ErrorKind::kShapeMismatch, {"SoftmaxWithLoss", "weights", "[1]"});
  ExpectError([] {
    RunOp(MakeOp("SoftmaxWithLoss", {"x", "l"}, {"p", "loss"}, {{"order", "NHWC"}}),
          {{"x", Logits()}, {"l", MakeTensor<int32_t>({2}, {0, 0})}});
  }, ErrorKind::kBadArgument, {"SoftmaxWithLoss", "order"});
  auto out = Infer(MakeOp("SoftmaxWithLoss", {"x", "l"}, {"p", "loss"}),
                   {{DataType::kFloat, {4, 3}, true}, {DataType::kInt32, {4}, true}});
  EXPECT_EQ(out[0].dims, (Ints{4, 3}));
  EXPECT_EQ(out[1].dims, Ints{});
  EXPECT_FALSE(OpSchemaRegistry::Get("SoftmaxWithLoss").IsDifferentiable(1));
}

TEST(SigmoidCrossEntropyWithLogits, ThreeVariants) {
  // logits [0, 2], targets [1, 0]; softplus(0) = log 2, softplus(2) = 2.12692801.
  //   default t*x - softplus(x): -log 2 and -2.12692801 -> -mean = 1.41003760;
  //   log_D_trick (2t-1)(x - softplus(x)): -log 2 and +0.12692801 -> 0.28310958;
  //   unjoined t*x - (1-t)*softplus(x): 0 and -2.12692801 -> 1.06346401.
  std::map<std::string, Tensor> in{{"x", MakeTensor<float>({1, 2}, {0, 2})},
                                   {"t", MakeTensor<float>({1, 2}, {1, 0})}};
  auto ws = RunOp(MakeOp("SigmoidCrossEntropyWithLogits", {"x", "t"}, {"y"}), in);
  ExpectTensorNear(ws->GetTensor("y"), {1}, {1.41003760}, 1e-6);
  ws = RunOp(MakeOp("SigmoidCrossEntropyWithLogits", {"x", "t"}, {"y"}, {{"log_D_trick", 1}}), in);
  ExpectTensorNear(ws->GetTensor("y"), {1}, {0.28310958}, 1e-6);
  ws = RunOp(MakeOp("SigmoidCrossEntropyWithLogits", {"x", "t"}, {"y"}, {{"unjoined_lr_loss", 1}}), in);
  ExpectTensorNear(ws->GetTensor("y"), {1}, {1.06346401}, 1e-6);
  // Large logits stay finite: x = -100, t = 0 gives softplus(-100) ~ 3.7e-44 -> ~0.
  ws = RunOp(MakeOp("SigmoidCrossEntropyWithLogits", {"x", "t"}, {"y"}),
             {{"x", MakeTensor<float>({}, {-100})}, {"t", MakeTensor<float>({}, {0})}});
  ExpectTensorNear(ws->GetTensor("y"), {}, {0}, 1e-6);
}

TEST(SigmoidCrossEntropyWithLogits, Errors) {
  ExpectError([] {
    RunOp(MakeOp("SigmoidCrossEntropyWithLogits", {"x", "t"}, {"y"}),
          {{"x", MakeTensor<float>({1, 2}, {0, 2})}, {"t", MakeTensor<float>({2}, {1, 0})}});
  }, ErrorKind::kShapeMismatch, {"SigmoidCrossEntropyWithLogits", "[1, 2]", "[2]"});
  ExpectError([] {
    RunOp(MakeOp("SigmoidCrossEntropyWithLogits", {"x", "t"}, {"y"},
                 {{"log_D_trick", 1}, {"unjoined_lr_loss", 1}}),
          {{"x", MakeTensor<float>({2}, {0, 2})}, {"t", MakeTensor<float>({2}, {1, 0})}});
  }, ErrorKind::kBadArgument, {"SigmoidCrossEntropyWithLogits", "both"});
  ExpectError([] {
    RunOp(MakeOp("SigmoidCrossEntropyWithLogits", {"x", "t"}, {"y"}),
          {{"x", MakeTensor<float>({2, 0}, {})}, {"t", MakeTensor<float>({2, 0}, {})}});
  }, ErrorKind::kShapeMismatch, {"SigmoidCrossEntropyWithLogits", "empty last dim"});
  EXPECT_EQ(Infer(MakeOp("SigmoidCrossEntropyWithLogits", {"x", "t"}, {"y"}),
                  {{DataType::kFloat, {3, 4, 5}, true}, {DataType::kFloat, {3, 4, 5}, true}})[0]
                .dims,
            (Ints{3, 4}));
}

}  // namespace
}  // namespace parity::testing
