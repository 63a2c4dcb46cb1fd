// `parity rnn lstm|gru` as a user runs it: the net and init net it writes have Caffe2's rnn_cell
// names and shapes, `parity run` on them gives outputs of the right shapes, and `parity check`
// passes every default oracle on them (forward against the reference's unrolled run, gradients
// against its finite differences). Bad flags are refused with exit 2.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "core/io.h"
#include "tests/cli/cli_util.h"

namespace parity::testing {
namespace {

CliResult Parity(const std::string& args) { return RunCli("tools/parity", args); }

struct BuiltRnn {
  caffe2::NetDef net, init;
  std::string net_path, init_path, inputs_path;
};

BuiltRnn Build(const std::string& name, const std::string& args) {
  BuiltRnn b;
  b.net_path = TestTmp() + "/" + name + ".pbtxt";
  b.init_path = TestTmp() + "/" + name + "_init.pbtxt";
  b.inputs_path = TestTmp() + "/" + name + "_inputs.pb";
  const CliResult built = Parity("rnn " + args + " -o " + b.net_path + " --init " + b.init_path +
                                 " --inputs " + b.inputs_path);
  EXPECT_EQ(built.exit_code, 0) << built.output;
  b.net = LoadNetDef(b.net_path);
  b.init = LoadNetDef(b.init_path);
  return b;
}

// name -> shape of every GivenTensorFill in the init net.
std::map<std::string, std::vector<int64_t>> FilledShapes(const caffe2::NetDef& init) {
  std::map<std::string, std::vector<int64_t>> shapes;
  for (const caffe2::OperatorDef& op : init.op()) {
    EXPECT_EQ(op.type(), "GivenTensorFill");
    for (const caffe2::Argument& arg : op.arg()) {
      if (arg.name() == "shape") shapes[op.output(0)] = {arg.ints().begin(), arg.ints().end()};
    }
  }
  return shapes;
}

void ExpectEveryOracleOk(const BuiltRnn& b) {
  const CliResult check =
      Parity("check " + b.net_path + " --init " + b.init_path + " --input " + b.inputs_path);
  EXPECT_EQ(check.exit_code, 0) << check.output;
  for (const char* oracle :
       {"[forward] ok", "[gradient] ok", "[determinism] ok", "[roundtrip] ok"}) {
    EXPECT_TRUE(Contains(check.output, oracle)) << oracle << " missing from:\n" << check.output;
  }
}

TEST(RnnCli, LstmHasCaffe2NamesAndPassesEveryOracle) {
  const BuiltRnn b = Build("lstm", "lstm --T 3 --N 2 --D 4 --H 3 --forget-bias 1 --seed 5");
  const std::map<std::string, std::vector<int64_t>> expected = {{"lstm/i2h_w", {12, 4}},
                                                                {"lstm/i2h_b", {12}},
                                                                {"lstm/gates_t_w", {12, 3}},
                                                                {"lstm/gates_t_b", {12}}};
  EXPECT_EQ(FilledShapes(b.init), expected);
  EXPECT_EQ(
      std::vector<std::string>(b.net.external_output().begin(), b.net.external_output().end()),
      (std::vector<std::string>{"lstm/hidden_t_all", "lstm/hidden_t_last", "lstm/cell_t_all",
                                "lstm/cell_t_last"}));
  const CliResult run =
      Parity("run " + b.net_path + " --init " + b.init_path + " --input " + b.inputs_path);
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_TRUE(Contains(run.output, "lstm/hidden_t_all: float [3, 2, 3]")) << run.output;
  EXPECT_TRUE(Contains(run.output, "lstm/cell_t_last: float [1, 2, 3]")) << run.output;
  ExpectEveryOracleOk(b);
}

TEST(RnnCli, GruHasCaffe2NamesAndPassesEveryOracle) {
  const BuiltRnn b = Build("gru", "gru --T 3 --N 2 --D 4 --H 3 --seed 6");
  const std::map<std::string, std::vector<int64_t>> expected = {
      {"gru/i2h_w", {9, 4}},           {"gru/i2h_b", {9}},
      {"gru/reset_gate_t_w", {3, 3}},  {"gru/reset_gate_t_b", {3}},
      {"gru/update_gate_t_w", {3, 3}}, {"gru/update_gate_t_b", {3}},
      {"gru/output_gate_t_w", {3, 3}}, {"gru/output_gate_t_b", {3}}};
  EXPECT_EQ(FilledShapes(b.init), expected);
  EXPECT_EQ(
      std::vector<std::string>(b.net.external_output().begin(), b.net.external_output().end()),
      (std::vector<std::string>{"gru/hidden_t_all", "gru/hidden_t_last"}));
  const CliResult run =
      Parity("run " + b.net_path + " --init " + b.init_path + " --input " + b.inputs_path);
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_TRUE(Contains(run.output, "gru/hidden_t_all: float [3, 2, 3]")) << run.output;
  ExpectEveryOracleOk(b);
}

// Two layers with recomputed gates, and the GRU's cuDNN variant: still every oracle.
TEST(RnnCli, StacksAndVariantsPassEveryOracle) {
  ExpectEveryOracleOk(Build("lstm2",
                            "lstm --T 2 --N 2 --D 3 --H 2 --layers 2 "
                            "--memory-optimization --scope enc"));
  const BuiltRnn gru = Build("gru2",
                             "gru --T 3 --N 2 --D 3 --H 2 --layers 2 "
                             "--memory-optimization --linear-before-reset");
  EXPECT_EQ(FilledShapes(gru.init).count("gru_1/i2h_w"), 1u);
  EXPECT_EQ(FilledShapes(gru.init).at("gru_1/i2h_w"), (std::vector<int64_t>{6, 2}));
  ExpectEveryOracleOk(gru);
}

TEST(RnnCli, BadFlagsAreRefused) {
  const std::string out = " -o " + TestTmp() + "/x.pbtxt --init " + TestTmp() + "/xi.pbtxt";
  const CliResult unknown = Parity("rnn vanilla --T 2 --N 1 --D 1 --H 1" + out);
  EXPECT_EQ(unknown.exit_code, 2) << unknown.output;
  EXPECT_TRUE(Contains(unknown.output, "cell 'vanilla' is not supported")) << unknown.output;
  const CliResult forget = Parity("rnn gru --T 2 --N 1 --D 1 --H 1 --forget-bias 1" + out);
  EXPECT_EQ(forget.exit_code, 2) << forget.output;
  EXPECT_TRUE(Contains(forget.output, "--forget-bias applies to the LSTM only")) << forget.output;
  const CliResult zero = Parity("rnn lstm --T 0 --N 1 --D 1 --H 1" + out);
  EXPECT_EQ(zero.exit_code, 2) << zero.output;
  EXPECT_TRUE(Contains(zero.output, "--T must be in [1, 2^20], got 0")) << zero.output;
}

}  // namespace
}  // namespace parity::testing
