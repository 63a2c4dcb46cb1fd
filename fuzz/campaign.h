// A fuzz campaign: generated cases (single ops and whole nets, alternating) through every
// applicable oracle, with progress, findings saved as they come (atomically), and a summary
// (fuzz/campaign_report.h writes it as summary.json and junit.xml).
// Crash isolation, reduction, resume and sharding come with the rest of the campaign issue.
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
#include "oracles/check.h"

namespace parity::fuzz {

struct CampaignOptions {
  int64_t cases = -1;   // stop after this many cases (-1: no limit)
  double seconds = -1;  // stop after this long (-1: no limit); one of the two must be set
  uint64_t seed = 1;
  std::string out_dir;                 // findings go to out_dir/findings/ ("" = not saved)
  std::vector<std::string> ops;        // restrict to these op types (empty: every spec)
  std::vector<std::string> oracles;    // empty: oracles::DefaultOracles()
  std::string backend = "production";  // the backend under test (oracles/backend.h)
  bool nets = true;                    // alternate single-op cases with whole nets
  // This campaign's slice of the case indices: index % shard_count == shard_index. Shards of one
  // seed together run exactly the cases one unsharded campaign would (with --cases, the same
  // indices below the budget).
  int64_t shard_index = 0;
  int64_t shard_count = 1;
  // Set (by a signal handler) to stop between cases; the summary covers the cases run so far.
  const std::atomic<bool>* stop = nullptr;
};

struct CampaignSummary {
  oracles::CheckTally tally;  // cases, findings, per oracle, per signature, per op type
  double seconds = 0;
  bool interrupted = false;                        // stopped by `stop` before its budget ran out
  std::vector<std::string> saved;                  // finding files written
  std::map<std::string, Finding> first_finding;    // SignatureKey -> its first finding
  std::map<std::string, std::string> first_saved;  // SignatureKey -> where that one was saved
};

class CampaignProgress;

// The case for campaign position `index` (reproducible from seed and index).
Case CampaignCase(const CampaignOptions& options, int64_t index);

// Runs the campaign; `progress` (may be null) is told about every second and every finding.
CampaignSummary RunCampaign(const CampaignOptions& options, CampaignProgress* progress,
                            const std::function<void(const Finding&)>& on_finding = nullptr);

// Creates `path` and its parents; kIo when it cannot.
void MakeDirs(const std::string& path);

// Writes FINDING as DIR/<signature>-<seed>.pb and .pbtxt; returns the .pb path.
std::string SaveFinding(const std::string& dir, const Finding& finding);

}  // namespace parity::fuzz

#endif  // PARITY_FUZZ_CAMPAIGN_H_
