#include "core/transforms/verify.h"

#include <algorithm>
#include <set>

#include "core/proto/error.h"
#include "core/schema.h"
#include "core/transforms/ssa.h"

namespace parity::transforms {
namespace {

[[noreturn]] void Broken(const std::string& pass, const std::string& what) {
  throw Error(ErrorKind::kInternal, "pass '" + pass + "' broke its contract: " + what);
}

std::string Listed(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "'" : ", '") + Printable(name) + "'";
  return out;
}

}  // namespace

std::vector<std::string> UndefinedReads(const caffe2::NetDef& net, const caffe2::NetDef& init) {
  std::set<std::string> defined(net.external_input().begin(), net.external_input().end());
  for (const auto& op : init.op()) defined.insert(op.output().begin(), op.output().end());
  std::vector<std::string> undefined;
  for (const auto& name : GetUndefinedBlobs(GetSsa(net))) {
    if (!defined.count(name)) undefined.push_back(name);
  }
  return undefined;
}

void VerifyTransform(const std::string& pass, const TransformedNet& before,
                     const TransformedNet& after) {
  // 1. Well-formed.
  for (int i = 0; i < after.predict.op_size(); ++i) {
    const caffe2::OperatorDef& op = after.predict.op(i);
    const OpSchema* schema = OpSchemaRegistry::Find(op.type());
    if (schema == nullptr) {
      Broken(pass, "op #" + std::to_string(i) + " has type '" + Printable(op.type()) +
                       "', which has no schema");
    }
    try {
      schema->Verify(op);
    } catch (const Error& error) {
      Broken(pass, "op #" + std::to_string(i) + " (" + op.type() + ") " + error.what());
    }
  }
  // 2. Nothing undefined read that was defined before. Blobs the net already read undefined
  // (a fuzz case feeds inputs it does not declare) may stay so.
  const std::vector<std::string> was = UndefinedReads(before.predict, before.init);
  std::vector<std::string> now = UndefinedReads(after.predict, after.init);
  std::vector<std::string> added;
  for (const auto& name : now) {
    std::string original = name;
    for (const auto& [from, to] : after.renamed_inputs) {
      if (to == name) original = from;
    }
    if (!std::binary_search(was.begin(), was.end(), original)) added.push_back(name);
  }
  if (!added.empty()) {
    Broken(pass, "the net now reads " + Listed(added) +
                     " before anything writes it (not an external input)");
  }
  // 3. External outputs kept, and written.
  std::vector<std::string> expected;
  for (const auto& name : before.predict.external_output()) {
    auto renamed = after.renamed_outputs.find(name);
    expected.push_back(renamed == after.renamed_outputs.end() ? name : renamed->second);
  }
  const std::vector<std::string> outputs(after.predict.external_output().begin(),
                                         after.predict.external_output().end());
  if (outputs != expected) {
    Broken(pass, "the external outputs were " + Listed(expected) + ", now " + Listed(outputs));
  }
  auto written_by = [](const TransformedNet& net) {
    std::set<std::string> written(net.predict.external_input().begin(),
                                  net.predict.external_input().end());
    for (const auto& op : net.predict.op()) written.insert(op.output().begin(), op.output().end());
    for (const auto& op : net.init.op()) written.insert(op.output().begin(), op.output().end());
    return written;
  };
  const std::set<std::string> written_before = written_by(before), written = written_by(after);
  std::vector<std::string> unwritten;
  for (int i = 0; i < before.predict.external_output_size(); ++i) {
    if (written_before.count(before.predict.external_output(i)) && !written.count(outputs[i])) {
      unwritten.push_back(outputs[i]);
    }
  }
  if (!unwritten.empty()) {
    Broken(pass, "nothing writes the external output(s) " + Listed(unwritten) + " any more");
  }
}

}  // namespace parity::transforms
