// parity merge DIR... -o OUT: unites campaign corpora (shards of one nightly campaign, or runs of
// several nights) by signature into OUT/findings, as fuzz/corpus.h describes: counts add up, the
// first case is the lowest case index, the smallest and the reduced case the smallest there is.
// A DIR may be a campaign's out dir or its findings/ directory.
//
// Idempotent: a campaign's cases are identified by its seed, shard and what it draws (generator
// version, ops, oracles, nets, backend), so OUT/merged.json records the campaigns merged into it,
// and a campaign met again (the same DIR twice, DIR and DIR/findings, a second merge of the same
// shard) is skipped, never counted twice. Atomic: the merged corpus is built beside OUT and
// renamed into place only when every input merged; a merge that fails leaves OUT as it was (and
// creates nothing when OUT did not exist).
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "core/io.h"
#include "core/proto/error.h"
#include "fuzz/campaign.h"
#include "fuzz/corpus.h"
#include "oracles/describe.h"
#include "tools/command.h"

namespace parity::tools {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

struct MergeOptions {
  std::vector<std::string> inputs;
  std::string out;
};

std::string FindingsDir(const std::string& dir) {
  if (fs::is_directory(fs::path(dir) / "findings")) return dir + "/findings";
  PARITY_ENFORCE(fs::is_directory(dir), ErrorKind::kIo, "merge: no campaign corpus at ", dir);
  return dir;
}

// The campaign dir holding a findings dir (its parent), where summary.json and merged.json live.
std::string CampaignDirOf(const std::string& findings_dir) {
  return fs::weakly_canonical(fs::path(findings_dir)).parent_path().string();
}

Json ReadJsonFile(const std::string& path) {
  try {
    return Json::parse(ReadFileBytes(path));
  } catch (const Json::exception& error) {
    throw MakeError(ErrorKind::kInvalidNet, "merge: ", path, " is not valid JSON: ", error.what());
  }
}

// The campaigns a corpus holds, each by its identity: merged.json's list for a merged corpus, the
// identity of the campaign in summary.json otherwise, or (a bare findings dir) its real path.
std::set<std::string> CampaignsIn(const std::string& findings_dir) {
  const std::string dir = CampaignDirOf(findings_dir);
  if (fs::exists(dir + "/merged.json")) {
    const Json merged = ReadJsonFile(dir + "/merged.json");
    PARITY_ENFORCE(merged.is_object() && merged.contains("campaigns") &&
                       merged["campaigns"].is_array(),
                   ErrorKind::kInvalidNet, "merge: ", dir,
                   "/merged.json has no list 'campaigns'");
    std::set<std::string> campaigns;
    for (const Json& c : merged["campaigns"]) {
      PARITY_ENFORCE(c.is_string(), ErrorKind::kInvalidNet, "merge: ", dir,
                     "/merged.json: every entry of 'campaigns' must be a string");
      campaigns.insert(c.get<std::string>());
    }
    return campaigns;
  }
  if (fs::exists(dir + "/summary.json")) {
    const Json s = ReadJsonFile(dir + "/summary.json");
    PARITY_ENFORCE(s.is_object(), ErrorKind::kInvalidNet, "merge: ", dir,
                   "/summary.json is not a JSON object");
    Json identity = Json::object();
    for (const char* field :
         {"generator_version", "seed", "backend", "ops", "oracles", "nets", "shard"}) {
      PARITY_ENFORCE(s.contains(field), ErrorKind::kInvalidNet, "merge: ", dir,
                     "/summary.json lacks '", field, "'");
      identity[field] = s[field];
    }
    return {identity.dump(-1, ' ', false, Json::error_handler_t::replace)};
  }
  return {"dir:" + fs::weakly_canonical(fs::path(findings_dir)).string()};
}

// A fresh folder beside `path` for building its replacement.
std::string Beside(const std::string& path, const std::string& what) {
  const fs::path target = fs::absolute(fs::path(path)).lexically_normal();
  return (target.parent_path() /
          ("." + target.filename().string() + "." + what + "." + std::to_string(::getpid())))
      .string();
}

int Merge(const MergeOptions& options) {
  const std::string out = fs::absolute(fs::path(options.out)).lexically_normal().string();
  PARITY_ENFORCE(!fs::exists(out) || fs::is_directory(out), ErrorKind::kIo, "merge: -o ", out,
                 " exists and is not a directory");
  const std::string out_findings = out + "/findings";
  for (const std::string& input : options.inputs) {
    PARITY_ENFORCE(fs::weakly_canonical(FindingsDir(input)) != fs::weakly_canonical(out_findings),
                   ErrorKind::kBadArgument, "merge: ", input, " is the output corpus itself");
  }
  // The build: OUT's own corpus first (merging into it continues it), then every input.
  const std::string building = Beside(out, "merging");
  fs::remove_all(building);
  int64_t merged_now = 0, skipped = 0;
  std::set<std::string> campaigns;
  try {
    fuzz::MakeDirs(building + "/findings");
    fuzz::Corpus corpus(building + "/findings");
    if (fs::is_directory(out_findings)) {
      corpus.Merge(out_findings);
      campaigns = CampaignsIn(out_findings);
    }
    for (const std::string& input : options.inputs) {
      const std::string findings = FindingsDir(input);
      const std::set<std::string> theirs = CampaignsIn(findings);
      size_t known = 0;
      for (const std::string& c : theirs) known += campaigns.count(c);
      if (known == theirs.size()) {
        std::cout << "  skipped " << Printable(input)
                  << ": its campaign is merged already (same seed, shard and draws)\n";
        ++skipped;
        continue;
      }
      PARITY_ENFORCE(known == 0, ErrorKind::kBadArgument, "merge: ", input, " holds ", known,
                     " of its ", theirs.size(),
                     " campaigns merged already: its counts cannot be split, merge the others");
      corpus.Merge(findings);
      campaigns.insert(theirs.begin(), theirs.end());
      ++merged_now;
    }
    Json manifest = {{"campaigns", Json(std::vector<std::string>(campaigns.begin(),
                                                                  campaigns.end()))}};
    WriteFileAtomic(building + "/merged.json",
                    manifest.dump(1, ' ', false, Json::error_handler_t::replace) + "\n");
  } catch (...) {
    std::error_code ignored;
    fs::remove_all(building, ignored);
    throw;
  }
  // Into place: OUT's findings and merged.json are replaced; anything else in OUT (a campaign's
  // summary.json, report/) stays.
  fuzz::MakeDirs(out);
  const std::string old = Beside(out_findings, "old");
  fs::remove_all(old);
  if (fs::exists(out_findings)) fs::rename(out_findings, old);
  fs::rename(building + "/findings", out_findings);
  fs::rename(building + "/merged.json", out + "/merged.json");
  fs::remove_all(old);
  fs::remove_all(building);

  const fuzz::Corpus corpus(out_findings);
  int64_t findings = 0;
  for (const auto& [key, entry] : corpus.entries()) {
    findings += entry.count;
    std::cout << "  " << Printable(key) << ": " << entry.count << " (first case #"
              << entry.first.index << ", smallest " << entry.smallest_size.ops << " ops)\n";
  }
  std::cout << "merged " << merged_now << " corpora (" << skipped << " skipped): " << findings
            << " finding(s), " << corpus.entries().size() << " signature(s) under "
            << corpus.dir() << "\n";
  return kExitClean;
}

PARITY_REGISTER_COMMAND(Command{
    "merge", "Unite campaign corpora (shards, nights) by signature", [](CLI::App* app) {
      app->footer(Examples({
          {"parity merge shard0 shard1 shard2 shard3 -o night",
           "the shards of one nightly campaign, by signature"},
          {"parity merge night-1127 night-1128 -o week", "several nights into one corpus"},
      }));
      auto options = std::make_shared<MergeOptions>();
      app->add_option("dirs", options->inputs, "Campaign out dirs (or their findings/)")
          ->required();
      app->add_option("-o,--out", options->out, "The merged campaign dir")->required();
      return [options] { return Merge(*options); };
    }});

}  // namespace
}  // namespace parity::tools
