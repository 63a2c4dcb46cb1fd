// `parity mutants` as a user runs it (through parity_with_mutants): kills are reported with the
// killing oracle and blamed op, a mutant the budget does not reach is a survivor (exit 1), an
// unknown name is bad input (exit 2), and every kernel mutant is a backend of the other commands.
#include <gtest/gtest.h>

#include "tests/cli/cli_util.h"

namespace parity::testing {
namespace {

constexpr char kBinary[] = "tests/mutants/parity_with_mutants";

TEST(MutantsCommand, KillsOneMutantOfEachKindWithTheDefaultCampaign) {
  const CliResult run =
      RunCli(kBinary,
             "mutants --seconds 60 --only FC_BIAS_DROPPED SPATIALBN_MAKER_MEAN_VAR_SWAPPED "
             "CAST_INFERS_INPUT_DTYPE SUM_SCHEMA_AT_MOST_TWO_INPUTS");
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_TRUE(Contains(run.output, "kill rate: 4 / 4")) << run.output;
  EXPECT_TRUE(Contains(run.output, "forward / FC")) << run.output;
  EXPECT_TRUE(Contains(run.output, "shape / Cast")) << run.output;
  // The schema mutant is caught by whichever oracle first runs a Sum of 3 inputs: the validity
  // oracle (a forward Sum) or the gradient oracle (an accumulating Sum in a backward net).
  EXPECT_TRUE(Contains(run.output, "validity / Sum") || Contains(run.output, "gradient / Sum"))
      << run.output;
  EXPECT_FALSE(Contains(run.output, "SURVIVED")) << run.output;
}

TEST(MutantsCommand, AMutantNotReachedWithinTheBudgetSurvives) {
  const CliResult run = RunCli(kBinary, "mutants --seconds 0 --only FC_BIAS_DROPPED");
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_TRUE(Contains(run.output, "SURVIVED")) << run.output;
  EXPECT_TRUE(Contains(run.output, "kill rate: 0 / 1")) << run.output;
}

TEST(MutantsCommand, AnUnknownMutantIsBadInput) {
  const CliResult run = RunCli(kBinary, "mutants --only NO_SUCH_MUTANT");
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_TRUE(Contains(run.output, "no mutant named 'NO_SUCH_MUTANT'")) << run.output;
}

TEST(MutantsCommand, ListsTheCatalogue) {
  const CliResult run = RunCli(kBinary, "mutants --list --family maker");
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_TRUE(Contains(run.output, "SOFTMAX_MAKER_READS_X")) << run.output;
  EXPECT_FALSE(Contains(run.output, "FC_BIAS_DROPPED")) << run.output;
}

TEST(MutantsCommand, AKernelMutantIsABackendOfFuzz) {
  const CliResult run =
      RunCli(kBinary, "fuzz --engine MUTANT_FC_BIAS_DROPPED --ops FC --no-nets --cases 20");
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_TRUE(Contains(run.output, "value mismatch")) << run.output;
}

}  // namespace
}  // namespace parity::testing
