// A campaign's progress on disk, DIR/state.json, so that the same command after a kill -9 (or
// Ctrl-C) resumes without losing or duplicating a case or a finding:
//
// * "options": what defines the campaign's cases and verdicts (seed, budget, ops, oracles,
//   backend, shard, limits, reduction). A command with other options is refused.
// * "cursor", "done_above", "handed_out": the lowest case index not done, the done indices above
//   it, and the first index not yet handed out. The resumed campaign runs every index not done,
//   from the cursor up; those below "handed_out" were in flight when it stopped and run whatever
//   the time budget says (the killed run had started them).
// * "tally", "elapsed_seconds", "workers_replaced", "findings_saved", "reductions", "unreduced":
//   the counters of the cases done, and the reductions done and still to do.
// * "corpus": the corpus's bookkeeping (fuzz/corpus.h) as of the same moment.
//
// The campaign writes it atomically once a second, at the end, and around every finding: before
// the corpus is written (the finding's case still in flight) and after (the case done). So every
// file the corpus holds comes from a case that is either done in state.json or re-run first on
// resume, and the resumed corpus restores its counts from the state, not from what a killed run
// may have written after it.
#ifndef PARITY_FUZZ_CAMPAIGN_STATE_H_
#define PARITY_FUZZ_CAMPAIGN_STATE_H_

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "fuzz/campaign.h"
#include "oracles/check.h"

namespace parity::fuzz {

// The campaign's case indices (shard_index, shard_index + shard_count, ...) and which are done.
class CaseCursor {
 public:
  CaseCursor(int64_t shard_index, int64_t shard_count)
      : stride_(shard_count), first_(shard_index), lowest_(shard_index), next_(shard_index) {}

  // The next index to hand out (not done), and handing it out.
  int64_t Peek();
  void HandOut() { next_ = Peek() + stride_; }
  void Done(int64_t index);

  // How many of the shard's indices are done (what the campaign's tally counts as cases).
  int64_t DoneCount() const;

  // Whether `index` was in flight when the campaign this one resumes stopped.
  bool WasInFlight(int64_t index) const { return index < resumed_handed_out_; }

  nlohmann::json ToJson() const;
  // Continues from a saved cursor: hands out again from the lowest index not done. Throws
  // kInvalidNet for a cursor that is not this shard's (an index of another shard, below the
  // first, past kMaxCaseIndex, or done indices at or below the cursor).
  void Resume(const nlohmann::json& j);

  // No campaign gets near it; a saved index above it is a tampered file, and below it the cursor's
  // arithmetic (index + stride) cannot overflow.
  static constexpr int64_t kMaxCaseIndex = int64_t{1} << 53;

 private:
  int64_t stride_;
  int64_t first_;                 // the shard's first index (its index among the shards)
  int64_t lowest_;                // every index below it is done
  std::set<int64_t> done_above_;  // done indices above `lowest_`
  int64_t next_;                  // hand-out position
  int64_t resumed_handed_out_ = -1;
};

class Corpus;

// What state.json holds besides the cursor and the corpus (which are restored in place).
struct SavedCampaign {
  oracles::CheckTally tally;
  int64_t workers_replaced = 0;
  int64_t findings_saved = 0;
  std::map<std::string, CampaignSummary::Reduction> reductions;
  std::vector<std::string> unreduced;
  double elapsed_seconds = 0;
};

// Reads state.json's text (`path` names it in messages) for a campaign run with `options`:
// refuses a file of another campaign, restores `cursor` and `corpus`, and returns the rest.
// Anything malformed, of the wrong type or inconsistent (a tally that does not count the cursor's
// cases) is a kInvalidNet parity::Error naming the file; nothing else escapes.
SavedCampaign ReadCampaignState(const std::string& text, const std::string& path,
                                const CampaignOptions& options, CaseCursor* cursor, Corpus* corpus);

// The options that define a campaign's cases and verdicts (not --jobs: any job count runs the
// same cases to the same verdicts).
nlohmann::json CampaignIdentity(const CampaignOptions& options);

// Throws kBadArgument naming each option that differs, unless they are all the same.
void EnforceSameCampaign(const nlohmann::json& saved, const nlohmann::json& now,
                         const std::string& out_dir);

nlohmann::json TallyToJson(const oracles::CheckTally& tally);
oracles::CheckTally TallyFromJson(const nlohmann::json& j);

nlohmann::json ReductionsToJson(const std::map<std::string, CampaignSummary::Reduction>& r);
std::map<std::string, CampaignSummary::Reduction> ReductionsFromJson(const nlohmann::json& j);

// Removes what a campaign writes into `out_dir` (findings/, state.json, summary.json,
// junit.xml), and nothing else, for --fresh.
void RemoveCampaign(const std::string& out_dir);

}  // namespace parity::fuzz

#endif  // PARITY_FUZZ_CAMPAIGN_STATE_H_
