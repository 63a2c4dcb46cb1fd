// The limits a user sets in the environment: a malformed one is named at once (exit 2) by both
// halves, and a well-formed one binds the reference as it binds production.
#include <string>

#include "tests/cli/cli_util.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

// A While that would loop forever: its condition blob is a constant true, the body a Relu.
constexpr char kEndlessWhile[] = R"(
name: "endless"
op { type: "ConstantFill" output: "c" arg { name: "shape" ints: 1 } arg { name: "dtype" i: 5 }
     arg { name: "value" f: 1 } }
op { type: "ConstantFill" output: "x" arg { name: "shape" ints: 2 } arg { name: "value" f: 1 } }
op { type: "While" input: "c" input: "x" output: "x"
     arg { name: "loop_net" n { name: "body" op { type: "Relu" input: "x" output: "x" } } } }
external_output: "x"
)";

TEST(EnvLimits, MalformedValuesAreNamedByBothHalves) {
  const std::string net = WriteTestFile("endless.pbtxt", kEndlessWhile);
  for (const char* engine : {"production", "reference"}) {
    for (const char* env :
         {"PARITY_MAX_ALLOC_BYTES=abc ", "PARITY_MAX_ALLOC_BYTES=-5 ", "PARITY_MAX_ALLOC_BYTES=0 ",
          "PARITY_MAX_ALLOC_BYTES=12x ", "PARITY_MAX_LOOP_ITERATIONS=-1 ",
          "PARITY_MAX_LOOP_ITERATIONS=ten ", "PARITY_MAX_LOOP_ITERATIONS=99999999999999999999 "}) {
      const CliResult result = RunCli("tools/parity", env, "run " + net + " --engine " + engine);
      const std::string variable = std::string(env).substr(0, std::string(env).find('='));
      EXPECT_EQ(result.exit_code, 2) << env << engine << "\n" << result.output;
      EXPECT_NE(result.output.find(variable + " must be"), std::string::npos)
          << env << engine << "\n"
          << result.output;
    }
  }
}

TEST(EnvLimits, TheLoopCapBindsTheReferenceToo) {
  const std::string net = WriteTestFile("endless.pbtxt", kEndlessWhile);
  for (const char* engine : {"production", "reference"}) {
    const CliResult result = RunCli("tools/parity", "PARITY_MAX_LOOP_ITERATIONS=7 ",
                                    "run " + net + " --engine " + std::string(engine));
    EXPECT_EQ(result.exit_code, 2) << engine << "\n" << result.output;
    EXPECT_NE(result.output.find("7"), std::string::npos) << engine << "\n" << result.output;
    EXPECT_NE(result.output.find("resource limit"), std::string::npos) << engine << "\n"
                                                                       << result.output;
  }
}

TEST(EnvLimits, TheAllocationCapBindsTheReferenceToo) {
  const std::string net = WriteTestFile("fill.pbtxt", R"(
name: "fill"
op { type: "ConstantFill" output: "y" arg { name: "shape" ints: 1000 } arg { name: "value" f: 1 } }
external_output: "y"
)");
  for (const char* engine : {"production", "reference"}) {
    const CliResult capped = RunCli("tools/parity", "PARITY_MAX_ALLOC_BYTES=1000 ",
                                    "run " + net + " --engine " + std::string(engine));
    EXPECT_EQ(capped.exit_code, 2) << engine << "\n" << capped.output;
    EXPECT_NE(capped.output.find("cap of 1000 bytes"), std::string::npos) << engine << "\n"
                                                                          << capped.output;
    const CliResult roomy = RunCli("tools/parity", "PARITY_MAX_ALLOC_BYTES=100000 ",
                                   "run " + net + " --engine " + std::string(engine));
    EXPECT_EQ(roomy.exit_code, 0) << engine << "\n" << roomy.output;
  }
}

}  // namespace
}  // namespace parity::testing
