// Resuming a campaign (fuzz/campaign_state.h), as a user does it: `parity fuzz` killed with
// SIGKILL mid-campaign, then the same command again, ends with exactly the summary and corpus of
// an uninterrupted run (no case or finding lost or counted twice). Other options on the same
// directory are refused, --fresh starts over, and a finished campaign run again does nothing.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "core/io.h"
#include "tests/cli/cli_util.h"

namespace parity::testing {
namespace {

namespace fs = std::filesystem;

constexpr char kBinary[] = "tests/mutants/parity_with_mutants";
// A mutant that about one case in thirty finds (an FC without its bias, in single ops and nets):
// findings keep arriving all through the campaign.
constexpr char kCampaign[] = "fuzz --engine MUTANT_FC_BIAS_DROPPED --cases 2500 --seed 3 --jobs 2";

std::string BinaryPath() { return std::string(std::getenv("TEST_SRCDIR")) + "/parity/" + kBinary; }

nlohmann::json ReadJson(const std::string& path) {
  return nlohmann::json::parse(ReadFileBytes(path));
}

// Starts the campaign into `out` and SIGKILLs it once its state.json says at least `cases` cases
// are done; returns how many were.
int64_t KillMidCampaign(const std::string& out, int64_t cases) {
  const pid_t pid = fork();
  if (pid == 0) {
    const std::string command = "exec " + BinaryPath() + " " + kCampaign + " --out " + out + " > " +
                                out + ".killed.log 2>&1";
    execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int64_t done = 0;
  for (int i = 0; i < 6000; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (waitpid(pid, nullptr, WNOHANG) == pid) return -1;  // it finished first
    try {
      done = ReadJson(out + "/state.json")["tally"]["cases"].get<int64_t>();
    } catch (const std::exception&) {
      continue;  // not written yet
    }
    if (done >= cases) break;
  }
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  return done;
}

// What must match between two runs of one campaign: the summary without times and paths, and
// each signature's finding.json without times and paths.
nlohmann::json Comparable(const std::string& out) {
  nlohmann::json summary = ReadJson(out + "/summary.json");
  for (const char* field : {"seconds", "cases_per_second", "interrupted"}) summary.erase(field);
  for (auto& signature : summary["signatures"]) {
    signature.erase("saved");
    if (signature.contains("reduced")) signature["reduced"].erase("seconds");
  }
  nlohmann::json corpus = nlohmann::json::object();
  for (const auto& dir : fs::directory_iterator(out + "/findings")) {
    nlohmann::json finding = ReadJson(dir.path().string() + "/finding.json");
    finding.erase("repro");
    for (const char* sighting : {"first", "last", "smallest"}) finding[sighting].erase("time");
    corpus[dir.path().filename().string()] = finding;
  }
  return {{"summary", summary}, {"corpus", corpus}};
}

TEST(Resume, AKilledCampaignResumedEqualsAnUninterruptedOne) {
  const std::string whole = TestTmp() + "/whole";
  const CliResult uninterrupted = RunCli(kBinary, std::string(kCampaign) + " --out " + whole);
  ASSERT_EQ(uninterrupted.exit_code, 1) << uninterrupted.output;
  const nlohmann::json expected = Comparable(whole);
  ASSERT_GE(expected["summary"]["findings"].get<int>(), 20) << expected.dump(1);

  const std::string resumed = TestTmp() + "/resumed";
  const int64_t done_at_kill = KillMidCampaign(resumed, 300);
  ASSERT_GT(done_at_kill, 0) << "the campaign was killed mid-way";
  ASSERT_FALSE(fs::exists(resumed + "/summary.json")) << "it did not get to write its summary";
  const CliResult rerun = RunCli(kBinary, std::string(kCampaign) + " --out " + resumed);
  ASSERT_EQ(rerun.exit_code, 1) << rerun.output;
  EXPECT_TRUE(Contains(rerun.output, "resumed from " + resumed + "/state.json")) << rerun.output;
  EXPECT_EQ(Comparable(resumed), expected);

  // Run again once finished, the campaign does nothing more and reports the same.
  const CliResult again = RunCli(kBinary, std::string(kCampaign) + " --out " + resumed);
  EXPECT_EQ(again.exit_code, 1) << again.output;
  EXPECT_TRUE(Contains(again.output, "2500 case(s) were done before this run")) << again.output;
  EXPECT_EQ(Comparable(resumed), expected);
}

// The corpus can be ahead of state.json: a kill between a finding's files and the state written
// after them. Here the corpus is a whole campaign's and state.json the one of a campaign killed
// early: the resume counts each finding once, from the state, and re-runs the rest.
TEST(Resume, ACorpusAheadOfItsStateCountsEachFindingOnce) {
  const std::string whole = TestTmp() + "/ahead_whole";
  ASSERT_EQ(RunCli(kBinary, std::string(kCampaign) + " --out " + whole).exit_code, 1);
  const nlohmann::json expected = Comparable(whole);

  const std::string out = TestTmp() + "/ahead";
  ASSERT_GT(KillMidCampaign(out, 300), 0);
  const std::string early_state = ReadFileBytes(out + "/state.json");
  ASSERT_EQ(RunCli(kBinary, std::string(kCampaign) + " --out " + out).exit_code, 1);
  WriteFileAtomic(out + "/state.json", early_state);
  fs::remove(out + "/summary.json");
  const CliResult rerun = RunCli(kBinary, std::string(kCampaign) + " --out " + out);
  ASSERT_EQ(rerun.exit_code, 1) << rerun.output;
  EXPECT_EQ(Comparable(out), expected);
}

TEST(Resume, OtherOptionsOnTheSameDirectoryAreRefusedAndFreshStartsOver) {
  const std::string out = TestTmp() + "/options";
  const std::string base = "fuzz --engine MUTANT_FC_BIAS_DROPPED --ops FC --cases 30";
  ASSERT_EQ(RunCli(kBinary, base + " --seed 1 --jobs 0 --out " + out).exit_code, 1);
  const nlohmann::json first = ReadJson(out + "/summary.json");

  const CliResult other = RunCli(kBinary, base + " --seed 2 --jobs 0 --out " + out);
  EXPECT_EQ(other.exit_code, 2) << other.output;
  EXPECT_TRUE(Contains(other.output, out + "/state.json holds a campaign with other options"))
      << other.output;
  EXPECT_TRUE(Contains(other.output, "--seed: 1 there, 2 here")) << other.output;
  EXPECT_TRUE(Contains(other.output, "--fresh")) << other.output;
  EXPECT_EQ(ReadJson(out + "/summary.json"), first) << "a refused campaign changes nothing";

  // Another job count is the same campaign: it resumes (here: it was done).
  const CliResult jobs = RunCli(kBinary, base + " --seed 1 --jobs 2 --out " + out);
  EXPECT_EQ(jobs.exit_code, 1) << jobs.output;
  EXPECT_TRUE(Contains(jobs.output, "30 case(s) were done before this run")) << jobs.output;

  const CliResult fresh = RunCli(kBinary, base + " --seed 2 --jobs 0 --fresh --out " + out);
  EXPECT_EQ(fresh.exit_code, 1) << fresh.output;
  EXPECT_FALSE(Contains(fresh.output, "resumed")) << fresh.output;
  const nlohmann::json second = ReadJson(out + "/summary.json");
  EXPECT_EQ(second["seed"], 2);
  EXPECT_EQ(second["cases"], 30);
  int counted = 0;
  for (const auto& signature : second["signatures"]) counted += signature["count"].get<int>();
  EXPECT_EQ(second["findings"], counted) << "the first campaign's findings are gone";
  EXPECT_EQ(ReadJson(out + "/state.json")["options"]["seed"], 2);
}

TEST(Resume, AStateFileThatIsNotJsonIsBadInput) {
  const std::string out = TestTmp() + "/broken";
  fs::create_directories(out);
  WriteFileAtomic(out + "/state.json", "{\"options\": ");
  const CliResult run = RunCli(kBinary, "fuzz --ops FC --cases 3 --jobs 0 --out " + out);
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_TRUE(Contains(run.output, out + "/state.json")) << run.output;
  EXPECT_TRUE(Contains(run.output, "--fresh")) << run.output;
}

}  // namespace
}  // namespace parity::testing
