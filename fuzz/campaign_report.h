// What a campaign leaves for CI systems and for people, and what it shows while it runs:
//
// * DIR/summary.json: the settings (seed, budget, backend, ops, oracles, generator version), the
//   counts (cases, cases/s, per oracle, per op type) and one entry per finding signature (count,
//   first seed, the file it was saved to, a one-line description).
// * DIR/junit.xml: one test case for the campaign itself and one failing test case per signature,
//   the format CI systems (Jenkins, GitLab, GitHub's test reporters) render.
// * Progress: on a terminal one line redrawn in place (cases, cases/s, findings, unique
//   signatures, elapsed / remaining), findings printed above it; on a pipe JSON lines, one a second
//   ({"event": "progress", ...}) and one per finding ({"event": "finding", ...}).
//
// Both files are written atomically (core/io.h). Every string from a net is escaped for its format.
#ifndef PARITY_FUZZ_CAMPAIGN_REPORT_H_
#define PARITY_FUZZ_CAMPAIGN_REPORT_H_

#include <ostream>
#include <string>

#include "fuzz/campaign.h"

namespace parity::fuzz {

std::string SummaryJson(const CampaignOptions& options, const CampaignSummary& summary);
std::string JunitXml(const CampaignOptions& options, const CampaignSummary& summary);
// Writes both into options.out_dir; returns the summary's path ("" when out_dir is empty).
std::string WriteCampaignReports(const CampaignOptions& options, const CampaignSummary& summary);

// XML text with &, <, >, quotes escaped and the characters XML 1.0 cannot hold (control
// characters other than tab, newline, carriage return) replaced by U+FFFD.
std::string XmlEscape(const std::string& text);

enum class ProgressStyle {
  kTerminal,   // one line redrawn in place
  kJsonLines,  // for pipes and CI logs
};

class CampaignProgress {
 public:
  CampaignProgress(std::ostream& out, ProgressStyle style, const CampaignOptions& options)
      : out_(out), style_(style), options_(options) {}
  // Called about once a second.
  void Update(const oracles::CheckTally& tally, double elapsed_seconds);
  // Called for each finding, `saved` the file it went to ("" when not saved).
  void OnFinding(const Finding& finding, const std::string& saved, const oracles::CheckTally& tally,
                 double elapsed_seconds);
  // Called when a new signature has been reduced.
  void OnReduced(const std::string& key, const CampaignSummary::Reduction& reduction);
  // Ends the redrawn line (terminal).
  void Finish();

 private:
  std::ostream& out_;
  ProgressStyle style_;
  const CampaignOptions& options_;
  bool line_open_ = false;
};

}  // namespace parity::fuzz

#endif  // PARITY_FUZZ_CAMPAIGN_REPORT_H_
