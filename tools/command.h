// The `parity` command line: one file per subcommand, each registering itself into the app.
// Subcommands report failures by throwing parity::Error; main() maps kinds to exit codes
// (0 clean, 1 discrepancies found, 2 bad input or usage, 3 internal error).
#ifndef PARITY_TOOLS_COMMAND_H_
#define PARITY_TOOLS_COMMAND_H_

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <functional>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

namespace parity::tools {

// Exit codes of the command-line contract.
constexpr int kExitClean = 0;
constexpr int kExitDiscrepancies = 1;
constexpr int kExitBadInput = 2;
constexpr int kExitInternal = 3;

// A subcommand: `setup` adds options to its CLI::App and returns the action to run when chosen;
// the action returns the exit code.
struct Command {
  std::string name;
  std::string description;
  std::function<std::function<int()>(CLI::App* app)> setup;
};

std::vector<Command>& Commands();

// CLI11 check for counts and seeds: a whole number >= 0 ("--cases: 'abc' is not a whole number
// >= 0" instead of CLI::NonNegativeNumber's range print-out of DBL_MAX).
inline const CLI::Validator kWholeNumber(
    [](std::string& value) -> std::string {
      if (value.empty() || value.find_first_not_of("0123456789") != std::string::npos) {
        return "'" + value + "' is not a whole number >= 0";
      }
      if (value.size() > 18) return "'" + value + "' is too large";
      return "";
    },
    "N>=0");
// A value that names something (a blob, a class, a file): an empty one would silently mean the
// default or nothing at all.
inline const CLI::Validator kNonEmpty(
    [](std::string& value) -> std::string {
      return value.empty() ? "an empty value names nothing" : "";
    },
    "NAME");
// A duration in seconds: a decimal number >= 0 ("1.5").
inline const CLI::Validator kSeconds(
    [](std::string& value) -> std::string {
      char* end = nullptr;
      const double seconds = std::strtod(value.c_str(), &end);
      if (value.empty() || *end != '\0' || !(seconds >= 0) || seconds > 1e9) {
        return "'" + value + "' is not a number of seconds >= 0";
      }
      return "";
    },
    "SECONDS");
// A duration in seconds that must be > 0: CLI::PositiveNumber's message printed DBL_MAX as a
// 309-digit number ("not in range 0.000000 to 1797...").
inline const CLI::Validator kPositiveSeconds(
    [](std::string& value) -> std::string {
      char* end = nullptr;
      const double seconds = std::strtod(value.c_str(), &end);
      if (value.empty() || *end != '\0' || !(seconds > 0) || seconds > 1e9) {
        return "'" + value + "' is not a number of seconds > 0";
      }
      return "";
    },
    "SECONDS");
bool RegisterCommand(Command command);

// The footer of a subcommand's --help: commands a user can copy, each with what it does. Every
// subcommand has two or more (tests/docs/docs_test checks it; docs/cli.md is generated from them).
inline std::string Examples(std::initializer_list<std::pair<const char*, const char*>> examples) {
  std::string footer = "Examples:\n";
  for (const auto& [command, what] : examples) {
    footer += std::string("  ") + command + "\n      " + what + "\n";
  }
  return footer;
}

}  // namespace parity::tools

#define PARITY_COMMAND_CONCAT_INNER(a, b) a##b
#define PARITY_COMMAND_CONCAT(a, b) PARITY_COMMAND_CONCAT_INNER(a, b)
#define PARITY_REGISTER_COMMAND(...)                                                 \
  static const bool PARITY_COMMAND_CONCAT(parity_registered_command_, __COUNTER__) = \
      ::parity::tools::RegisterCommand(__VA_ARGS__)

#endif  // PARITY_TOOLS_COMMAND_H_
