// Loss bodies (gpu/kernels/loss_body.h) on the host against the CPU engine.
#include "gpu/kernels/loss_body.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "tests/test_util.h"

namespace parity::gpu::kernels {
namespace {

using testing::MakeOp;
using testing::MakeTensor;
using testing::RandomTensor;
using testing::RunOp;
using testing::Values;

TEST(LossBodyTest, SquaredL2DistanceMatchesTheCpu) {
  const Tensor x = RandomTensor({3, 7}, 1);
  const Tensor y = RandomTensor({3, 7}, 2);
  auto ws = RunOp(MakeOp("SquaredL2Distance", {"x", "y"}, {"z"}), {{"x", x}, {"y", y}});
  std::vector<float> z(3);
  RunBodyOnHost(3, [&](int64_t i) {
    SquaredL2DistanceRow(i, x.data<float>(), y.data<float>(), 7, z.data());
  });
  // The CPU sums each row with Eigen's vectorized sum (another order): a few ulps of sums ~1.
  const std::vector<float> expected = Values<float>(ws->GetTensor("z"));
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(z[i], expected[i], 1e-6f) << i;
}

TEST(LossBodyTest, LabelCrossEntropyMatchesTheCpuBitForBit) {
  const Tensor x = MakeTensor<float>({3, 3}, {0.2f, 0.5f, 0.3f, 0.0f, 1.0f, 0.0f, 0.7f, 0.1f, 0.2f});
  const Tensor labels = MakeTensor<int32_t>({3}, {1, 0, 2});  // row 1 picks 0: the 1e-20 floor
  auto ws = RunOp(MakeOp("LabelCrossEntropy", {"x", "l"}, {"y"}), {{"x", x}, {"l", labels}});
  std::vector<float> y(3);
  RunBodyOnHost(3, [&](int64_t i) {
    LabelCrossEntropyRow(i, x.data<float>(), labels.data<int32_t>(), 3, y.data());
  });
  // One logf on the same float: the host's libm on both sides here (the GPU's logf is within
  // 1 ulp of it).
  EXPECT_EQ(y, Values<float>(ws->GetTensor("y")));
  EXPECT_NEAR(y[1], 46.0517f, 1e-3f);  // -log(1e-20)
}

TEST(LossBodyTest, SigmoidCrossEntropyMatchesTheCpuBitForBitInEveryMode) {
  Tensor x = RandomTensor({2, 3, 4}, 3, -6, 6);
  x.mutable_data<float>()[5] = INFINITY;  // the limit case the reference once got wrong
  x.mutable_data<float>()[6] = -INFINITY;
  const Tensor t = RandomTensor({2, 3, 4}, 4, 0, 1);
  struct Mode {
    const char* arg;
    SigmoidCEMode mode;
  };
  for (const Mode& m : {Mode{nullptr, SigmoidCEMode::kDefault},
                        Mode{"log_D_trick", SigmoidCEMode::kLogDTrick},
                        Mode{"unjoined_lr_loss", SigmoidCEMode::kUnjoined}}) {
    std::vector<testing::TestArg> args;
    if (m.arg != nullptr) args.push_back({m.arg, 1});
    auto ws = RunOp(MakeOp("SigmoidCrossEntropyWithLogits", {"x", "t"}, {"y"}, args),
                    {{"x", x}, {"t", t}});
    std::vector<float> y(6);
    RunBodyOnHost(6, [&](int64_t i) {
      SigmoidCERow(i, x.data<float>(), t.data<float>(), 4, m.mode, y.data());
    });
    // The CPU's serial sum and step-by-step float arithmetic with the same libm calls: the
    // same bits (NaN where the CPU gives NaN, e.g. log_D_trick at +inf: inf - inf).
    const std::vector<float> expected = Values<float>(ws->GetTensor("y"));
    for (int i = 0; i < 6; ++i) {
      if (std::isnan(expected[i])) {
        EXPECT_TRUE(std::isnan(y[i])) << (m.arg ? m.arg : "default") << " row " << i;
      } else {
        EXPECT_EQ(y[i], expected[i]) << (m.arg ? m.arg : "default") << " row " << i;
      }
    }
  }
}

TEST(LossBodyTest, SoftmaxWithLossMatchesTheCpu) {
  const int64_t n = 4, d = 5;
  const Tensor x = RandomTensor({n, d}, 5, -3, 3);
  const Tensor labels = MakeTensor<int64_t>({n}, {0, 4, 2, 2});
  const Tensor w = MakeTensor<float>({n}, {1.0f, 0.5f, 2.0f, 0.0f});
  // Probabilities: each row a softmax-free distribution summing to 1 exactly in double.
  const Tensor probs = MakeTensor<float>(
      {n, d}, {0.5f, 0.25f, 0.25f, 0, 0, 1, 0, 0, 0, 0, 0.125f, 0.125f, 0.25f, 0.5f, 0,
               0.2f, 0.2f, 0.2f, 0.2f, 0.2f});
  for (bool label_prob : {false, true}) {
    auto ws = RunOp(MakeOp("SoftmaxWithLoss", {"x", "t", "w"}, {"p", "loss"},
                           {{"scale", 0.5f}, {"label_prob", label_prob ? 1 : 0}}),
                    {{"x", x}, {"t", label_prob ? probs : labels}, {"w", w}});
    std::vector<float> p(n * d), loss(1);
    std::vector<double> row_loss(n), row_weight(n);
    RunBodyOnHost(n, [&](int64_t i) {
      SoftmaxLossRow(i, x.data<float>(), d, labels.data<int64_t>(),
                     label_prob ? probs.data<float>() : nullptr, w.data<float>(), p.data(),
                     row_loss.data(), row_weight.data());
    });
    SoftmaxLossTotal(row_loss.data(), row_weight.data(), n, static_cast<double>(0.5f),
                     loss.data());
    // The CPU takes exp through Eigen's packet exp and sums rows with Eigen's vectorized sum;
    // the body uses expf and a serial sum: probabilities within a few ulps of values <= 1.
    const std::vector<float> expected_p = Values<float>(ws->GetTensor("p"));
    for (int64_t i = 0; i < n * d; ++i) EXPECT_NEAR(p[i], expected_p[i], 3e-7f) << i;
    EXPECT_NEAR(loss[0], ws->GetTensor("loss").data<float>()[0], 1e-6f) << label_prob;
  }
}

TEST(LossBodyTest, SquaredL2DistanceGradientMatchesTheCpuBitForBit) {
  const Tensor x = RandomTensor({3, 4}, 31);
  const Tensor y = RandomTensor({3, 4}, 32);
  const Tensor g = RandomTensor({3}, 33);
  auto ws = RunOp(MakeOp("SquaredL2DistanceGradient", {"x", "y", "g"}, {"dx", "dy"}),
                  {{"x", x}, {"y", y}, {"g", g}});
  std::vector<float> dx(12), dy(12);
  RunBodyOnHost(12, [&](int64_t k) {
    SquaredL2DistanceGradientElement(k, x.data<float>(), y.data<float>(), g.data<float>(), 4,
                                     dx.data(), dy.data());
  });
  EXPECT_EQ(dx, Values<float>(ws->GetTensor("dx")));
  EXPECT_EQ(dy, Values<float>(ws->GetTensor("dy")));
}

TEST(LossBodyTest, LabelCrossEntropyGradientMatchesTheCpuBitForBit) {
  const Tensor x = MakeTensor<float>({2, 3}, {0.2f, 0.5f, 0.3f, 0.0f, 1.0f, 0.0f});
  const Tensor labels = MakeTensor<int64_t>({2}, {2, 0});  // row 1: the 1e-20 floor
  const Tensor g = MakeTensor<float>({2}, {1.5f, -2.0f});
  auto ws = RunOp(MakeOp("LabelCrossEntropyGradient", {"x", "l", "g"}, {"dx"}),
                  {{"x", x}, {"l", labels}, {"g", g}});
  std::vector<float> dx(6, -7.0f);
  RunBodyOnHost(6, [&](int64_t k) {
    LabelCrossEntropyGradientElement(k, x.data<float>(), labels.data<int64_t>(),
                                     g.data<float>(), 3, dx.data());
  });
  EXPECT_EQ(dx, Values<float>(ws->GetTensor("dx")));
}

TEST(LossBodyTest, SoftmaxWithLossGradientMatchesTheCpuBitForBit) {
  const int64_t n = 3, d = 4;
  const Tensor x = RandomTensor({n, d}, 41);
  const Tensor p = RandomTensor({n, d}, 42, 0, 1);
  const Tensor labels = MakeTensor<int32_t>({n}, {3, 0, 1});
  const Tensor probs = MakeTensor<float>({n, d}, {0.5f, 0.5f, 0, 0, 0, 0, 0, 1, 0.25f, 0.25f,
                                                  0.25f, 0.25f});
  const Tensor w = MakeTensor<float>({n}, {1.0f, 3.0f, 0.5f});
  const Tensor dloss = MakeTensor<float>({}, {0.75f});
  for (bool label_prob : {false, true}) {
    auto ws = RunOp(MakeOp("SoftmaxWithLossGradient", {"x", "t", "w", "p", "dl"}, {"dx"},
                           {{"scale", 2.0f}, {"label_prob", label_prob ? 1 : 0}}),
                    {{"x", x}, {"t", label_prob ? probs : labels}, {"w", w}, {"p", p},
                     {"dl", dloss}});
    // The host side of the op: scale * dLoss / sum(w), in double.
    const double factor = 2.0 * 0.75 / (1.0 + 3.0 + 0.5);
    std::vector<float> dx(n * d);
    RunBodyOnHost(n * d, [&](int64_t k) {
      SoftmaxLossGradientElement(k, p.data<float>(), d, labels.data<int32_t>(),
                                 label_prob ? probs.data<float>() : nullptr, w.data<float>(),
                                 factor, dx.data());
    });
    EXPECT_EQ(dx, Values<float>(ws->GetTensor("dx"))) << label_prob;
  }
}

TEST(LossBodyTest, SigmoidCrossEntropyGradientMatchesTheCpuBitForBitInEveryMode) {
  Tensor x = RandomTensor({2, 5}, 51, -8, 8);
  x.mutable_data<float>()[3] = -INFINITY;
  const Tensor t = RandomTensor({2, 5}, 52, 0, 1);
  const Tensor g = RandomTensor({2}, 53);
  struct Mode {
    const char* arg;
    SigmoidCEMode mode;
  };
  for (const Mode& m : {Mode{nullptr, SigmoidCEMode::kDefault},
                        Mode{"log_D_trick", SigmoidCEMode::kLogDTrick},
                        Mode{"unjoined_lr_loss", SigmoidCEMode::kUnjoined}}) {
    std::vector<testing::TestArg> args;
    if (m.arg != nullptr) args.push_back({m.arg, 1});
    auto ws = RunOp(MakeOp("SigmoidCrossEntropyWithLogitsGradient", {"g", "x", "t"}, {"dx"}, args),
                    {{"g", g}, {"x", x}, {"t", t}});
    std::vector<float> dx(10);
    RunBodyOnHost(10, [&](int64_t k) {
      SigmoidCEGradientElement(k, g.data<float>(), x.data<float>(), t.data<float>(), 5, m.mode,
                               dx.data());
    });
    EXPECT_EQ(dx, Values<float>(ws->GetTensor("dx"))) << (m.arg ? m.arg : "default");
  }
}

TEST(LossBodyTest, SoftmaxWithLossByHand) {
  // Two equal logits: p = [1/2, 1/2], loss = log(2) for either label; weights 1, scale 1.
  const std::vector<float> x{3.0f, 3.0f};
  const std::vector<int32_t> labels{1};
  std::vector<float> p(2), loss(1);
  std::vector<double> row_loss(1), row_weight(1);
  SoftmaxLossRow(0, x.data(), 2, labels.data(), nullptr, nullptr, p.data(), row_loss.data(),
                 row_weight.data());
  SoftmaxLossTotal(row_loss.data(), row_weight.data(), 1, 1.0, loss.data());
  EXPECT_EQ(p, (std::vector<float>{0.5f, 0.5f}));
  EXPECT_EQ(loss[0], static_cast<float>(std::log(2.0)));
  // An empty batch: weights sum to 0, loss 0.
  SoftmaxLossTotal(row_loss.data(), row_weight.data(), 0, 1.0, loss.data());
  EXPECT_EQ(loss[0], 0.0f);
}

}  // namespace
}  // namespace parity::gpu::kernels
