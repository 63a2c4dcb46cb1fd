// The HTML discrepancy report: what an engineer opens in the morning (`parity report DIR`, and at
// the end of `parity fuzz`, `parity check --html`).
//
//   OUT/index.html                 the campaign: settings, throughput, oracles run, cases per op,
//                                  a trend across earlier campaigns (--history), every signature
//                                  with its count, first and last seen and reduced size, and one
//                                  collapsed section per finding linking to its page
//   OUT/findings/<signature>.html  one finding: what is wrong (oracle, blamed op, message), the
//                                  net drawn with the blamed op in red, how each compared blob
//                                  differs, the reduction, the readable case and the repro command
//
// Pages are self-contained (inline CSS and SVG, no network, no JavaScript needed). Everything that
// comes from a net, a case or a finding is escaped (reports/html.h). Files are written atomically.
#ifndef PARITY_REPORTS_REPORT_H_
#define PARITY_REPORTS_REPORT_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/proto/parity.pb.h"

namespace parity::reports {

struct ReportFinding {
  std::string key;      // the signature key (oracles::SignatureKey)
  std::string page;     // file name under OUT/findings/
  nlohmann::json info;  // finding.json (count, first, last, smallest, reduced, repro); may be {}
  Finding first;        // the first finding of the signature (case.pb)
  std::optional<Finding> reduced;  // reduced.pb, when the campaign reduced it
};

struct ReportInput {
  std::string title;
  std::string source;      // where it came from (the campaign directory), shown on the page
  nlohmann::json summary;  // summary.json; {} for a single check
  // Earlier campaigns' summary.json (oldest first) and where each came from, for the trend.
  std::vector<std::pair<std::string, nlohmann::json>> history;
  std::vector<ReportFinding> findings;  // most frequent first
};

// A campaign directory as the report reads it: DIR/summary.json and DIR/findings/<signature>/.
// kMissingBlob-free: a directory without summary.json or findings is an empty campaign; one that
// does not exist is kBadArgument.
ReportInput ReadCampaign(const std::string& dir);

// Adds `dirs` (earlier campaigns) to `input`'s history, oldest first as given.
void AddHistory(const std::vector<std::string>& dirs, ReportInput* input);

// Writes OUT/index.html and one page per finding; returns the index's path.
std::string WriteReport(const ReportInput& input, const std::string& out_dir);

// The pages themselves (for tests and for callers that write elsewhere).
std::string IndexPage(const ReportInput& input);
std::string FindingPage(const ReportInput& input, const ReportFinding& finding);

// The page a finding with this signature key gets: file-safe, unique per key.
std::string FindingPageName(const std::string& key);

}  // namespace parity::reports

#endif  // PARITY_REPORTS_REPORT_H_
