// RecurrentNetwork and its gradient on the production engine, against the step net run T times by
// hand (Caffe2's recurrent_network_test reference), closed forms, and the LSTM unrolled into an
// FC/Sum/LSTMUnit chain.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "core/grad/backward.h"
#include "core/net.h"
#include "core/rnn/recurrent_net.h"
#include "core/rnn/rnn_cell.h"
#include "tests/rnn/rnn_test_util.h"

namespace parity::testing {
namespace {

// o_t for the two cells, in double, from x [T, N, D] and the initial state broadcast to [N, D].
std::vector<double> LoopReference(bool sum_first, const Tensor& x, const Tensor& init) {
  const int64_t steps = x.dim(0), row = x.numel() / steps;
  const float* xs = x.data<float>();
  const float* is = init.data<float>();
  std::vector<double> prev(row), all;
  for (int64_t k = 0; k < row; ++k) prev[k] = is[init.ndim() == 1 ? k % init.numel() : k];
  for (int64_t t = 0; t < steps; ++t) {
    for (int64_t k = 0; k < row; ++k) {
      const double xv = xs[t * row + k];
      prev[k] = sum_first ? xv * (xv + prev[k]) : xv * prev[k];
      all.push_back(prev[k]);
    }
  }
  return all;
}

void ExpectNear(const Tensor& actual, const std::vector<double>& expected, double tol) {
  ASSERT_EQ(actual.numel(), static_cast<int64_t>(expected.size())) << actual.DebugString();
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_NEAR(actual.data<float>()[i], expected[i], tol * (1 + std::fabs(expected[i])))
        << "element " << i;
  }
}

struct CellCase {
  bool sum_first;
  int64_t steps;
  int init_rank;  // 1: [D], 2: [N, D]
};

class SimpleCells : public ::testing::TestWithParam<CellCase> {};

TEST_P(SimpleCells, AllAndLastEqualTheStepNetRunTTimes) {
  const CellCase p = GetParam();
  const int64_t n = 2, d = 3;
  caffe2::NetDef net;
  net.set_name("main");
  const RecurrentNetOutputs out = AddSimpleRnn(&net, p.sum_first);
  Workspace ws;
  const Tensor x = RandomTensor({p.steps, n, d}, 7, 0.5f, 1.5f);
  const Tensor init =
      RandomTensor(p.init_rank == 1 ? std::vector<int64_t>{d} : std::vector<int64_t>{n, d}, 8);
  ws.CreateTensor("x")->CopyFrom(x);
  ws.CreateTensor("o_init")->CopyFrom(init);
  ws.RunNetOnce(net);
  const std::vector<double> all = LoopReference(p.sum_first, x, init);
  const Tensor& o_all = ws.GetTensor(out.outputs[0]);
  EXPECT_EQ(o_all.dims(), (std::vector<int64_t>{p.steps, n, d}));
  ExpectNear(o_all, all, 1e-6);
  const Tensor& o_last = ws.GetTensor(out.outputs[1]);
  EXPECT_EQ(o_last.dims(), (std::vector<int64_t>{1, n, d}));
  ExpectNear(o_last, std::vector<double>(all.end() - n * d, all.end()), 1e-6);
  // The outputs are views of the state (no copies), as in Caffe2.
  EXPECT_TRUE(o_all.SharesStorageWith(ws.GetTensor("rnn/o_prev_states")));
  // Forward-only (two alternating step workspaces) computes the same.
  caffe2::NetDef forward_only;
  forward_only.set_name("fwd");
  AddSimpleRnn(&forward_only, p.sum_first, {0}, /*forward_only=*/true);
  Workspace ws2;
  ws2.CreateTensor("x")->CopyFrom(x);
  ws2.CreateTensor("o_init")->CopyFrom(init);
  ws2.RunNetOnce(forward_only);
  EXPECT_EQ(Values<float>(ws2.GetTensor(out.outputs[0])), Values<float>(o_all));
}

INSTANTIATE_TEST_SUITE_P(Cells, SimpleCells,
                         ::testing::Values(CellCase{true, 1, 2}, CellCase{true, 2, 1},
                                           CellCase{true, 5, 2}, CellCase{false, 1, 1},
                                           CellCase{false, 2, 2}, CellCase{false, 5, 1}));

// o_t = x_t * o_{t-1}: o_T = o_0 * prod_t x_t, so for L = sum(o_T):
//   dL/do_0 = prod_t x_t (summed over the batch for a [D] initial state),
//   dL/dx_t = o_T / x_t.
TEST(RecurrentNetworkGradient, MulCellMatchesTheProductRule) {
  const int64_t steps = 3, n = 2, d = 2;
  caffe2::NetDef net;
  net.set_name("main");
  const RecurrentNetOutputs out = AddSimpleRnn(&net, false, /*outputs_with_grads=*/{1});
  const auto grads = AddGradientOperators(&net, {{out.outputs[1], ""}});
  Workspace ws;
  const Tensor x = RandomTensor({steps, n, d}, 3, 0.5f, 2.0f);
  const Tensor init = MakeTensor<float>({d}, {0.75f, -1.25f});
  ws.CreateTensor("x")->CopyFrom(x);
  ws.CreateTensor("o_init")->CopyFrom(init);
  ws.RunNetOnce(net);
  const float* xs = x.data<float>();
  std::vector<double> dinit(d, 0.0), dx(steps * n * d);
  for (int64_t k = 0; k < n * d; ++k) {
    double prod = 1;
    for (int64_t t = 0; t < steps; ++t) prod *= xs[t * n * d + k];
    dinit[k % d] += prod;
    for (int64_t t = 0; t < steps; ++t) {
      dx[t * n * d + k] = init.data<float>()[k % d] * prod / xs[t * n * d + k];
    }
  }
  ExpectNear(ws.GetTensor(grads.at("o_init")), dinit, 1e-5);
  ExpectNear(ws.GetTensor(grads.at("x")), dx, 1e-5);
}

// o_t = x_t + o_{t-1} (a running sum): the backward pass hands the one gradient "o_grad" to
// x_t, o_{t-1} and o_t, and each link needs its own blob (Caffe2's recurrent_net linked the name
// three times, so two of the gradients came out zero). For L = sum(o_all) + sum(o_last):
//   dL/dx_t = (T - t) + 1 and dL/do_init = T + 1.
TEST(RecurrentNetworkGradient, RunningSumCellGivesEveryInputItsGradient) {
  const int64_t steps = 4, n = 2, d = 3;
  caffe2::NetDef net;
  net.set_name("main");
  const RecurrentNetOutputs out =
      AddCellRnn(&net, {MakeOp("Sum", {"input_t", "o_prev"}, {"o"})}, {}, {0, 1});
  const auto grads = AddGradientOperators(&net, {{out.outputs[0], ""}, {out.outputs[1], ""}});
  Workspace ws;
  ws.CreateTensor("x")->CopyFrom(RandomTensor({steps, n, d}, 5, -1.0f, 1.0f));
  ws.CreateTensor("o_init")->CopyFrom(RandomTensor({n, d}, 6, -1.0f, 1.0f));
  ws.RunNetOnce(net);
  std::vector<double> dx(steps * n * d), dinit(n * d, steps + 1.0);
  for (int64_t i = 0; i < steps * n * d; ++i) dx[i] = steps - i / (n * d) + 1.0;
  ExpectNear(ws.GetTensor(grads.at("x")), dx, 1e-6);
  ExpectNear(ws.GetTensor(grads.at("o_init")), dinit, 1e-6);
}

// o_t = x_t + o_{t-1} + w with w [1, N, D] a reference: the backward pass passes "o_grad" through
// to w as well, and RecurrentNetworkGradient renames a param's gradient to "_tmpstep" throughout
// the step net, which would rename the output gradient's link too. For L = sum(o_last): dL/dw = T,
// dL/dx_t = 1, dL/do_init = 1.
TEST(RecurrentNetworkGradient, AParamThatTakesTheOutputGradientAccumulatesIt) {
  const int64_t steps = 3, n = 2, d = 2;
  caffe2::NetDef net;
  net.set_name("main");
  const RecurrentNetOutputs out =
      AddCellRnn(&net, {MakeOp("Sum", {"input_t", "o_prev", "w"}, {"o"})}, {"w"}, {1});
  const auto grads = AddGradientOperators(&net, {{out.outputs[1], ""}});
  Workspace ws;
  ws.CreateTensor("x")->CopyFrom(RandomTensor({steps, n, d}, 7, -1.0f, 1.0f));
  ws.CreateTensor("o_init")->CopyFrom(RandomTensor({n, d}, 8, -1.0f, 1.0f));
  ws.CreateTensor("w")->CopyFrom(RandomTensor({1, n, d}, 9, -1.0f, 1.0f));
  ws.RunNetOnce(net);
  ExpectNear(ws.GetTensor(grads.at("w")), std::vector<double>(n * d, steps), 1e-6);
  ExpectNear(ws.GetTensor(grads.at("x")), std::vector<double>(steps * n * d, 1.0), 1e-6);
  ExpectNear(ws.GetTensor(grads.at("o_init")), std::vector<double>(n * d, 1.0), 1e-6);
}

// The LSTM against the same computation unrolled by hand: FC over the sequence, then per step
// FC(h_prev) + Sum + LSTMUnit, with one batch row's sequence shorter than T.
TEST(Lstm, EqualsTheUnrolledChain) {
  const int64_t steps = 4, n = 3, d = 5, h = 2;
  LstmSpec spec;
  spec.dim_in = d;
  spec.dim_out = h;
  spec.forget_bias = 0.5f;
  caffe2::NetDef net;
  net.set_name("lstm");
  const LstmOutputs out = Lstm(&net, spec);

  auto feed = [&](Workspace* ws) {
    ws->CreateTensor("input")->CopyFrom(RandomTensor({steps, n, d}, 1));
    ws->CreateTensor("seq_lengths")->CopyFrom(MakeTensor<int32_t>({n}, {4, 2, 3}));
    ws->CreateTensor("hidden_init")->CopyFrom(RandomTensor({1, n, h}, 2));
    ws->CreateTensor("cell_init")->CopyFrom(RandomTensor({1, n, h}, 3));
    ws->CreateTensor(out.i2h_w)->CopyFrom(RandomTensor({4 * h, d}, 4));
    ws->CreateTensor(out.i2h_b)->CopyFrom(RandomTensor({4 * h}, 5));
    ws->CreateTensor(out.gates_t_w)->CopyFrom(RandomTensor({4 * h, h}, 6));
    ws->CreateTensor(out.gates_t_b)->CopyFrom(RandomTensor({4 * h}, 7));
  };
  Workspace ws;
  feed(&ws);
  ws.RunNetOnce(net);

  Workspace unrolled;
  feed(&unrolled);
  caffe2::NetDef chain;
  chain.set_name("chain");
  *chain.add_op() = MakeOp("FC", {"input", out.i2h_w, out.i2h_b}, {"i2h"}, {{"axis", 2}});
  unrolled.RunNetOnce(chain);
  const Tensor i2h = unrolled.GetTensor("i2h");
  std::vector<float> h_all, c_all;
  unrolled.CreateTensor("h")->CopyFrom(unrolled.GetTensor("hidden_init"));
  unrolled.CreateTensor("c")->CopyFrom(unrolled.GetTensor("cell_init"));
  for (int64_t t = 0; t < steps; ++t) {
    unrolled.CreateTensor("x_t")->CopyFrom(i2h.View(t * n * 4 * h, {1, n, 4 * h}));
    unrolled.CreateTensor("t")->CopyFrom(MakeTensor<int32_t>({1}, {static_cast<int32_t>(t)}));
    caffe2::NetDef step;
    step.set_name("step");
    *step.add_op() = MakeOp("FC", {"h", out.gates_t_w, out.gates_t_b}, {"g"}, {{"axis", 2}});
    *step.add_op() = MakeOp("Sum", {"g", "x_t"}, {"g"});
    *step.add_op() = MakeOp("LSTMUnit", {"h", "c", "g", "seq_lengths", "t"}, {"h2", "c2"},
                            {{"forget_bias", 0.5f}});
    *step.add_op() = MakeOp("Copy", {"h2"}, {"h"});
    *step.add_op() = MakeOp("Copy", {"c2"}, {"c"});
    unrolled.RunNetOnce(step);
    for (float v : Values<float>(unrolled.GetTensor("h"))) h_all.push_back(v);
    for (float v : Values<float>(unrolled.GetTensor("c"))) c_all.push_back(v);
  }
  // Same kernels in the same order: bit-equal.
  EXPECT_EQ(Values<float>(ws.GetTensor(out.hidden_all)), h_all);
  EXPECT_EQ(Values<float>(ws.GetTensor(out.cell_all)), c_all);
  EXPECT_EQ(Values<float>(ws.GetTensor(out.hidden_last)), Values<float>(unrolled.GetTensor("h")));
  EXPECT_EQ(Values<float>(ws.GetTensor(out.cell_last)), Values<float>(unrolled.GetTensor("c")));
}

// Memory optimization (gates recomputed on the backward pass from one shared blob) gives the same
// outputs and gradients as keeping the gates of every step.
TEST(Lstm, RecomputeOnBackwardChangesNothing) {
  const int64_t steps = 3, n = 2, d = 3, h = 2;
  auto run = [&](bool memory_optimization) {
    LstmSpec spec;
    spec.dim_in = d;
    spec.dim_out = h;
    spec.memory_optimization = memory_optimization;
    spec.outputs_with_grads = {0, 1, 2, 3};
    caffe2::NetDef net;
    net.set_name("lstm");
    const LstmOutputs out = Lstm(&net, spec);
    const auto grads = AddGradientOperators(
        &net,
        {{out.hidden_all, ""}, {out.hidden_last, ""}, {out.cell_all, ""}, {out.cell_last, ""}});
    auto ws = std::make_unique<Workspace>();
    ws->CreateTensor("input")->CopyFrom(RandomTensor({steps, n, d}, 11));
    ws->CreateTensor("seq_lengths")->CopyFrom(MakeTensor<int32_t>({n}, {3, 3}));
    ws->CreateTensor("hidden_init")->CopyFrom(RandomTensor({1, n, h}, 12));
    ws->CreateTensor("cell_init")->CopyFrom(RandomTensor({1, n, h}, 13));
    ws->CreateTensor(out.i2h_w)->CopyFrom(RandomTensor({4 * h, d}, 14));
    ws->CreateTensor(out.i2h_b)->CopyFrom(RandomTensor({4 * h}, 15));
    ws->CreateTensor(out.gates_t_w)->CopyFrom(RandomTensor({4 * h, h}, 16));
    ws->CreateTensor(out.gates_t_b)->CopyFrom(RandomTensor({4 * h}, 17));
    ws->RunNetOnce(net);
    std::vector<std::vector<float>> values;
    for (const std::string& blob : {out.hidden_all, out.cell_last}) {
      values.push_back(Values<float>(ws->GetTensor(blob)));
    }
    for (const std::string& blob :
         {std::string("input"), std::string("hidden_init"), std::string("cell_init"), out.gates_t_w,
          out.gates_t_b, out.i2h_w}) {
      values.push_back(Values<float>(ws->GetTensor(grads.at(blob))));
    }
    return values;
  };
  const auto kept = run(false);
  const auto recomputed = run(true);
  ASSERT_EQ(kept.size(), recomputed.size());
  for (size_t i = 0; i < kept.size(); ++i) EXPECT_EQ(kept[i], recomputed[i]) << "value " << i;
}

// Bad input: each a clear error naming what is wrong. The sum-mul cell, `edit`ed, run on x
// [2, 2, 3] and an initial state of `init_dims`.
void ExpectRunError(const std::function<void(caffe2::OperatorDef*)>& edit,
                    const std::vector<int64_t>& init_dims, ErrorKind kind,
                    std::initializer_list<std::string> needles) {
  caffe2::NetDef net;
  net.set_name("main");
  AddSimpleRnn(&net, true);
  edit(net.mutable_op(0));
  Workspace ws;
  ws.CreateTensor("x")->CopyFrom(RandomTensor({2, 2, 3}, 1));
  ws.CreateTensor("o_init")->CopyFrom(RandomTensor(init_dims, 2));
  ExpectError([&] { ws.RunNetOnce(net); }, kind, needles);
}

caffe2::Argument* FindArgument(caffe2::OperatorDef* op, const std::string& name) {
  for (caffe2::Argument& arg : *op->mutable_arg()) {
    if (arg.name() == name) return &arg;
  }
  ADD_FAILURE() << "no argument " << name;
  static caffe2::Argument none;
  return &none;
}

TEST(RecurrentNetworkErrors, BatchMismatch) {
  ExpectRunError([](caffe2::OperatorDef*) {}, {3, 3}, ErrorKind::kShapeMismatch,
                 {"RecurrentNetwork", "o_init", "batch 3", "batch 2"});
}

TEST(RecurrentNetworkErrors, LinkOutsideTheStateTensor) {
  ExpectRunError(
      [](caffe2::OperatorDef* op) {
        FindArgument(op, "link_offset")->set_ints(1, 4);  // o -> rows [t + 4, t + 5)
      },
      {2, 3}, ErrorKind::kShapeMismatch, {"step 0", "link 'o'", "rnn/o_prev_states", "outside"});
}

TEST(RecurrentNetworkErrors, StepNetReadsAnUndefinedBlob) {
  ExpectRunError(
      [](caffe2::OperatorDef* op) {
        caffe2::NetDef* step = FindArgument(op, "step_net")->mutable_n();
        ASSERT_EQ(step->op_size(), 2);
        step->mutable_op(1)->set_input(1, "nowhere");  // Mul(input_t, s) -> Mul(input_t, nowhere)
      },
      {2, 3}, ErrorKind::kMissingBlob, {"step 0", "nowhere"});
}

TEST(RecurrentNetworkErrors, ForwardOnlyHasNoGradient) {
  caffe2::NetDef net;
  net.set_name("main");
  const RecurrentNetOutputs out = AddSimpleRnn(&net, true, {0}, /*forward_only=*/true);
  ExpectError(
      [&] {
        AddGradientOperators(&net, {{out.outputs[0], ""}});
      },
      ErrorKind::kBadArgument, {"RecurrentNetwork", "forward-only"});
}

TEST(RecurrentNetworkErrors, AGradientOutsideOutputsWithGradsIsRefused) {
  caffe2::NetDef net;
  net.set_name("main");
  const RecurrentNetOutputs out = AddSimpleRnn(&net, true, {0});
  ExpectError(
      [&] {
        AddGradientOperators(&net, {{out.outputs[1], ""}});
      },
      ErrorKind::kBadArgument, {"output 1", "o_last", "outputs_with_grads"});
}

}  // namespace
}  // namespace parity::testing
