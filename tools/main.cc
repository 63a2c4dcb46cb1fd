// Entry point of `parity`: parses the command line with CLI11, runs the chosen subcommand and maps
// failures to the exit codes of the contract. User input never aborts the process.
#include <cstdio>
#include <exception>
#include <filesystem>
#include <iostream>
#include <map>

#include "core/proto/env_limits.h"
#include "core/proto/error.h"
#include "tools/command.h"

namespace parity::tools {

std::vector<Command>& Commands() {
  static auto* commands = new std::vector<Command>();
  return *commands;
}

bool RegisterCommand(Command command) {
  Commands().push_back(std::move(command));
  return true;
}

int Main(int argc, char** argv) {
  CLI::App app{"parity: differential testing and verification for a Caffe2-style engine"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Help for every subcommand");
  std::map<CLI::App*, std::function<int()>> actions;
  for (const Command& command : Commands()) {
    CLI::App* sub = app.add_subcommand(command.name, command.description);
    actions[sub] = command.setup(sub);
  }
  // CLI11 would say only "A subcommand is required" for a misspelt one: name it and the choices.
  if (argc > 1 && argv[1][0] != '-') {
    bool known = false;
    std::string names;
    for (const Command& command : Commands()) {
      known |= command.name == argv[1];
      names += (names.empty() ? "" : ", ") + command.name;
    }
    if (!known) {
      std::cerr << "parity: unknown command '" << Printable(argv[1]) << "' (commands: " << names
                << ")\n";
      return kExitBadInput;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitBadInput;
  }
  for (auto& [sub, action] : actions) {
    if (!sub->parsed()) continue;
    try {
      // The environment's limits are checked before any work, so a malformed one is named at
      // once instead of wherever the first allocation or loop happens to read it.
      MaxAllocBytesFromEnv();
      MaxLoopIterationsFromEnv();
      return action();
    } catch (const Error& e) {
      std::cerr << "parity " << sub->get_name() << ": " << ErrorKindName(e.kind()) << ": "
                << Printable(e.what()) << "\n";
      return ExitCodeFor(e.kind());
    } catch (const std::filesystem::filesystem_error& e) {
      // A folder that cannot be read or made (permissions, a symlink loop, a full disk): the
      // environment's, not parity's, so an i/o error naming the path.
      std::cerr << "parity " << sub->get_name() << ": i/o error: " << Printable(e.what()) << "\n";
      return kExitBadInput;
    } catch (const std::bad_alloc&) {
      std::cerr << "parity " << sub->get_name() << ": resource limit: out of memory\n";
      return kExitBadInput;
    } catch (const std::exception& e) {
      std::cerr << "parity " << sub->get_name() << ": internal error: " << Printable(e.what())
                << "\n";
      return kExitInternal;
    }
  }
  return kExitBadInput;
}

}  // namespace parity::tools

int main(int argc, char** argv) { return parity::tools::Main(argc, argv); }
