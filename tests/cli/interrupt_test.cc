// SIGINT or SIGTERM during a campaign stops it within a second, with the summary of the cases run
// so far (issue 11): nothing already found is lost and no one has to kill -9 it.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <thread>

#include "tests/cli/cli_util.h"

namespace parity {
namespace {

struct Stopped {
  int exit_code = -1;
  double seconds_after_signal = 0;
  std::string output;
};

// Starts `parity fuzz --seconds 120 --out DIR` (or, with `defaults`, a bare `parity fuzz` in
// DIR), sends `signal` after `delay` (or, with `after_a_case`, once its progress counts a case:
// on a GPU machine the workers make their CUDA contexts first, for seconds), and waits for it to
// end.
Stopped InterruptCampaign(int signal, std::chrono::milliseconds delay, bool defaults = false,
                          bool after_a_case = false) {
  const std::string binary = std::string(std::getenv("TEST_SRCDIR")) + "/parity/tools/parity";
  const std::string out = testing::TestTmp() + "/interrupted";
  ::mkdir(out.c_str(), 0755);
  int pipe_fds[2];
  EXPECT_EQ(::pipe(pipe_fds), 0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(pipe_fds[1], 1);
    ::dup2(pipe_fds[1], 2);
    ::close(pipe_fds[0]);
    // As a user runs it, not as Bazel runs a test (which would shard the campaign and send the
    // corpus to Bazel's undeclared outputs).
    for (const char* name : {"TEST_TOTAL_SHARDS", "TEST_SHARD_INDEX", "TEST_SHARD_STATUS_FILE",
                             "TEST_UNDECLARED_OUTPUTS_DIR"}) {
      ::unsetenv(name);
    }
    if (defaults) {
      if (::chdir(out.c_str()) != 0) ::_exit(126);
      ::execl(binary.c_str(), binary.c_str(), "fuzz", static_cast<char*>(nullptr));
    } else {
      ::execl(binary.c_str(), binary.c_str(), "fuzz", "--seconds", "120", "--out", out.c_str(),
              static_cast<char*>(nullptr));
    }
    ::_exit(127);
  }
  ::close(pipe_fds[1]);
  Stopped result;
  char buffer[4096];
  ssize_t n;
  std::this_thread::sleep_for(delay);
  // Progress lines are JSON on a pipe, once a second: {"event":"progress","cases":N,...}.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (after_a_case && !std::regex_search(result.output, std::regex("\"cases\":[1-9]")) &&
         std::chrono::steady_clock::now() < give_up &&
         (n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0) {
    result.output.append(buffer, n);
  }
  ::kill(pid, signal);
  const auto sent = std::chrono::steady_clock::now();
  while ((n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0) result.output.append(buffer, n);
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  result.seconds_after_signal =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count();
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

TEST(Interrupt, SigintAndSigtermStopACampaignWithItsSummary) {
  for (int signal : {SIGINT, SIGTERM}) {
    Stopped r = InterruptCampaign(signal, std::chrono::milliseconds(1500));
    EXPECT_EQ(r.exit_code, 0) << r.output;  // the unmutated build finds nothing
    EXPECT_LT(r.seconds_after_signal, 1.0) << r.output;
    EXPECT_TRUE(testing::Contains(r.output, "(interrupted)")) << r.output;
    EXPECT_TRUE(testing::Contains(r.output, "findings: 0")) << r.output;
  }
}

// With no arguments: a 60-second campaign into ./parity-out, which an interrupted run still
// leaves with its summary.
TEST(Interrupt, ABareCampaignRunsSixtySecondsIntoParityOut) {
  Stopped r = InterruptCampaign(SIGINT, std::chrono::milliseconds(0), /*defaults=*/true,
                                /*after_a_case=*/true);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  const std::string dir = testing::TestTmp() + "/interrupted/parity-out";
  const nlohmann::json summary = nlohmann::json::parse(ReadFileBytes(dir + "/summary.json"));
  EXPECT_EQ(summary["budget"]["seconds"], 60.0);
  EXPECT_EQ(summary["interrupted"], true);
  EXPECT_GT(summary["cases"], 0);
  EXPECT_TRUE(testing::Contains(ReadFileBytes(dir + "/junit.xml"), "<testsuites"));
}

}  // namespace
}  // namespace parity
