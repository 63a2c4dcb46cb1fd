// Reading a campaign directory for the report (reports/report.h).
#include <algorithm>
#include <filesystem>

#include "core/io.h"
#include "core/proto/error.h"
#include "fuzz/corpus.h"
#include "reports/report.h"

namespace parity::reports {
namespace fs = std::filesystem;

namespace {

nlohmann::json ReadSummary(const std::string& dir) {
  const std::string path = dir + "/summary.json";
  if (!fs::exists(path)) return nlohmann::json::object();
  try {
    return nlohmann::json::parse(ReadFileBytes(path));
  } catch (const nlohmann::json::exception& error) {
    throw MakeError(ErrorKind::kInvalidNet, path, ": ", error.what());
  }
}

void RequireDirectory(const std::string& dir) {
  PARITY_ENFORCE(fs::is_directory(dir), ErrorKind::kBadArgument, "'", dir,
                 "' is not a campaign directory (parity fuzz --out DIR writes one)");
}

}  // namespace

std::string FindingPageName(const std::string& key) {
  return fuzz::SignatureDirName(key) + ".html";
}

ReportInput ReadCampaign(const std::string& dir) {
  RequireDirectory(dir);
  ReportInput input;
  input.title = "parity campaign";
  input.source = dir;
  input.summary = ReadSummary(dir);
  const fuzz::Corpus corpus(dir + "/findings");
  for (const auto& [key, entry] : corpus.entries()) {
    ReportFinding finding;
    finding.key = key;
    finding.page = FindingPageName(key);
    finding.info = nlohmann::json::parse(ReadFileBytes(entry.dir + "/finding.json"));
    LoadProtoFile(entry.dir + "/case.pb", &finding.first);
    if (entry.reduced && fs::exists(entry.dir + "/reduced.pb")) {
      Finding reduced;
      LoadProtoFile(entry.dir + "/reduced.pb", &reduced);
      finding.reduced = std::move(reduced);
    }
    input.findings.push_back(std::move(finding));
  }
  std::stable_sort(input.findings.begin(), input.findings.end(),
                   [](const ReportFinding& a, const ReportFinding& b) {
                     return a.info.value("count", 0) > b.info.value("count", 0);
                   });
  return input;
}

void AddHistory(const std::vector<std::string>& dirs, ReportInput* input) {
  for (const auto& dir : dirs) {
    RequireDirectory(dir);
    input->history.emplace_back(dir, ReadSummary(dir));
  }
}

}  // namespace parity::reports
