#include "fuzz/campaign_report.h"

#include <cstdio>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/io.h"
#include "core/proto/utf8.h"
#include "fuzz/generators.h"
#include "oracles/describe.h"
#include "oracles/finding.h"

namespace parity::fuzz {
namespace {

using Json = nlohmann::ordered_json;

// Strings from nets may not be valid UTF-8 (a hostile blob name cut mid-character where a message
// is truncated): every dump replaces invalid bytes by U+FFFD instead of throwing.
std::string Dump(const Json& j, int indent = -1) {
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

double Rate(int64_t cases, double seconds) { return seconds > 0 ? cases / seconds : 0.0; }

double Remaining(const CampaignOptions& options, int64_t cases, double elapsed) {
  if (options.seconds >= 0) return std::max(0.0, options.seconds - elapsed);
  if (options.cases >= 0 && cases > 0) return (options.cases - cases) * elapsed / cases;
  return 0.0;
}

std::string Brief(const Finding& finding) {
  std::string brief = oracles::DescribeFindingBrief(finding);
  while (!brief.empty() && brief.back() == '\n') brief.pop_back();
  return brief;
}

}  // namespace

std::string XmlEscape(const std::string& text) {
  // Names and messages come from users' nets and engines' errors: bytes that are not UTF-8 would
  // make the whole file unreadable to a CI's XML parser, so they become U+FFFD first.
  const std::string valid = ValidUtf8(text);
  std::string out;
  for (unsigned char ch : valid) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        if (ch < 0x20 && ch != '\t' && ch != '\n' && ch != '\r') {
          out += "\xEF\xBF\xBD";  // U+FFFD
        } else {
          out += static_cast<char>(ch);
        }
    }
  }
  return out;
}

std::string SummaryJson(const CampaignOptions& options, const CampaignSummary& summary) {
  const oracles::CheckTally& tally = summary.tally;
  Json j;
  j["generator_version"] = kGeneratorVersion;
  j["seed"] = options.seed;
  j["backend"] = options.backend;
  j["budget"] = {{"seconds", options.seconds}, {"cases", options.cases}};
  j["ops"] = options.ops;
  j["oracles"] = options.oracles;
  j["nets"] = options.nets;
  j["shard"] = {{"index", options.shard_index}, {"count", options.shard_count}};
  j["jobs"] = options.jobs;
  j["case_timeout_seconds"] = options.limits.case_timeout;
  j["case_memory_mb"] = options.limits.memory_mb;
  j["workers_replaced"] = summary.workers_replaced;
  j["interrupted"] = summary.interrupted;
  j["cases"] = tally.cases;
  j["seconds"] = summary.seconds;
  j["cases_per_second"] = Rate(tally.cases, summary.seconds);
  j["findings"] = tally.findings;
  Json per_oracle = Json::object();
  for (const auto& [oracle, n] : tally.checked) {
    auto na = tally.not_applicable.find(oracle);
    per_oracle[oracle] = {{"checked", n},
                          {"not_applicable", na == tally.not_applicable.end() ? 0 : na->second}};
  }
  j["oracles_run"] = per_oracle;
  j["cases_per_op"] = tally.by_op;
  j["cases_per_op_oracle"] = tally.by_op_oracle;
  Json signatures = Json::array();
  for (const auto& [key, count] : tally.by_signature) {
    Json s;
    s["signature"] = key;
    auto first = summary.first_finding.find(key);
    if (first != summary.first_finding.end()) {
      const Finding& f = first->second;
      s["oracle"] = f.signature().oracle();
      s["blamed_op"] = f.signature().blamed_op_type();
      s["error_class"] = f.signature().error_class();
      s["dtype"] = f.signature().dtype();
      s["first_seed"] = f.case_().seed();
      s["description"] = Brief(f);
    }
    s["count"] = count;
    auto reduction = summary.reductions.find(key);
    if (reduction != summary.reductions.end()) {
      const CampaignSummary::Reduction& r = reduction->second;
      s["reduced"] = {{"reproduced", r.reproduced},         {"ops_before", r.ops_before},
                      {"ops_after", r.ops_after},           {"elements_before", r.elements_before},
                      {"elements_after", r.elements_after}, {"seconds", r.seconds}};
    }
    auto saved = summary.first_saved.find(key);
    if (saved != summary.first_saved.end()) s["saved"] = saved->second;
    signatures.push_back(s);
  }
  j["signatures"] = signatures;
  return Dump(j, 2) + "\n";
}

std::string JunitXml(const CampaignOptions& options, const CampaignSummary& summary) {
  const oracles::CheckTally& tally = summary.tally;
  const size_t failures = tally.by_signature.size();
  std::ostringstream xml;
  xml << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  xml << "<testsuites name=\"parity fuzz\" tests=\"" << failures + 1 << "\" failures=\"" << failures
      << "\" time=\"" << summary.seconds << "\">\n";
  xml << "  <testsuite name=\"parity fuzz seed " << options.seed << " on "
      << XmlEscape(options.backend) << "\" tests=\"" << failures + 1 << "\" failures=\"" << failures
      << "\" time=\"" << summary.seconds << "\">\n";
  xml << "    <testcase classname=\"parity.fuzz\" name=\"campaign: " << tally.cases
      << " cases\" time=\"" << summary.seconds << "\"/>\n";
  for (const auto& [key, count] : tally.by_signature) {
    auto first = summary.first_finding.find(key);
    const std::string oracle =
        first == summary.first_finding.end() ? "finding" : first->second.signature().oracle();
    xml << "    <testcase classname=\"parity.fuzz." << XmlEscape(oracle) << "\" name=\""
        << XmlEscape(key) << "\">\n";
    xml << "      <failure message=\"" << count << " finding(s)\">";
    if (first != summary.first_finding.end()) {
      xml << XmlEscape(Brief(first->second)) << "\nfirst seed " << first->second.case_().seed();
    }
    auto saved = summary.first_saved.find(key);
    if (saved != summary.first_saved.end()) {
      xml << "\nrepro: parity repro " << XmlEscape(saved->second);
    }
    xml << "</failure>\n    </testcase>\n";
  }
  xml << "  </testsuite>\n</testsuites>\n";
  return xml.str();
}

std::string WriteCampaignReports(const CampaignOptions& options, const CampaignSummary& summary) {
  if (options.out_dir.empty()) return "";
  MakeDirs(options.out_dir);
  const std::string json_path = options.out_dir + "/summary.json";
  WriteFileAtomic(json_path, SummaryJson(options, summary));
  WriteFileAtomic(options.out_dir + "/junit.xml", JunitXml(options, summary));
  return json_path;
}

void CampaignProgress::Update(const oracles::CheckTally& tally, double elapsed) {
  if (style_ == ProgressStyle::kJsonLines) {
    Json j = {{"event", "progress"},
              {"cases", tally.cases},
              {"cases_per_second", Rate(tally.cases, elapsed)},
              {"findings", tally.findings},
              {"unique", tally.by_signature.size()},
              {"elapsed_seconds", elapsed},
              {"remaining_seconds", Remaining(options_, tally.cases, elapsed)}};
    out_ << Dump(j) << "\n" << std::flush;
    return;
  }
  out_ << "\r\033[K" << std::fixed << std::setprecision(0) << "cases " << tally.cases << " ("
       << Rate(tally.cases, elapsed) << "/s)  findings " << tally.findings << " ("
       << tally.by_signature.size() << " unique)  " << elapsed << " s, "
       << Remaining(options_, tally.cases, elapsed) << " s left" << std::flush;
  line_open_ = true;
}

void CampaignProgress::OnFinding(const Finding& finding, const std::string& saved,
                                 const oracles::CheckTally& tally, double elapsed) {
  if (style_ == ProgressStyle::kJsonLines) {
    Json j = {{"event", "finding"},
              {"signature", oracles::SignatureKey(finding.signature())},
              {"seed", finding.case_().seed()},
              {"description", Brief(finding)},
              {"saved", saved},
              {"findings", tally.findings},
              {"unique", tally.by_signature.size()}};
    out_ << Dump(j) << "\n" << std::flush;
    return;
  }
  if (line_open_) out_ << "\r\033[K";
  out_ << Printable(Brief(finding)) << "\n";
  line_open_ = false;
  Update(tally, elapsed);
}

void CampaignProgress::OnReduced(const std::string& key, const CampaignSummary::Reduction& r) {
  if (style_ == ProgressStyle::kJsonLines) {
    Json j = {{"event", "reduced"},
              {"signature", key},
              {"reproduced", r.reproduced},
              {"ops_before", r.ops_before},
              {"ops_after", r.ops_after},
              {"elements_before", r.elements_before},
              {"elements_after", r.elements_after},
              {"seconds", r.seconds}};
    out_ << Dump(j) << "\n" << std::flush;
    return;
  }
  if (line_open_) out_ << "\r\033[K";
  line_open_ = false;
  out_ << "reduced " << Printable(key) << ": "
       << (r.reproduced ? std::to_string(r.ops_before) + " -> " + std::to_string(r.ops_after) +
                              " ops, " + std::to_string(r.elements_before) + " -> " +
                              std::to_string(r.elements_after) + " input elements"
                        : std::string("its smallest case did not reproduce"))
       << "\n"
       << std::flush;
}

void CampaignProgress::Finish() {
  if (line_open_) out_ << "\n" << std::flush;
  line_open_ = false;
}

}  // namespace parity::fuzz
