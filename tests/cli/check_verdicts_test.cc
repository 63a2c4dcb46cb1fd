// `parity check` never gives a false verdict (issue 11): each case here gave a wrong answer before
// — a mismatch on a correct net, or "ok" and exit 0 on a net that cannot run.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "core/io.h"
#include "core/proto/parity.pb.h"
#include "oracles/check.h"
#include "tests/cli/cli_util.h"

namespace parity {
namespace {

using testing::Contains;
using testing::WriteTestFile;

testing::CliResult Parity(const std::string& args) { return testing::RunCli("tools/parity", args); }

std::string Input(const std::string& file, const std::string& name, const std::string& dims,
                  const std::string& values) {
  return WriteTestFile(file, "protos { name: \"" + name + "\" " + dims +
                                 " data_type: FLOAT float_data: [" + values + "] }");
}

// y = Tanh(x) and z = Mul(y, y), both external outputs: y's seed and the gradient flowing back
// from z add up. The backward pass used to overwrite y's seed: a gradient mismatch on a correct net.
TEST(CheckVerdicts, SeedsOfSeveralOutputsAreSummed) {
  const std::string net = WriteTestFile("two_outputs.pbtxt", R"(name: "two_outputs"
op { type: "Tanh" input: "x" output: "y" }
op { type: "Mul" input: "y" input: "y" output: "z" }
external_input: "x" external_output: "y" external_output: "z"
)");
  const std::string x = Input("x.pbtxt", "x", "dims: 2 dims: 2", "0.3, -0.8, 1.1, 0.05");
  testing::CliResult r = Parity("check " + net + " --input " + x + " --oracle gradient");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "[gradient] ok")) << r.output;
}

// Random fills in an init net run once, and both engines start from their values: a correct net
// with XavierFill / GaussianFill parameters agrees. Before, each engine drew its own numbers.
TEST(CheckVerdicts, RandomFillsInTheInitNetAreRunOnce) {
  const std::string init = WriteTestFile("init.pbtxt", R"(name: "init"
op { type: "XavierFill" output: "w" arg { name: "shape" ints: 3 ints: 4 } }
op { type: "GaussianFill" output: "b" arg { name: "shape" ints: 3 } arg { name: "std" f: 0.5 } }
)");
  const std::string net = WriteTestFile("fc.pbtxt", R"(name: "fc"
op { type: "FC" input: "x" input: "w" input: "b" output: "y" }
op { type: "Tanh" input: "y" output: "t" }
external_input: "x" external_input: "w" external_input: "b" external_output: "t"
)");
  const std::string x =
      Input("x8.pbtxt", "x", "dims: 2 dims: 4", "0.5, -1, 0.25, 0.75, 0.1, -0.3, 0.9, -0.6");
  for (const char* seed : {"1", "7"}) {
    testing::CliResult r =
        Parity("check " + net + " --init " + init + " --input " + x + " --seed " + seed);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(Contains(r.output, "[forward] ok")) << r.output;
    EXPECT_TRUE(Contains(r.output, "[gradient] ok")) << r.output;
    EXPECT_TRUE(Contains(r.output, std::string("seed ") + seed + " (--seed)")) << r.output;
  }
}

// Each fill gets its own seed from the case's seed and its position: two XavierFills of one shape
// are not proportional (they were, both drawing with seed 0), and the same seed gives the same
// values.
TEST(CheckVerdicts, EachFillGetsItsOwnSeed) {
  Case c;
  caffe2::NetDef* init = c.mutable_init_net();
  for (const char* name : {"a", "b"}) {
    caffe2::OperatorDef* op = init->add_op();
    op->set_type("XavierFill");
    op->add_output(name);
    caffe2::Argument* shape = op->add_arg();
    shape->set_name("shape");
    shape->add_ints(4);
    shape->add_ints(5);
  }
  c.set_seed(3);
  auto values = [](const Case& frozen, const std::string& name) {
    for (const auto& t : frozen.inputs()) {
      if (t.name() == name) return std::vector<float>(t.float_data().begin(), t.float_data().end());
    }
    return std::vector<float>();
  };
  const Case once = oracles::FreezeInitNet(c, "production");
  const Case again = oracles::FreezeInitNet(c, "production");
  const std::vector<float> a = values(once, "a"), b = values(once, "b");
  ASSERT_EQ(a.size(), 20u);
  ASSERT_EQ(b.size(), 20u);
  EXPECT_EQ(a, values(again, "a"));
  EXPECT_FALSE(once.has_init_net());
  // Proportional vectors have |a·b| = |a||b|; independent draws do not.
  double ab = 0, aa = 0, bb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    ab += a[i] * b[i];
    aa += a[i] * a[i];
    bb += b[i] * b[i];
  }
  EXPECT_LT(std::abs(ab), 0.99 * std::sqrt(aa * bb));
  c.set_seed(4);
  EXPECT_NE(values(oracles::FreezeInitNet(c, "production"), "a"), a);
}

// A net that fails in both engines is bad input: exit 2 with the error, never "[forward] ok".
TEST(CheckVerdicts, NetThatCannotRunIsBadInput) {
  const std::string net = WriteTestFile("bad_fc.pbtxt", R"(name: "bad"
op { type: "FC" input: "x" input: "w" input: "b" output: "y" }
external_input: "x" external_input: "w" external_input: "b" external_output: "y"
)");
  const std::string inputs = WriteTestFile("bad_inputs.pbtxt", R"(
protos { name: "x" dims: 2 dims: 3 data_type: FLOAT float_data: [1, 2, 3, 4, 5, 6] }
protos { name: "w" dims: 2 dims: 4 data_type: FLOAT float_data: [1, 2, 3, 4, 5, 6, 7, 8] }
protos { name: "b" dims: 2 data_type: FLOAT float_data: [1, 2] }
)");
  testing::CliResult r = Parity("check " + net + " --input " + inputs);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_FALSE(Contains(r.output, "[forward] ok")) << r.output;
  EXPECT_TRUE(Contains(r.output, "parity check: shape mismatch")) << r.output;
  EXPECT_TRUE(Contains(r.output, "FC")) << r.output;
}

// An op type neither engine knows is bad input too (it was "not applicable", exit 0).
TEST(CheckVerdicts, UnknownOpIsBadInput) {
  const std::string net = WriteTestFile("unknown.pbtxt", R"(name: "unknown"
op { type: "NoSuchOp" input: "x" output: "y" }
external_input: "x" external_output: "y"
)");
  const std::string x = Input("x4.pbtxt", "x", "dims: 4", "1, 2, 3, 4");
  testing::CliResult r = Parity("check " + net + " --input " + x);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(Contains(r.output, "NoSuchOp")) << r.output;
}

// repro of a finding whose case cannot run says so and exits 2 (it said "no longer reproduces").
TEST(CheckVerdicts, ReproOfACaseThatCannotRunIsBadInput) {
  Finding finding;
  finding.set_oracle("forward");
  caffe2::OperatorDef* op = finding.mutable_case_()->mutable_net()->add_op();
  op->set_type("Relu");
  op->add_input("missing");
  op->add_output("y");
  const std::string path = testing::TestTmp() + "/unrunnable.pb";
  SaveProtoFile(path, finding);
  testing::CliResult r = Parity("repro " + path);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(Contains(r.output, "missing")) << r.output;
  EXPECT_FALSE(Contains(r.output, "no longer reproduces")) << r.output;
}

// --tolerance exact compares two backends of the same precision (production with the f32
// reference) for equality; against the f64 reference it always failed.
TEST(CheckVerdicts, ExactToleranceComparesSamePrecision) {
  const std::string net = WriteTestFile("add.pbtxt", R"(name: "add"
op { type: "Add" input: "x" input: "y" output: "s" }
op { type: "Relu" input: "s" output: "r" }
external_input: "x" external_input: "y" external_output: "r"
)");
  const std::string inputs = WriteTestFile("add_inputs.pbtxt", R"(
protos { name: "x" dims: 3 data_type: FLOAT float_data: [0.1, 0.7, -0.3] }
protos { name: "y" dims: 3 data_type: FLOAT float_data: [0.2, 0.11, 0.9] }
)");
  testing::CliResult r =
      Parity("check " + net + " --input " + inputs + " --oracle forward --tolerance exact");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "[forward] ok")) << r.output;
}

}  // namespace
}  // namespace parity
