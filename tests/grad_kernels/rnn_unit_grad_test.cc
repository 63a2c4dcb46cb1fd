// Gradient kernels of the RNN cells (LSTMUnitGradient, GRUUnitGradient) against hand-derived
// values, gradient checks of LSTMUnit and GRUUnit (every differentiable input, seq_lengths cutting
// some rows) against the reference, and one error per check.
#include <cmath>
#include <numeric>

#include "oracles/testing/op_checks.h"
#include "tests/grad_kernels/grad_test_util.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

// N = 2, D = 1, timestep 0, seq_lengths [1, 0]: row 0 is valid, row 1 past its sequence.
// Row 0: gate pre-activations 0 -> i = f = o = 1/2, g = 0; c_prev = 2 -> c = 1.
std::map<std::string, Tensor> LstmGradInputs(float dh0, float dc0) {
  return {{"hp", MakeTensor<float>({1, 2, 1}, {0.5f, 0.7f})},
          {"cp", MakeTensor<float>({1, 2, 1}, {2, -0.3f})},
          {"g", MakeTensor<float>({1, 2, 4}, {0, 0, 0, 0, 0.1f, 0.2f, 0.3f, 0.4f})},
          {"len", MakeTensor<int32_t>({2}, {1, 0})},
          {"t", MakeTensor<int32_t>({1}, {0})},
          {"h", MakeTensor<float>({1, 2, 1}, {0.5f * 0.7615941559557649f, 0.7f})},
          {"c", MakeTensor<float>({1, 2, 1}, {1, -0.3f})},
          {"dh", MakeTensor<float>({1, 2, 1}, {dh0, 3})},
          {"dc", MakeTensor<float>({1, 2, 1}, {dc0, 4})}};
}

const std::vector<std::string> kLstmGradIn = {"hp", "cp", "g", "len", "t", "h", "c", "dh", "dc"};
const std::vector<std::string> kLstmGradOut = {"dhp", "dcp", "dg"};

TEST(LSTMUnitGradient, CellGradient) {
  // Row 0 with dh = 0, dc = 1: dct = 1; dc_prev = dct f = 1/2; di = dct g i(1-i) = 0;
  // df = dct c_prev f(1-f) = 2/4 = 1/2; do = 0; dg = dct i (1 - g^2) = 1/2; dh_prev = 0.
  // Row 1 (past its sequence): dgates 0, dh_prev = dh = 3, dc_prev = dc = 4.
  auto ws = RunOp(MakeOp("LSTMUnitGradient", kLstmGradIn, kLstmGradOut), LstmGradInputs(0, 1));
  ExpectTensorNear(ws->GetTensor("dhp"), {1, 2, 1}, {0, 3});
  ExpectTensorNear(ws->GetTensor("dcp"), {1, 2, 1}, {0.5, 4});
  ExpectTensorNear(ws->GetTensor("dg"), {1, 2, 4}, {0, 0.5, 0, 0.5, 0, 0, 0, 0});
}

TEST(LSTMUnitGradient, HiddenGradientAndDropStates) {
  // Row 0 with dh = 1, dc = 0, tanh(c) = tanh(1) = 0.7615941559557649:
  // dct = dh o (1 - tanh^2 c) = 0.5 * 0.41997434161402614 = 0.20998717080701307;
  // dc_prev = dct / 2 = 0.10499358540350653; di = 0 (g = 0); df = dct * 2 / 4 =
  // 0.10499358540350653; do = tanh(1) / 4 = 0.19039853898894122; dg = dct / 2 =
  // 0.10499358540350653. drop_states=1: row 1 gets zero state gradients.
  auto ws = RunOp(MakeOp("LSTMUnitGradient", kLstmGradIn, kLstmGradOut, {{"drop_states", 1}}),
                  LstmGradInputs(1, 0));
  const double half_dct = 0.10499358540350653;
  ExpectTensorNear(ws->GetTensor("dhp"), {1, 2, 1}, {0, 0});
  ExpectTensorNear(ws->GetTensor("dcp"), {1, 2, 1}, {half_dct, 0});
  ExpectTensorNear(ws->GetTensor("dg"), {1, 2, 4},
                   {0, half_dct, 0.19039853898894122, half_dct, 0, 0, 0, 0}, 1e-6, 1e-5);
}

TEST(GRUUnitGradient, Values) {
  // Row 0: gates [r, u, o] = 0 -> u = 1/2, tanh(o) = 0; h_prev = 2, dh = 1:
  // dh_prev = dh u = 1/2; dr = 0; du = dh (h_prev - tanh o) u(1-u) = 2/4 = 1/2;
  // do = dh (1 - u)(1 - tanh^2 o) = 1/2. Row 1 past its sequence: dh_prev = dh = 3, dgates 0.
  std::map<std::string, Tensor> in = {
      {"hp", MakeTensor<float>({1, 2, 1}, {2, 0.7f})},
      {"g", MakeTensor<float>({1, 2, 3}, {0, 0, 0, 0.1f, 0.2f, 0.3f})},
      {"len", MakeTensor<int64_t>({2}, {1, 0})},
      {"t", MakeTensor<int64_t>({1}, {0})},
      {"h", MakeTensor<float>({1, 2, 1}, {1, 0.7f})},
      {"dh", MakeTensor<float>({1, 2, 1}, {1, 3})}};
  const std::vector<std::string> ins = {"hp", "g", "len", "t", "h", "dh"};
  auto ws = RunOp(MakeOp("GRUUnitGradient", ins, {"dhp", "dg"}), in);
  ExpectTensorNear(ws->GetTensor("dhp"), {1, 2, 1}, {0.5, 3});
  ExpectTensorNear(ws->GetTensor("dg"), {1, 2, 3}, {0, 0.5, 0.5, 0, 0, 0});
  ws = RunOp(MakeOp("GRUUnitGradient", ins, {"dhp", "dg"}, {{"drop_states", 1}}), in);
  ExpectTensorNear(ws->GetTensor("dhp"), {1, 2, 1}, {0.5, 0});
  // Without seq_lengths every row is valid.
  in.erase("len");
  ws = RunOp(MakeOp("GRUUnitGradient", {"hp", "g", "t", "h", "dh"}, {"dhp", "dg"},
                    {{"sequence_lengths", 0}}),
             in);
  ExpectTensorNear(ws->GetTensor("dhp"), {1, 2, 1}, {0.5, 3 * (1 / (1 + std::exp(-0.2)))}, 1e-6,
                   1e-5);
}

// ---------------------------------------------------------------------------------------------
// Gradient checks against the reference

TEST(RnnUnitGradientChecks, LSTMUnit) {
  // N = 4, D = 3, timestep 2, seq_lengths [3, 2, 5, 1]: rows 1 and 3 are past their sequence.
  const oracles::NamedTensors in = {{"hp", Distinct({1, 4, 3})},
                                    {"cp", Distinct({1, 4, 3}, 5)},
                                    {"g", Distinct({1, 4, 12}, 2)},
                                    {"len", MakeTensor<int32_t>({4}, {3, 2, 5, 1})},
                                    {"t", MakeTensor<int32_t>({1}, {2})}};
  for (int drop : {0, 1}) {
    const auto op = MakeOp("LSTMUnit", {"hp", "cp", "g", "len", "t"}, {"h", "c"},
                           {{"forget_bias", 0.5f}, {"drop_states", drop}});
    for (int i = 0; i < 3; ++i)
      EXPECT_GRADIENT_CHECKS(op, in, i) << "drop " << drop << " input " << i;
  }
  const auto no_lengths =
      MakeOp("LSTMUnit", {"hp", "cp", "g", "t"}, {"h", "c"}, {{"sequence_lengths", 0}});
  const oracles::NamedTensors in2 = {{"hp", Distinct({1, 2, 2})},
                                     {"cp", Distinct({1, 2, 2}, 3)},
                                     {"g", Distinct({1, 2, 8}, 2)},
                                     {"t", MakeTensor<int64_t>({1}, {0})}};
  for (int i = 0; i < 3; ++i) EXPECT_GRADIENT_CHECKS(no_lengths, in2, i) << "input " << i;
}

TEST(RnnUnitGradientChecks, GRUUnit) {
  const oracles::NamedTensors in = {{"hp", Distinct({1, 4, 3})},
                                    {"g", Distinct({1, 4, 9}, 2)},
                                    {"len", MakeTensor<int32_t>({4}, {1, 4, 0, 2})},
                                    {"t", MakeTensor<int32_t>({1}, {1})}};
  for (int drop : {0, 1}) {
    const auto op = MakeOp("GRUUnit", {"hp", "g", "len", "t"}, {"h"}, {{"drop_states", drop}});
    for (int i = 0; i < 2; ++i)
      EXPECT_GRADIENT_CHECKS(op, in, i) << "drop " << drop << " input " << i;
  }
}

// ---------------------------------------------------------------------------------------------
// Errors

TEST(RnnUnitGradients, Errors) {
  auto in = LstmGradInputs(1, 1);
  // sequence_lengths=0 expects 8 inputs.
  ExpectError(
      [&] {
        RunOp(MakeOp("LSTMUnitGradient", kLstmGradIn, kLstmGradOut, {{"sequence_lengths", 0}}), in);
      },
      ErrorKind::kBadArgument, {"sequence_lengths=0", "takes 8 inputs"});
  // Schema arity.
  ExpectError(
      [&] {
        RunOp(MakeOp("LSTMUnitGradient", {"hp", "cp", "g", "t", "h", "c", "dh"}, kLstmGradOut), in);
      },
      ErrorKind::kBadArgument, {"LSTMUnitGradient"});
  auto bad = in;
  bad["g"] = Distinct({1, 2, 3});
  ExpectError([&] { RunOp(MakeOp("LSTMUnitGradient", kLstmGradIn, kLstmGradOut), bad); },
              ErrorKind::kShapeMismatch, {"'g'", "[1, 2, 4]"});
  bad = in;
  bad["dc"] = Distinct({1, 1, 2});
  ExpectError([&] { RunOp(MakeOp("LSTMUnitGradient", kLstmGradIn, kLstmGradOut), bad); },
              ErrorKind::kShapeMismatch, {"'dc'", "[1, 2, 1]"});
  bad = in;
  bad["hp"] = Distinct({2, 1});
  ExpectError([&] { RunOp(MakeOp("LSTMUnitGradient", kLstmGradIn, kLstmGradOut), bad); },
              ErrorKind::kShapeMismatch, {"hidden_prev 'hp'", "[1, N, D]"});
  bad = in;
  bad["t"] = MakeTensor<int32_t>({2}, {0, 1});
  ExpectError([&] { RunOp(MakeOp("LSTMUnitGradient", kLstmGradIn, kLstmGradOut), bad); },
              ErrorKind::kShapeMismatch, {"timestep 't'", "one int"});
  bad = in;
  bad["len"] = MakeTensor<int32_t>({3}, {1, 1, 1});
  ExpectError([&] { RunOp(MakeOp("LSTMUnitGradient", kLstmGradIn, kLstmGradOut), bad); },
              ErrorKind::kShapeMismatch, {"seq_lengths 'len'", "N = 2"});
  bad = in;
  bad["len"] = MakeTensor<float>({2}, {1, 1});
  ExpectError([&] { RunOp(MakeOp("LSTMUnitGradient", kLstmGradIn, kLstmGradOut), bad); },
              ErrorKind::kShapeMismatch, {"'len'", "int32 or int64"});
  ExpectError(
      [&] {
        RunOp(MakeOp("GRUUnitGradient", {"hp", "g", "len", "t", "h", "dh"}, {"dhp", "dg"}),
              {{"hp", Distinct({1, 2, 1})},
               {"g", Distinct({1, 2, 4})},
               {"len", MakeTensor<int32_t>({2}, {1, 1})},
               {"t", MakeTensor<int32_t>({1}, {0})},
               {"h", Distinct({1, 2, 1})},
               {"dh", Distinct({1, 2, 1})}});
      },
      ErrorKind::kShapeMismatch, {"'g'", "[1, 2, 3]"});
}

}  // namespace
}  // namespace parity::testing
