#include "fuzz/campaign_state.h"

#include <filesystem>
#include <sstream>

#include "core/proto/error.h"
#include "fuzz/generators.h"

namespace parity::fuzz {

int64_t CaseCursor::Peek() {
  while (done_above_.count(next_)) next_ += stride_;
  return next_;
}

void CaseCursor::Done(int64_t index) {
  if (index != lowest_) {
    done_above_.insert(index);
    return;
  }
  lowest_ += stride_;
  while (!done_above_.empty() && *done_above_.begin() == lowest_) {
    done_above_.erase(done_above_.begin());
    lowest_ += stride_;
  }
}

nlohmann::json CaseCursor::ToJson() const {
  return {{"cursor", lowest_},
          {"done_above", done_above_},
          {"handed_out", std::max(next_, resumed_handed_out_)}};
}

void CaseCursor::Resume(const nlohmann::json& j) {
  lowest_ = j.at("cursor").get<int64_t>();
  done_above_ = j.at("done_above").get<std::set<int64_t>>();
  next_ = lowest_;
  resumed_handed_out_ = j.at("handed_out").get<int64_t>();
}

nlohmann::json CampaignIdentity(const CampaignOptions& options) {
  return {
      {"generator_version", kGeneratorVersion},
      {"seed", options.seed},
      {"cases", options.cases},
      {"seconds", options.seconds},
      {"ops", options.ops},
      {"oracles", options.oracles},
      {"engine", options.backend},
      {"nets", options.nets},
      {"shard", std::to_string(options.shard_index) + "/" + std::to_string(options.shard_count)},
      {"case_timeout", options.limits.case_timeout},
      {"case_memory", options.limits.memory_mb},
      {"reduce_seconds", options.reduce_seconds}};
}

void EnforceSameCampaign(const nlohmann::json& saved, const nlohmann::json& now,
                         const std::string& out_dir) {
  std::ostringstream differences;
  for (const auto& [name, value] : now.items()) {
    const nlohmann::json was = saved.contains(name) ? saved.at(name) : nlohmann::json();
    if (was == value) continue;
    differences << "\n  " << (name == "generator_version" ? "generator version" : "--" + name)
                << ": " << (was.is_null() ? "(none)" : was.dump()) << " there, " << value.dump()
                << " here";
  }
  PARITY_ENFORCE(differences.str().empty(), ErrorKind::kBadArgument, out_dir,
                 "/state.json holds a campaign with other options:", differences.str(),
                 "\nrun the same command to resume it, add --fresh to start over in ", out_dir,
                 ", or give another --out");
}

nlohmann::json TallyToJson(const oracles::CheckTally& tally) {
  return {{"cases", tally.cases},
          {"findings", tally.findings},
          {"checked", tally.checked},
          {"not_applicable", tally.not_applicable},
          {"by_signature", tally.by_signature},
          {"by_op", tally.by_op},
          {"by_op_oracle", tally.by_op_oracle}};
}

oracles::CheckTally TallyFromJson(const nlohmann::json& j) {
  oracles::CheckTally tally;
  tally.cases = j.at("cases").get<int64_t>();
  tally.findings = j.at("findings").get<int64_t>();
  tally.checked = j.at("checked").get<std::map<std::string, int64_t>>();
  tally.not_applicable = j.at("not_applicable").get<std::map<std::string, int64_t>>();
  tally.by_signature = j.at("by_signature").get<std::map<std::string, int64_t>>();
  tally.by_op = j.at("by_op").get<std::map<std::string, int64_t>>();
  tally.by_op_oracle = j.value("by_op_oracle", nlohmann::json::object())
                           .get<std::map<std::string, std::map<std::string, int64_t>>>();
  return tally;
}

nlohmann::json ReductionsToJson(const std::map<std::string, CampaignSummary::Reduction>& r) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [key, reduction] : r) {
    j[key] = {{"ops_before", reduction.ops_before},
              {"ops_after", reduction.ops_after},
              {"elements_before", reduction.elements_before},
              {"elements_after", reduction.elements_after},
              {"seconds", reduction.seconds},
              {"reproduced", reduction.reproduced}};
  }
  return j;
}

std::map<std::string, CampaignSummary::Reduction> ReductionsFromJson(const nlohmann::json& j) {
  std::map<std::string, CampaignSummary::Reduction> out;
  for (const auto& [key, r] : j.items()) {
    out[key] = {r.at("ops_before").get<int64_t>(),      r.at("ops_after").get<int64_t>(),
                r.at("elements_before").get<int64_t>(), r.at("elements_after").get<int64_t>(),
                r.at("seconds").get<double>(),          r.at("reproduced").get<bool>()};
  }
  return out;
}

void RemoveCampaign(const std::string& out_dir) {
  namespace fs = std::filesystem;
  std::error_code error;
  fs::remove_all(out_dir + "/findings", error);
  PARITY_ENFORCE(!error, ErrorKind::kIo, "--fresh: cannot remove ", out_dir,
                 "/findings: ", error.message());
  for (const char* file : {"state.json", "summary.json", "junit.xml"}) {
    fs::remove(out_dir + "/" + file, error);
    PARITY_ENFORCE(!error, ErrorKind::kIo, "--fresh: cannot remove ", out_dir, "/", file, ": ",
                   error.message());
  }
}

}  // namespace parity::fuzz
