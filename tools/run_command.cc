// parity run NET [--init NET] [--input NAME=FILE]... [--fetch BLOB,...] [--engine E] [-o OUT]
//
// Runs a net (the init net first, in the same workspace) on a registered backend and prints, or
// writes to OUT, the external outputs — or the fetched blobs, or when the net declares no external
// outputs, every blob its ops write.
#include <iostream>
#include <set>

#include "core/io.h"
#include "core/proto/error.h"
#include "oracles/backend.h"
#include "tools/command.h"
#include "tools/input_specs.h"
#include "tools/tensor_print.h"

namespace parity::tools {
namespace {

struct RunOptions {
  std::string net_path;
  std::string init_path;
  std::vector<std::string> inputs;
  std::vector<std::string> fetch;
  std::string engine = oracles::kProduction;
  std::string device = "cpu";
  std::string output_path;
};

// Blobs to report when none are asked for: the external outputs, else every blob an op writes (in
// first-write order).
std::vector<std::string> DefaultFetchList(const caffe2::NetDef& net) {
  if (net.external_output_size() > 0) {
    return {net.external_output().begin(), net.external_output().end()};
  }
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (const auto& op : net.op()) {
    for (const auto& out : op.output()) {
      if (seen.insert(out).second) names.push_back(out);
    }
  }
  return names;
}

// The backend named by --engine, on the device named by --device: "<engine>-cuda" is the CUDA
// twin of a CPU backend.
const oracles::Backend& ChooseBackend(const RunOptions& options) {
  const oracles::Backend& backend = oracles::GetBackend(options.engine);
  if (backend.info().device == options.device) return backend;
  const std::string twin = options.engine + "-" + options.device;
  const oracles::Backend* on_device = oracles::FindBackend(twin);
  PARITY_ENFORCE(on_device != nullptr, ErrorKind::kBadArgument, "--device ", options.device,
                 ": this build of parity has no backend '", twin, "' (no ", options.device,
                 " support for engine '", options.engine, "')");
  return *on_device;
}

int RunNetCommand(const RunOptions& options) {
  const oracles::Backend& backend = ChooseBackend(options);
  Case c;
  *c.mutable_net() = LoadNetDef(options.net_path);
  if (!options.init_path.empty()) *c.mutable_init_net() = LoadNetDef(options.init_path);
  for (auto& input : LoadInputSpecs(options.inputs)) *c.add_inputs() = std::move(input);
  oracles::BackendRun run = backend.Run(c);
  if (run.error) throw *run.error;
  std::vector<caffe2::TensorProto> outputs;
  for (const std::string& name :
       options.fetch.empty() ? DefaultFetchList(c.net()) : options.fetch) {
    auto it = run.blobs.find(name);
    PARITY_ENFORCE(it != run.blobs.end(), ErrorKind::kMissingBlob, "blob '", name,
                   "' to fetch does not exist after running net '", c.net().name(), "'");
    outputs.push_back(it->second);
    outputs.back().set_name(name);
  }
  if (!options.output_path.empty()) {
    SaveTensors(options.output_path, outputs);
    std::cerr << "wrote " << outputs.size() << " tensor(s) to " << options.output_path << "\n";
  } else {
    for (const auto& tensor : outputs) std::cout << FormatTensor(tensor.name(), tensor) << "\n";
  }
  return kExitClean;
}

PARITY_REGISTER_COMMAND(Command{
    "run", "Run a net and print or save its outputs", [](CLI::App* app) {
      app->footer(Examples({
          {"parity run examples/mlp.pbtxt --init examples/mlp_init.pbtxt",
           "print the external outputs"},
          {"parity run net.pbtxt --init init.pbtxt --input data=x.npy --fetch fc1,prob -o out.pb",
           "feed a tensor file, save two blobs as TensorProtos"},
          {"parity run net.pbtxt --engine reference",
           "the naive f64 interpreter instead of production"},
      }));
      auto options = std::make_shared<RunOptions>();
      app->add_option("net", options->net_path, "NetDef file (.pb binary or .pbtxt text)")
          ->required();
      app->add_option("--init", options->init_path, "Init net, run first in the same workspace");
      app->add_option("--input", options->inputs,
                      "NAME=FILE: feed blob NAME from a tensor file (.npy, .pb, .pbtxt); or FILE "
                      "alone to feed every tensor it holds under its own name");
      app->add_option("--fetch", options->fetch, "Blobs to print instead of the external outputs")
          ->delimiter(',');
      app->add_option("--engine", options->engine,
                      "A registered backend: production, reference (f64), reference-f32, ...");
      app->add_option("--device", options->device, "cpu or cuda")
          ->check(CLI::IsMember({"cpu", "cuda"}));
      app->add_option("-o,--output", options->output_path,
                      "Write the outputs as TensorProtos (.pb/.pbtxt) or one .npy");
      return [options] { return RunNetCommand(*options); };
    }});

}  // namespace
}  // namespace parity::tools
