// Real campaign files and hostile edits of them, shared by the two fuzzers of the campaign's JSON
// readers: the RapidCheck property (tests/campaign/json_readers_property_test) and the libFuzzer
// target (fuzz/targets/campaign_json_target). A corpus written by the real Corpus, and edits of a
// JSON document: a node replaced by a value the saved files never hold, or deleted.
#ifndef PARITY_FUZZ_TESTING_CAMPAIGN_FILES_H_
#define PARITY_FUZZ_TESTING_CAMPAIGN_FILES_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/proto/parity.pb.h"

namespace parity::fuzz {

// A finding of a one-op case of `op`, one signature per op.
Finding SyntheticFinding(const std::string& op);

// A real corpus in `dir` (emptied first): two signatures, Relu seen twice (cases 3 and 9) and
// Sigmoid once (case 5). Returns `dir`.
std::string RealCorpus(const std::string& dir);

// Values that break readers written for the values a campaign writes: extremes of every integer
// type, a double past int64, negatives, strings (one a path), null, booleans, arrays, objects.
const std::vector<nlohmann::json>& HostileJsonValues();

// Every JSON pointer inside `doc`, the root excluded, in document order.
std::vector<nlohmann::json::json_pointer> JsonPointers(const nlohmann::json& doc);

// Removes the node `at` points to from its parent object or array.
void EraseJsonNode(nlohmann::json* doc, const nlohmann::json::json_pointer& at);

}  // namespace parity::fuzz

#endif  // PARITY_FUZZ_TESTING_CAMPAIGN_FILES_H_
