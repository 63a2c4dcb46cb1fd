#include "fuzz/campaign.h"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "core/io.h"
#include "core/proto/error.h"
#include "fuzz/campaign_report.h"
#include "fuzz/generators.h"
#include "fuzz/spec.h"
#include "oracles/backend.h"
#include "oracles/finding.h"
#include "oracles/seeds.h"

namespace parity::fuzz {
namespace {

std::vector<std::string> SpecTypes(const std::vector<std::string>& ops) {
  std::vector<std::string> all = SpecRegistry::Types();
  if (ops.empty()) return all;
  for (const auto& op : ops) {
    PARITY_ENFORCE(SpecRegistry::Find(op) != nullptr, ErrorKind::kBadArgument,
                   "--ops: no spec for ", "op type '", op, "'");
  }
  return ops;
}

std::string Sanitize(std::string s) {
  for (char& ch : s) {
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '-' && ch != '_') ch = '_';
  }
  return s;
}

}  // namespace

void MakeDirs(const std::string& path) {
  std::string partial;
  for (size_t i = 0; i <= path.size(); ++i) {
    if (i == path.size() || path[i] == '/') {
      if (!partial.empty()) ::mkdir(partial.c_str(), 0755);
    }
    if (i < path.size()) partial += path[i];
  }
  struct stat st;
  PARITY_ENFORCE(::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode), ErrorKind::kIo,
                 "cannot create directory ", path);
}

Case CampaignCase(const CampaignOptions& options, int64_t index) {
  uint64_t seed = oracles::SeedAt(options.seed, static_cast<uint64_t>(index));
  std::vector<std::string> types = SpecTypes(options.ops);
  PARITY_ENFORCE(!types.empty(), ErrorKind::kBadArgument, "no op specs to fuzz");
  bool net = options.nets && index % 2 == 1;
  if (net) {
    NetGenOptions net_options;
    net_options.ops = options.ops;
    bool any = std::any_of(types.begin(), types.end(), [](const std::string& t) {
      return SpecRegistry::Find(t)->consumes_intermediates();
    });
    if (any) {
      // Ops that rarely chain (a narrow --ops set) may give no net for a seed: that index is a
      // single-op case instead, so the campaign goes on (and stays reproducible).
      if (std::optional<Case> c = TrySampleCase(NetCaseGen(net_options), seed)) return *c;
    }
  }
  const OpSpec& spec = *SpecRegistry::Find(types[seed % types.size()]);
  return SampleCase(OpCaseGen(spec), seed);
}

std::string SaveFinding(const std::string& dir, const Finding& finding) {
  MakeDirs(dir);
  std::string base = dir + "/" + Sanitize(oracles::SignatureKey(finding.signature())) + "-" +
                     std::to_string(finding.case_().seed());
  Finding saved = finding;
  saved.set_repro_command("parity repro " + base + ".pb");
  SaveProtoFile(base + ".pb", saved);
  SaveProtoFile(base + ".pbtxt", saved);
  return base + ".pb";
}

CampaignSummary RunCampaign(const CampaignOptions& options, CampaignProgress* progress,
                            const std::function<void(const Finding&)>& on_finding) {
  PARITY_ENFORCE(options.cases >= 0 || options.seconds >= 0, ErrorKind::kBadArgument,
                 "give --cases N or --seconds N");
  oracles::CheckRequest request;
  request.oracles = options.oracles;
  request.backend = options.backend;
  oracles::GetBackend(options.backend);           // an unknown name fails before the first case
  oracles::EnforceKnownOracles(options.oracles);  // so does an unknown oracle, in any shard
  CampaignSummary summary;
  oracles::CheckTally& tally = summary.tally;
  auto start = std::chrono::steady_clock::now();
  auto last_report = start;
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  PARITY_ENFORCE(options.shard_count >= 1 && options.shard_index >= 0 &&
                     options.shard_index < options.shard_count,
                 ErrorKind::kBadArgument, "shard ", options.shard_index, " of ",
                 options.shard_count, ": want 0 <= index < count");
  for (int64_t index = options.shard_index;; index += options.shard_count) {
    if (options.cases >= 0 && index >= options.cases) break;
    if (options.seconds >= 0 && elapsed() >= options.seconds) break;
    if (options.stop != nullptr && options.stop->load()) {
      summary.interrupted = true;
      break;
    }
    Case c = CampaignCase(options, index);
    CaseReport report = oracles::CheckCase(c, request);
    tally.Add(c, report);
    for (const Finding& finding : oracles::Findings(report)) {
      std::string saved;
      if (!options.out_dir.empty()) {
        saved = SaveFinding(options.out_dir + "/findings", finding);
        summary.saved.push_back(saved);
      }
      const std::string key = oracles::SignatureKey(finding.signature());
      if (summary.first_finding.emplace(key, finding).second && !saved.empty()) {
        summary.first_saved[key] = saved;
      }
      if (progress != nullptr) progress->OnFinding(finding, saved, tally, elapsed());
      if (on_finding) on_finding(finding);
    }
    auto now = std::chrono::steady_clock::now();
    if (progress != nullptr && std::chrono::duration<double>(now - last_report).count() >= 1.0) {
      last_report = now;
      progress->Update(tally, elapsed());
    }
  }
  summary.seconds = elapsed();
  if (progress != nullptr) {
    progress->Update(tally, summary.seconds);
    progress->Finish();
  }
  return summary;
}

}  // namespace parity::fuzz
