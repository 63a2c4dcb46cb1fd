#include "fuzz/corpus.h"

#include <cctype>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/io.h"
#include "core/proto/error.h"
#include "fuzz/campaign.h"
#include "fuzz/json_fields.h"
#include "oracles/describe.h"
#include "oracles/finding.h"

namespace parity::fuzz {
namespace {

namespace fs = std::filesystem;

constexpr size_t kReadableKeyLength = 60;

int64_t CountOps(const caffe2::NetDef& net) {
  int64_t ops = net.op_size();
  for (const auto& op : net.op()) {
    for (const auto& arg : op.arg()) {
      if (arg.has_n()) ops += CountOps(arg.n());
      for (const auto& nested : arg.nets()) ops += CountOps(nested);
    }
  }
  return ops;
}

std::string NowUtc() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

nlohmann::json SightingJson(const Sighting& s) {
  return {{"index", s.index}, {"seed", s.seed}, {"time", s.time}};
}

Sighting SightingFrom(const nlohmann::json& j, const std::string& what) {
  Sighting s;
  s.index = JsonInt64Or(j, "index", -1, what);
  if (j.is_object() && j.contains("seed")) s.seed = JsonUint64(j.at("seed"), what + " seed");
  s.time = j.value("time", std::string());
  return s;
}

// Saves `finding` as DIR/name.pb and .pbtxt, its repro command naming the .pb.
void SaveAs(const std::string& dir, const std::string& name, Finding finding) {
  const std::string path = dir + "/" + name + ".pb";
  finding.set_repro_command("parity repro " + path);
  SaveProtoFile(path, finding);
  SaveProtoFile(dir + "/" + name + ".pbtxt", finding);
}

void CopyFinding(const std::string& from_dir, const std::string& to_dir, const std::string& name) {
  Finding finding;
  LoadProtoFile(from_dir + "/" + name + ".pb", &finding);
  SaveAs(to_dir, name, finding);
}

// The fields of finding.json that describe the signature (from its first finding).
nlohmann::json Describe(const std::string& key, const Finding& f) {
  const Signature& s = f.signature();
  return {{"signature", key},
          {"oracle", s.oracle()},
          {"blamed_op", s.blamed_op_type()},
          {"blamed_op_path", f.blamed_op_path()},
          {"error_class", s.error_class()},
          {"dtype", s.dtype()},
          {"frames", std::vector<std::string>(s.frames().begin(), s.frames().end())},
          {"backend", f.backend()},
          {"description", oracles::DescribeFindingBrief(f)}};
}

}  // namespace

CaseSize SizeOf(const Case& c) {
  CaseSize size;
  size.ops = CountOps(c.net());
  for (const auto& input : c.inputs()) {
    int64_t elements = 1;
    for (int64_t d : input.dims()) elements *= d;
    size.elements += elements;
  }
  return size;
}

std::string SignatureDirName(const std::string& key) {
  std::string readable;
  for (char ch : key) {
    const bool safe = std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '.';
    if (safe) {
      readable += ch;
    } else if (readable.empty() || readable.back() != '_') {
      readable += '_';
    }
    if (readable.size() == kReadableKeyLength) break;
  }
  uint64_t hash = 1469598103934665603ULL;  // FNV-1a: stable across builds and machines
  for (unsigned char ch : key) hash = (hash ^ ch) * 1099511628211ULL;
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(hash));
  return readable + "-" + std::string(hex, 8);
}

Corpus::Corpus(std::string findings_dir) : dir_(std::move(findings_dir)) {
  if (!fs::is_directory(dir_)) return;
  for (const auto& entry : fs::directory_iterator(dir_)) {
    if (fs::exists(entry.path() / "finding.json")) Load(entry.path().string());
  }
}

void Corpus::Load(const std::string& signature_dir) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(ReadFileBytes(signature_dir + "/finding.json"));
  } catch (const nlohmann::json::exception& error) {
    PARITY_ENFORCE(false, ErrorKind::kInvalidNet, signature_dir, "/finding.json: ", error.what());
  }
  CorpusEntry entry;
  try {
    entry = EntryFromJson(j, signature_dir);
  } catch (const nlohmann::json::exception& error) {  // a field of the wrong type
    throw MakeError(ErrorKind::kInvalidNet, signature_dir, "/finding.json: ", error.what());
  }
  entries_[entry.key] = std::move(entry);
}

CorpusEntry Corpus::EntryFromJson(const nlohmann::json& j, const std::string& dir) {
  CorpusEntry entry;
  PARITY_ENFORCE(j.is_object(), ErrorKind::kInvalidNet, dir, "/finding.json is not a JSON object");
  entry.key = j.value("signature", std::string());
  PARITY_ENFORCE(!entry.key.empty(), ErrorKind::kInvalidNet, dir,
                 "/finding.json names no signature");
  entry.dir = dir;
  const std::string file = dir + "/finding.json:";
  entry.count = JsonInt64Or(j, "count", 0, file);
  // Every entry holds at least the finding that made it; a count below 1 is a tampered file.
  PARITY_ENFORCE(entry.count >= 1, ErrorKind::kInvalidNet, dir, "/finding.json: count ",
                 entry.count, " is not a number of findings (at least 1)");
  entry.first = SightingFrom(j.value("first", nlohmann::json::object()), file + " first");
  entry.last = SightingFrom(j.value("last", nlohmann::json::object()), file + " last");
  const nlohmann::json smallest = j.value("smallest", nlohmann::json::object());
  entry.smallest = SightingFrom(smallest, file + " smallest");
  entry.smallest_size = {JsonInt64Or(smallest, "ops", 0, file + " smallest"),
                         JsonInt64Or(smallest, "elements", 0, file + " smallest")};
  if (j.contains("reduced")) {
    entry.reduced = true;
    entry.reduced_size = {JsonInt64Or(j["reduced"], "ops", 0, file + " reduced"),
                          JsonInt64Or(j["reduced"], "elements", 0, file + " reduced")};
  }
  nlohmann::json description = j;
  for (const char* field : {"count", "first", "last", "smallest", "reduced", "repro"}) {
    description.erase(field);
  }
  entry.description = std::move(description);
  return entry;
}

nlohmann::json Corpus::EntryJson(const CorpusEntry& entry) {
  nlohmann::json j = entry.description;
  j["count"] = entry.count;
  j["first"] = SightingJson(entry.first);
  j["last"] = SightingJson(entry.last);
  j["smallest"] = SightingJson(entry.smallest);
  j["smallest"]["ops"] = entry.smallest_size.ops;
  j["smallest"]["elements"] = entry.smallest_size.elements;
  if (entry.reduced) {
    j["reduced"] = {{"ops", entry.reduced_size.ops}, {"elements", entry.reduced_size.elements}};
  }
  j["repro"] = "parity repro " + entry.dir + (entry.reduced ? "/reduced.pb" : "/case.pb");
  return j;
}

void Corpus::WriteJson(const CorpusEntry& entry) const {
  WriteFileAtomic(entry.dir + "/finding.json", EntryJson(entry).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

nlohmann::json Corpus::Snapshot() const {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [key, entry] : entries_) {
    j[fs::path(entry.dir).filename().string()] = EntryJson(entry);
  }
  return j;
}

void Corpus::Restore(const nlohmann::json& snapshot) {
  entries_.clear();
  for (const auto& [name, j] : snapshot.items()) {
    // The name becomes a directory under findings/: a name read from state.json is data, and only
    // the one its signature gives is taken (never "..", a separator or another signature's).
    const std::string key = j.is_object() ? j.value("signature", std::string()) : std::string();
    PARITY_ENFORCE(!key.empty() && name == SignatureDirName(key), ErrorKind::kInvalidNet,
                   "state.json: corpus entry '", Printable(name),
                   "' is not the directory name of its signature '", Printable(key), "'");
    CorpusEntry entry = EntryFromJson(j, dir_ + "/" + name);
    MakeDirs(entry.dir);
    WriteJson(entry);
    entries_[entry.key] = std::move(entry);
  }
  if (!fs::is_directory(dir_)) return;
  for (const auto& dir : fs::directory_iterator(dir_)) {
    if (!snapshot.contains(dir.path().filename().string())) fs::remove_all(dir.path());
  }
}

Corpus::Added Corpus::Add(const Finding& finding, int64_t index) {
  const std::string key = oracles::SignatureKey(finding.signature());
  CorpusEntry& entry = entries_[key];
  const bool fresh = entry.count == 0;
  const Sighting now{index, finding.case_().seed(), NowUtc()};
  const CaseSize size = SizeOf(finding.case_());
  if (fresh) {
    entry.key = key;
    entry.dir = dir_ + "/" + SignatureDirName(key);
    MakeDirs(entry.dir);
  }
  ++entry.count;
  if (fresh || index < entry.first.index) {
    entry.first = now;
    entry.description = Describe(key, finding);
    SaveAs(entry.dir, "case", finding);
  }
  if (fresh || index > entry.last.index) entry.last = now;
  if (fresh || size < entry.smallest_size ||
      (!(entry.smallest_size < size) && index < entry.smallest.index)) {
    entry.smallest = now;
    entry.smallest_size = size;
    SaveAs(entry.dir, "smallest", finding);
  }
  WriteJson(entry);
  return {&entry, fresh};
}

void Corpus::Merge(const std::string& other_findings_dir) {
  PARITY_ENFORCE(fs::is_directory(other_findings_dir), ErrorKind::kIo,
                 "merge: ", other_findings_dir, " is not a directory");
  const Corpus other(other_findings_dir);
  for (const auto& [key, theirs] : other.entries()) {
    CorpusEntry& mine = entries_[key];
    const bool fresh = mine.count == 0;
    if (fresh) {
      mine.key = key;
      mine.dir = dir_ + "/" + SignatureDirName(key);
      MakeDirs(mine.dir);
    }
    // Counts are read from files: two near INT64_MAX would wrap to a negative count.
    int64_t sum = 0;
    PARITY_ENFORCE(!__builtin_add_overflow(mine.count, theirs.count, &sum), ErrorKind::kInvalidNet,
                   theirs.dir, "/finding.json: count ", theirs.count, " added to the ", mine.count,
                   " already merged overflows");
    mine.count = sum;
    if (fresh || theirs.first.index < mine.first.index) {
      mine.first = theirs.first;
      mine.description = theirs.description;
      CopyFinding(theirs.dir, mine.dir, "case");
    }
    if (fresh || theirs.last.index > mine.last.index) mine.last = theirs.last;
    if (fresh || theirs.smallest_size < mine.smallest_size ||
        (!(mine.smallest_size < theirs.smallest_size) &&
         theirs.smallest.index < mine.smallest.index)) {
      mine.smallest = theirs.smallest;
      mine.smallest_size = theirs.smallest_size;
      CopyFinding(theirs.dir, mine.dir, "smallest");
    }
    if (theirs.reduced && (!mine.reduced || theirs.reduced_size < mine.reduced_size)) {
      mine.reduced = true;
      mine.reduced_size = theirs.reduced_size;
      CopyFinding(theirs.dir, mine.dir, "reduced");
    }
    WriteJson(mine);
  }
}

void Corpus::SetReduced(const std::string& key, const Finding& reduced) {
  auto it = entries_.find(key);
  PARITY_ENFORCE(it != entries_.end(), ErrorKind::kInternal, "no corpus entry for ", key);
  CorpusEntry& entry = it->second;
  const CaseSize size = SizeOf(reduced.case_());
  if (entry.reduced && !(size < entry.reduced_size)) return;
  entry.reduced = true;
  entry.reduced_size = size;
  SaveAs(entry.dir, "reduced", reduced);
  WriteJson(entry);
}

}  // namespace parity::fuzz
