// parity check NET [--init NET] [--input NAME=FILE]... [--oracle LIST] [--tolerance CLASS] [--json]
//              [--html OUT]
// Runs a user's net through the oracles; exit 1 and a readable summary when something differs.
#include <iostream>
#include <nlohmann/json.hpp>

#include "core/io.h"
#include "oracles/check.h"
#include "oracles/describe.h"
#include "oracles/finding.h"
#include "reports/report.h"
#include "tools/command.h"
#include "tools/input_specs.h"
#include "tools/interrupt.h"

namespace parity::tools {
namespace {

struct CheckOptions {
  std::string net_path;
  std::string init_path;
  std::vector<std::string> inputs;
  std::vector<std::string> oracles;  // empty: oracles::DefaultOracles()
  std::string engine = "production";
  std::string tolerance;
  bool json = false;
  bool full = false;
  std::string html;  // write the HTML report here
  uint64_t seed = 1;
};

// The HTML report of one check: the verdicts as the campaign's oracle table, one page per finding.
reports::ReportInput CheckReport(const CheckOptions& options, const CaseReport& report) {
  reports::ReportInput input;
  input.title = "parity check " + options.net_path;
  input.source = options.net_path;
  nlohmann::json oracles_run = nlohmann::json::object();
  int findings = 0;
  for (const OracleVerdict& verdict : report.verdicts()) {
    const bool applies = verdict.status() == OracleVerdict::OK ||
                         verdict.status() == OracleVerdict::FINDING;
    oracles_run[verdict.oracle()] = {{"checked", applies ? 1 : 0},
                                     {"not_applicable", applies ? 0 : 1}};
    if (verdict.status() != OracleVerdict::FINDING) continue;
    ++findings;
    reports::ReportFinding finding;
    finding.key = oracles::SignatureKey(verdict.finding().signature());
    finding.page = reports::FindingPageName(finding.key);
    finding.first = verdict.finding();
    input.findings.push_back(std::move(finding));
  }
  input.summary = {{"seed", report.seed()},      {"backend", report.backend()},
                   {"cases", 1},                 {"findings", findings},
                   {"oracles_run", oracles_run}};
  return input;
}

int Check(const CheckOptions& options) {
  Case c;
  *c.mutable_net() = LoadNetDef(options.net_path);
  if (!options.init_path.empty()) *c.mutable_init_net() = LoadNetDef(options.init_path);
  for (auto& input : LoadInputSpecs(options.inputs)) *c.add_inputs() = input;
  c.set_seed(options.seed);
  oracles::CheckRequest request;
  request.oracles = options.oracles;
  request.backend = options.engine;
  request.tolerance = options.tolerance;
  request.full_jacobian = options.full;
  request.stop = &InstallInterruptHandlers();
  const CaseReport report = oracles::CheckCase(c, request);
  nlohmann::json json = nlohmann::json::array();
  for (const OracleVerdict& verdict : report.verdicts()) {
    const std::string& oracle = verdict.oracle();
    nlohmann::json entry = {{"oracle", oracle}, {"backends", verdict.backends()}};
    if (verdict.status() == OracleVerdict::FINDING) {
      const Finding& finding = verdict.finding();
      entry["status"] = "finding";
      entry["error_class"] = finding.signature().error_class();
      entry["message"] = finding.message();
      entry["blamed_op_index"] = finding.blamed_op_index();
      entry["blamed_op_type"] = finding.blamed_op_type();
      if (!options.json) std::cout << oracles::DescribeFinding(finding);
    } else if (verdict.status() == OracleVerdict::REJECTED) {
      entry["status"] = "rejected";
      entry["error_kind"] = verdict.error_kind();
      entry["reason"] = verdict.reason();
      if (!options.json) std::cout << "[" << oracle << "] rejected: the net cannot run\n";
    } else if (verdict.status() == OracleVerdict::NOT_APPLICABLE) {
      entry["status"] = "not applicable";
      entry["reason"] = verdict.reason();
      if (!options.json) {
        std::cout << "[" << oracle << "] not applicable: " << Printable(verdict.reason()) << "\n";
      }
    } else {
      entry["status"] = "ok";
      if (!options.json) std::cout << "[" << oracle << "] ok\n";
    }
    json.push_back(entry);
  }
  if (options.json) {
    std::cout << json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    std::cout << "seed " << c.seed() << " (--seed), tolerance " << report.tolerance()
              << ", backend under test " << report.backend() << "\n";
  }
  if (!options.html.empty()) {
    const std::string index = reports::WriteReport(CheckReport(options, report), options.html);
    if (!options.json) std::cout << "report: " << index << "\n";
  }
  const int exit_code = oracles::ExitCode(report);
  if (exit_code == kExitBadInput) {
    // Bad input: the one-line error of every other command, naming what is wrong.
    for (const OracleVerdict& verdict : report.verdicts()) {
      if (verdict.status() != OracleVerdict::REJECTED) continue;
      std::cerr << "parity check: " << verdict.error_kind() << ": " << Printable(verdict.reason())
                << "\n";
      break;
    }
  }
  return exit_code;
}

PARITY_REGISTER_COMMAND(Command{
    "check", "Check a net: production vs reference, gradients, determinism, round-trip",
    [](CLI::App* app) {
      app->footer(Examples({
          {"parity check examples/mlp.pbtxt --init examples/mlp_init.pbtxt",
           "every default oracle on the net: exit 0 clean, 1 a finding, 2 the net cannot run"},
          {"parity check net.pbtxt --init init.pbtxt --input data=x.npy --oracle forward,gradient "
           "--full",
           "two oracles; the gradient of every input element separately"},
          {"parity check net.pb --tolerance exact --json",
           "production bit-equal to the f32 reference; the verdicts as JSON"},
          {"parity check net.pbtxt --html check-report",
           "also write the HTML report (check-report/index.html)"},
      }));
      auto options = std::make_shared<CheckOptions>();
      app->add_option("net", options->net_path, "NetDef file (.pb or .pbtxt)")->required();
      app->add_option("--init", options->init_path, "Init net, run first");
      app->add_option("--input", options->inputs, "NAME=FILE or FILE (see parity run)");
      app->add_option("--oracle", options->oracles,
                      "Oracles to run (default: " + oracles::DescribeDefaultOracles() + ")")
          ->delimiter(',');
      app->add_option("--engine", options->engine,
                      "The backend under test, by registered name (default: production)");
      app->add_option("--tolerance", options->tolerance,
                      "Tolerance class: exact, default, transcendental, accumulation, loose")
          ->check(kNonEmpty);
      app->add_flag("--full", options->full, "Gradient: check every input element separately");
      app->add_option("--seed", options->seed,
                      "Seed of the gradient oracle's random directions and of the init net's "
                      "random fills")
          ->check(kWholeNumber);
      app->add_flag("--json", options->json, "Machine-readable report");
      app->add_option("--html", options->html,
                      "Also write the HTML report here (index.html and one page per finding)");
      return [options] { return Check(*options); };
    }});

}  // namespace
}  // namespace parity::tools
