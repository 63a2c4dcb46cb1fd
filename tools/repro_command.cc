// parity repro FINDING: re-runs a saved finding's case through its oracle. Exit 1 if it still
// reproduces, 0 if it no longer does.
#include <iostream>

#include "core/io.h"
#include "fuzz/generators.h"
#include "oracles/describe.h"
#include "oracles/oracle.h"
#include "tools/command.h"

namespace parity::tools {
namespace {

int Repro(const std::string& path) {
  Finding finding;
  LoadProtoFile(path, &finding);
  oracles::OracleOptions options;
  options.tolerance = oracles::GetToleranceClass(fuzz::ToleranceForCase(finding.case_()));
  oracles::OracleResult result = oracles::RunOracle(finding.oracle(), finding.case_(), options);
  if (result.finding) {
    std::cout << "reproduced:\n" << oracles::DescribeFinding(*result.finding);
    return kExitDiscrepancies;
  }
  std::cout << "[" << finding.oracle() << "] no longer reproduces"
            << (result.not_applicable.empty() ? "" : " (not applicable: " + result.not_applicable + ")")
            << "\n";
  return kExitClean;
}

PARITY_REGISTER_COMMAND(Command{"repro", "Re-run a saved finding", [](CLI::App* app) {
                                  auto path = std::make_shared<std::string>();
                                  app->add_option("finding", *path, "Finding file (.pb or .pbtxt)")
                                      ->required();
                                  return [path] { return Repro(*path); };
                                }});

}  // namespace
}  // namespace parity::tools
