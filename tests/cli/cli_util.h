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

// `binary` is a runfile path inside the workspace, e.g. "tools/parity".
inline CliResult RunCli(const std::string& binary, const std::string& args) {
  const std::string path = std::string(std::getenv("TEST_SRCDIR")) + "/parity/" + binary;
  FILE* pipe = popen((path + " " + args + " 2>&1").c_str(), "r");
  CliResult result{-1, ""};
  std::array<char, 4096> buffer;
  while (size_t n = fread(buffer.data(), 1, buffer.size(), pipe)) {
    result.output.append(buffer.data(), n);
  }
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
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
