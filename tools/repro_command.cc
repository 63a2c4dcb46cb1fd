// parity repro FINDING|DIR [--engine E]: re-runs a saved finding's case through its oracle, on the
// backend it was found on (or the one named). Exit 1 if it still reproduces, 0 if it no longer
// does. With a directory (a campaign's out dir or its findings/), every signature's finding under
// it is replayed (its reduced case where there is one), as ClusterFuzz re-checks its corpus daily:
// one line each (reproduces / fixed / cannot run) and a count; exit 1 if any still reproduces.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <vector>

#include "core/io.h"
#include "fuzz/isolated_check.h"
#include "oracles/backend.h"
#include "oracles/check.h"
#include "oracles/describe.h"
#include "oracles/finding.h"
#include "tools/command.h"

namespace parity::tools {
namespace {

struct ReproOptions {
  std::string path;
  std::string engine;  // "": the finding's own backend
};

enum class Replay { kReproduces, kFixed, kCannotRun };

// A crash, hang or resource finding: the case runs through every oracle in a worker process under
// the limits it was found with; it reproduces if the worker dies on it again.
Replay ReplayInWorker(const Finding& finding, const oracles::CheckRequest& request, bool verbose) {
  oracles::GetBackend(request.backend);  // an unknown name is bad input, not a crash
  const CaseReport report =
      fuzz::CheckCaseIsolated(finding.case_(), request, fuzz::LimitsOf(finding));
  for (const OracleVerdict& verdict : report.verdicts()) {
    if (!fuzz::IsWorkerOracle(verdict.oracle())) continue;
    std::cout << "reproduced on " << request.backend << ":\n";
    const std::string was = oracles::SignatureKey(finding.signature());
    const std::string now = oracles::SignatureKey(verdict.finding().signature());
    if (now != was)
      std::cout << "(as " << Printable(now) << ", found as " << Printable(was) << ")\n";
    std::cout << (verbose ? oracles::DescribeFinding(verdict.finding())
                          : oracles::DescribeFindingBrief(verdict.finding()));
    return Replay::kReproduces;
  }
  std::cout << "[" << finding.oracle() << "] no longer reproduces on " << request.backend
            << ": the case ran through every oracle\n";
  return Replay::kFixed;
}

// Replays one finding file; `verbose` prints the finding when it reproduces.
Replay ReplayFinding(const std::string& path, const ReproOptions& options, bool verbose) {
  Finding finding;
  LoadProtoFile(path, &finding);
  // A file that parses as a Finding but holds no case (a NetDef's fields can read as one) must not
  // "no longer reproduce": there is nothing to replay.
  PARITY_ENFORCE(!finding.oracle().empty(), ErrorKind::kInvalidNet, path,
                 " names no oracle: is it a finding?");
  PARITY_ENFORCE(finding.has_case_() && finding.case_().net().op_size() > 0, ErrorKind::kInvalidNet,
                 path, " holds no case to replay: is it a finding?");
  oracles::CheckRequest request;
  request.backend = !options.engine.empty() ? options.engine
                    : finding.has_backend() ? finding.backend()
                                            : std::string(oracles::kProduction);
  if (fuzz::IsWorkerOracle(finding.oracle())) return ReplayInWorker(finding, request, verbose);
  request.oracles = {finding.oracle()};
  const CaseReport report = oracles::CheckCase(finding.case_(), request);
  const OracleVerdict& verdict = report.verdicts(0);
  if (verdict.status() == OracleVerdict::FINDING) {
    std::cout << "reproduced on " << request.backend << ":\n";
    if (verdict.has_finding()) {
      std::cout << (verbose ? oracles::DescribeFinding(verdict.finding())
                            : oracles::DescribeFindingBrief(verdict.finding()));
    }
    return Replay::kReproduces;
  }
  if (verdict.status() == OracleVerdict::REJECTED) {
    // The saved case cannot run at all: that is no verdict on a fix.
    std::cerr << "parity repro: " << verdict.error_kind()
              << ": the finding's case cannot run: " << Printable(verdict.reason()) << "\n";
    return Replay::kCannotRun;
  }
  std::cout << "[" << finding.oracle() << "] no longer reproduces on " << request.backend
            << (verdict.status() == OracleVerdict::NOT_APPLICABLE
                    ? " (not applicable: " + Printable(verdict.reason()) + ")"
                    : "")
            << "\n";
  return Replay::kFixed;
}

// The finding files under `dir`: one per signature directory of a campaign corpus (its
// reduced.pb, else its case.pb: fuzz/corpus.h), and every other .pb (each saved finding also has a
// .pbtxt twin), or .pbtxt where there is no .pb; sorted.
std::vector<std::string> FindingFiles(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<std::string> files, pb, pbtxt;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    const fs::path& path = entry.path();
    if (!entry.is_regular_file()) continue;
    if (fs::exists(path.parent_path() / "finding.json")) {
      if (path.filename() != "finding.json") continue;
      const fs::path reduced = path.parent_path() / "reduced.pb";
      files.push_back((fs::exists(reduced) ? reduced : path.parent_path() / "case.pb").string());
      continue;
    }
    if (path.extension() == ".pb") pb.push_back(path.string());
    if (path.extension() == ".pbtxt") pbtxt.push_back(path.string());
  }
  std::sort(pb.begin(), pb.end());
  files.insert(files.end(), pb.begin(), pb.end());
  for (const std::string& text : pbtxt) {
    const std::string twin = text.substr(0, text.size() - 3);  // a.pbtxt -> a.pb
    if (!std::binary_search(pb.begin(), pb.end(), twin)) files.push_back(text);
  }
  std::sort(files.begin(), files.end());
  return files;
}

int ReproCorpus(const ReproOptions& options) {
  const std::vector<std::string> files = FindingFiles(options.path);
  PARITY_ENFORCE(!files.empty(), ErrorKind::kIo, "no finding files (.pb, .pbtxt) under ",
                 options.path);
  int reproduces = 0, fixed = 0, cannot_run = 0;
  for (const std::string& file : files) {
    std::cout << Printable(file) << ": ";
    try {
      switch (ReplayFinding(file, options, /*verbose=*/false)) {
        case Replay::kReproduces:
          ++reproduces;
          break;
        case Replay::kFixed:
          ++fixed;
          break;
        case Replay::kCannotRun:
          ++cannot_run;
          std::cout << "cannot run\n";
          break;
      }
    } catch (const Error& error) {
      ++cannot_run;
      std::cout << "cannot replay: " << Printable(error.what()) << "\n";
    }
  }
  std::cout << files.size() << " finding(s): " << reproduces << " still reproduce, " << fixed
            << " fixed, " << cannot_run << " cannot run\n";
  if (reproduces > 0) return kExitDiscrepancies;
  return cannot_run > 0 ? kExitBadInput : kExitClean;
}

int Repro(const ReproOptions& options) {
  if (std::filesystem::is_directory(options.path)) return ReproCorpus(options);
  switch (ReplayFinding(options.path, options, /*verbose=*/true)) {
    case Replay::kReproduces:
      return kExitDiscrepancies;
    case Replay::kFixed:
      return kExitClean;
    case Replay::kCannotRun:
      return kExitBadInput;
  }
  return kExitBadInput;
}

PARITY_REGISTER_COMMAND(Command{
    "repro", "Re-run a saved finding", [](CLI::App* app) {
      app->footer(Examples({
          {"parity repro parity-out/findings/SIGNATURE/reduced.pb",
           "exit 1: it still reproduces; 0: fixed; 2: it cannot run"},
          {"parity repro parity-out", "one line per signature: reproduces, fixed or cannot run"},
          {"parity repro finding.pb --engine reference-f32", "replay the case on another backend"},
      }));
      auto options = std::make_shared<ReproOptions>();
      app->add_option("finding", options->path,
                      "Finding file (.pb or .pbtxt), or a directory: every finding under it")
          ->required();
      app->add_option("--engine", options->engine,
                      "Replay on this backend instead of the one the finding names");
      return [options] { return Repro(*options); };
    }});

}  // namespace
}  // namespace parity::tools
