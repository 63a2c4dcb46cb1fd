// parity check NET [--init NET] [--input NAME=FILE]... [--oracle LIST] [--tolerance CLASS] [--json]
// Runs a user's net through the oracles; exit 1 and a readable summary when something differs.
#include <iostream>

#include <nlohmann/json.hpp>

#include "core/io.h"
#include "fuzz/generators.h"
#include "oracles/describe.h"
#include "oracles/oracle.h"
#include "tools/command.h"
#include "tools/net_runner.h"

namespace parity::tools {
namespace {

struct CheckOptions {
  std::string net_path;
  std::string init_path;
  std::vector<std::string> inputs;
  std::vector<std::string> oracles = {"forward", "gradient", "determinism", "roundtrip"};
  std::string tolerance;
  bool json = false;
  bool full = false;
  uint64_t seed = 1;
};

int Check(const CheckOptions& options) {
  Case c;
  *c.mutable_net() = LoadNetDef(options.net_path);
  if (!options.init_path.empty()) *c.mutable_init_net() = LoadNetDef(options.init_path);
  for (auto& input : LoadInputSpecs(options.inputs)) *c.add_inputs() = input;
  c.set_seed(options.seed);
  oracles::OracleOptions oracle_options;
  oracle_options.tolerance = oracles::GetToleranceClass(
      options.tolerance.empty() ? fuzz::ToleranceForCase(c) : options.tolerance);
  oracle_options.full_jacobian = options.full;
  nlohmann::json report = nlohmann::json::array();
  int findings = 0;
  for (const std::string& oracle : options.oracles) {
    oracles::OracleResult result = oracles::RunOracle(oracle, c, oracle_options);
    nlohmann::json entry = {{"oracle", oracle}};
    if (result.finding) {
      ++findings;
      entry["status"] = "finding";
      entry["error_class"] = result.finding->signature().error_class();
      entry["message"] = result.finding->message();
      entry["blamed_op_index"] = result.finding->blamed_op_index();
      entry["blamed_op_type"] = result.finding->blamed_op_type();
      if (!options.json) std::cout << oracles::DescribeFinding(*result.finding);
    } else if (!result.not_applicable.empty()) {
      entry["status"] = "not applicable";
      entry["reason"] = result.not_applicable;
      if (!options.json) std::cout << "[" << oracle << "] not applicable: " << result.not_applicable << "\n";
    } else {
      entry["status"] = "ok";
      if (!options.json) std::cout << "[" << oracle << "] ok\n";
    }
    report.push_back(entry);
  }
  if (options.json) std::cout << report.dump(2) << "\n";
  return findings > 0 ? kExitDiscrepancies : kExitClean;
}

PARITY_REGISTER_COMMAND(Command{
    "check", "Check a net: production vs reference, gradients, determinism, round-trip",
    [](CLI::App* app) {
      auto options = std::make_shared<CheckOptions>();
      app->add_option("net", options->net_path, "NetDef file (.pb or .pbtxt)")->required();
      app->add_option("--init", options->init_path, "Init net, run first");
      app->add_option("--input", options->inputs, "NAME=FILE or FILE (see parity run)");
      app->add_option("--oracle", options->oracles, "Oracles to run")->delimiter(',');
      app->add_option("--tolerance", options->tolerance,
                      "Tolerance class: exact, default, transcendental, accumulation, loose");
      app->add_flag("--full", options->full, "Gradient: check every input element separately");
      app->add_option("--seed", options->seed, "Seed of the gradient oracle's random directions");
      app->add_flag("--json", options->json, "Machine-readable report");
      return [options] { return Check(*options); };
    }});

}  // namespace
}  // namespace parity::tools
