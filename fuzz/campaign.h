// A fuzz campaign: generated cases (single ops and whole nets, alternating) through every
// applicable oracle, with progress, findings saved as they come (atomically), and a summary
// (fuzz/campaign_report.h writes it as summary.json and junit.xml). With jobs > 0 the cases run in
// that many worker processes (fuzz/sandbox.h): a case that crashes, hangs or exhausts memory is a
// finding (oracle crash, hang or resource) and its worker is replaced.
#ifndef PARITY_FUZZ_CAMPAIGN_H_
#define PARITY_FUZZ_CAMPAIGN_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "core/proto/parity.pb.h"
#include "fuzz/sandbox.h"
#include "oracles/check.h"

namespace parity::fuzz {

struct CampaignOptions {
  int64_t cases = -1;   // stop after this many cases (-1: no limit)
  double seconds = -1;  // stop after this long (-1: no limit); one of the two must be set
  uint64_t seed = 1;
  // Findings go to out_dir/findings/ (fuzz/corpus.h; "" = not saved), progress to
  // out_dir/state.json (fuzz/campaign_state.h): a campaign whose state.json is there resumes.
  std::string out_dir;
  bool fresh = false;            // start over: remove out_dir's campaign files first
  std::vector<std::string> ops;  // restrict to these op types (empty: every spec)
  std::vector<std::string> oracles;    // empty: oracles::DefaultOracles()
  std::string backend = "production";  // the backend under test (oracles/backend.h)
  bool nets = true;                    // alternate single-op cases with whole nets
  // This campaign's slice of the case indices: index % shard_count == shard_index. Shards of one
  // seed together run exactly the cases one unsharded campaign would (with --cases, the same
  // indices below the budget).
  int64_t shard_index = 0;
  int64_t shard_count = 1;
  // Worker processes running the cases; 0 runs them in this process, with no isolation (what the
  // in-process mutant hunts do: a mutant lives in this process).
  int jobs = 0;
  SandboxLimits limits;  // per case, in each worker
  // After the cases: each signature new to the corpus is reduced (fuzz/reduce.h) for up to this
  // many seconds, and saved as its reduced.pb; 0 does not reduce (nor without an out dir).
  double reduce_seconds = 0;
  // Set (by a signal handler) to stop between cases; the summary covers the cases run so far.
  const std::atomic<bool>* stop = nullptr;
};

struct CampaignSummary {
  oracles::CheckTally tally;  // cases, findings, per oracle, per signature, per op type
  double seconds = 0;
  bool interrupted = false;    // stopped by `stop` before its budget ran out
  int64_t resumed_cases = 0;   // cases done before this run (from out_dir/state.json)
  int64_t findings_saved = 0;  // findings recorded in out_dir/findings (fuzz/corpus.h)
  // SignatureKey -> its first finding (the lowest case index: the same whatever the job count)
  std::map<std::string, Finding> first_finding;
  std::map<std::string, std::string> first_saved;  // SignatureKey -> its case.pb in the corpus
  int64_t workers_replaced = 0;                    // workers that died on a case
  // SignatureKey -> how its reduction went, for signatures new to the corpus.
  struct Reduction {
    int64_t ops_before = 0, ops_after = 0, elements_before = 0, elements_after = 0;
    double seconds = 0;
    bool reproduced = false;
  };
  std::map<std::string, Reduction> reductions;
};

class CampaignProgress;

// The case for campaign position `index` (reproducible from seed and index).
Case CampaignCase(const CampaignOptions& options, int64_t index);

// The oracle of a finding made when drawing a case threw (fuzz/campaign.cc, DrawCampaignCase).
inline constexpr char kDrawOracle[] = "draw";

// The case at `index`, or, when drawing it throws (the generators run engine code: shape
// inference, the builders' backward pass), an empty placeholder case carrying its seed and a
// report whose one verdict is a `draw` finding with the error. Options the user got wrong (an
// --ops entry without a spec) still throw.
struct DrawnCase {
  Case c;
  bool failed = false;
  CaseReport failure;
};
DrawnCase DrawCampaignCase(const CampaignOptions& options, int64_t index);

// Runs the campaign; `progress` (may be null) is told about every second and every finding.
CampaignSummary RunCampaign(const CampaignOptions& options, CampaignProgress* progress,
                            const std::function<void(const Finding&)>& on_finding = nullptr);

// Creates `path` and its parents; kIo when it cannot.
void MakeDirs(const std::string& path);

}  // namespace parity::fuzz

#endif  // PARITY_FUZZ_CAMPAIGN_H_
