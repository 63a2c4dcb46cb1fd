// The GRU builder (core/rnn/rnn_cell.h) on the production engine, against the GRU equations
// evaluated in plain double loops (not through any op): r = s(x_r + W_r h + b_r),
// u = s(x_u + W_u h + b_u), o = tanh(x_o + W_o (r * h) + b_o) (linear_before_reset:
// tanh(x_o + r * (W_o h + b_o))), h' = u * h + (1 - u) * o, where x = W_i2h input + b_i2h is split
// [reset, update, output], and rows past their sequence length keep their state.
#include <gtest/gtest.h>

#include <cmath>

#include "core/grad/backward.h"
#include "core/net.h"
#include "core/rnn/rnn_cell.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

struct GruWeights {
  Tensor input, hidden_init, i2h_w, i2h_b;
  Tensor gate_w[3], gate_b[3];  // reset, update, output: [H, H], [H]
};

GruWeights RandomWeights(int64_t steps, int64_t n, int64_t d, int64_t h, uint32_t seed) {
  GruWeights w;
  w.input = RandomTensor({steps, n, d}, seed);
  w.hidden_init = RandomTensor({1, n, h}, seed + 1);
  w.i2h_w = RandomTensor({3 * h, d}, seed + 2);
  w.i2h_b = RandomTensor({3 * h}, seed + 3);
  for (int g = 0; g < 3; ++g) {
    w.gate_w[g] = RandomTensor({h, h}, seed + 4 + 2 * g);
    w.gate_b[g] = RandomTensor({h}, seed + 5 + 2 * g);
  }
  return w;
}

// The net's inputs: the sequence, lengths, initial state and the parameters, which the builder
// lists as i2h_w, i2h_b, then (w, b) of reset, update, output (their shapes checked here).
void Feed(Workspace* ws, const GruOutputs& out, const GruWeights& w,
          const std::vector<int32_t>& lengths) {
  ws->CreateTensor("input")->CopyFrom(w.input);
  ws->CreateTensor("seq_lengths")
      ->CopyFrom(MakeTensor<int32_t>({static_cast<int64_t>(lengths.size())}, lengths));
  ws->CreateTensor("hidden_init")->CopyFrom(w.hidden_init);
  const std::vector<const Tensor*> values = {&w.i2h_w,     &w.i2h_b,     &w.gate_w[0],
                                             &w.gate_b[0], &w.gate_w[1], &w.gate_b[1],
                                             &w.gate_w[2], &w.gate_b[2]};
  ASSERT_EQ(out.parameters.size(), values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(out.parameters[i].dims, values[i]->dims()) << out.parameters[i].name;
    ws->CreateTensor(out.parameters[i].name)->CopyFrom(*values[i]);
  }
}

double Sigmoid(double v) { return 1.0 / (1.0 + std::exp(-v)); }

// hidden_t_all [T, N, H] of the GRU, by the equations.
std::vector<double> GruByHand(const GruWeights& w, const std::vector<int32_t>& lengths,
                              bool linear_before_reset) {
  const int64_t steps = w.input.dim(0), n = w.input.dim(1), d = w.input.dim(2);
  const int64_t h = w.hidden_init.dim(2);
  const float* in = w.input.data<float>();
  auto at = [](const Tensor& t, int64_t i) { return static_cast<double>(t.data<float>()[i]); };
  // W h + b for gate g.
  auto affine = [&](int g, const std::vector<double>& v, int64_t j) {
    double acc = at(w.gate_b[g], j);
    for (int64_t k = 0; k < h; ++k) acc += at(w.gate_w[g], j * h + k) * v[k];
    return acc;
  };
  std::vector<std::vector<double>> state(n, std::vector<double>(h));
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t j = 0; j < h; ++j) state[b][j] = at(w.hidden_init, b * h + j);
  }
  std::vector<double> all;
  for (int64_t t = 0; t < steps; ++t) {
    for (int64_t b = 0; b < n; ++b) {
      std::vector<double> x(3 * h);
      for (int64_t j = 0; j < 3 * h; ++j) {
        x[j] = at(w.i2h_b, j);
        for (int64_t k = 0; k < d; ++k) x[j] += at(w.i2h_w, j * d + k) * in[(t * n + b) * d + k];
      }
      const std::vector<double>& prev = state[b];
      std::vector<double> r(h), next(h), reset_prev(h);
      for (int64_t j = 0; j < h; ++j) r[j] = Sigmoid(x[j] + affine(0, prev, j));
      for (int64_t j = 0; j < h; ++j) reset_prev[j] = r[j] * prev[j];
      for (int64_t j = 0; j < h; ++j) {
        const double u = Sigmoid(x[h + j] + affine(1, prev, j));
        const double o_pre =
            linear_before_reset ? r[j] * affine(2, prev, j) : affine(2, reset_prev, j);
        const double o = std::tanh(x[2 * h + j] + o_pre);
        next[j] = t < lengths[b] ? u * prev[j] + (1 - u) * o : prev[j];
      }
      state[b] = next;
      all.insert(all.end(), next.begin(), next.end());
    }
  }
  return all;
}

struct GruCase {
  bool linear_before_reset;
  bool memory_optimization;
};

class GruByEquations : public ::testing::TestWithParam<GruCase> {};

TEST_P(GruByEquations, HiddenAllAndLastMatch) {
  const GruCase p = GetParam();
  const int64_t steps = 4, n = 3, d = 5, h = 2;
  const std::vector<int32_t> lengths = {4, 2, 3};
  GruSpec spec;
  spec.dim_in = d;
  spec.dim_out = h;
  spec.linear_before_reset = p.linear_before_reset;
  spec.memory_optimization = p.memory_optimization;
  caffe2::NetDef net;
  net.set_name("gru");
  const GruOutputs out = Gru(&net, spec);
  ASSERT_EQ(out.parameters.size(), 8u);

  const GruWeights w = RandomWeights(steps, n, d, h, 40);
  Workspace ws;
  Feed(&ws, out, w, lengths);
  ws.RunNetOnce(net);

  const std::vector<double> expected = GruByHand(w, lengths, p.linear_before_reset);
  const Tensor& all = ws.GetTensor(out.hidden_all);
  ASSERT_EQ(all.dims(), (std::vector<int64_t>{steps, n, h}));
  for (int64_t i = 0; i < all.numel(); ++i) {
    EXPECT_NEAR(all.data<float>()[i], expected[i], 1e-5) << "hidden_t_all element " << i;
  }
  const Tensor& last = ws.GetTensor(out.hidden_last);
  ASSERT_EQ(last.dims(), (std::vector<int64_t>{1, n, h}));
  for (int64_t i = 0; i < last.numel(); ++i) {
    EXPECT_NEAR(last.data<float>()[i], expected[(steps - 1) * n * h + i], 1e-5)
        << "hidden_t_last element " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Variants, GruByEquations,
                         ::testing::Values(GruCase{false, false}, GruCase{true, false},
                                           GruCase{false, true}, GruCase{true, true}));

// Memory optimization (every gate blob recomputed on the backward pass) gives bit-equal outputs
// and gradients.
TEST(Gru, RecomputeOnBackwardChangesNothing) {
  const int64_t steps = 3, n = 2, d = 3, h = 2;
  const GruWeights w = RandomWeights(steps, n, d, h, 60);
  auto run = [&](bool memory_optimization) {
    GruSpec spec;
    spec.dim_in = d;
    spec.dim_out = h;
    spec.memory_optimization = memory_optimization;
    spec.outputs_with_grads = {0, 1};
    caffe2::NetDef net;
    net.set_name("gru");
    const GruOutputs out = Gru(&net, spec);
    const auto grads = AddGradientOperators(&net, {{out.hidden_all, ""}, {out.hidden_last, ""}});
    Workspace ws;
    Feed(&ws, out, w, {3, 2});
    ws.RunNetOnce(net);
    std::vector<std::vector<float>> result = {Values<float>(ws.GetTensor(out.hidden_all))};
    result.push_back(Values<float>(ws.GetTensor(grads.at("input"))));
    result.push_back(Values<float>(ws.GetTensor(grads.at("hidden_init"))));
    for (const RnnParameter& param : out.parameters) {
      result.push_back(Values<float>(ws.GetTensor(grads.at(param.name))));
    }
    return result;
  };
  const auto kept = run(false);
  const auto recomputed = run(true);
  ASSERT_EQ(kept.size(), recomputed.size());
  for (size_t i = 0; i < kept.size(); ++i) EXPECT_EQ(kept[i], recomputed[i]) << "value " << i;
}

}  // namespace
}  // namespace parity::testing
