// LSTMUnit and GRUUnit bodies (gpu/kernels/rnn_unit_body.h) on the host against the CPU engine.
#include "gpu/kernels/rnn_unit_body.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "tests/test_util.h"

namespace parity::gpu::kernels {
namespace {

using testing::MakeOp;
using testing::MakeTensor;
using testing::RandomTensor;
using testing::RunOp;
using testing::Values;

// The CPU's sigmoid (a Cephes exp within 1 ulp) and tanh (Eigen's rational approximation for
// float packets) against <cmath>'s expf / tanhf here and libdevice's on the GPU: the formulas
// match step by step, the elementary functions only within a few ulps, which a step compounds
// (c = f * c_prev + i * g, then h = o * tanh(c)). 2e-6 on values of magnitude <= ~2.
constexpr float kTolerance = 2e-6f;

void ExpectWithin(const std::vector<float>& actual, const std::vector<float>& expected,
                  const char* what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (size_t i = 0; i < actual.size(); ++i) {
    EXPECT_NEAR(actual[i], expected[i], kTolerance) << what << " element " << i;
  }
}

TEST(RnnUnitBodyTest, SigmoidByHand) {
  EXPECT_EQ(Sigmoid(0.0f), 0.5f);
  EXPECT_NEAR(Sigmoid(2.0f), 1.0f / (1.0f + std::exp(-2.0f)), 1e-7f);
  EXPECT_NEAR(Sigmoid(-20.0f), 2.0611537e-09f, 1e-15f);  // no cancellation below zero
  EXPECT_EQ(Sigmoid(-INFINITY), 0.0f);
  EXPECT_EQ(Sigmoid(INFINITY), 1.0f);
  EXPECT_TRUE(std::isnan(Sigmoid(NAN)));
}

TEST(RnnUnitBodyTest, LSTMUnitMatchesTheCpu) {
  for (int drop : {0, 1}) {
    const int64_t n = 3, d = 5;
    const Tensor h_prev = RandomTensor({1, n, d}, 1);
    const Tensor c_prev = RandomTensor({1, n, d}, 2);
    const Tensor gates = RandomTensor({1, n, 4 * d}, 3, -4, 4);
    const Tensor lengths = MakeTensor<int32_t>({n}, {4, 2, 3});
    const Tensor t = MakeTensor<int32_t>({1}, {2});  // row 1 (length 2) is past its sequence
    auto ws = RunOp(MakeOp("LSTMUnit", {"h", "c", "g", "len", "t"}, {"h_out", "c_out"},
                           {{"forget_bias", 0.5f}, {"drop_states", drop}}),
                    {{"h", h_prev}, {"c", c_prev}, {"g", gates}, {"len", lengths}, {"t", t}});
    const std::vector<int32_t> valid{1, 0, 1};
    std::vector<float> h(n * d), c(n * d);
    RunBodyOnHost(n * d, [&](int64_t i) {
      LSTMUnitElement(i, d, h_prev.data<float>(), c_prev.data<float>(), gates.data<float>(),
                      valid.data(), 0.5f, drop != 0, h.data(), c.data());
    });
    ExpectWithin(h, Values<float>(ws->GetTensor("h_out")), "hidden_t");
    ExpectWithin(c, Values<float>(ws->GetTensor("c_out")), "cell_t");
    for (int64_t j = 0; j < d; ++j) {  // the row past its sequence is copied (or zeroed) exactly
      EXPECT_EQ(h[d + j], drop ? 0.0f : h_prev.data<float>()[d + j]);
      EXPECT_EQ(c[d + j], drop ? 0.0f : c_prev.data<float>()[d + j]);
    }
  }
}

TEST(RnnUnitBodyTest, GRUUnitMatchesTheCpu) {
  for (int drop : {0, 1}) {
    const int64_t n = 2, d = 4;
    const Tensor h_prev = RandomTensor({1, n, d}, 4);
    const Tensor gates = RandomTensor({1, n, 3 * d}, 5, -4, 4);
    const Tensor lengths = MakeTensor<int64_t>({n}, {1, 5});
    const Tensor t = MakeTensor<int64_t>({1}, {1});  // row 0 (length 1) is past its sequence
    auto ws = RunOp(MakeOp("GRUUnit", {"h", "g", "len", "t"}, {"h_out"}, {{"drop_states", drop}}),
                    {{"h", h_prev}, {"g", gates}, {"len", lengths}, {"t", t}});
    const std::vector<int32_t> valid{0, 1};
    std::vector<float> h(n * d);
    RunBodyOnHost(n * d, [&](int64_t i) {
      GRUUnitElement(i, d, h_prev.data<float>(), gates.data<float>(), valid.data(), drop != 0,
                     h.data());
    });
    ExpectWithin(h, Values<float>(ws->GetTensor("h_out")), "hidden_t");
    for (int64_t j = 0; j < d; ++j) EXPECT_EQ(h[j], drop ? 0.0f : h_prev.data<float>()[j]);
  }
}

TEST(RnnUnitBodyTest, LSTMUnitGradientMatchesTheCpu) {
  for (int drop : {0, 1}) {
    const int64_t n = 3, d = 4;
    const Tensor h_prev = RandomTensor({1, n, d}, 11);
    const Tensor c_prev = RandomTensor({1, n, d}, 12);
    const Tensor gates = RandomTensor({1, n, 4 * d}, 13, -3, 3);
    const Tensor lengths = MakeTensor<int32_t>({n}, {1, 3, 3});
    const Tensor t = MakeTensor<int32_t>({1}, {1});  // row 0 is past its sequence
    const Tensor h = RandomTensor({1, n, d}, 14);
    const Tensor c = RandomTensor({1, n, d}, 15, -2, 2);
    const Tensor dh = RandomTensor({1, n, d}, 16);
    const Tensor dc = RandomTensor({1, n, d}, 17);
    auto ws = RunOp(MakeOp("LSTMUnitGradient",
                           {"hp", "cp", "g", "len", "t", "h", "c", "dh", "dc"},
                           {"dhp", "dcp", "dg"}, {{"forget_bias", 1.0f}, {"drop_states", drop}}),
                    {{"hp", h_prev}, {"cp", c_prev}, {"g", gates}, {"len", lengths}, {"t", t},
                     {"h", h}, {"c", c}, {"dh", dh}, {"dc", dc}});
    const std::vector<int32_t> valid{0, 1, 1};
    std::vector<float> dh_prev(n * d), dc_prev(n * d), dgates(n * 4 * d, -1.0f);
    RunBodyOnHost(n * d, [&](int64_t i) {
      LSTMUnitGradientElement(i, d, c_prev.data<float>(), gates.data<float>(), c.data<float>(),
                              dh.data<float>(), dc.data<float>(), valid.data(), 1.0f, drop != 0,
                              dh_prev.data(), dc_prev.data(), dgates.data());
    });
    ExpectWithin(dh_prev, Values<float>(ws->GetTensor("dhp")), "hidden_prev_grad");
    ExpectWithin(dc_prev, Values<float>(ws->GetTensor("dcp")), "cell_prev_grad");
    ExpectWithin(dgates, Values<float>(ws->GetTensor("dg")), "gates_grad");
  }
}

TEST(RnnUnitBodyTest, GRUUnitGradientMatchesTheCpu) {
  for (int drop : {0, 1}) {
    const int64_t n = 2, d = 5;
    const Tensor h_prev = RandomTensor({1, n, d}, 21);
    const Tensor gates = RandomTensor({1, n, 3 * d}, 22, -3, 3);
    const Tensor lengths = MakeTensor<int64_t>({n}, {4, 2});
    const Tensor t = MakeTensor<int64_t>({1}, {3});  // row 1 is past its sequence
    const Tensor h = RandomTensor({1, n, d}, 23);
    const Tensor dh = RandomTensor({1, n, d}, 24);
    auto ws = RunOp(MakeOp("GRUUnitGradient", {"hp", "g", "len", "t", "h", "dh"}, {"dhp", "dg"},
                           {{"drop_states", drop}}),
                    {{"hp", h_prev}, {"g", gates}, {"len", lengths}, {"t", t}, {"h", h},
                     {"dh", dh}});
    const std::vector<int32_t> valid{1, 0};
    std::vector<float> dh_prev(n * d), dgates(n * 3 * d, -1.0f);
    RunBodyOnHost(n * d, [&](int64_t i) {
      GRUUnitGradientElement(i, d, h_prev.data<float>(), gates.data<float>(), dh.data<float>(),
                             valid.data(), drop != 0, dh_prev.data(), dgates.data());
    });
    ExpectWithin(dh_prev, Values<float>(ws->GetTensor("dhp")), "hidden_prev_grad");
    ExpectWithin(dgates, Values<float>(ws->GetTensor("dg")), "gates_grad");
  }
}

TEST(RnnUnitBodyTest, GRUUnitByHand) {
  // u = 0 -> s(u) = 1/2, o = 0 -> tanh(o) = 0: h = h_prev / 2.
  const std::vector<float> h_prev{3.0f}, gates{9.0f, 0.0f, 0.0f};
  const std::vector<int32_t> valid{1};
  std::vector<float> h(1);
  GRUUnitElement(0, 1, h_prev.data(), gates.data(), valid.data(), false, h.data());
  EXPECT_EQ(h[0], 1.5f);
}

}  // namespace
}  // namespace parity::gpu::kernels
