// Corpus integrity as a user meets it: `parity merge` never counts a campaign twice (the same dir
// twice, a dir and its findings/, a second merge of the same shard), a merge that fails leaves its
// target as it was (and creates nothing when there was none), a tampered finding.json is refused,
// and a resume never follows a path read from state.json out of the campaign directory; a symbolic
// link loop under findings/ is an i/o error naming it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "core/io.h"
#include "tests/cli/cli_util.h"

namespace parity::testing {
namespace {

namespace fs = std::filesystem;

constexpr char kBinary[] = "tests/mutants/parity_with_mutants";
// A mutant a few cases in a hundred find: a real corpus in about a second.
constexpr char kCampaign[] =
    "fuzz --engine MUTANT_FC_BIAS_DROPPED --cases 300 --jobs 0 "
    "--reduce-seconds 0";

std::string Tmp(const std::string& name) { return TestTmp() + "/" + name; }

// Runs a campaign into `out` (seed `seed`, shard `shard` of 2) and returns its finding count.
int64_t Campaign(const std::string& out, int seed, int shard) {
  fs::remove_all(out);
  const CliResult r = RunCli(kBinary, std::string(kCampaign) + " --seed " + std::to_string(seed) +
                                          " --shard " + std::to_string(shard) + "/2 --out " + out);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  return nlohmann::json::parse(ReadFileBytes(out + "/summary.json"))["findings"].get<int64_t>();
}

// The findings a merged corpus counts, from its finding.json files.
int64_t Counted(const std::string& out) {
  int64_t total = 0;
  for (const auto& entry : fs::directory_iterator(out + "/findings")) {
    total += nlohmann::json::parse(ReadFileBytes(entry.path().string() + "/finding.json"))["count"]
                 .get<int64_t>();
  }
  return total;
}

TEST(MergeIntegrity, ACampaignIsNeverCountedTwice) {
  const int64_t a = Campaign(Tmp("a"), 5, 0);
  const int64_t b = Campaign(Tmp("b"), 5, 1);
  ASSERT_GT(a, 0);
  ASSERT_GT(b, 0);
  const std::string out = Tmp("merged");
  fs::remove_all(out);
  CliResult r = RunCli(
      kBinary, "merge " + Tmp("a") + " " + Tmp("a") + " " + Tmp("a/findings") + " -o " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(Counted(out), a) << r.output;
  EXPECT_NE(r.output.find("skipped"), std::string::npos) << r.output;
  // The other shard adds its own; merging both again changes nothing.
  r = RunCli(kBinary, "merge " + Tmp("b") + " -o " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(Counted(out), a + b);
  r = RunCli(kBinary, "merge " + Tmp("a") + " " + Tmp("b") + " -o " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(Counted(out), a + b);
  // A merged corpus merged into another counts once too.
  const std::string again = Tmp("merged_again");
  fs::remove_all(again);
  r = RunCli(kBinary, "merge " + out + " " + Tmp("a") + " -o " + again);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(Counted(again), a + b);
}

TEST(MergeIntegrity, AFailedMergeLeavesTheTargetAsItWas) {
  const int64_t a = Campaign(Tmp("fa"), 6, 0);
  const std::string out = Tmp("fmerged");
  fs::remove_all(out);
  ASSERT_EQ(RunCli(kBinary, "merge " + Tmp("fa") + " -o " + out).exit_code, 0);
  const std::string before = ReadFileBytes(out + "/merged.json");
  // The second input is broken: its finding.json says -5 findings.
  Campaign(Tmp("fb"), 6, 1);
  const fs::path entry = fs::directory_iterator(Tmp("fb") + "/findings")->path();
  nlohmann::json j = nlohmann::json::parse(ReadFileBytes(entry.string() + "/finding.json"));
  j["count"] = -5;
  WriteFileAtomic(entry.string() + "/finding.json", j.dump());
  const CliResult r = RunCli(kBinary, "merge " + Tmp("fb") + " -o " + out);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("count -5 is not a number of findings"), std::string::npos) << r.output;
  EXPECT_EQ(Counted(out), a);
  EXPECT_EQ(ReadFileBytes(out + "/merged.json"), before);
  // Into a target that did not exist: nothing is left behind.
  const std::string fresh = Tmp("never");
  fs::remove_all(fresh);
  EXPECT_EQ(RunCli(kBinary, "merge " + Tmp("fa") + " " + Tmp("fb") + " -o " + fresh).exit_code, 2);
  EXPECT_FALSE(fs::exists(fresh));
  for (const auto& e : fs::directory_iterator(TestTmp())) {
    EXPECT_EQ(e.path().filename().string().find(".never.merging"), std::string::npos) << e.path();
  }
}

TEST(MergeIntegrity, AResumeDoesNotFollowPathsReadFromStateJson) {
  const std::string out = Tmp("tampered");
  fs::remove_all(out);
  // A campaign stopped early leaves state.json; its corpus keys become directory names.
  CliResult r = RunCli(kBinary, std::string(kCampaign) + " --seed 7 --out " + out);
  ASSERT_EQ(r.exit_code, 1) << r.output;
  nlohmann::json state = nlohmann::json::parse(ReadFileBytes(out + "/state.json"));
  ASSERT_FALSE(state["corpus"].empty());
  const std::string victim = Tmp("victim");
  { std::ofstream(victim) << "keep me"; }
  nlohmann::json corpus = nlohmann::json::object();
  corpus["../../victim"] = state["corpus"].begin().value();
  state["corpus"] = corpus;
  state["cases"]["cursor"] = 0;  // unfinished, so the same command resumes
  state["cases"]["done_above"] = nlohmann::json::array();
  state["tally"]["cases"] = 0;  // as many cases as the cursor says are done
  WriteFileAtomic(out + "/state.json", state.dump());
  r = RunCli(kBinary, std::string(kCampaign) + " --seed 7 --out " + out);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("is not the directory name of its signature"), std::string::npos)
      << r.output;
  EXPECT_EQ(ReadFileBytes(victim), "keep me");
}

// A symbolic link loop under findings/ (a copied corpus, a link made by hand) is an i/o error
// naming the path in every command that reads a corpus, never exit 3 or a hang.
TEST(MergeIntegrity, ASymlinkLoopUnderFindingsIsAnIoErrorNamingIt) {
  const std::string out = Tmp("looped");
  Campaign(out, 3, 0);
  fs::create_symlink("loop", out + "/findings/loop");
  const std::string merged = Tmp("looped_merged");
  fs::remove_all(merged);
  for (const std::string& command :
       {"merge " + out + " -o " + merged, "report " + out, "repro " + out,
        std::string(kCampaign) + " --seed 3 --shard 0/2 --out " + out}) {
    const CliResult r = RunCli(kBinary, command);
    EXPECT_EQ(r.exit_code, 2) << command << "\n" << r.output;
    EXPECT_NE(r.output.find("Too many levels of symbolic links"), std::string::npos)
        << command << "\n"
        << r.output;
    EXPECT_NE(r.output.find(out + "/findings/loop"), std::string::npos) << command << "\n"
                                                                        << r.output;
  }
  EXPECT_FALSE(fs::exists(merged));
}

}  // namespace
}  // namespace parity::testing
