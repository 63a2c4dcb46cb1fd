// Hand-computed values for the losses.
#include <cmath>

#include "tests/reference/test_util.h"

namespace parity::reference::testing {
namespace {

TEST(Loss, SquaredL2DistanceAndAveragedLoss) {
  // Rows (1,2)-(1,0) and (3,4)-(0,0): 0.5*4 = 2 and 0.5*(9+16) = 12.5.
  auto d = RunOp(Op("SquaredL2Distance", {"x", "y"}, {"d"}),
                 {{"x", F({2, 2}, {1, 2, 3, 4})}, {"y", F({2, 2}, {1, 0, 0, 0})}}, "d");
  EXPECT_EQ(Dims(d), (std::vector<int64_t>{2}));
  EXPECT_VALUES_NEAR(d, (std::vector<double>{2, 12.5}), 0);
  auto a = RunOp(Op("AveragedLoss", {"x"}, {"l"}), {{"x", F({4}, {1, 2, 3, 6})}}, "l");
  EXPECT_TRUE(Dims(a).empty());
  EXPECT_VALUES_NEAR(a, (std::vector<double>{3}), 0);
}

TEST(Loss, SigmoidCrossEntropyWithLogitsAtInfiniteLogits) {
  // -(t log s(x) + (1 - t) log(1 - s(x))): a logit of +inf with target 0 is a loss of +inf (a
  // campaign found the reference's NaN there: Caffe2's exp(x - 2x) is inf - inf at x = inf, where
  // production's exp(-|x|) is 0); x = 2, t = 0 is softplus(2) = 2.1269280110429727. (x = -inf
  // gives NaN in both engines, x (t - [x >= 0]) being -inf * 0, where the limit is 0.)
  auto y = RunOp(Op("SigmoidCrossEntropyWithLogits", {"x", "t"}, {"y"}),
                 {{"x", F({2, 1}, {INFINITY, 2})}, {"t", F({2, 1}, {0, 0})}}, "y");
  const std::vector<double> v = Values(y);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0], INFINITY);
  EXPECT_NEAR(v[1], 2.1269280110429727, 1e-15);
}

TEST(Loss, LabelCrossEntropy) {
  // -ln 0.5 = 0.6931471805599453, -ln 0.8 = 0.2231435513142097.
  const Tensors in = {{"x", F({2, 3}, {0.2, 0.5, 0.3, 0.1, 0.1, 0.8})}, {"l", Int({2}, {1, 2})}};
  EXPECT_VALUES_NEAR(RunOp(Op("LabelCrossEntropy", {"x", "l"}, {"y"}), in, "y"),
                     (std::vector<double>{0.6931471805599453, 0.2231435513142097}), 1e-15);
  // A zero probability is clamped to 1e-20: -ln 1e-20 = 46.051701859880914.
  EXPECT_VALUES_NEAR(RunOp(Op("LabelCrossEntropy", {"x", "l"}, {"y"}),
                           {{"x", F({1, 2}, {1, 0})}, {"l", Int({1}, {1})}}, "y"),
                     (std::vector<double>{46.051701859880914}), 1e-12);
  ExpectError(
      [&] {
        RunOps({Op("LabelCrossEntropy", {"x", "l"}, {"y"})},
               {{"x", in.at("x")}, {"l", Int({2}, {1, 3})}});
      },
      ErrorKind::kBadArgument);
  ExpectError(
      [&] {
        RunOps({Op("LabelCrossEntropy", {"x", "l"}, {"y"})},
               {{"x", in.at("x")}, {"l", Int({3}, {1, 1, 1})}});
      },
      ErrorKind::kShapeMismatch);
}

TEST(Loss, SoftmaxWithLoss) {
  // Rows [0, ln 3] and [ln 3, 0]: P = [1/4, 3/4], [3/4, 1/4]. Labels (1, 1):
  // losses -ln(3/4) = 0.2876820724517809, -ln(1/4) = 1.3862943611198906.
  const double l0 = 0.2876820724517809, l1 = 1.3862943611198906;
  const Tensors in = {{"x", F({2, 2}, {0, std::log(3.0), std::log(3.0), 0})},
                      {"l", Int({2}, {1, 1})},
                      {"w", F({2}, {1, 3})}};
  RunResult r = RunOps({Op("SoftmaxWithLoss", {"x", "l"}, {"p", "loss"})}, in);
  EXPECT_VALUES_NEAR(r.blobs.at("p"), (std::vector<double>{0.25, 0.75, 0.75, 0.25}), 1e-15);
  EXPECT_TRUE(Dims(r.blobs.at("loss")).empty());
  EXPECT_VALUES_NEAR(r.blobs.at("loss"), (std::vector<double>{(l0 + l1) / 2}), 1e-15);
  // Weighted: (1*l0 + 3*l1) / 4; scale doubles it.
  RunResult w = RunOps({Op("SoftmaxWithLoss", {"x", "l", "w"}, {"p", "loss"}).F("scale", 2)}, in);
  EXPECT_VALUES_NEAR(w.blobs.at("loss"), (std::vector<double>{2 * (l0 + 3 * l1) / 4}), 1e-14);
  // Probability labels [[0,1],[1,0]] pick 3/4 twice.
  RunResult p = RunOps({Op("SoftmaxWithLoss", {"x", "l"}, {"p", "loss"}).I("label_prob", 1)},
                       {{"x", in.at("x")}, {"l", F({2, 2}, {0, 1, 1, 0})}});
  EXPECT_VALUES_NEAR(p.blobs.at("loss"), (std::vector<double>{l0}), 1e-15);
  ExpectError(
      [&] {
        RunOps({Op("SoftmaxWithLoss", {"x", "l"}, {"p", "loss"})},
               {{"x", in.at("x")}, {"l", Int({2}, {2, 0})}});
      },
      ErrorKind::kBadArgument);
}

TEST(Loss, SigmoidCrossEntropyWithLogits) {
  // x = 0, t = 1: ln 2; x = ln 3, t = 0: -ln(1 - 3/4) = ln 4. Mean over the last dim.
  auto y = RunOp(Op("SigmoidCrossEntropyWithLogits", {"x", "t"}, {"y"}),
                 {{"x", F({1, 2}, {0, std::log(3.0)})}, {"t", F({1, 2}, {1, 0})}}, "y");
  EXPECT_EQ(Dims(y), (std::vector<int64_t>{1}));
  EXPECT_VALUES_NEAR(y, (std::vector<double>{(std::log(2.0) + std::log(4.0)) / 2}), 1e-15);
  // A large logit stays finite: x = 100, t = 0 gives ~100.
  auto big = RunOp(Op("SigmoidCrossEntropyWithLogits", {"x", "t"}, {"y"}),
                   {{"x", F({1}, {100})}, {"t", F({1}, {0})}}, "y");
  EXPECT_TRUE(Dims(big).empty());
  EXPECT_VALUES_NEAR(big, (std::vector<double>{100}), 1e-12);
}

// ONNX's class losses: X = [[-1, -2, -3], [-4, -5, -6]], targets [2, 0] read -3 and -4.
TEST(Loss, NegativeLogLikelihoodAndSoftmaxCrossEntropy) {
  const Tensors in = {{"x", F({2, 3}, {-1, -2, -3, -4, -5, -6})},
                      {"t", I64({2}, {2, 0})},
                      {"w", F({3}, {0.5, 1, 2})}};
  EXPECT_VALUES_NEAR(RunOp(Op("NegativeLogLikelihoodLoss", {"x", "t"}, {"y"}), in, "y"),
                     (std::vector<double>{3.5}), 1e-12);
  EXPECT_VALUES_NEAR(RunOp(Op("NegativeLogLikelihoodLoss", {"x", "t", "w"}, {"y"})
                               .S("reduction", "none"),
                           in, "y"),
                     (std::vector<double>{6, 2}), 1e-12);
  EXPECT_VALUES_NEAR(
      RunOp(Op("NegativeLogLikelihoodLoss", {"x", "t", "w"}, {"y"}), in, "y"),
      (std::vector<double>{3.2}), 1e-12);
  EXPECT_VALUES_NEAR(
      RunOp(Op("NegativeLogLikelihoodLoss", {"x", "t"}, {"y"}).I("ignore_index", 2), in, "y"),
      (std::vector<double>{4}), 1e-12);
  // Scores [0, 0], label 1: ln 2, and log_prob -ln 2 twice.
  RunResult sce = RunOps({Op("SoftmaxCrossEntropyLoss", {"s", "l"}, {"y", "lp"})},
                         {{"s", F({1, 2}, {0, 0})}, {"l", Int({1}, {1})}});
  EXPECT_VALUES_NEAR(sce.blobs.at("y"), (std::vector<double>{std::log(2.0)}), 1e-12);
  EXPECT_VALUES_NEAR(sce.blobs.at("lp"), (std::vector<double>{-std::log(2.0), -std::log(2.0)}),
                     1e-12);
  ExpectError(
      [&] { RunOps({Op("NegativeLogLikelihoodLoss", {"x", "t"}, {"y"}).I("ignore_index", 0)},
                   {{"x", in.at("x")}, {"t", I64({2}, {3, 0})}}); },
      ErrorKind::kBadArgument);
}

}  // namespace
}  // namespace parity::reference::testing
