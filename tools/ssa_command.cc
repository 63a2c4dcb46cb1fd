// parity ssa NET [--json]
// The SSA view of a net (core/transforms/ssa.h): one op per line with its versioned inputs and
// outputs, then the blobs the net reads undefined; with --json exactly Caffe2's get_ssa result,
// {"ssa": [[inputs, outputs], ...], "versions": {blob: version}}, each blob as [name, version].
#include <iostream>
#include <nlohmann/json.hpp>

#include "core/io.h"
#include "core/proto/error.h"
#include "core/transforms/ssa.h"
#include "tools/command.h"

namespace parity::tools {
namespace {

using Json = nlohmann::ordered_json;

Json BlobList(const std::vector<transforms::VersionedBlob>& blobs) {
  Json out = Json::array();
  for (const auto& [name, version] : blobs) out.push_back(Json::array({name, version}));
  return out;
}

std::string CaffeSsaJson(const transforms::Ssa& ssa) {
  Json ops = Json::array();
  for (const auto& op : ssa.ops)
    ops.push_back(Json::array({BlobList(op.inputs), BlobList(op.outputs)}));
  Json versions = Json::object();
  for (const auto& name : ssa.versions.order()) versions[name] = ssa.versions.Get(name);
  return Json({{"ssa", ops}, {"versions", versions}})
      .dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string Joined(const std::vector<transforms::VersionedBlob>& blobs) {
  std::string out;
  for (const auto& blob : blobs)
    out += (out.empty() ? "" : ", ") + Printable(transforms::VersionedName(blob));
  return out;
}

int Ssa(const std::string& net_path, bool json) {
  const caffe2::NetDef net = LoadNetDef(net_path);
  const transforms::Ssa ssa = transforms::GetSsa(net);
  if (json) {
    std::cout << CaffeSsaJson(ssa) << "\n";
    return kExitClean;
  }
  for (int i = 0; i < net.op_size(); ++i) {
    std::cout << "#" << i << " " << Printable(net.op(i).type()) << " (" << Joined(ssa.ops[i].inputs)
              << ") -> (" << Joined(ssa.ops[i].outputs) << ")\n";
  }
  std::cout << "undefined (read at version 0):";
  for (const auto& name : transforms::GetUndefinedBlobs(ssa)) std::cout << " " << Printable(name);
  std::cout << "\n";
  return kExitClean;
}

PARITY_REGISTER_COMMAND(Command{
    "ssa", "The SSA view of a net (Caffe2's get_ssa)", [](CLI::App* app) {
      app->footer(Examples({
          {"parity ssa examples/mlp.pbtxt", "one op per line with versioned blobs (h@1 -> h@2)"},
          {"parity ssa net.pb --json", "exactly Caffe2's core.get_ssa result"},
      }));
      auto net = std::make_shared<std::string>();
      auto json = std::make_shared<bool>(false);
      app->add_option("net", *net, "NetDef file (.pb binary or .pbtxt text)")->required();
      app->add_flag("--json", *json, "Print exactly Caffe2's get_ssa result as JSON");
      return [net, json] { return Ssa(*net, *json); };
    }});

}  // namespace
}  // namespace parity::tools
