// A fuzz campaign: generated cases (single ops and whole nets, alternating) through every
// applicable oracle, with progress, findings saved as they come (atomically), and a summary.
// Crash isolation, reduction, resume and sharding come with the campaign issue.
#ifndef PARITY_FUZZ_CAMPAIGN_H_
#define PARITY_FUZZ_CAMPAIGN_H_

#include <cstdint>
#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "core/proto/parity.pb.h"

namespace parity::fuzz {

struct CampaignOptions {
  int64_t cases = -1;     // stop after this many cases (-1: no limit)
  double seconds = -1;    // stop after this long (-1: no limit); one of the two must be set
  uint64_t seed = 1;
  std::string out_dir;    // findings go to out_dir/findings/ ("" = not saved)
  std::vector<std::string> ops;      // restrict to these op types (empty: every spec)
  std::vector<std::string> oracles;  // empty: forward, gradient, determinism, roundtrip
  std::string engine_override;       // production engine (mutants)
  bool nets = true;                  // alternate single-op cases with whole nets
};

struct CampaignSummary {
  int64_t cases = 0;
  int64_t findings = 0;
  std::map<std::string, int64_t> by_signature;   // unique signatures and their counts
  std::map<std::string, int64_t> checked;        // oracle -> cases it ran on
  std::map<std::string, int64_t> not_applicable; // oracle -> cases it did not apply to
  double seconds = 0;
  std::vector<std::string> saved;                // finding files written
};

// The case for campaign position `index` (reproducible from seed and index).
Case CampaignCase(const CampaignOptions& options, int64_t index);

// Oracles that apply to `c`: the requested ones minus those a spec of one of its ops skips.
std::vector<std::string> ApplicableOracles(const Case& c, const std::vector<std::string>& requested);

CampaignSummary RunCampaign(const CampaignOptions& options, std::ostream& progress,
                            const std::function<void(const Finding&)>& on_finding = nullptr);

// Writes FINDING as DIR/<signature>-<seed>.pb and .pbtxt; returns the .pb path.
std::string SaveFinding(const std::string& dir, const Finding& finding);

}  // namespace parity::fuzz

#endif  // PARITY_FUZZ_CAMPAIGN_H_
