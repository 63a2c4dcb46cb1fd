// A campaign's findings on disk, one directory per signature (ClusterFuzz's testcase groups):
//
//   DIR/findings/<signature>/case.pb, case.pbtxt        the first finding (lowest case index)
//                            smallest.pb, smallest.pbtxt the finding with the smallest case
//                            reduced.pb, reduced.pbtxt   the reduced case, once reduced
//                            finding.json                what a person or a CI system reads
//
// Each .pb is a Finding (its case inside), so `parity repro` replays any of them. finding.json
// holds the signature, the blamed op's path, the count, the first and last cases seen (index, seed,
// time), the smallest case's size and the repro command. Every file is written atomically.
//
// A Corpus opened on an existing directory continues it (counts add up), and corpora of shards
// merge by signature into the corpus one unsharded campaign would have written (`parity merge`):
// first = the lowest case index, last = the highest, smallest = the fewest ops, then elements.
#ifndef PARITY_FUZZ_CORPUS_H_
#define PARITY_FUZZ_CORPUS_H_

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "core/proto/parity.pb.h"

namespace parity::fuzz {

// A case's size, for "smallest": ops (sub-nets' too), then tensor elements of its inputs.
struct CaseSize {
  int64_t ops = 0;
  int64_t elements = 0;
  bool operator<(const CaseSize& other) const {
    return ops != other.ops ? ops < other.ops : elements < other.elements;
  }
};
CaseSize SizeOf(const Case& c);

// Where a signature's findings go under DIR/findings: its key made file-safe, cut to a readable
// length, and a hash of the whole key so two signatures never share a directory.
std::string SignatureDirName(const std::string& key);

struct Sighting {
  int64_t index = -1;  // the case's campaign index
  uint64_t seed = 0;   // the case's seed
  std::string time;    // UTC, ISO 8601
};

struct CorpusEntry {
  std::string key;  // oracles::SignatureKey
  std::string dir;  // DIR/findings/<SignatureDirName>
  int64_t count = 0;
  Sighting first, last;
  Sighting smallest;
  CaseSize smallest_size;
  bool reduced = false;
  CaseSize reduced_size;
  nlohmann::json description;  // finding.json's signature fields, from the first finding
};

class Corpus {
 public:
  // The corpus under `findings_dir` (DIR/findings), continuing what is there.
  explicit Corpus(std::string findings_dir);

  struct Added {
    const CorpusEntry* entry;
    bool new_signature;  // the first finding with this signature in the corpus
  };
  // Records `finding`, found at case `index`, now; writes what changed.
  Added Add(const Finding& finding, int64_t index);

  // Unites another corpus directory into this one, signature by signature.
  void Merge(const std::string& other_findings_dir);

  // Stores a reduced case for a signature (reduced.pb, .pbtxt) when smaller than the one there.
  void SetReduced(const std::string& key, const Finding& reduced);

  // Every entry's bookkeeping (what finding.json holds), for state.json (fuzz/campaign_state.h).
  nlohmann::json Snapshot() const;
  // Replaces the entries by a snapshot's and rewrites their finding.json; removes the signature
  // directories it does not name (their findings came from cases not done as of the snapshot,
  // which run again).
  void Restore(const nlohmann::json& snapshot);

  const std::map<std::string, CorpusEntry>& entries() const { return entries_; }
  const std::string& dir() const { return dir_; }

 private:
  void Load(const std::string& signature_dir);
  void WriteJson(const CorpusEntry& entry) const;
  static nlohmann::json EntryJson(const CorpusEntry& entry);
  // `j` as finding.json holds it, for the signature directory `dir`.
  static CorpusEntry EntryFromJson(const nlohmann::json& j, const std::string& dir);

  std::string dir_;
  std::map<std::string, CorpusEntry> entries_;  // by key
};

}  // namespace parity::fuzz

#endif  // PARITY_FUZZ_CORPUS_H_
