// LSTMUnit and GRUUnit against hand-computed values (s = logistic sigmoid).
#include <cmath>

#include "core/schema.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

// N = 2 rows, D = 1. Row 0 gates all 0 with c_prev 1: i = o = 0.5, g = 0;
//   forget_bias 0: f = 0.5 -> c = 0.5, h = 0.5 * tanh(0.5) = 0.23105858;
//   forget_bias 1: f = s(1) = 0.73105858 -> c = 0.73105858, h = 0.5 * tanh(c) = 0.31185627.
// Row 1 gates [1, -1, 2, 0.5] with c_prev 2:
//   forget_bias 1: i = s(1) = 0.73105858, f = s(0) = 0.5, o = s(2) = 0.88079708,
//   g = tanh(0.5) = 0.46211716 -> c = 1 + 0.33783471 = 1.33783471, h = o * tanh(c) = 0.76730742;
//   forget_bias 0: f = s(-1) = 0.26894142 -> c = 0.87571755, h = 0.62031670.
std::map<std::string, Tensor> LstmInputs() {
  return {{"h", MakeTensor<float>({1, 2, 1}, {0.5, -0.5})},
          {"c", MakeTensor<float>({1, 2, 1}, {1, 2})},
          {"g", MakeTensor<float>({1, 2, 4}, {0, 0, 0, 0, 1, -1, 2, 0.5})},
          {"len", MakeTensor<int32_t>({2}, {2, 5})},
          {"t", MakeTensor<int32_t>({1}, {1})}};
}

TEST(LSTMUnit, GatesAndForgetBias) {
  auto ws = RunOp(MakeOp("LSTMUnit", {"h", "c", "g", "len", "t"}, {"h1", "c1"}, {{"forget_bias", 1.0f}}),
                  LstmInputs());
  ExpectTensorNear(ws->GetTensor("c1"), {1, 2, 1}, {0.73105858, 1.33783471}, 1e-6);
  ExpectTensorNear(ws->GetTensor("h1"), {1, 2, 1}, {0.31185627, 0.76730742}, 1e-6);
  ws = RunOp(MakeOp("LSTMUnit", {"h", "c", "g", "len", "t"}, {"h1", "c1"}), LstmInputs());
  ExpectTensorNear(ws->GetTensor("c1"), {1, 2, 1}, {0.5, 0.87571755}, 1e-6);
  ExpectTensorNear(ws->GetTensor("h1"), {1, 2, 1}, {0.23105858, 0.62031670}, 1e-6);
}

TEST(LSTMUnit, SeqLengthsCutRowsAndDropStates) {
  // t = 1, lengths [2, 1]: row 0 is valid, row 1 is past its end and keeps h_prev, c_prev
  // (-0.5, 2) or becomes 0 with drop_states.
  auto in = LstmInputs();
  in["len"] = MakeTensor<int64_t>({2}, {2, 1});
  auto ws = RunOp(MakeOp("LSTMUnit", {"h", "c", "g", "len", "t"}, {"h1", "c1"}), in);
  ExpectTensorNear(ws->GetTensor("h1"), {1, 2, 1}, {0.23105858, -0.5}, 1e-6);
  ExpectTensorNear(ws->GetTensor("c1"), {1, 2, 1}, {0.5, 2}, 1e-6);
  ws = RunOp(MakeOp("LSTMUnit", {"h", "c", "g", "len", "t"}, {"h1", "c1"}, {{"drop_states", 1}}), in);
  ExpectTensorNear(ws->GetTensor("h1"), {1, 2, 1}, {0.23105858, 0}, 1e-6);
  ExpectTensorNear(ws->GetTensor("c1"), {1, 2, 1}, {0.5, 0}, 1e-6);
}

TEST(LSTMUnit, WithoutSequenceLengths) {
  auto in = LstmInputs();
  in.erase("len");
  auto ws = RunOp(MakeOp("LSTMUnit", {"h", "c", "g", "t"}, {"h1", "c1"}, {{"sequence_lengths", 0}}), in);
  ExpectTensorNear(ws->GetTensor("h1"), {1, 2, 1}, {0.23105858, 0.62031670}, 1e-6);
}

TEST(LSTMUnit, Errors) {
  auto in = LstmInputs();
  ExpectError([&] { RunOp(MakeOp("LSTMUnit", {"h", "c", "g", "t"}, {"h1", "c1"}), in); },
              ErrorKind::kBadArgument, {"LSTMUnit", "sequence_lengths=1", "5 inputs"});
  in["g"] = MakeTensor<float>({1, 2, 3}, {0, 0, 0, 0, 0, 0});
  ExpectError([&] { RunOp(MakeOp("LSTMUnit", {"h", "c", "g", "len", "t"}, {"h1", "c1"}), in); },
              ErrorKind::kShapeMismatch, {"LSTMUnit", "'g'", "[1, 2, 4]", "[1, 2, 3]"});
  in = LstmInputs();
  in["len"] = MakeTensor<int32_t>({3}, {1, 1, 1});
  ExpectError([&] { RunOp(MakeOp("LSTMUnit", {"h", "c", "g", "len", "t"}, {"h1", "c1"}), in); },
              ErrorKind::kShapeMismatch, {"LSTMUnit", "seq_lengths", "N = 2"});
  in = LstmInputs();
  in["h"] = MakeTensor<float>({2, 1}, {0, 0});
  ExpectError([&] { RunOp(MakeOp("LSTMUnit", {"h", "c", "g", "len", "t"}, {"h1", "c1"}), in); },
              ErrorKind::kShapeMismatch, {"LSTMUnit", "[1, N, D]", "[2, 1]"});
  const OpSchema& schema = OpSchemaRegistry::Get("LSTMUnit");
  EXPECT_TRUE(schema.IsDifferentiable(2));
  EXPECT_FALSE(schema.IsDifferentiable(3));
}

// GRU: h_prev [0.5, -0.5], gates rows [9, 0, 0] and [9, 2, 1] (the reset gate 9 is unused).
// Row 0: u = 0.5, tanh(0) = 0 -> h = 0.25. Row 1: u = s(2) = 0.88079708 ->
// h = -0.5 * 0.88079708 + tanh(1) * 0.11920292 = -0.34961429.
std::map<std::string, Tensor> GruInputs() {
  return {{"h", MakeTensor<double>({1, 2, 1}, {0.5, -0.5})},
          {"g", MakeTensor<double>({1, 2, 3}, {9, 0, 0, 9, 2, 1})},
          {"len", MakeTensor<int32_t>({2}, {3, 3})},
          {"t", MakeTensor<int64_t>({1}, {2})}};
}

TEST(GRUUnit, UpdateAndOutputGates) {
  auto ws = RunOp(MakeOp("GRUUnit", {"h", "g", "len", "t"}, {"h1"}), GruInputs());
  ExpectTensorNear(ws->GetTensor("h1"), {1, 2, 1}, {0.25, -0.34961429020404555}, 1e-12);
  auto in = GruInputs();
  in.erase("len");
  ws = RunOp(MakeOp("GRUUnit", {"h", "g", "t"}, {"h1"}, {{"sequence_lengths", 0}}), in);
  ExpectTensorNear(ws->GetTensor("h1"), {1, 2, 1}, {0.25, -0.34961429020404555}, 1e-12);
}

TEST(GRUUnit, SeqLengthsCutRowsAndDropStates) {
  // t = 2, lengths [2, 3]: row 0 is done (copies 0.5, or 0 with drop_states), row 1 runs.
  auto in = GruInputs();
  in["len"] = MakeTensor<int32_t>({2}, {2, 3});
  auto ws = RunOp(MakeOp("GRUUnit", {"h", "g", "len", "t"}, {"h1"}), in);
  ExpectTensorNear(ws->GetTensor("h1"), {1, 2, 1}, {0.5, -0.34961429020404555}, 1e-12);
  ws = RunOp(MakeOp("GRUUnit", {"h", "g", "len", "t"}, {"h1"}, {{"drop_states", 1}}), in);
  ExpectTensorNear(ws->GetTensor("h1"), {1, 2, 1}, {0, -0.34961429020404555}, 1e-12);
}

TEST(GRUUnit, Errors) {
  auto in = GruInputs();
  in["g"] = MakeTensor<float>({1, 2, 3}, {0, 0, 0, 0, 0, 0});
  ExpectError([&] { RunOp(MakeOp("GRUUnit", {"h", "g", "len", "t"}, {"h1"}), in); },
              ErrorKind::kShapeMismatch, {"GRUUnit", "'g'", "double"});
  in = GruInputs();
  in["t"] = MakeTensor<int32_t>({2}, {1, 2});
  ExpectError([&] { RunOp(MakeOp("GRUUnit", {"h", "g", "len", "t"}, {"h1"}), in); },
              ErrorKind::kShapeMismatch, {"GRUUnit", "timestep", "one int"});
  auto out = OpSchemaRegistry::Get("GRUUnit").InferShapes(
      MakeOp("GRUUnit", {"h", "g", "len", "t"}, {"h1"}),
      {{DataType::kFloat, {1, 4, 8}, true}, {DataType::kFloat, {1, 4, 24}, true},
       {DataType::kInt32, {4}, true}, {DataType::kInt32, {1}, true}});
  EXPECT_EQ(out[0].dims, (Ints{1, 4, 8}));
}

}  // namespace
}  // namespace parity::testing
