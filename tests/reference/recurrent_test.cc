// RecurrentNetwork by unrolling: running sums that are easy to follow by hand.
#include <google/protobuf/text_format.h>

#include <cmath>

#include "tests/reference/test_util.h"

namespace parity::reference::testing {
namespace {

// The shape recurrent_net builds: links (prev <- states, 0), (out -> states, 1), (x_t <- X, 0);
// aliases states -> out_all (offset 1) and states -> out_last (offset -1).
Op RnnOp(const caffe2::NetDef& step, std::vector<std::string> inputs) {
  return Op("RecurrentNetwork", inputs, {"out_all", "out_last", "scratch"})
      .Net("step_net", step)
      .Strs("recurrent_states", {"states"})
      .Ints("initial_recurrent_state_ids", {1})
      .Strs("link_internal", {"prev", "out", "x_t"})
      .Strs("link_external", {"states", "states", "X"})
      .Ints("link_offset", {0, 1, 0})
      .Strs("alias_src", {"states", "states"})
      .Strs("alias_dst", {"out_all", "out_last"})
      .Ints("alias_offset", {1, -1});
}

// X (T=3, N=2, D=1) = (1,2), (3,4), (5,6); initial state (10, 20).
// states: (10,20) -> (11,22) -> (14,26) -> (19,32).
TEST(Recurrent, RunningSum) {
  const auto step = MakeNet({Op("Add", {"prev", "x_t"}, {"out"})});
  const Tensors in = {{"X", F({3, 2, 1}, {1, 2, 3, 4, 5, 6})}, {"init", F({2, 1}, {10, 20})}};
  RunResult r = RunOps({RnnOp(step, {"X", "init"})}, in);
  EXPECT_EQ(Dims(r.blobs.at("out_all")), (std::vector<int64_t>{3, 2, 1}));
  EXPECT_VALUES_NEAR(r.blobs.at("out_all"), (std::vector<double>{11, 22, 14, 26, 19, 32}), 0);
  EXPECT_EQ(Dims(r.blobs.at("out_last")), (std::vector<int64_t>{1, 2, 1}));
  EXPECT_VALUES_NEAR(r.blobs.at("out_last"), (std::vector<double>{19, 32}), 0);
  EXPECT_EQ(Dims(r.blobs.at("states")), (std::vector<int64_t>{4, 2, 1}));
  EXPECT_VALUES_NEAR(r.blobs.at("states"), (std::vector<double>{10, 20, 11, 22, 14, 26, 19, 32}),
                     0);
  EXPECT_EQ(r.blobs.count("scratch"), 0u);
  // A 1-D initial state [D] is broadcast over the batch: (100,100) -> ... -> (109, 112).
  RunResult b = RunOps({RnnOp(step, {"X", "init"})}, {{"X", in.at("X")}, {"init", F({1}, {100})}});
  EXPECT_VALUES_NEAR(b.blobs.at("out_last"), (std::vector<double>{109, 112}), 0);
}

// out = prev + x_t * w + t, with w read from the outer workspace (step workspaces fall through)
// and t the timestep blob: (0,0) -> (2,4) -> (2+6+1, 4+8+1) = (9,13) -> (9+10+2, 13+12+2).
TEST(Recurrent, StepNetSeesTimestepAndOuterBlobs) {
  const auto step =
      MakeNet({Op("Mul", {"x_t", "w"}, {"xw"}),
               Op("Cast", {"timestep"}, {"tf"}).I("to", caffe2::TensorProto::FLOAT),
               Op("Add", {"xw", "tf"}, {"xwt"}), Op("Add", {"prev", "xwt"}, {"out"})});
  const Tensors in = {
      {"X", F({3, 2, 1}, {1, 2, 3, 4, 5, 6})}, {"init", F({1}, {0})}, {"w", F({1}, {2})}};
  RunResult r = RunOps({RnnOp(step, {"X", "init", "w"})}, in);
  EXPECT_VALUES_NEAR(r.blobs.at("out_all"), (std::vector<double>{2, 4, 9, 13, 21, 27}), 0);
  EXPECT_EQ(r.blobs.count("xw"), 0u);  // step-local blobs stay in the step workspaces
  // The step net may also come as text format (as recurrent_net passes it).
  std::string text;
  google::protobuf::TextFormat::PrintToString(step, &text);
  caffe2::OperatorDef op = RnnOp(step, {"X", "init", "w"});
  for (auto& arg : *op.mutable_arg()) {
    if (arg.name() == "step_net") {
      arg.clear_n();
      arg.set_s(text);
    }
  }
  EXPECT_VALUES_NEAR(RunOp(op, in, "out_all"), (std::vector<double>{2, 4, 9, 13, 21, 27}), 0);
}

// An LSTM step: gates = FC(prev_h) + input gates; LSTMUnit carries (h, c). One unit, one batch,
// zero weights: gates = x_t, so with x_t = (0, 0, 0, atanh(1/2)) each step has i = f = o = 1/2,
// g = 1/2: c1 = 1/4, c2 = 1/8 + 1/4 = 3/8.
TEST(Recurrent, LstmCellWithTwoStates) {
  const auto step = MakeNet({Op("FC", {"h_prev", "gw", "gb"}, {"gates"}).I("axis", 2),
                             Op("Sum", {"gates", "x_t"}, {"gates"}),
                             Op("LSTMUnit", {"h_prev", "c_prev", "gates", "timestep"}, {"h", "c"})
                                 .I("sequence_lengths", 0)});
  const auto op = Op("RecurrentNetwork", {"X", "h0", "c0", "gw", "gb"},
                     {"h_all", "h_last", "c_all", "c_last", "scratch"})
                      .Net("step_net", step)
                      .Strs("recurrent_states", {"h_states", "c_states"})
                      .Ints("initial_recurrent_state_ids", {1, 2})
                      .Strs("link_internal", {"h_prev", "h", "c_prev", "c", "x_t"})
                      .Strs("link_external", {"h_states", "h_states", "c_states", "c_states", "X"})
                      .Ints("link_offset", {0, 1, 0, 1, 0})
                      .Strs("alias_src", {"h_states", "h_states", "c_states", "c_states"})
                      .Strs("alias_dst", {"h_all", "h_last", "c_all", "c_last"})
                      .Ints("alias_offset", {1, -1, 1, -1});
  const double a = std::atanh(0.5);
  const Tensors in = {{"X", F({2, 1, 4}, {0, 0, 0, a, 0, 0, 0, a})},
                      {"h0", F({1, 1, 1}, {0})},
                      {"c0", F({1, 1, 1}, {0})},
                      {"gw", F({4, 1}, {0, 0, 0, 0})},
                      {"gb", F({4}, {0, 0, 0, 0})}};
  RunResult r = RunOps({op}, in);
  EXPECT_VALUES_NEAR(r.blobs.at("c_all"), (std::vector<double>{0.25, 0.375}), 1e-15);
  EXPECT_VALUES_NEAR(r.blobs.at("h_last"), (std::vector<double>{0.5 * std::tanh(0.375)}), 1e-15);
  // A step net that changes a linked blob's shape is an error, not silent garbage.
  const auto bad_step = MakeNet({Op("Concat", {"prev", "x_t"}, {"out", "info"}).I("axis", 0)});
  ExpectError(
      [&] {
        RunOps({RnnOp(bad_step, {"X", "init"})}, {{"X", F({1, 1, 1}, {1})}, {"init", F({1}, {0})}});
      },
      ErrorKind::kShapeMismatch);
}

}  // namespace
}  // namespace parity::reference::testing
