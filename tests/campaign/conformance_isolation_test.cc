// `parity onnx conformance` runs each case in a worker (hardening 2): a model that crashes or
// hangs an engine fails that case, named with the signal or the timeout and the op, and the suite
// goes on to its other cases, as a user sees it through the CLI. The engines are the test-only
// ones of faulty_engines.cc (Relu segfaults or loops forever when its first input element is
// negative); the suite is two of ONNX's own cases, test_abs as it is and test_relu with its first
// input element made negative.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>

#include "core/io.h"
#include "tests/cli/cli_util.h"

namespace parity {
namespace {

namespace fs = std::filesystem;
using ::parity::testing::RunCli;
using ::parity::testing::TestTmp;

constexpr char kBinary[] = "tests/campaign/parity_with_faulty_engines";
constexpr char kNodeSuite[] = "/usr/share/libonnx-testdata/data/node";

bool SuitesInstalled() {
  struct stat st;
  return stat((std::string(kNodeSuite) + "/test_relu").c_str(), &st) == 0;
}

// test_abs and test_relu_negative under a fresh directory.
std::string TwoCaseSuite(const std::string& name) {
  const std::string dir = TestTmp() + "/" + name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::copy(std::string(kNodeSuite) + "/test_abs", dir + "/test_abs", fs::copy_options::recursive);
  fs::copy(std::string(kNodeSuite) + "/test_relu", dir + "/test_relu_negative",
           fs::copy_options::recursive);
  // The input is a float TensorProto in raw_data, little-endian: the first element's sign bit is
  // the top bit of the raw bytes' fourth byte. Found by its known first value (1.764..., numpy's
  // randn with seed 0), so a changed test file fails here, not silently.
  const std::string input = dir + "/test_relu_negative/test_data_set_0/input_0.pb";
  std::string bytes = ReadFileBytes(input);
  const std::string first("x\xcc\xe1?", 4);
  const size_t at = bytes.find(first);
  EXPECT_NE(at, std::string::npos) << "test_relu's input does not start with 1.764";
  if (at != std::string::npos) bytes[at + 3] = static_cast<char>(bytes[at + 3] | 0x80);
  WriteFileAtomic(input, bytes);
  return dir;
}

TEST(ConformanceIsolation, ACaseThatCrashesFailsAloneWithItsSignalAndOp) {
  if (!SuitesInstalled()) GTEST_SKIP() << "libonnx-testdata is not installed at " << kNodeSuite;
  const std::string suite = TwoCaseSuite("segfault");
  const auto result = RunCli(kBinary, "onnx conformance " + suite + " --engine test-segfault");
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find("failed      test_relu_negative  the case crashed parity (SIGSEGV) "
                               "in op #0 (Relu)"),
            std::string::npos)
      << result.output;
  EXPECT_NE(result.output.find("passed      test_abs"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("2 cases: 1 passed, 1 failed, 0 unsupported"), std::string::npos)
      << result.output;
}

TEST(ConformanceIsolation, ACaseThatHangsFailsAloneAfterItsTimeout) {
  if (!SuitesInstalled()) GTEST_SKIP() << "libonnx-testdata is not installed at " << kNodeSuite;
  const std::string suite = TwoCaseSuite("hang");
  const auto result =
      RunCli(kBinary, "onnx conformance " + suite + " --engine test-hang --case-timeout 1");
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(
      result.output.find("failed      test_relu_negative  the case hung: no answer within 1 s "
                         "(--case-timeout) in op #0 (Relu)"),
      std::string::npos)
      << result.output;
  EXPECT_NE(result.output.find("2 cases: 1 passed, 1 failed, 0 unsupported"), std::string::npos)
      << result.output;
}

TEST(ConformanceIsolation, InProcessGivesTheSameVerdictsOnAnEngineThatDoesNotCrash) {
  if (!SuitesInstalled()) GTEST_SKIP() << "libonnx-testdata is not installed at " << kNodeSuite;
  const std::string suite = TwoCaseSuite("production");
  for (const char* mode : {"", " --in-process"}) {
    const auto result =
        RunCli(kBinary, "onnx conformance " + suite + " --engine production" + mode);
    EXPECT_EQ(result.exit_code, 1) << mode << "\n" << result.output;
    // The sign flipped, production's Relu gives 0 where the file expects 1.764.
    EXPECT_NE(result.output.find("failed      test_relu_negative  output 'y': 1 of 60 elements "
                                 "differ"),
              std::string::npos)
        << mode << "\n"
        << result.output;
    EXPECT_NE(result.output.find("passed      test_abs"), std::string::npos) << result.output;
  }
}

}  // namespace
}  // namespace parity
