// SpatialBN and LayerNorm bodies (gpu/kernels/norm_body.h) on the host against the CPU engine.
#include "gpu/kernels/norm_body.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "tests/test_util.h"

namespace parity::gpu::kernels {
namespace {

using testing::Floats;
using testing::Ints;
using testing::MakeOp;
using testing::MakeTensor;
using testing::RandomTensor;
using testing::RunOp;
using testing::Values;

// |a - b| within `ulps` units in the last place of b (exact when ulps is 0).
void ExpectUlps(const std::vector<float>& actual, const std::vector<float>& expected, int ulps,
                const char* what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (size_t i = 0; i < actual.size(); ++i) {
    if (std::isnan(expected[i])) {  // e.g. running_var of a one-element batch: inf * 0
      EXPECT_TRUE(std::isnan(actual[i])) << what << " element " << i;
    } else if (ulps == 0) {
      EXPECT_EQ(actual[i], expected[i]) << what << " element " << i;
    } else {
      const float ulp = std::nextafter(std::fabs(expected[i]), INFINITY) - std::fabs(expected[i]);
      EXPECT_NEAR(actual[i], expected[i], ulps * ulp) << what << " element " << i;
    }
  }
}

// |a - b| <= atol elementwise: for outputs near zero, where a shift of the mean by one ulp of the
// mean's magnitude is many ulps of the output.
void ExpectWithin(const std::vector<float>& actual, const std::vector<float>& expected, float atol,
                  const char* what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (size_t i = 0; i < actual.size(); ++i) {
    EXPECT_NEAR(actual[i], expected[i], atol) << what << " element " << i;
  }
}

struct BNCase {
  Ints dims;
  bool nchw;
};

BNShape ShapeOf(const Ints& dims, bool nchw) {
  BNShape s;
  s.n = dims[0];
  s.c = nchw ? dims[1] : dims.back();
  int64_t total = 1;
  for (size_t i = 1; i < dims.size(); ++i) total *= dims[i];
  s.hxw = total / s.c;
  s.nchw = nchw;
  return s;
}

TEST(NormBodyTest, SpatialBNInferenceMatchesTheCpuBitForBit) {
  for (const BNCase& k : {BNCase{{2, 3, 4, 5}, true}, BNCase{{2, 4, 5, 3}, false},
                          BNCase{{3, 2}, true}}) {
    const BNShape s = ShapeOf(k.dims, k.nchw);
    const Tensor x = RandomTensor(k.dims, 1, -3, 3);
    const Tensor scale = RandomTensor({s.c}, 2, 0.5f, 2);
    const Tensor bias = RandomTensor({s.c}, 3);
    const Tensor mean = RandomTensor({s.c}, 4);
    const Tensor var = RandomTensor({s.c}, 5, 0.1f, 2);
    auto ws = RunOp(MakeOp("SpatialBN", {"x", "scale", "bias", "mean", "var"}, {"y"},
                           {{"is_test", 1}, {"epsilon", 1e-3f}, {"order", k.nchw ? "NCHW" : "NHWC"}}),
                    {{"x", x}, {"scale", scale}, {"bias", bias}, {"mean", mean}, {"var", var}});
    std::vector<float> alpha(s.c), shift(s.c), beta(s.c), y(x.numel());
    RunBodyOnHost(s.c, [&](int64_t c) {
      // The op reads epsilon as a float argument widened to double.
      BNInferenceCoefficients(c, scale.data<float>(), bias.data<float>(), mean.data<float>(),
                              var.data<float>(), static_cast<double>(1e-3f), alpha.data(),
                              shift.data(), beta.data());
    });
    RunBodyOnHost(x.numel(), [&](int64_t i) {
      BNApply(i, x.data<float>(), s, alpha.data(), shift.data(), beta.data(), y.data());
    });
    ExpectUlps(y, Values<float>(ws->GetTensor("y")), 0, "Y");
  }
}

TEST(NormBodyTest, SpatialBNTrainingMatchesTheCpu) {
  for (const BNCase& k : {BNCase{{2, 3, 4, 5}, true}, BNCase{{2, 4, 5, 3}, false},
                          BNCase{{1, 2}, true}}) {
    const BNShape s = ShapeOf(k.dims, k.nchw);
    const Tensor x = RandomTensor(k.dims, 11, -3, 3);
    const Tensor scale = RandomTensor({s.c}, 12, 0.5f, 2);
    const Tensor bias = RandomTensor({s.c}, 13);
    const Tensor rm = RandomTensor({s.c}, 14);
    const Tensor rv = RandomTensor({s.c}, 15, 0.1f, 2);
    auto ws = RunOp(
        MakeOp("SpatialBN", {"x", "scale", "bias", "rm", "rv"}, {"y", "rm", "rv", "sm", "sr"},
               {{"epsilon", 1e-3f}, {"momentum", 0.75f}, {"order", k.nchw ? "NCHW" : "NHWC"}}),
        {{"x", x}, {"scale", scale}, {"bias", bias}, {"rm", rm}, {"rv", rv}});
    std::vector<float> running_mean = Values<float>(rm), running_var = Values<float>(rv);
    std::vector<float> saved_mean(s.c), saved_rstd(s.c), alpha(s.c), shift(s.c), beta(s.c);
    std::vector<float> y(x.numel());
    BNTrainArgs args;
    args.epsilon = static_cast<double>(1e-3f);
    args.momentum = static_cast<double>(0.75f);
    RunBodyOnHost(s.c, [&](int64_t c) {
      BNTrainChannel(c, x.data<float>(), s, args, scale.data<float>(), bias.data<float>(),
                     running_mean.data(), running_var.data(), saved_mean.data(),
                     saved_rstd.data(), alpha.data(), shift.data(), beta.data());
    });
    RunBodyOnHost(x.numel(), [&](int64_t i) {
      BNApply(i, x.data<float>(), s, alpha.data(), shift.data(), beta.data(), y.data());
    });
    // NHWC: the CPU adds rows in the body's order, so every bit matches. NCHW: the CPU sums each
    // spatial block with Eigen's vectorized (pairwise-by-packet) sum, in double; the other order
    // can move the double's last bits, and rarely the float's last one.
    const int ulps = k.nchw ? 1 : 0;
    if (k.nchw) {
      // Y = (x - mean) * alpha + beta: one ulp of the mean (|x| <= 3) is ~2.4e-7 absolute.
      ExpectWithin(y, Values<float>(ws->GetTensor("y")), 2e-6f, "Y");
    } else {
      ExpectUlps(y, Values<float>(ws->GetTensor("y")), 0, "Y");
    }
    ExpectUlps(running_mean, Values<float>(ws->GetTensor("rm")), ulps, "running_mean");
    ExpectUlps(running_var, Values<float>(ws->GetTensor("rv")), ulps, "running_var");
    ExpectUlps(saved_mean, Values<float>(ws->GetTensor("sm")), ulps, "saved_mean");
    ExpectUlps(saved_rstd, Values<float>(ws->GetTensor("sr")), ulps, "saved_inv_std");
  }
}

TEST(NormBodyTest, SpatialBNFromGivenSumsMatchesTheCpuBitForBit) {
  const Ints dims{2, 3, 2, 2};
  const BNShape s = ShapeOf(dims, true);
  const Tensor x = RandomTensor(dims, 21);
  const Tensor scale = RandomTensor({3}, 22, 0.5f, 2);
  const Tensor bias = RandomTensor({3}, 23);
  const Tensor sums = MakeTensor<float>({3}, {1.5f, -2.0f, 0.25f});
  const Tensor sumsq = MakeTensor<float>({3}, {9.0f, 7.5f, 4.0f});
  auto ws = RunOp(MakeOp("SpatialBN", {"x", "scale", "bias", "rm", "rv", "sums", "sumsq"},
                         {"y", "rm", "rv", "sm", "sr"}, {{"num_batches", 2}}),
                  {{"x", x}, {"scale", scale}, {"bias", bias}, {"rm", MakeTensor<float>({3}, {0, 0, 0})},
                   {"rv", MakeTensor<float>({3}, {1, 1, 1})}, {"sums", sums}, {"sumsq", sumsq}});
  std::vector<float> rm{0, 0, 0}, rv{1, 1, 1}, sm(3), sr(3), alpha(3), shift(3), beta(3);
  std::vector<float> y(x.numel());
  BNTrainArgs args;
  args.epsilon = 1e-5;  // the schema's defaults, doubles (no float argument to widen)
  args.momentum = 0.9;
  args.num_batches = 2;
  args.sums = sums.data<float>();
  args.sumsq = sumsq.data<float>();
  RunBodyOnHost(3, [&](int64_t c) {
    BNTrainChannel(c, x.data<float>(), s, args, scale.data<float>(), bias.data<float>(), rm.data(),
                   rv.data(), sm.data(), sr.data(), alpha.data(), shift.data(), beta.data());
  });
  RunBodyOnHost(x.numel(), [&](int64_t i) {
    BNApply(i, x.data<float>(), s, alpha.data(), shift.data(), beta.data(), y.data());
  });
  ExpectUlps(y, Values<float>(ws->GetTensor("y")), 0, "Y");
  ExpectUlps(rm, Values<float>(ws->GetTensor("rm")), 0, "running_mean");
  ExpectUlps(rv, Values<float>(ws->GetTensor("rv")), 0, "running_var");
  ExpectUlps(sr, Values<float>(ws->GetTensor("sr")), 0, "saved_inv_std");
}

TEST(NormBodyTest, LayerNormMatchesTheCpu) {
  for (bool affine : {false, true}) {
    const Ints dims{3, 4, 5};
    const Tensor x = RandomTensor(dims, 31, -2, 2);
    const Tensor gamma = RandomTensor({5}, 32);
    const Tensor beta = RandomTensor({5}, 33);
    std::vector<std::string> inputs{"x"};
    std::map<std::string, Tensor> feeds{{"x", x}};
    if (affine) {
      inputs = {"x", "g", "b"};
      feeds["g"] = gamma;
      feeds["b"] = beta;
    }
    auto ws = RunOp(MakeOp("LayerNorm", inputs, {"y", "mean", "std"},
                           {{"axis", 2}, {"epsilon", 1e-4f}, {"elementwise_affine", affine ? 1 : 0}}),
                    feeds);
    std::vector<float> y(x.numel()), mean(12), sd(12);
    RunBodyOnHost(12, [&](int64_t row) {
      LayerNormRow(row, x.data<float>(), 5, 1e-4f, affine ? gamma.data<float>() : nullptr,
                   affine ? beta.data<float>() : nullptr, y.data(), mean.data(), sd.data());
    });
    // The CPU sums each row with Eigen's vectorized float sum (4 lanes, then across): another
    // order than the body's serial sum, a few ulps apart on rows of 5.
    ExpectUlps(mean, Values<float>(ws->GetTensor("mean")), 4, "mean");
    ExpectUlps(sd, Values<float>(ws->GetTensor("std")), 4, "std");
    // Y of magnitude ~1 from |x| <= 2: a few ulps of the mean are ~1e-6 absolute at most.
    ExpectWithin(y, Values<float>(ws->GetTensor("y")), 2e-6f, "Y");
  }
}

TEST(NormBodyTest, SpatialBNGradientMatchesTheCpu) {
  for (const BNCase& k : {BNCase{{2, 3, 4, 5}, true}, BNCase{{2, 4, 5, 3}, false}}) {
    for (int is_test : {0, 1}) {
      const BNShape s = ShapeOf(k.dims, k.nchw);
      const Tensor x = RandomTensor(k.dims, 61, -2, 2);
      const Tensor dy = RandomTensor(k.dims, 62);
      const Tensor scale = RandomTensor({s.c}, 63, 0.5f, 2);
      const Tensor mean = RandomTensor({s.c}, 64, -0.5f, 0.5f);
      // Saved 1 / std (training) or the running variance (is_test).
      const Tensor second = RandomTensor({s.c}, 65, 0.5f, 2);
      auto ws = RunOp(MakeOp("SpatialBNGradient", {"x", "scale", "dy", "mean", "second"},
                             {"dx", "dscale", "dbias"},
                             {{"is_test", is_test}, {"epsilon", 1e-3f},
                              {"order", k.nchw ? "NCHW" : "NHWC"}}),
                      {{"x", x}, {"scale", scale}, {"dy", dy}, {"mean", mean}, {"second", second}});
      std::vector<float> dscale(s.c), dbias(s.c), coefficients(4 * s.c), dx(x.numel());
      RunBodyOnHost(s.c, [&](int64_t c) {
        BNGradientChannel(c, x.data<float>(), dy.data<float>(), s, is_test != 0,
                          static_cast<double>(1e-3f), scale.data<float>(), mean.data<float>(),
                          second.data<float>(), dscale.data(), dbias.data(),
                          coefficients.data());
      });
      RunBodyOnHost(x.numel(), [&](int64_t i) {
        BNGradientApply(i, x.data<float>(), dy.data<float>(), s, coefficients.data(), dx.data());
      });
      // NHWC: the CPU's per-element double sums in the body's order, bit for bit. NCHW: the CPU
      // sums each plane with Eigen's vectorized double sum; after rounding to float the sums
      // agree to an ulp, and dX (a difference of terms ~1) to 1e-6 absolute.
      const int ulps = k.nchw ? 1 : 0;
      ExpectUlps(dscale, Values<float>(ws->GetTensor("dscale")), ulps, "dscale");
      ExpectUlps(dbias, Values<float>(ws->GetTensor("dbias")), ulps, "dbias");
      if (k.nchw) {
        ExpectWithin(dx, Values<float>(ws->GetTensor("dx")), 1e-6f, "dX");
      } else {
        ExpectUlps(dx, Values<float>(ws->GetTensor("dx")), 0, "dX");
      }
    }
  }
}

TEST(NormBodyTest, LayerNormGradientMatchesTheCpu) {
  for (bool affine : {false, true}) {
    const Ints dims{3, 2, 6};
    const int64_t m = 6, n = 6;
    const Tensor x = RandomTensor(dims, 71, -2, 2);
    const Tensor dy = RandomTensor(dims, 72);
    const Tensor gamma = RandomTensor({6}, 73, 0.5f, 1.5f);
    // Y, mean and std from the forward op, so the inputs are consistent.
    auto fwd = RunOp(MakeOp("LayerNorm", {"x"}, {"y", "mean", "std"}, {{"axis", 2}}), {{"x", x}});
    std::vector<std::string> inputs{"dy", "y", "mean", "std", "x"};
    std::vector<std::string> outputs{"dx"};
    std::map<std::string, Tensor> feeds{{"dy", dy}, {"y", fwd->GetTensor("y")},
                                        {"mean", fwd->GetTensor("mean")},
                                        {"std", fwd->GetTensor("std")}, {"x", x}};
    if (affine) {
      inputs.push_back("gamma");
      outputs = {"dx", "dgamma", "dbeta"};
      feeds["gamma"] = gamma;
    }
    auto ws = RunOp(MakeOp("LayerNormGradient", inputs, outputs,
                           {{"axis", 2}, {"elementwise_affine", affine ? 1 : 0}}),
                    feeds);
    const float* mean = fwd->GetTensor("mean").data<float>();
    const float* sd = fwd->GetTensor("std").data<float>();
    std::vector<float> dx(m * n), dgamma(n), dbeta(n);
    RunBodyOnHost(m, [&](int64_t row) {
      LayerNormGradientRow(row, dy.data<float>(), x.data<float>(), mean, sd,
                           affine ? gamma.data<float>() : nullptr, n, dx.data());
    });
    // The CPU takes each row's two means through Eigen's vectorized double sum: other last bits
    // in double, rarely a float ulp of dX (values ~1).
    ExpectWithin(dx, Values<float>(ws->GetTensor("dx")), 1e-6f, "dX");
    if (affine) {
      RunBodyOnHost(n, [&](int64_t j) {
        LayerNormParamGradientColumn(j, dy.data<float>(), x.data<float>(), mean, sd, m, n,
                                     dgamma.data(), dbeta.data());
      });
      // Summed over rows in row order, as the CPU accumulates them: bit for bit.
      ExpectUlps(dgamma, Values<float>(ws->GetTensor("dgamma")), 0, "dgamma");
      ExpectUlps(dbeta, Values<float>(ws->GetTensor("dbeta")), 0, "dbeta");
    }
  }
}

TEST(NormBodyTest, LayerNormByHand) {
  // Row [1, 2, 3, 6]: mean 3, var (4 + 1 + 0 + 9) / 4 = 3.5, std sqrt(3.5 + 0.5) = 2.
  const std::vector<float> x{1, 2, 3, 6};
  std::vector<float> y(4), mean(1), sd(1);
  LayerNormRow(0, x.data(), 4, 0.5f, nullptr, nullptr, y.data(), mean.data(), sd.data());
  EXPECT_EQ(mean[0], 3.0f);
  EXPECT_EQ(sd[0], 2.0f);
  EXPECT_EQ(y, (std::vector<float>{-1.0f, -0.5f, 0.0f, 1.5f}));
}

}  // namespace
}  // namespace parity::gpu::kernels
