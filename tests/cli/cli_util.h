// Running a parity binary the way a user does, from tests: its exit code and everything it
// printed (stdout and stderr together).
#ifndef PARITY_TESTS_CLI_CLI_UTIL_H_
#define PARITY_TESTS_CLI_CLI_UTIL_H_

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/io.h"

namespace parity::testing {

struct CliResult {
  int exit_code;
  std::string output;  // stdout and stderr together
};

inline std::string TestTmp() { return std::getenv("TEST_TMPDIR"); }

// `binary` is a runfile path inside the workspace, e.g. "tools/parity"; `env` (e.g. "A=1 B=2 ")
// is set for that command only. The command runs as a user runs it: without the variables Bazel
// sets for the test itself (a sharded test's TEST_TOTAL_SHARDS would shard `parity fuzz` too).
inline CliResult RunCli(const std::string& binary, const std::string& env,
                        const std::string& args) {
  const std::string path = std::string(std::getenv("TEST_SRCDIR")) + "/parity/" + binary;
  const std::string command =
      "env -u TEST_TOTAL_SHARDS -u TEST_SHARD_INDEX -u TEST_SHARD_STATUS_FILE "
      "-u TEST_UNDECLARED_OUTPUTS_DIR " +
      env + path + " " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  CliResult result{-1, ""};
  std::array<char, 4096> buffer;
  while (size_t n = fread(buffer.data(), 1, buffer.size(), pipe)) {
    result.output.append(buffer.data(), n);
  }
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

inline CliResult RunCli(const std::string& binary, const std::string& args) {
  return RunCli(binary, "", args);
}

// Writes `text` to TEST_TMPDIR/name and returns the path.
inline std::string WriteTestFile(const std::string& name, const std::string& text) {
  const std::string path = TestTmp() + "/" + name;
  WriteFileAtomic(path, text);
  return path;
}

inline bool Contains(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

}  // namespace parity::testing

#endif  // PARITY_TESTS_CLI_CLI_UTIL_H_
