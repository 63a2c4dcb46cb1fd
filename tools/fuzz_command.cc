// parity fuzz [--seconds N | --cases N] [--seed S] [--out DIR] [--ops LIST] [--oracles LIST]
//             [--jobs N] [--shard I/N] [--case-timeout S] [--case-memory MB] [--fresh]
// The main job: generated cases through every applicable oracle, in --jobs worker processes (a
// case that crashes, hangs or exhausts memory is a finding); exit 1 if anything was found.
// With no budget, 60 seconds; with no --out, parity-out/. Progress goes to stderr: a line redrawn
// in place on a terminal, JSON lines on a pipe; DIR/summary.json and DIR/junit.xml at the end.
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <thread>

#include "core/io.h"
#include "core/proto/error.h"
#include "fuzz/campaign.h"
#include "fuzz/campaign_report.h"
#include "fuzz/sandbox.h"
#include "oracles/check.h"
#include "oracles/describe.h"
#include "reports/report.h"
#include "tools/command.h"
#include "tools/interrupt.h"

namespace parity::tools {
namespace {

constexpr double kDefaultSeconds = 60;

std::string Env(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? "" : value;
}

int64_t WholeNumber(const std::string& text, const std::string& what) {
  PARITY_ENFORCE(!text.empty() && text.size() <= 18 &&
                     text.find_first_not_of("0123456789") == std::string::npos,
                 ErrorKind::kBadArgument, what, ": '", text, "' is not a whole number");
  return std::stoll(text);
}

// --shard I/N, or Bazel's test-sharding protocol when it runs under `bazel test` with shard_count
// (TEST_TOTAL_SHARDS, TEST_SHARD_INDEX; TEST_SHARD_STATUS_FILE is touched to say the test shards).
void ApplySharding(const std::string& shard, fuzz::CampaignOptions* options) {
  if (!shard.empty()) {
    const size_t slash = shard.find('/');
    PARITY_ENFORCE(slash != std::string::npos, ErrorKind::kBadArgument, "--shard: '", shard,
                   "' is not I/N");
    options->shard_index = WholeNumber(shard.substr(0, slash), "--shard index");
    options->shard_count = WholeNumber(shard.substr(slash + 1), "--shard count");
  } else if (!Env("TEST_TOTAL_SHARDS").empty()) {
    options->shard_count = WholeNumber(Env("TEST_TOTAL_SHARDS"), "TEST_TOTAL_SHARDS");
    options->shard_index = WholeNumber(Env("TEST_SHARD_INDEX"), "TEST_SHARD_INDEX");
    if (!Env("TEST_SHARD_STATUS_FILE").empty()) WriteFileAtomic(Env("TEST_SHARD_STATUS_FILE"), "");
  }
  PARITY_ENFORCE(options->shard_count >= 1 && options->shard_index < options->shard_count,
                 ErrorKind::kBadArgument, "shard ", options->shard_index, "/", options->shard_count,
                 ": want I/N with 0 <= I < N");
}

int Fuzz(fuzz::CampaignOptions options, const std::string& shard, bool out_given) {
  options.stop = &InstallInterruptHandlers();
  ApplySharding(shard, &options);
  // Under `bazel test`: the budget from --test_env=PARITY_FUZZ_SECONDS, the corpus where Bazel
  // keeps a test's outputs.
  if (options.seconds < 0 && options.cases < 0 && !Env("PARITY_FUZZ_SECONDS").empty()) {
    const std::string text = Env("PARITY_FUZZ_SECONDS");
    char* end = nullptr;
    options.seconds = std::strtod(text.c_str(), &end);
    PARITY_ENFORCE(*end == '\0' && options.seconds >= 0, ErrorKind::kBadArgument,
                   "PARITY_FUZZ_SECONDS: '", text, "' is not a number of seconds >= 0");
  }
  if (!out_given && !Env("TEST_UNDECLARED_OUTPUTS_DIR").empty()) {
    options.out_dir = Env("TEST_UNDECLARED_OUTPUTS_DIR") + "/parity-out";
  }
  if (options.seconds < 0 && options.cases < 0) options.seconds = kDefaultSeconds;
  if (options.limits.memory_mb > 0 && !fuzz::SandboxEnforcesMemoryLimits()) {
    std::cerr << "parity fuzz: --case-memory is not enforced in this build (AddressSanitizer "
                 "reserves the address space)\n";
  }
  fuzz::CampaignProgress progress(
      std::cerr,
      isatty(STDERR_FILENO) ? fuzz::ProgressStyle::kTerminal : fuzz::ProgressStyle::kJsonLines,
      options);
  fuzz::CampaignSummary summary = fuzz::RunCampaign(options, &progress);
  const std::string summary_path = fuzz::WriteCampaignReports(options, summary);
  const oracles::CheckTally& tally = summary.tally;
  std::cout << "cases: " << tally.cases << " in " << summary.seconds << " s ("
            << (summary.seconds > 0 ? tally.cases / summary.seconds : 0) << " cases/s) on "
            << options.backend << ", " << tally.by_op.size() << " op types, "
            << (options.jobs == 0 ? std::string("in this process")
                                  : std::to_string(options.jobs) + " worker(s)")
            << (summary.interrupted ? " (interrupted)" : "") << "\n";
  if (summary.resumed_cases > 0) {
    std::cout << "  resumed from " << options.out_dir << "/state.json: " << summary.resumed_cases
              << " case(s) were done before this run\n";
  }
  if (summary.workers_replaced > 0) {
    std::cout << "  workers replaced after a crash, hang or exhausted memory: "
              << summary.workers_replaced << "\n";
  }
  // Cases per op type (a case counts once for each type it holds): what the campaign covered.
  std::cout << "  ops:";
  for (const auto& [type, count] : tally.by_op) std::cout << " " << type << " " << count << ",";
  std::cout << "\n";
  for (const auto& [oracle, n] : tally.checked) {
    std::cout << "  " << oracle << ": checked " << n;
    auto na = tally.not_applicable.find(oracle);
    if (na != tally.not_applicable.end()) std::cout << ", not applicable " << na->second;
    std::cout << "\n";
  }
  std::cout << "findings: " << tally.findings << " (" << tally.by_signature.size()
            << " unique signatures)\n";
  for (const auto& [signature, n] : tally.by_signature) {
    std::cout << "  " << Printable(signature) << ": " << n;
    auto reduction = summary.reductions.find(signature);
    if (reduction != summary.reductions.end() && reduction->second.reproduced) {
      std::cout << " (reduced " << reduction->second.ops_before << " -> "
                << reduction->second.ops_after << " ops)";
    }
    std::cout << "\n";
  }
  if (summary.findings_saved > 0) {
    std::cout << "saved " << summary.findings_saved
              << " finding(s), one directory per signature, under " << options.out_dir
              << "/findings/\n";
  }
  if (!summary_path.empty()) {
    std::cout << "summary: " << summary_path << ", " << options.out_dir << "/junit.xml\n";
    // The page an engineer opens in the morning; a campaign's results stand without it.
    try {
      const std::string index =
          reports::WriteReport(reports::ReadCampaign(options.out_dir), options.out_dir + "/report");
      std::cout << "report: " << index << "\n";
    } catch (const Error& error) {
      std::cerr << "parity fuzz: the HTML report was not written: " << error.what() << "\n";
    }
  }
  return tally.findings > 0 ? kExitDiscrepancies : kExitClean;
}

PARITY_REGISTER_COMMAND(Command{
    "fuzz", "Fuzz campaign: generated ops and nets through every oracle", [](CLI::App* app) {
      app->footer(Examples({
          {"parity fuzz --seconds 60",
           "the default campaign into parity-out/: findings/, summary.json, junit.xml, "
           "report/index.html"},
          {"parity fuzz --cases 2000 --seed 7 --ops Conv,ConvRelu --out conv-out",
           "a reproducible campaign over two op types"},
          {"parity fuzz --seconds 3600 --seed 20261129 --shard 0/4 --out shard0",
           "shard 0 of a 4-machine nightly (parity merge unites the shards)"},
          {"parity fuzz --engine production-im2col --oracles forward,gradient",
           "another backend under two oracles; run the same command again to resume"},
      }));
      auto options = std::make_shared<fuzz::CampaignOptions>();
      options->out_dir = "parity-out";
      auto group = app->add_option_group("budget");
      group->add_option("--seconds", options->seconds, "Run for this many seconds (default 60)")
          ->check(kSeconds);
      group->add_option("--cases", options->cases, "Run this many cases")->check(kWholeNumber);
      group->require_option(0, 1);
      app->add_option("--seed", options->seed, "Campaign seed (cases are reproducible from it)")
          ->check(kWholeNumber);
      app->add_option("--out", options->out_dir,
                      "Save findings under OUT/findings/, and OUT/summary.json, OUT/junit.xml "
                      "(default parity-out)");
      app->add_flag("--fresh", options->fresh,
                    "Start over: remove OUT's findings, state.json and reports first (without it, "
                    "a campaign whose OUT/state.json is there resumes)");
      app->add_option("--ops", options->ops, "Only these op types")->delimiter(',');
      app->add_option("--oracles", options->oracles,
                      "Only these oracles (default: " + oracles::DescribeDefaultOracles() + ")")
          ->delimiter(',');
      app->add_option("--engine", options->backend,
                      "The backend under test, by registered name (default: production)");
      app->add_flag("!--no-nets", options->nets, "Single-op cases only");
      options->jobs = std::max(1u, std::thread::hardware_concurrency());
      app->add_option("--jobs", options->jobs,
                      "Worker processes running cases (default: the number of cores); 0 runs "
                      "them in this process, without crash isolation")
          ->check(CLI::Range(0, 1024));
      app->add_option("--case-timeout", options->limits.case_timeout,
                      "Seconds a case may take before it is a hang finding (default 20)")
          ->check(kPositiveSeconds);
      options->reduce_seconds = 10;
      app->add_option("--reduce-seconds", options->reduce_seconds,
                      "Seconds to reduce each new signature's smallest case (default 10; 0: no "
                      "reduction)")
          ->check(kSeconds);
      app->add_option("--case-memory", options->limits.memory_mb,
                      "MB a worker may grow by before an allocation fails and the case is a "
                      "resource finding (default: no limit)")
          ->check(CLI::Range(int64_t{0}, int64_t{1} << 30));
      auto shard = std::make_shared<std::string>();
      app->add_option("--shard", *shard,
                      "Run slice I of N of the cases (I/N); under bazel test, TEST_SHARD_INDEX / "
                      "TEST_TOTAL_SHARDS");
      CLI::Option* out = app->get_option("--out");
      return [options, shard, out] { return Fuzz(*options, *shard, out->count() > 0); };
    }});

}  // namespace
}  // namespace parity::tools
