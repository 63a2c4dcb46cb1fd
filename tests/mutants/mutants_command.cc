// `parity mutants`: the oracles' power measured the way mutation testing measures a test suite.
// Each mutant of the catalogue is planted in turn (its kernel as the backend under test, or its
// registry swap installed) and the default campaign — every spec, single ops and whole nets,
// every default oracle — runs until its first finding or the budget. A finding is a kill only if
// the same case, checked again without the mutant, is clean: a kill is the mutant's doing.
// Prints killed / survived with the time and cases to the kill, the kill rate and the median
// time-to-kill. A GPU kernel mutant is hunted by the device oracle alone, and only where a CUDA
// device is: elsewhere it is "skipped: no CUDA device", counted apart, neither killed nor
// survived. Exit 0 when every mutant hunted is killed, 1 when one survives, 2 on bad arguments.
//
// Linked into `parity_with_mutants` (the real command line plus the catalogue), which
// `./parity mutants` runs; `--engine MUTANT_<name>` reaches a kernel mutant from fuzz, check and
// repro in that binary too.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "fuzz/campaign.h"
#include "fuzz/reduce.h"
#include "gpu/device.h"
#include "oracles/check.h"
#include "oracles/describe.h"
#include "oracles/seeds.h"
#include "tests/mutants/mutants.h"
#include "tools/command.h"
#include "tools/interrupt.h"

namespace parity::mutants {
namespace {

struct Hunt {
  const Mutant* mutant = nullptr;
  bool killed = false;
  bool skipped = false;     // a GPU mutant without a CUDA device
  double seconds = 0;       // to the kill, or the whole budget
  int64_t cases = 0;        // campaign cases run
  std::string oracle;       // of the killing finding
  std::string blamed;       // its blamed op type
  std::string error_class;  // its error class ("gradient maker", "value mismatch", ...)
  std::string brief;        // the killing finding, in a line
  std::string rejected;  // findings that were not the mutant's doing (a clean check found them too)
  // --reduce: the killing finding's ops before and after reduction (-1: not reduced).
  int64_t ops_before = -1, ops_after = -1;
  double reduce_seconds = 0;
};

// The finding's case as the campaign draws it with no mutant installed (found by its seed among
// the campaign's first `cases` indices). A maker mutant can be part of the case itself:
// RecurrentNetwork carries its backward step net, which the gradient makers build when the case
// is drawn, so the finding's own case would still hold the mutant's gradient ops.
Case DrawnWithoutMutant(const Finding& finding, const fuzz::CampaignOptions& options,
                        int64_t cases) {
  for (int64_t index = 0; index <= cases; ++index) {
    if (oracles::SeedAt(options.seed, static_cast<uint64_t>(index)) == finding.case_().seed()) {
      return fuzz::CampaignCase(options, index);
    }
  }
  return finding.case_();
}

// True when `finding`'s case, drawn again without the mutant, gives no finding of its oracle.
bool CleanWithoutMutant(const Finding& finding, const fuzz::CampaignOptions& options,
                        int64_t cases) {
  oracles::CheckRequest request;
  request.oracles = {finding.oracle()};
  const CaseReport result =
      oracles::CheckCase(DrawnWithoutMutant(finding, options, cases), request);
  return result.verdicts_size() == 0 || result.verdicts(0).status() != OracleVerdict::FINDING;
}

Hunt RunHunt(const Mutant& m, double seconds, uint64_t seed, double reduce_seconds) {
  Hunt hunt;
  hunt.mutant = &m;
  if (m.needs_device() && gpu::DeviceCount() == 0) {
    hunt.skipped = true;
    return hunt;
  }
  std::atomic<bool> stop{false};
  std::optional<Finding> first;
  fuzz::CampaignOptions options;
  options.seconds = seconds;
  options.seed = seed;
  options.backend = m.backend();
  // A GPU mutant's backend runs on the device: only the device oracle compares it (with the CPU
  // and the truth); the others would see every CPU-only op it cannot run.
  if (m.needs_device()) options.oracles = {m.oracle};
  options.stop = &stop;
  const auto start = std::chrono::steady_clock::now();
  fuzz::CampaignSummary summary;
  {
    MutantScope installed(m);
    summary = fuzz::RunCampaign(options, nullptr, [&](const Finding& finding) {
      if (first) return;
      first = finding;
      hunt.seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      stop = true;
    });
  }
  hunt.cases = summary.tally.cases;
  if (!first) {
    hunt.seconds = summary.seconds;
    return hunt;
  }
  if (!CleanWithoutMutant(*first, options, hunt.cases)) {
    hunt.rejected = oracles::DescribeFindingBrief(*first);
    hunt.seconds = summary.seconds;
    return hunt;
  }
  hunt.killed = true;
  hunt.oracle = first->oracle();
  hunt.blamed = first->blamed_op_type();
  hunt.error_class = first->signature().error_class();
  hunt.brief = oracles::DescribeFindingBrief(*first);
  // The reducer's workers are forks, and CUDA does not survive a fork (issue 19's later work):
  // GPU mutants' findings stay unreduced.
  if (reduce_seconds > 0 && !m.needs_device()) {
    MutantScope installed(m);  // the reducer's worker is a fork: it inherits the mutant
    fuzz::ReduceOptions reduce;
    reduce.seconds = reduce_seconds;
    const fuzz::ReduceResult reduced = fuzz::ReduceFinding(*first, reduce);
    if (reduced.reproduced) {
      hunt.ops_before = reduced.before.ops;
      hunt.ops_after = reduced.after.ops;
      hunt.reduce_seconds = reduced.seconds;
    }
  }
  return hunt;
}

int RunMutants(double seconds, uint64_t seed, const std::vector<std::string>& only,
               const std::vector<std::string>& families, bool list, bool explain,
               double reduce_seconds) {
  std::vector<const Mutant*> chosen;
  std::set<std::string> known;
  for (const Mutant& m : Catalogue()) {
    known.insert(m.name);
    const bool named = only.empty() || std::count(only.begin(), only.end(), m.name) > 0;
    const bool in_family =
        families.empty() || std::count(families.begin(), families.end(), m.family) > 0;
    if (named && in_family) chosen.push_back(&m);
  }
  for (const std::string& name : only) {
    PARITY_ENFORCE(known.count(name), ErrorKind::kBadArgument, "mutants: no mutant named '", name,
                   "' (parity mutants --list shows them)");
  }
  if (list) {
    for (const Mutant* m : chosen) {
      std::printf("%-44s %-10s %-30s %s\n", m->name.c_str(), m->family.c_str(), m->op_type.c_str(),
                  m->description.c_str());
    }
    return tools::kExitClean;
  }
  PARITY_ENFORCE(!chosen.empty(), ErrorKind::kBadArgument, "mutants: no mutant matches");
  const std::atomic<bool>& interrupt = tools::InstallInterruptHandlers();
  std::printf("%-44s %-10s %-9s %9s %8s  %s\n", "mutant", "family", "verdict", "seconds", "cases",
              "killed by (oracle / blamed op (error class))");
  std::vector<Hunt> hunts;
  for (const Mutant* m : chosen) {
    if (interrupt) break;
    // Ctrl-C stops after the mutant being hunted (a second one kills at once).
    Hunt hunt = RunHunt(*m, seconds, seed, reduce_seconds);
    if (hunt.skipped) {
      std::printf("%-44s %-10s %-9s %9s %8s  skipped: no CUDA device (%s)\n", m->name.c_str(),
                  m->family.c_str(), "skipped", "-", "-", gpu::NoDeviceReason().c_str());
      std::fflush(stdout);
      hunts.push_back(hunt);
      continue;
    }
    std::printf(
        "%-44s %-10s %-9s %9.2f %8lld  %s\n", m->name.c_str(), m->family.c_str(),
        hunt.killed ? "killed" : "SURVIVED", hunt.seconds, static_cast<long long>(hunt.cases),
        hunt.killed ? (hunt.oracle + " / " + (hunt.blamed.empty() ? "?" : hunt.blamed) + " (" +
                       hunt.error_class + ")")
                          .c_str()
                    : (hunt.rejected.empty()
                           ? ""
                           : ("finding also without the mutant: " + hunt.rejected).c_str()));
    if (explain && hunt.killed) std::printf("    %s\n", hunt.brief.c_str());
    if (hunt.ops_before >= 0) {
      std::printf("    reduced: %lld -> %lld ops in %.2f s\n",
                  static_cast<long long>(hunt.ops_before), static_cast<long long>(hunt.ops_after),
                  hunt.reduce_seconds);
    }
    std::fflush(stdout);
    hunts.push_back(hunt);
  }
  std::vector<double> times;
  size_t skipped = 0;
  for (const Hunt& h : hunts) {
    if (h.killed) times.push_back(h.seconds);
    skipped += h.skipped;
  }
  const size_t hunted = hunts.size() - skipped;
  std::sort(times.begin(), times.end());
  double median = 0;
  if (!times.empty()) {
    const size_t n = times.size();
    median = n % 2 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
  }
  std::printf(
      "kill rate: %zu / %zu; median time-to-kill %.2f s (budget %.0f s per mutant, seed "
      "%llu)%s\n",
      times.size(), hunted, median, seconds, static_cast<unsigned long long>(seed),
      skipped == 0 ? ""
                   : ("; " + std::to_string(skipped) + " skipped: no CUDA device").c_str());
  if (reduce_seconds > 0) {
    int reduced = 0, small = 0;
    double reduce_total = 0;
    for (const Hunt& h : hunts) {
      if (h.ops_after < 0) continue;
      ++reduced;
      small += h.ops_after <= 3 ? 1 : 0;
      reduce_total += h.reduce_seconds;
    }
    std::printf("reduced: %d of %zu kills; %d end with <= 3 ops (%.0f%%); mean %.2f s each\n",
                reduced, times.size(), small, reduced > 0 ? 100.0 * small / reduced : 0.0,
                reduced > 0 ? reduce_total / reduced : 0.0);
  }
  return times.size() == hunted ? tools::kExitClean : tools::kExitDiscrepancies;
}

const bool kRegistered = tools::RegisterCommand(tools::Command{
    "mutants",
    "Plant each mutant of the catalogue in turn and run the default campaign until it is killed",
    [](CLI::App* app) -> std::function<int()> {
      auto seconds = std::make_shared<double>(60);
      auto seed = std::make_shared<uint64_t>(1);
      auto only = std::make_shared<std::vector<std::string>>();
      auto families = std::make_shared<std::vector<std::string>>();
      auto list = std::make_shared<bool>(false);
      auto explain = std::make_shared<bool>(false);
      auto reduce = std::make_shared<double>(0);
      app->add_option("--seconds", *seconds, "Campaign budget per mutant (default 60)")
          ->check(tools::kSeconds);
      app->add_option("--seed", *seed, "Campaign seed")->check(tools::kWholeNumber);
      app->add_option("--only", *only, "Only these mutants (by name)");
      app->add_option("--family", *families,
                      "Only mutants of these families (linalg, conv, maker, inference, ...)");
      app->add_flag("--list", *list, "List the catalogue and exit");
      app->add_flag("--explain", *explain, "Print each killing finding under its mutant");
      app->add_option("--reduce", *reduce,
                      "Reduce each killing finding for up to this many seconds and report its "
                      "size before and after (default 0: no reduction)")
          ->check(CLI::NonNegativeNumber);
      return
          [=] { return RunMutants(*seconds, *seed, *only, *families, *list, *explain, *reduce); };
    }});

}  // namespace
}  // namespace parity::mutants
