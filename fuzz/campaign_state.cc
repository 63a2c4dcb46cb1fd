#include "fuzz/campaign_state.h"

#include <cmath>
#include <filesystem>
#include <sstream>

#include "core/proto/error.h"
#include "fuzz/corpus.h"
#include "fuzz/generators.h"
#include "fuzz/json_fields.h"

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
  const int64_t cursor = JsonInt64(j.at("cursor"), "state.json: cursor");
  std::set<int64_t> done_above;
  for (const auto& index : j.at("done_above")) {
    done_above.insert(JsonInt64(index, "state.json: a done_above entry"));
  }
  const int64_t handed_out = JsonInt64(j.at("handed_out"), "state.json: handed_out");
  // Each index read is one of this shard's: first_ + k * stride_, within kMaxCaseIndex.
  const auto ours = [&](int64_t index) {
    return index >= first_ && index <= kMaxCaseIndex && (index - first_) % stride_ == 0;
  };
  PARITY_ENFORCE(ours(cursor), ErrorKind::kInvalidNet, "state.json: cursor ", cursor,
                 " is not a case index of shard ", first_, "/", stride_);
  for (int64_t index : done_above) {
    PARITY_ENFORCE(ours(index) && index > cursor, ErrorKind::kInvalidNet, "state.json: done case ",
                   index, " is not a case index of shard ", first_, "/", stride_,
                   " above the cursor ", cursor);
  }
  PARITY_ENFORCE(handed_out >= cursor && handed_out <= kMaxCaseIndex + stride_,
                 ErrorKind::kInvalidNet, "state.json: handed_out ", handed_out,
                 " is below the cursor ", cursor, " or past any campaign");
  lowest_ = cursor;
  done_above_ = done_above;
  next_ = lowest_;
  resumed_handed_out_ = handed_out;
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

SavedCampaign ReadCampaignState(const std::string& text, const std::string& path,
                                const CampaignOptions& options, CaseCursor* cursor,
                                Corpus* corpus) {
  SavedCampaign saved;
  try {
    const nlohmann::json state = nlohmann::json::parse(text);
    PARITY_ENFORCE(state.is_object(), ErrorKind::kInvalidNet, path, " is not a JSON object");
    EnforceSameCampaign(state.at("options"), CampaignIdentity(options), options.out_dir);
    saved.tally = TallyFromJson(state.at("tally"));
    saved.workers_replaced =
        JsonInt64(state.at("workers_replaced"), "state.json: workers_replaced");
    saved.findings_saved = JsonInt64(state.at("findings_saved"), "state.json: findings_saved");
    saved.reductions = ReductionsFromJson(state.at("reductions"));
    saved.unreduced = state.at("unreduced").get<std::vector<std::string>>();
    saved.elapsed_seconds = state.at("elapsed_seconds").get<double>();
    // Added to this run's time for the budget: a negative one would stretch it without end.
    PARITY_ENFORCE(std::isfinite(saved.elapsed_seconds) && saved.elapsed_seconds >= 0,
                   ErrorKind::kInvalidNet, path, ": elapsed_seconds ", saved.elapsed_seconds,
                   " is not a duration (--fresh starts the campaign over)");
    cursor->Resume(state.at("cases"));
    // Each case done is counted once in the tally, and once in the cursor.
    PARITY_ENFORCE(saved.tally.cases == cursor->DoneCount(), ErrorKind::kInvalidNet, path,
                   ": the tally counts ", saved.tally.cases, " cases done, the cursor ",
                   cursor->DoneCount(), " (--fresh starts the campaign over)");
    if (corpus != nullptr) corpus->Restore(state.at("corpus"));
  } catch (const nlohmann::json::exception& error) {
    PARITY_ENFORCE(false, ErrorKind::kInvalidNet, path, ": ", error.what(),
                   " (--fresh starts the campaign over)");
  }
  return saved;
}

namespace {

// A count read from state.json: no campaign counts past kMaxCaseIndex of anything, so a larger
// (or negative) one is a tampered file, and adding to a valid one cannot overflow.
int64_t CountFrom(const nlohmann::json& j, const std::string& what) {
  const int64_t count = JsonInt64(j, "state.json: " + what);
  PARITY_ENFORCE(count >= 0 && count <= CaseCursor::kMaxCaseIndex, ErrorKind::kInvalidNet,
                 "state.json: ", what, " ", count, " is not a count");
  return count;
}

std::map<std::string, int64_t> CountsFrom(const nlohmann::json& j, const std::string& what) {
  std::map<std::string, int64_t> counts;
  for (const auto& [key, value] : j.get<std::map<std::string, nlohmann::json>>()) {
    counts[key] = CountFrom(value, what + " of '" + Printable(key) + "'");
  }
  return counts;
}

}  // namespace

int64_t CaseCursor::DoneCount() const {
  return (lowest_ - first_) / stride_ + static_cast<int64_t>(done_above_.size());
}

oracles::CheckTally TallyFromJson(const nlohmann::json& j) {
  oracles::CheckTally tally;
  tally.cases = CountFrom(j.at("cases"), "cases");
  tally.findings = CountFrom(j.at("findings"), "findings");
  tally.checked = CountsFrom(j.at("checked"), "checked");
  tally.not_applicable = CountsFrom(j.at("not_applicable"), "not_applicable");
  tally.by_signature = CountsFrom(j.at("by_signature"), "by_signature");
  tally.by_op = CountsFrom(j.at("by_op"), "by_op");
  const nlohmann::json by_op_oracle = j.value("by_op_oracle", nlohmann::json::object());
  for (const auto& [op, by_oracle] : by_op_oracle.items()) {
    tally.by_op_oracle[op] = CountsFrom(by_oracle, "by_op_oracle of '" + Printable(op) + "'");
  }
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
    const std::string what = "state.json: reduction of '" + Printable(key) + "':";
    out[key] = {JsonInt64(r.at("ops_before"), what + " ops_before"),
                JsonInt64(r.at("ops_after"), what + " ops_after"),
                JsonInt64(r.at("elements_before"), what + " elements_before"),
                JsonInt64(r.at("elements_after"), what + " elements_after"),
                r.at("seconds").get<double>(),
                r.at("reproduced").get<bool>()};
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
