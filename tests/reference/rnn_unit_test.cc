// LSTMUnit and GRUUnit, with sequence lengths and drop_states.
#include <cmath>

#include "tests/reference/test_util.h"

namespace parity::reference::testing {
namespace {

double Sig(double x) { return 1 / (1 + std::exp(-x)); }

// N = 2, D = 1. Row 0 gates (ln 3, 0, ln 3, atanh 0.5): i = 3/4, f = 1/2, o = 3/4, g = 1/2,
// so c = 1/2 * 1 + 3/4 * 1/2 = 7/8 and h = 3/4 * tanh(7/8). Row 1 is past its length at t = 0.
TEST(RnnUnit, LSTMUnitWithSequenceLengths) {
  const Tensors in = {
      {"h", F({1, 2, 1}, {0.5, -0.5})},
      {"c", F({1, 2, 1}, {1, 2})},
      {"g", F({1, 2, 4}, {std::log(3.0), 0, std::log(3.0), std::atanh(0.5), 9, 9, 9, 9})},
      {"len", Int({2}, {1, 0})},
      {"t", Int({1}, {0})}};
  RunResult r = RunOps({Op("LSTMUnit", {"h", "c", "g", "len", "t"}, {"ho", "co"})}, in);
  EXPECT_VALUES_NEAR(r.blobs.at("co"), (std::vector<double>{0.875, 2}), 1e-15);
  EXPECT_VALUES_NEAR(r.blobs.at("ho"), (std::vector<double>{0.75 * std::tanh(0.875), -0.5}), 1e-15);
  // drop_states zeroes the finished row.
  RunResult d =
      RunOps({Op("LSTMUnit", {"h", "c", "g", "len", "t"}, {"ho", "co"}).I("drop_states", 1)}, in);
  EXPECT_VALUES_NEAR(d.blobs.at("co"), (std::vector<double>{0.875, 0}), 1e-15);
  EXPECT_VALUES_NEAR(d.blobs.at("ho"), (std::vector<double>{0.75 * std::tanh(0.875), 0}), 1e-15);
  // forget_bias shifts f: G_f = 0 with bias ln 3 gives f = 3/4, c = 3/4 + 3/8 = 9/8 on row 0.
  RunResult b = RunOps({Op("LSTMUnit", {"h", "c", "g", "len", "t"}, {"ho", "co"})
                            .F("forget_bias", static_cast<float>(std::log(3.0)))},
                       in);
  EXPECT_NEAR(Values(b.blobs.at("co"))[0], 1.125, 1e-7);
  // Without sequence lengths every row is valid (4 inputs): row 1 has all gates 9.
  RunResult n =
      RunOps({Op("LSTMUnit", {"h", "c", "g", "t"}, {"ho", "co"}).I("sequence_lengths", 0)},
             {{"h", in.at("h")}, {"c", in.at("c")}, {"g", in.at("g")}, {"t", in.at("t")}});
  const double s9 = Sig(9), c1 = s9 * 2 + s9 * std::tanh(9.0);
  EXPECT_VALUES_NEAR(n.blobs.at("co"), (std::vector<double>{0.875, c1}), 1e-15);
  ExpectError(
      [&] {
        RunOps({Op("LSTMUnit", {"h", "c", "g", "t"}, {"ho", "co"})},
               {{"h", in.at("h")}, {"c", in.at("c")}, {"g", in.at("g")}, {"t", in.at("t")}});
      },
      ErrorKind::kBadArgument);
  ExpectError(
      [&] {
        RunOps({Op("LSTMUnit", {"h", "c", "g", "len", "t"}, {"ho", "co"})},
               {{"h", in.at("h")},
                {"c", in.at("c")},
                {"g", F({1, 2, 3}, {0, 0, 0, 0, 0, 0})},
                {"len", in.at("len")},
                {"t", in.at("t")}});
      },
      ErrorKind::kShapeMismatch);
}

// D = 2: z = (1/2, 3/4), candidate tanh = (0, 1/2); h = h_prev*z + cand*(1-z)
//   = (1*1/2 + 0, -1*3/4 + 1/2*1/4) = (0.5, -0.625). The reset gates (9, 9) are unused.
TEST(RnnUnit, GRUUnit) {
  const Tensors in = {{"h", F({1, 1, 2}, {1, -1})},
                      {"g", F({1, 1, 6}, {9, 9, 0, std::log(3.0), 0, std::atanh(0.5)})},
                      {"len", Int({1}, {1})},
                      {"t", Int({1}, {0})}};
  EXPECT_VALUES_NEAR(RunOp(Op("GRUUnit", {"h", "g", "len", "t"}, {"ho"}), in, "ho"),
                     (std::vector<double>{0.5, -0.625}), 1e-15);
  // At t = 1 the row (length 1) is finished: the state is carried, or zeroed with drop_states.
  Tensors late = in;
  late["t"] = Int({1}, {1});
  EXPECT_VALUES_NEAR(RunOp(Op("GRUUnit", {"h", "g", "len", "t"}, {"ho"}), late, "ho"),
                     (std::vector<double>{1, -1}), 0);
  EXPECT_VALUES_NEAR(
      RunOp(Op("GRUUnit", {"h", "g", "len", "t"}, {"ho"}).I("drop_states", 1), late, "ho"),
      (std::vector<double>{0, 0}), 0);
}

}  // namespace
}  // namespace parity::reference::testing
