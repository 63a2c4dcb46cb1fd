// The command-line contract, end to end through the real binary: outputs, formats, exit codes, and
// a one-line message for each kind of bad input.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "core/io.h"
#include "tests/cli/cli_util.h"

namespace parity {
namespace {

using Result = testing::CliResult;

std::string Tmp() { return testing::TestTmp(); }
Result Parity(const std::string& args) { return testing::RunCli("tools/parity", args); }
std::string WriteNet(const std::string& name, const std::string& text) {
  return testing::WriteTestFile(name, text);
}

const char kFillCopy[] = R"(name: "demo"
op { type: "GivenTensorFill" output: "x"
     arg { name: "shape" ints: 2 ints: 2 }
     arg { name: "values" floats: 1 floats: 2.5 floats: -3 floats: 4 } }
op { type: "Copy" input: "x" output: "y" }
external_output: "y"
)";

void ExpectBadInput(const std::string& net_text, const std::string& needle) {
  Result r = Parity("run " + WriteNet("case.pbtxt", net_text));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(needle), std::string::npos) << r.output;
  // One line: the message, nothing else (no stack trace, no abort text).
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
}

TEST(Cli, RunPrintsOutputsTextAndBinaryAgree) {
  std::string text_path = WriteNet("fill.pbtxt", kFillCopy);
  Result text = Parity("run " + text_path);
  EXPECT_EQ(text.exit_code, 0) << text.output;
  EXPECT_EQ(text.output, "y: float [2, 2] = [1, 2.5, -3, 4]\n");
  std::string binary_path = Tmp() + "/fill.pb";
  SaveNetDef(binary_path, LoadNetDef(text_path));
  Result binary = Parity("run " + binary_path);
  EXPECT_EQ(binary.exit_code, 0);
  EXPECT_EQ(binary.output, text.output);
}

TEST(Cli, RunWithInputsFetchAndOutputFile) {
  std::string npy = Tmp() + "/in.npy";
  Result make = Parity("run " + WriteNet("fill.pbtxt", kFillCopy) + " -o " + npy);
  ASSERT_EQ(make.exit_code, 0) << make.output;
  std::string copy_net = WriteNet("copy.pbtxt",
                                  "op { type: \"Copy\" input: \"a\" output: \"b\" }\n"
                                  "op { type: \"Copy\" input: \"b\" output: \"c\" }\n");
  Result r = Parity("run " + copy_net + " --input a=" + npy + " --fetch b,c");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "b: float [2, 2] = [1, 2.5, -3, 4]\nc: float [2, 2] = [1, 2.5, -3, 4]\n");
}

TEST(Cli, InitNetRunsFirst) {
  std::string init =
      WriteNet("init.pbtxt",
               "op { type: \"ConstantFill\" output: \"w\" arg { name: \"shape\" ints: 3 } "
               "arg { name: \"value\" f: 0.5 } }");
  std::string main = WriteNet(
      "main.pbtxt", "op { type: \"Copy\" input: \"w\" output: \"out\" } external_output: \"out\"");
  Result r = Parity("run " + main + " --init " + init);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "out: float [3] = [0.5, 0.5, 0.5]\n");
}

TEST(Cli, UnreadableFile) {
  Result r = Parity("run " + Tmp() + "/does_not_exist.pb");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("does_not_exist.pb"), std::string::npos) << r.output;
}

TEST(Cli, MalformedProtobufBytes) {
  std::string path = Tmp() + "/garbage.pb";
  WriteFileAtomic(path, std::string("\x0A\x64xx", 4));
  Result r = Parity("run " + path);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("malformed protobuf"), std::string::npos) << r.output;
}

TEST(Cli, UnknownOpType) {
  ExpectBadInput("op { type: \"Frobnicate\" output: \"y\" }", "unknown op type 'Frobnicate'");
}

TEST(Cli, WrongArity) {
  ExpectBadInput(
      std::string(kFillCopy) + "op { type: \"Copy\" input: \"x\" input: \"y\" output: \"z\" }",
      "takes 1 inputs, got 2");
}

TEST(Cli, WrongArgumentType) {
  ExpectBadInput("op { type: \"ConstantFill\" output: \"y\" arg { name: \"shape\" f: 2 } }",
                 "argument 'shape' should be of type ints");
}

TEST(Cli, MissingInputBlob) {
  ExpectBadInput("op { type: \"Copy\" input: \"ghost\" output: \"y\" }",
                 "input 0 'ghost' does not exist");
}

TEST(Cli, NegativeDims) {
  ExpectBadInput(
      "op { type: \"ConstantFill\" output: \"y\" arg { name: \"shape\" ints: 2 ints: -3 } }",
      "negative dimension -3");
}

TEST(Cli, DimsProductOverflowsInt64) {
  ExpectBadInput(
      "op { type: \"ConstantFill\" output: \"y\" arg { name: \"shape\" ints: 4294967296 "
      "ints: 4294967296 ints: 4 } }",
      "overflows int64");
}

TEST(Cli, AllocationOverTheCap) {
  // 2^20 x 2^20 floats = 4 TiB: well formed, but over the default 4 GiB cap.
  ExpectBadInput(
      "op { type: \"ConstantFill\" output: \"y\" arg { name: \"shape\" ints: 1048576 "
      "ints: 1048576 } }",
      "exceeds the cap");
}

TEST(Cli, UsageErrorsExitTwo) {
  EXPECT_EQ(Parity("").exit_code, 2);
  EXPECT_EQ(Parity("run").exit_code, 2);
  EXPECT_EQ(Parity("nosuchcommand").exit_code, 2);
  EXPECT_EQ(Parity("run --help").exit_code, 0);
}

TEST(Cli, OpsListsSchemas) {
  Result r = Parity("ops --json");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.output.find("\"type\": \"GivenTensorFill\""), std::string::npos);
  EXPECT_NE(r.output.find("\"name\": \"values\""), std::string::npos);
}

}  // namespace
}  // namespace parity

namespace parity {
namespace {

TEST(Cli, ReferenceEngineRunsTheSameNet) {
  // The reference computes in f64: the same values come back as doubles.
  Result r = Parity("run " + WriteNet("fill.pbtxt", kFillCopy) + " --engine reference");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "y: double [2, 2] = [1, 2.5, -3, 4]\n");
  Result bad = Parity(
      "run " + WriteNet("bad.pbtxt", "op { type: \"Copy\" input: \"ghost\" output: \"y\" }") +
      " --engine reference");
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("ghost"), std::string::npos) << bad.output;
}

}  // namespace
}  // namespace parity

namespace parity {
namespace {

TEST(Cli, CheckRunsEveryOracleOnAUsersNet) {
  std::string net = WriteNet("mlp.pbtxt", R"(name: "mlp"
op { type: "GivenTensorFill" output: "w" arg { name: "shape" ints: 2 ints: 3 }
     arg { name: "values" floats: 0.1 floats: -0.2 floats: 0.3 floats: 0.5 floats: 0.4 floats: -0.6 } }
op { type: "GivenTensorFill" output: "b" arg { name: "shape" ints: 2 } arg { name: "values" floats: 0.1 floats: 0.2 } }
op { type: "FC" input: "x" input: "w" input: "b" output: "h" }
op { type: "Sigmoid" input: "h" output: "y" }
external_input: "x" external_output: "y"
)");
  std::string x = Tmp() + "/x.pbtxt";
  WriteFileAtomic(x,
                  "protos { name: \"x\" dims: 2 dims: 3 data_type: FLOAT "
                  "float_data: [0.5, -1, 0.25, 0.75, 0.1, -0.3] }");
  Result r = Parity("check " + net + " --input " + x);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  for (const char* oracle :
       {"[forward] ok", "[gradient] ok", "[determinism] ok", "[roundtrip] ok"}) {
    EXPECT_NE(r.output.find(oracle), std::string::npos) << r.output;
  }
  Result json = Parity("check " + net + " --input " + x + " --oracle forward --json");
  EXPECT_EQ(json.exit_code, 0);
  EXPECT_NE(json.output.find("\"status\": \"ok\""), std::string::npos) << json.output;
}

TEST(Cli, FuzzRunsAndSummarizes) {
  std::string out = Tmp() + "/campaign";
  Result r = Parity("fuzz --cases 40 --seed 7 --out " + out);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("cases: 40"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("findings: 0"), std::string::npos) << r.output;
  // stderr is a pipe here: progress comes as JSON lines, the last one with every case.
  EXPECT_NE(r.output.find(R"({"event":"progress","cases":40,)"), std::string::npos) << r.output;
  const nlohmann::json summary = nlohmann::json::parse(ReadFileBytes(out + "/summary.json"));
  EXPECT_EQ(summary["cases"], 40);
  EXPECT_EQ(summary["seed"], 7);
  EXPECT_EQ(summary["findings"], 0);
  EXPECT_EQ(summary["budget"]["cases"], 40);
  EXPECT_TRUE(summary["signatures"].empty());
  int64_t per_op = 0;
  for (const auto& [type, count] : summary["cases_per_op"].items()) per_op += count.get<int>();
  EXPECT_GE(per_op, 40) << "every case holds at least one op";
  const std::string junit = ReadFileBytes(out + "/junit.xml");
  EXPECT_NE(junit.find(R"(tests="1" failures="0")"), std::string::npos) << junit;
  EXPECT_NE(junit.find(R"(name="campaign: 40 cases")"), std::string::npos) << junit;

  EXPECT_EQ(Parity("fuzz --seconds 1 --cases 1").exit_code, 2);  // one budget at most
  EXPECT_EQ(Parity("fuzz --cases 1 --ops NoSuchOp").exit_code, 2);
}

TEST(Cli, ReproOfASavedFinding) {
  // A finding file whose case no longer fails (FC against the reference agrees): exit 0.
  std::string path = Tmp() + "/finding.pbtxt";
  WriteFileAtomic(path, R"(oracle: "forward"
case { net { op { type: "Relu" input: "x" output: "y" } external_output: "y" }
       inputs { name: "x" dims: 3 data_type: FLOAT float_data: [-1, 0.5, 2] } })");
  Result r = Parity("repro " + path);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("no longer reproduces"), std::string::npos) << r.output;
}

TEST(Cli, OpsShowsCoverage) {
  Result r = Parity("ops");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.output.find(" 0 with coverage problems"), std::string::npos) << r.output;
}

// The conv family runs oneDNN by default (engine DNNL) and keeps its im2col kernels (IM2COL): the
// table's cpu column names the default engine, a footer lists the others, --json has both.
TEST(Cli, OpsShowsTheConvEngines) {
  Result r = Parity("ops");
  ASSERT_EQ(r.exit_code, 0);
  for (const char* line :
       {"\n  Conv: DNNL (default), IM2COL\n", "\n  ConvRelu: DNNL (default), IM2COL\n",
        "\n  ConvGradient: DNNL (default), IM2COL\n"}) {
    EXPECT_NE(r.output.find(line), std::string::npos) << line << r.output;
  }
  Result j = Parity("ops --json");
  ASSERT_EQ(j.exit_code, 0);
  for (const auto& op : nlohmann::json::parse(j.output)) {
    if (op["type"] != "Conv" && op["type"] != "Relu") continue;
    const bool conv = op["type"] == "Conv";
    EXPECT_EQ(op["default_engine"]["cpu"], conv ? "DNNL" : "") << op["type"];
    if (conv) EXPECT_EQ(op["kernels"]["cpu"], nlohmann::json({"", "DNNL", "IM2COL"}));
  }
}

}  // namespace
}  // namespace parity
