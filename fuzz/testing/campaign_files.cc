#include "fuzz/testing/campaign_files.h"

#include <cstdint>
#include <filesystem>
#include <limits>

#include "fuzz/corpus.h"
#include "oracles/finding.h"

namespace parity::fuzz {
namespace {

using nlohmann::json;

void CollectPointers(const json& doc, const json::json_pointer& at,
                     std::vector<json::json_pointer>* out) {
  if (doc.is_object()) {
    for (const auto& [key, value] : doc.items()) {
      out->push_back(at / key);
      CollectPointers(value, at / key, out);
    }
  } else if (doc.is_array()) {
    for (size_t i = 0; i < doc.size(); ++i) {
      out->push_back(at / i);
      CollectPointers(doc[i], at / i, out);
    }
  }
}

}  // namespace

Finding SyntheticFinding(const std::string& op) {
  Case c;
  c.set_seed(7);
  caffe2::OperatorDef* def = c.mutable_net()->add_op();
  def->set_type(op);
  def->add_input("x");
  def->add_output("y");
  Finding finding =
      oracles::MakeFinding("forward", c, "mismatch", "synthetic finding for the reader test");
  finding.mutable_signature()->set_blamed_op_type(op);  // one signature per op
  return finding;
}

std::string RealCorpus(const std::string& dir) {
  std::filesystem::remove_all(dir);
  Corpus corpus(dir);
  corpus.Add(SyntheticFinding("Relu"), 3);
  corpus.Add(SyntheticFinding("Relu"), 9);
  corpus.Add(SyntheticFinding("Sigmoid"), 5);
  return dir;
}

const std::vector<json>& HostileJsonValues() {
  static const auto* values = new std::vector<json>{
      json(std::numeric_limits<int64_t>::max()),
      json(std::numeric_limits<int64_t>::min()),
      json(std::numeric_limits<uint64_t>::max()),
      json(-1),
      json(0),
      json(1),
      json(4611686018427387904LL),  // 2^62: doubles past int64 when added to itself
      json(1e308),
      json(-0.5),
      json("x"),
      json(""),
      json("../../escape"),
      json(nullptr),
      json(true),
      json::array(),
      json::array({1, 2, 3}),
      json::array({std::numeric_limits<int64_t>::max(), -1}),
      json::object(),
      json::object({{"index", -2}})};
  return *values;
}

std::vector<json::json_pointer> JsonPointers(const json& doc) {
  std::vector<json::json_pointer> pointers;
  CollectPointers(doc, json::json_pointer(), &pointers);
  return pointers;
}

void EraseJsonNode(json* doc, const json::json_pointer& at) {
  json& parent = (*doc)[at.parent_pointer()];
  if (parent.is_object()) {
    parent.erase(at.back());
  } else {
    parent.erase(static_cast<size_t>(std::stoul(at.back())));
  }
}

}  // namespace parity::fuzz
