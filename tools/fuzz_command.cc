// parity fuzz [--seconds N | --cases N] [--seed S] [--out DIR] [--ops LIST] [--oracles LIST]
// The main job: generated cases through every applicable oracle; exit 1 if anything was found.
#include <iostream>

#include "fuzz/campaign.h"
#include "oracles/describe.h"
#include "tools/command.h"

namespace parity::tools {
namespace {

int Fuzz(const fuzz::CampaignOptions& options) {
  fuzz::CampaignSummary summary = fuzz::RunCampaign(options, std::cerr, [](const Finding& f) {
    std::cerr << oracles::DescribeFindingBrief(f);
  });
  std::cout << "cases: " << summary.cases << " in " << summary.seconds << " s ("
            << (summary.seconds > 0 ? summary.cases / summary.seconds : 0) << " cases/s)\n";
  for (const auto& [oracle, n] : summary.checked) {
    std::cout << "  " << oracle << ": checked " << n;
    auto na = summary.not_applicable.find(oracle);
    if (na != summary.not_applicable.end()) std::cout << ", not applicable " << na->second;
    std::cout << "\n";
  }
  std::cout << "findings: " << summary.findings << " (" << summary.by_signature.size()
            << " unique signatures)\n";
  for (const auto& [signature, n] : summary.by_signature) {
    std::cout << "  " << signature << ": " << n << "\n";
  }
  if (!summary.saved.empty()) {
    std::cout << "saved " << summary.saved.size() << " finding(s) under " << options.out_dir
              << "/findings/\n";
  }
  return summary.findings > 0 ? kExitDiscrepancies : kExitClean;
}

PARITY_REGISTER_COMMAND(Command{
    "fuzz", "Fuzz campaign: generated ops and nets through every oracle", [](CLI::App* app) {
      auto options = std::make_shared<fuzz::CampaignOptions>();
      auto group = app->add_option_group("budget");
      group->add_option("--seconds", options->seconds, "Run for this many seconds");
      group->add_option("--cases", options->cases, "Run this many cases");
      group->require_option(1);
      app->add_option("--seed", options->seed, "Campaign seed (cases are reproducible from it)");
      app->add_option("--out", options->out_dir, "Save findings under OUT/findings/");
      app->add_option("--ops", options->ops, "Only these op types")->delimiter(',');
      app->add_option("--oracles", options->oracles,
                      "Only these oracles (forward, gradient, determinism, roundtrip)")
          ->delimiter(',');
      app->add_option("--engine", options->engine_override,
                      "Run production ops under this engine (e.g. a MUTANT_ engine)");
      app->add_flag("!--no-nets", options->nets, "Single-op cases only");
      return [options] { return Fuzz(*options); };
    }});

}  // namespace
}  // namespace parity::tools
