// libFuzzer target for the campaign's JSON readers (hardening 2): finding.json, read by a resumed
// campaign and by `parity merge`, and state.json, read by a resumed campaign. Both come from disk,
// where a user, a script or a half-copied shard may have changed anything. Whatever the bytes, a
// reader ends in the file read or in a parity::Error, never in another exception, a crash or
// undefined behaviour (built with ASan and UBSan); and what it accepts makes sense, checked here:
// a merged count is the sum of the counts merged and never below 1, and a resumed cursor hands
// out only the campaign's own case indices.
//
// The first byte picks what the rest is, and how it is read:
//   0: finding.json's whole text, in one signature of a real corpus; the corpus is read, then
//      merged twice into an empty one;
//   1: edits of a real finding.json, steered by the bytes (a value replaced by an extreme, a field
//      deleted), read and merged the same way: the fuzzer reaches the fields, not only the parser;
//   2: state.json's whole text, read for a fixed campaign;
//   3: edits of a real state.json (from a campaign run once at start), read likewise.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/io.h"
#include "core/proto/error.h"
#include "fuzz/campaign.h"
#include "fuzz/campaign_state.h"
#include "fuzz/corpus.h"
#include "fuzz/testing/campaign_files.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// `doc` edited by the bytes, two at a time: (which node, what to put there or delete it).
std::string Edited(json doc, const uint8_t* bytes, size_t size) {
  const std::vector<json>& hostile = parity::fuzz::HostileJsonValues();
  for (size_t k = 0; k + 1 < size; k += 2) {
    const std::vector<json::json_pointer> pointers = parity::fuzz::JsonPointers(doc);
    if (pointers.empty()) break;
    const json::json_pointer target = pointers[bytes[k] % pointers.size()];
    if (bytes[k + 1] >= 240) {
      parity::fuzz::EraseJsonNode(&doc, target);
    } else {
      doc[target] = hostile[bytes[k + 1] % hostile.size()];
    }
  }
  return doc.dump();
}

// A property the readers must keep: a violation is a bug, reported as a crash.
void Require(bool holds, const char* what) {
  if (holds) return;
  std::fprintf(stderr, "campaign_json target: %s\n", what);
  std::abort();
}

struct World {
  std::string base;                  // a private temp dir
  std::string corpus;                // base/original: a real corpus, two signatures
  std::vector<std::string> entries;  // its signature dirs' names
  std::string finding_json;          // the first entry's finding.json
  std::string state_json;            // a real campaign's state.json
  parity::fuzz::CampaignOptions options;
};

const World& TheWorld() {
  static const World world = [] {
    World w;
    char tmpl[] = "/tmp/parity-campaign-json.XXXXXX";
    Require(::mkdtemp(tmpl) != nullptr, "mkdtemp failed");
    w.base = tmpl;
    static std::string to_remove;
    to_remove = w.base;
    std::atexit([] {
      std::error_code ignored;
      fs::remove_all(to_remove, ignored);
    });
    w.corpus = parity::fuzz::RealCorpus(w.base + "/original");
    for (const auto& entry : fs::directory_iterator(w.corpus)) {
      w.entries.push_back(entry.path().filename().string());
    }
    std::sort(w.entries.begin(), w.entries.end());
    w.finding_json = parity::ReadFileBytes(w.corpus + "/" + w.entries[0] + "/finding.json");
    w.options.cases = 4;
    w.options.jobs = 0;
    w.options.ops = {"Relu"};
    w.options.nets = false;
    w.options.reduce_seconds = 0;
    w.options.out_dir = w.base + "/campaign";
    parity::fuzz::RunCampaign(w.options, nullptr);
    json state = json::parse(parity::ReadFileBytes(w.options.out_dir + "/state.json"));
    state["corpus"] = parity::fuzz::Corpus(w.corpus).Snapshot();
    w.state_json = state.dump();
    return w;
  }();
  return world;
}

// Reads a corpus whose first entry's finding.json is `text`, and merges it twice into an empty
// corpus: counts double, and none is below 1.
void ReadFinding(const World& w, const std::string& text) {
  const std::string shard = w.base + "/shard", merged = w.base + "/merged";
  fs::remove_all(shard);
  fs::remove_all(merged);
  fs::copy(w.corpus, shard, fs::copy_options::recursive);
  parity::WriteFileAtomic(shard + "/" + w.entries[0] + "/finding.json", text);
  std::map<std::string, int64_t> counts;
  try {
    parity::fuzz::Corpus read(shard);
    for (const auto& [key, entry] : read.entries()) {
      Require(entry.count >= 1, "a corpus entry read with a count below 1");
      counts[key] = entry.count;
    }
  } catch (const parity::Error&) {
    return;  // refused with a clear error: the right answer to a broken file
  }
  try {
    parity::fuzz::Corpus target(merged);
    target.Merge(shard);
    target.Merge(shard);
    const auto& entries = target.entries();
    Require(entries.size() == counts.size(), "a merge lost or invented a signature");
    for (const auto& [key, entry] : entries) {
      Require(counts.count(key) && entry.count == 2 * counts[key],
              "a corpus merged twice does not count each finding twice");
    }
  } catch (const parity::Error&) {
    // A sum that overflows is refused.
  }
}

// Reads state.json's `text` for the world's campaign: a cursor it accepts hands out only the
// campaign's own indices, and its tally counts the cursor's done cases.
void ReadState(const World& w, const std::string& text) {
  const std::string findings = w.base + "/resumed/findings";
  fs::remove_all(w.base + "/resumed");
  parity::fuzz::MakeDirs(findings);
  parity::fuzz::CaseCursor cursor(0, 1);
  parity::fuzz::Corpus corpus(findings);
  try {
    const parity::fuzz::SavedCampaign saved =
        parity::fuzz::ReadCampaignState(text, "state.json", w.options, &cursor, &corpus);
    Require(saved.tally.cases == cursor.DoneCount(), "a tally that does not count the cursor's");
    const int64_t next = cursor.Peek();
    Require(next >= 0 && next <= parity::fuzz::CaseCursor::kMaxCaseIndex,
            "a resumed cursor hands out an index outside the campaign");
    for (const auto& [key, entry] : corpus.entries()) {
      Require(entry.count >= 1, "a restored corpus entry with a count below 1");
      Require(fs::path(entry.dir).parent_path() == fs::path(findings),
              "a restored corpus entry outside findings/");
    }
  } catch (const parity::Error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const World& w = TheWorld();
  const std::string rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 4) {
    case 0:
      ReadFinding(w, rest);
      break;
    case 1:
      ReadFinding(w, Edited(json::parse(w.finding_json), data + 1, size - 1));
      break;
    case 2:
      ReadState(w, rest);
      break;
    default:
      ReadState(w, Edited(json::parse(w.state_json), data + 1, size - 1));
      break;
  }
  return 0;
}
