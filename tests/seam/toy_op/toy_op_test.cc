// An op registered in three files of test code (production, reference, spec) is listed by
// `parity ops` with every column filled, fuzzed by the default campaign (it shows up in the
// campaign's per-op tally) through every oracle without a finding, and checked alone.
#include <gtest/gtest.h>

#include <regex>

#include "tests/cli/cli_util.h"

namespace parity::testing {
namespace {

constexpr char kBinary[] = "tests/seam/toy_op/parity_with_toy_op";

TEST(ToyOp, ListedByOpsWithKernelReferenceSpecAndGradient) {
  const CliResult ops = RunCli(kBinary, "ops");
  ASSERT_EQ(ops.exit_code, 0) << ops.output;
  std::smatch row;
  ASSERT_TRUE(std::regex_search(ops.output, row, std::regex("\nToyScaleShift +1 +1 +([^\n]*)")))
      << ops.output;
  // cpu yes, reference yes, spec yes, gradient by maker, argument scale.
  EXPECT_TRUE(std::regex_search(row[1].str(), std::regex("^yes +- +yes +yes +maker +scale")))
      << row[0];
}

TEST(ToyOp, FuzzedByTheDefaultCampaignWithoutFindings) {
  const CliResult fuzz =
      RunCli(kBinary, "fuzz --cases 600 --seed 7 --out " + TestTmp() + "/campaign");
  EXPECT_EQ(fuzz.exit_code, 0) << fuzz.output;
  std::smatch count;
  ASSERT_TRUE(std::regex_search(fuzz.output, count, std::regex("ToyScaleShift ([0-9]+)")))
      << "the default campaign never drew the toy op:\n"
      << fuzz.output;
  EXPECT_GT(std::stoi(count[1]), 0);
  EXPECT_TRUE(Contains(fuzz.output, "findings: 0")) << fuzz.output;
}

TEST(ToyOp, EveryOracleChecksItAlone) {
  const CliResult fuzz = RunCli(
      kBinary, "fuzz --ops ToyScaleShift --no-nets --cases 40 --out " + TestTmp() + "/alone");
  EXPECT_EQ(fuzz.exit_code, 0) << fuzz.output;
  for (const char* oracle : {"validity: checked 40", "forward: checked 40", "gradient: checked 40",
                             "shape: checked 40"}) {
    EXPECT_TRUE(Contains(fuzz.output, oracle)) << oracle << "\n" << fuzz.output;
  }
}

}  // namespace
}  // namespace parity::testing
