// parity repro FINDING [--engine E]: re-runs a saved finding's case through its oracle, on the
// backend it was found on (or the one named). Exit 1 if it still reproduces, 0 if it no longer
// does.
#include <iostream>

#include "core/io.h"
#include "oracles/backend.h"
#include "oracles/check.h"
#include "oracles/describe.h"
#include "tools/command.h"

namespace parity::tools {
namespace {

struct ReproOptions {
  std::string path;
  std::string engine;  // "": the finding's own backend
};

int Repro(const ReproOptions& options) {
  Finding finding;
  LoadProtoFile(options.path, &finding);
  // A file that parses as a Finding but holds no case (a NetDef's fields can read as one) must not
  // "no longer reproduce": there is nothing to replay.
  PARITY_ENFORCE(!finding.oracle().empty(), ErrorKind::kInvalidNet, options.path,
                 " names no oracle: is it a finding?");
  PARITY_ENFORCE(finding.has_case_() && finding.case_().net().op_size() > 0, ErrorKind::kInvalidNet,
                 options.path, " holds no case to replay: is it a finding?");
  oracles::CheckRequest request;
  request.oracles = {finding.oracle()};
  request.backend = !options.engine.empty() ? options.engine
                    : finding.has_backend() ? finding.backend()
                                            : std::string(oracles::kProduction);
  const CaseReport report = oracles::CheckCase(finding.case_(), request);
  const OracleVerdict& verdict = report.verdicts(0);
  if (verdict.status() == OracleVerdict::FINDING) {
    std::cout << "reproduced on " << request.backend << ":\n"
              << oracles::DescribeFinding(verdict.finding());
    return kExitDiscrepancies;
  }
  if (verdict.status() == OracleVerdict::REJECTED) {
    // The saved case cannot run at all: that is no verdict on a fix.
    std::cerr << "parity repro: " << verdict.error_kind()
              << ": the finding's case cannot run: " << Printable(verdict.reason()) << "\n";
    return kExitBadInput;
  }
  std::cout << "[" << finding.oracle() << "] no longer reproduces on " << request.backend
            << (verdict.status() == OracleVerdict::NOT_APPLICABLE
                    ? " (not applicable: " + Printable(verdict.reason()) + ")"
                    : "")
            << "\n";
  return kExitClean;
}

PARITY_REGISTER_COMMAND(Command{
    "repro", "Re-run a saved finding", [](CLI::App* app) {
      auto options = std::make_shared<ReproOptions>();
      app->add_option("finding", options->path, "Finding file (.pb or .pbtxt)")->required();
      app->add_option("--engine", options->engine,
                      "Replay on this backend instead of the one the finding names");
      return [options] { return Repro(*options); };
    }});

}  // namespace
}  // namespace parity::tools
