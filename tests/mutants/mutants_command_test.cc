// `parity mutants` as a user runs it (through parity_with_mutants): kills are reported with the
// killing oracle and blamed op, a mutant the budget does not reach is a survivor (exit 1), an
// unknown name is bad input (exit 2), and every kernel mutant is a backend of the other commands.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "core/io.h"
#include "core/proto/parity.pb.h"
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

// A GPU kernel mutant is hunted by the device oracle where a CUDA device is; elsewhere it is
// skipped and counted apart, neither killed nor a survivor.
TEST(MutantsCommand, AGpuMutantIsSkippedWithoutADevice) {
  const CliResult run = RunCli(kBinary, "mutants --seconds 30 --only CUDA_RELU_LEAKS");
  EXPECT_FALSE(Contains(run.output, "SURVIVED")) << run.output;
  EXPECT_EQ(run.exit_code, 0) << run.output;
  if (Contains(run.output, "skipped: no CUDA device")) {
    EXPECT_TRUE(Contains(run.output, "kill rate: 0 / 0;")) << run.output;
    EXPECT_TRUE(Contains(run.output, "; 1 skipped: no CUDA device")) << run.output;
  } else {
    EXPECT_TRUE(Contains(run.output, "device / Relu")) << run.output;
    EXPECT_TRUE(Contains(run.output, "kill rate: 1 / 1")) << run.output;
  }
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

// The campaign against a kernel mutant: exit 1, a JSON line per finding on the pipe, and the
// reports CI systems read: summary.json with the signature, its count and first finding's file,
// junit.xml with one failing test case for it.
TEST(MutantsCommand, AKernelMutantIsABackendOfFuzz) {
  const std::string out = TestTmp() + "/mutant_campaign";
  const CliResult run = RunCli(
      kBinary, "fuzz --engine MUTANT_FC_BIAS_DROPPED --ops FC --no-nets --cases 20 --out " + out);
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_TRUE(Contains(run.output, "value mismatch")) << run.output;
  EXPECT_TRUE(
      Contains(run.output, R"({"event":"finding","signature":"forward/FC/value mismatch/FLOAT")"))
      << run.output;

  const nlohmann::json summary = nlohmann::json::parse(ReadFileBytes(out + "/summary.json"));
  EXPECT_EQ(summary["backend"], "MUTANT_FC_BIAS_DROPPED");
  EXPECT_EQ(summary["cases"], 20);
  ASSERT_EQ(summary["signatures"].size(), 1u) << summary.dump(2);
  const nlohmann::json& signature = summary["signatures"][0];
  EXPECT_EQ(signature["signature"], "forward/FC/value mismatch/FLOAT");
  EXPECT_EQ(signature["blamed_op"], "FC");
  EXPECT_EQ(signature["count"], summary["findings"]);
  const std::string saved = signature["saved"];
  EXPECT_EQ(RunCli(kBinary, "repro " + saved).exit_code, 1) << "the saved finding reproduces";
  // The new signature was reduced, to one FC, and the reduced case reproduces too.
  EXPECT_EQ(signature["reduced"]["reproduced"], true) << signature.dump(1);
  EXPECT_EQ(signature["reduced"]["ops_after"], 1) << signature.dump(1);
  const std::string reduced = std::filesystem::path(saved).parent_path().string() + "/reduced.pb";
  const CliResult replay_reduced = RunCli(kBinary, "repro " + reduced);
  EXPECT_EQ(replay_reduced.exit_code, 1) << replay_reduced.output;
  EXPECT_TRUE(Contains(replay_reduced.output, "value mismatch")) << replay_reduced.output;

  const std::string junit = ReadFileBytes(out + "/junit.xml");
  EXPECT_TRUE(Contains(junit, R"(tests="2" failures="1")")) << junit;
  EXPECT_TRUE(Contains(
      junit,
      R"(<testcase classname="parity.fuzz.forward" name="forward/FC/value mismatch/FLOAT">)"))
      << junit;
  EXPECT_TRUE(Contains(junit, "repro: parity repro " + saved)) << junit;

  // The whole corpus re-checked, one finding per signature: every one still reproduces on the
  // mutant, none on production.
  const int findings = static_cast<int>(summary["signatures"].size());
  const CliResult recheck = RunCli(kBinary, "repro " + out);
  EXPECT_EQ(recheck.exit_code, 1) << recheck.output;
  EXPECT_TRUE(Contains(recheck.output, std::to_string(findings) + " finding(s): " +
                                           std::to_string(findings) + " still reproduce, 0 fixed"))
      << recheck.output;
  const CliResult fixed = RunCli(kBinary, "repro " + out + " --engine production");
  EXPECT_EQ(fixed.exit_code, 0) << fixed.output;
  EXPECT_TRUE(Contains(fixed.output, "0 still reproduce, " + std::to_string(findings) + " fixed"))
      << fixed.output;
}

// A mutant found first in a whole net (FC without its bias, on nets of every op) is reduced by
// `parity reduce` to at most three ops with the same signature, which still reproduce. The seed is
// one whose first FC finding is a net (seed 18: 10 ops); the draws move when specs change, so the
// first assertion says when to pick another.
TEST(MutantsCommand, ReduceShrinksAFindingInANetAndItStillReproduces) {
  const std::string out = TestTmp() + "/reduce_campaign";
  const CliResult run = RunCli(kBinary,
                               "fuzz --engine MUTANT_FC_BIAS_DROPPED --cases 60 --seed 18 "
                               "--reduce-seconds 0 --out " +
                                   out);
  ASSERT_EQ(run.exit_code, 1) << run.output;
  const nlohmann::json summary = nlohmann::json::parse(ReadFileBytes(out + "/summary.json"));
  std::string net_finding;
  for (const auto& signature : summary["signatures"]) {
    EXPECT_FALSE(signature.contains("reduced")) << "--reduce-seconds 0 does not reduce";
    const std::string dir =
        std::filesystem::path(signature["saved"].get<std::string>()).parent_path().string();
    if (signature["oracle"] == "forward") net_finding = dir + "/case.pb";
  }
  ASSERT_FALSE(net_finding.empty()) << summary.dump(1);
  Finding before;
  LoadProtoFile(net_finding, &before);
  ASSERT_GT(before.case_().net().op_size(), 3) << "the first finding is in a whole net";
  const std::string reduced = TestTmp() + "/reduced.pb";
  const CliResult reduce = RunCli(kBinary, "reduce " + net_finding + " -o " + reduced);
  ASSERT_EQ(reduce.exit_code, 0) << reduce.output;
  EXPECT_TRUE(Contains(reduce.output, "reduced forward/FC/value mismatch/FLOAT: "))
      << reduce.output;
  Finding after;
  LoadProtoFile(reduced, &after);
  EXPECT_LE(after.case_().net().op_size(), 3) << after.case_().net().DebugString();
  EXPECT_EQ(after.signature().SerializeAsString(), before.signature().SerializeAsString());
  EXPECT_TRUE(std::filesystem::exists(TestTmp() + "/reduced.pbtxt"));
  const CliResult replay = RunCli(kBinary, "repro " + reduced);
  EXPECT_EQ(replay.exit_code, 1) << replay.output;
}

std::set<std::string> FilesIn(const std::string& dir) {
  std::set<std::string> names;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    names.insert(std::filesystem::relative(entry.path(), dir).string());
  }
  return names;
}

// finding.json without what differs between two runs of the same cases: the times, and paths.
nlohmann::json Comparable(const std::string& file) {
  nlohmann::json j = nlohmann::json::parse(ReadFileBytes(file));
  for (const char* sighting : {"first", "last", "smallest"}) j[sighting].erase("time");
  j.erase("repro");
  return j;
}

// A saved finding without its repro command (which names the file's own path).
std::string ComparableFinding(const std::string& file) {
  Finding finding;
  LoadProtoFile(file, &finding);
  finding.clear_repro_command();
  return finding.SerializeAsString();
}

// A reduction stops where no edit helps any more, long before its time box, also for a gradient
// finding at a Relu kink: the gradient oracle steps the inputs off the kink, and rounding the
// values stepped them back, a cycle the reducer once "kept" 12,876 times until its 15-s box
// ended it (then every such reduction cost its whole box, and two runs of it stopped at different
// points).
TEST(MutantsCommand, AReductionEndsAtItsFixpointNotAtItsTimeBox) {
  const std::string out = TestTmp() + "/fixpoint_campaign";
  const CliResult run = RunCli(kBinary,
                               "fuzz --engine MUTANT_FC_BIAS_DROPPED --ops FC,Relu --cases 60 "
                               "--seed 5 --reduce-seconds 0 --out " +
                                   out);
  ASSERT_EQ(run.exit_code, 1) << run.output;
  const nlohmann::json summary = nlohmann::json::parse(ReadFileBytes(out + "/summary.json"));
  std::string gradient_finding;
  for (const auto& signature : summary["signatures"]) {
    const std::string dir =
        std::filesystem::path(signature["saved"].get<std::string>()).parent_path().string();
    if (signature["oracle"] == "gradient") gradient_finding = dir + "/case.pb";
  }
  ASSERT_FALSE(gradient_finding.empty()) << summary.dump(1);
  const CliResult reduce =
      RunCli(kBinary, "reduce " + gradient_finding + " --seconds 120 -o " + TestTmp() + "/fp.pb");
  ASSERT_EQ(reduce.exit_code, 0) << reduce.output;
  EXPECT_TRUE(Contains(reduce.output, "reduced gradient/FC/gradient mismatch/FLOAT: "))
      << reduce.output;
  EXPECT_FALSE(Contains(reduce.output, "time box reached")) << reduce.output;
}

// Two shards of one seed run exactly the cases of the unsharded campaign, and `parity merge` of
// their corpora is the unsharded campaign's corpus: the same signature directories, counts, first,
// last and smallest cases. Under Bazel's sharding protocol (TEST_TOTAL_SHARDS, TEST_SHARD_INDEX)
// the campaign takes its slice and touches TEST_SHARD_STATUS_FILE.
TEST(MutantsCommand, ShardsOfACampaignRunExactlyItsCases) {
  // The reductions (reduced.pb) are compared too: a generous time box, so that each one ends
  // where its search ends (in well under a second), not where a loaded machine's clock stops it.
  const std::string args =
      "fuzz --engine MUTANT_FC_BIAS_DROPPED --ops FC,Relu --cases 60 --seed 5 "
      "--reduce-seconds 100 --out " +
      TestTmp();
  const CliResult whole = RunCli(kBinary, args + "/whole");
  const CliResult first = RunCli(kBinary, args + "/shard0 --shard 0/2");
  const std::string status_file = TestTmp() + "/shard_status";
  const CliResult second = RunCli(
      kBinary, "TEST_TOTAL_SHARDS=2 TEST_SHARD_INDEX=1 TEST_SHARD_STATUS_FILE=" + status_file + " ",
      args + "/shard1");
  EXPECT_EQ(whole.exit_code, 1) << whole.output;
  EXPECT_TRUE(Contains(first.output, "cases: 30 ")) << first.output;
  EXPECT_TRUE(Contains(second.output, "cases: 30 ")) << second.output;
  EXPECT_TRUE(std::filesystem::exists(status_file));
  const nlohmann::json summary =
      nlohmann::json::parse(ReadFileBytes(TestTmp() + "/shard1/summary.json"));
  EXPECT_EQ(summary["shard"]["index"], 1);
  EXPECT_EQ(summary["shard"]["count"], 2);

  const std::string merged = TestTmp() + "/merged";
  const CliResult merge = RunCli(
      kBinary, "merge " + TestTmp() + "/shard0 " + TestTmp() + "/shard1/findings -o " + merged);
  ASSERT_EQ(merge.exit_code, 0) << merge.output;
  const std::string whole_findings = TestTmp() + "/whole/findings";
  const std::set<std::string> files = FilesIn(whole_findings);
  ASSERT_EQ(FilesIn(merged + "/findings"), files);
  int signatures = 0;
  for (const std::string& file : files) {
    const std::string ours = merged + "/findings/" + file;
    const std::string theirs = whole_findings + "/" + file;
    if (file.size() > 13 && file.substr(file.size() - 13) == "/finding.json") {
      ++signatures;
      EXPECT_EQ(Comparable(ours), Comparable(theirs)) << file;
    } else if (file.size() > 3 && file.substr(file.size() - 3) == ".pb") {
      EXPECT_EQ(ComparableFinding(ours), ComparableFinding(theirs)) << file;
    }
  }
  EXPECT_GE(signatures, 1);
  EXPECT_TRUE(Contains(merge.output, "merged 2 corpora")) << merge.output;
}

}  // namespace
}  // namespace parity::testing
