// Runs every line of catalogue.txt through the parity binary as a user would and checks the exit
// code and that the output names what was wrong. A `run` line marked "both" is run again on the
// reference backend, which must accept or reject it the same way (the validity rule). See the
// catalogue's header for the format.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <cctype>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cli/cli_util.h"

namespace parity::testing {
namespace {

// What a crash leaves in the output, as opposed to a clear error: both halves are held to it.
constexpr const char* kCrashMarkers[] = {"terminate called", "AddressSanitizer", "runtime error:",
                                         "Aborted", "internal error"};

struct Entry {
  std::string name;
  std::string halves;
  int exit_code = 0;
  std::string needle;
  std::string command;
};

// Test names and failure messages show the line, not the struct's bytes.
void PrintTo(const Entry& entry, std::ostream* os) { *os << "parity " << entry.command; }

std::string Trim(const std::string& s) {
  const size_t begin = s.find_first_not_of(' ');
  if (begin == std::string::npos) return "";
  return s.substr(begin, s.find_last_not_of(' ') - begin + 1);
}

std::string Folder() {
  return std::string(std::getenv("TEST_SRCDIR")) + "/parity/tests/bad_inputs";
}

std::vector<Entry> LoadCatalogue() {
  std::ifstream in(Folder() + "/catalogue.txt");
  std::vector<Entry> entries;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> fields;
    size_t start = 0;
    for (size_t bar; (bar = line.find(" | ", start)) != std::string::npos; start = bar + 3) {
      fields.push_back(Trim(line.substr(start, bar - start)));
    }
    fields.push_back(Trim(line.substr(start)));
    if (fields.size() != 5) {
      entries.push_back({"malformed_line_" + std::to_string(entries.size()), "-", -1, line, ""});
      continue;
    }
    entries.push_back({fields[0], fields[1], std::atoi(fields[2].c_str()), fields[3], fields[4]});
  }
  return entries;
}

std::string ReplaceAll(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = 0; (at = s.find(from, at)) != std::string::npos; at += to.size()) {
    s.replace(at, from.size(), to);
  }
  return s;
}

class BadInputs : public ::testing::TestWithParam<Entry> {
 protected:
  static void SetUpTestSuite() {
    const std::string tmp = TestTmp();
    ::mkdir((tmp + "/adir").c_str(), 0755);
    ::mkfifo((tmp + "/fifo").c_str(), 0644);
    std::ofstream(tmp + "/empty.pbtxt").close();
  }

  // FILES/ and TMP/ resolved to the catalogue's files and the test's scratch directory.
  static std::string Resolve(const std::string& text) {
    return ReplaceAll(ReplaceAll(text, "FILES/", Folder() + "/files/"), "TMP/", TestTmp() + "/");
  }
  // The command line; stdin is closed so nothing can wait on it.
  static std::string Args(const std::string& command) { return Resolve(command) + " < /dev/null"; }
  // Messages name files as given, so the needle's placeholders resolve the same way.
  static std::string Needle(const std::string& needle) { return Resolve(needle); }
};

TEST_P(BadInputs, ClearErrorAndExitCode) {
  const Entry& entry = GetParam();
  ASSERT_GE(entry.exit_code, 0) << "malformed catalogue line: " << entry.needle;
  ASSERT_FALSE(entry.needle.empty()) << entry.name << ": a needle is required";
  const CliResult result = RunCli("tools/parity", Args(entry.command));
  EXPECT_EQ(result.exit_code, entry.exit_code) << "parity " << entry.command << "\n"
                                               << result.output;
  EXPECT_TRUE(Contains(result.output, Needle(entry.needle)))
      << "parity " << entry.command << "\nexpected the output to contain: " << entry.needle
      << "\ngot:\n"
      << result.output;
  for (const char* crash : kCrashMarkers) {
    EXPECT_FALSE(Contains(result.output, crash)) << entry.name << ": " << result.output;
  }
  if (entry.halves == "both") {
    ASSERT_EQ(entry.command.rfind("run ", 0), 0u) << entry.name << ": 'both' applies to run lines";
    const CliResult reference = RunCli("tools/parity", Args(entry.command + " --engine reference"));
    EXPECT_EQ(reference.exit_code, entry.exit_code)
        << "production and the reference disagree on whether this net is valid: parity "
        << entry.command << " --engine reference\n"
        << reference.output;
    for (const char* crash : kCrashMarkers) {
      EXPECT_FALSE(Contains(reference.output, crash)) << entry.name << " (reference): "
                                                      << reference.output;
    }
  }
}

TEST(BadInputsCatalogue, HoldsAtLeastEightyCasesWithUniqueNames) {
  const std::vector<Entry> entries = LoadCatalogue();
  EXPECT_GE(entries.size(), 80u);
  std::set<std::string> names;
  for (const Entry& e : entries) EXPECT_TRUE(names.insert(e.name).second) << e.name;
}

INSTANTIATE_TEST_SUITE_P(Catalogue, BadInputs, ::testing::ValuesIn(LoadCatalogue()),
                         [](const ::testing::TestParamInfo<Entry>& info) {
                           std::string name = info.param.name;
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace parity::testing
