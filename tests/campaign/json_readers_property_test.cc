// The campaign's JSON readers fuzzed (hardening 2): finding.json (read by a resumed campaign and by
// `parity merge`) and state.json (read by a resumed campaign) come from disk, where a user, a
// script or a half-copied shard may have changed anything. RapidCheck edits real files (a value
// replaced by an extreme, a field deleted, an array where a number was) and the readers must end
// in the file read or in a parity::Error, never in another exception, a crash or undefined
// behaviour (CI runs this under ASan and UBSan too). What they accept must also make sense: every
// count a merge produces is a number of findings (>= 1), and a resumed campaign runs only its own
// case indices.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <cstdint>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/io.h"
#include "core/proto/error.h"
#include "fuzz/campaign.h"
#include "fuzz/corpus.h"
#include "fuzz/testing/campaign_files.h"
#include "oracles/check.h"
#include "oracles/finding.h"
#include "tests/cli/cli_util.h"

namespace parity::fuzz {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using parity::testing::TestTmp;

// `doc` with 1-4 random edits: a node replaced by a hostile value, or deleted.
json EditedDocument(json doc) {
  const int edits = *rc::gen::inRange(1, 5);
  for (int e = 0; e < edits; ++e) {
    const std::vector<json::json_pointer> pointers = JsonPointers(doc);
    if (pointers.empty()) break;
    const json::json_pointer target = *rc::gen::elementOf(pointers);
    if (*rc::gen::inRange(0, 4) == 0) {
      EraseJsonNode(&doc, target);
    } else {
      doc[target] = *rc::gen::elementOf(HostileJsonValues());
    }
  }
  return doc;
}

// Runs `read` and tells whether it accepted the input; anything but a parity::Error fails.
template <typename Read>
bool AcceptedOrClearError(const Read& read) {
  try {
    read();
    return true;
  } catch (const Error&) {
    return false;
  }
}

TEST(JsonReaders, EditedFindingJsonIsReadOrRefusedAndMergesCountSanely) {
  const std::string base = TestTmp() + "/finding_json";
  const std::string original = RealCorpus(base + "/original");
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(original)) {
    files.push_back(entry.path().filename().string());
  }
  ASSERT_EQ(files.size(), 2u);
  int accepted = 0, refused = 0;
  EXPECT_TRUE(rc::check("an edited finding.json is read, or refused with a parity::Error", [&] {
    const std::string name = *rc::gen::elementOf(files);
    const json doc = json::parse(ReadFileBytes(original + "/" + name + "/finding.json"));
    const json edited = EditedDocument(doc);
    const std::string shard = base + "/shard";
    fs::remove_all(shard);
    fs::copy(original, shard, fs::copy_options::recursive);
    WriteFileAtomic(shard + "/" + name + "/finding.json", edited.dump());
    const bool read = AcceptedOrClearError([&] { Corpus reread(shard); });
    // `parity merge` of the same shard into two targets in a row: counts add up, and whatever a
    // merge accepts leaves every signature with at least one finding.
    const std::string merged = base + "/merged";
    fs::remove_all(merged);
    const bool merged_ok = AcceptedOrClearError([&] {
      Corpus target(merged);
      target.Merge(shard);
      target.Merge(shard);
      for (const auto& [key, entry] : target.entries()) RC_ASSERT(entry.count >= 1);
    });
    // The merge reads the shard with the same reader (and may still refuse a sum that overflows).
    RC_ASSERT(read || !merged_ok);
    ++(read ? accepted : refused);
  }));
  // The edits must exercise both answers, or the property proves little.
  EXPECT_GT(accepted, 0);
  EXPECT_GT(refused, 0);
}

TEST(JsonReaders, EditedStateJsonResumesOrIsRefused) {
  const std::string base = TestTmp() + "/state_json";
  CampaignOptions options;
  options.cases = 6;
  options.jobs = 0;
  options.ops = {"Relu", "Sigmoid"};
  options.nets = false;
  options.out_dir = base + "/original";
  fs::remove_all(options.out_dir);
  RunCampaign(options, nullptr);
  // The corpus part of state.json, from a real corpus (the campaign above finds nothing).
  json state = json::parse(ReadFileBytes(options.out_dir + "/state.json"));
  Corpus corpus(RealCorpus(base + "/corpus"));
  state["corpus"] = corpus.Snapshot();
  // The unedited state resumes (the readers do not refuse everything).
  CampaignOptions unedited = options;
  unedited.out_dir = base + "/unedited";
  fs::remove_all(unedited.out_dir);
  MakeDirs(unedited.out_dir + "/findings");
  WriteFileAtomic(unedited.out_dir + "/state.json", state.dump());
  EXPECT_EQ(RunCampaign(unedited, nullptr).tally.cases, options.cases);
  int refused = 0;
  EXPECT_TRUE(rc::check("an edited state.json resumes, or is refused with a parity::Error", [&] {
    const json edited = EditedDocument(state);
    CampaignOptions resumed = options;
    resumed.out_dir = base + "/resumed";
    fs::remove_all(resumed.out_dir);
    MakeDirs(resumed.out_dir + "/findings");
    WriteFileAtomic(resumed.out_dir + "/state.json", edited.dump());
    CampaignSummary summary;
    const bool ok = AcceptedOrClearError([&] { summary = RunCampaign(resumed, nullptr); });
    if (ok) {
      // Whatever was accepted, the campaign ran no case outside [0, 6): its tally never exceeds
      // the budget, and every saved finding names one of its own indices.
      RC_ASSERT(summary.tally.cases <= options.cases);
      const Corpus saved(resumed.out_dir + "/findings");
      for (const auto& [key, entry] : saved.entries()) {
        RC_ASSERT(entry.count >= 1);
      }
    }
    if (!ok) ++refused;
  }));
  EXPECT_GT(refused, 0);  // the edits reach the validation
}

}  // namespace
}  // namespace parity::fuzz
