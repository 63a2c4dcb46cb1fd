// parity run NET [--init NET] [--input NAME=FILE]... [--fetch BLOB,...] [--engine E] [-o OUT]
//
// Runs a net (the init net first, in the same workspace) and prints, or writes to OUT, the external
// outputs — or the fetched blobs, or when the net declares no external outputs, every blob its ops
// write.
#include <iostream>
#include <set>

#include "core/io.h"
#include "tools/command.h"
#include "tools/net_runner.h"
#include "tools/tensor_print.h"

namespace parity::tools {
namespace {

struct RunOptions {
  std::string net_path;
  std::string init_path;
  std::vector<std::string> inputs;
  std::vector<std::string> fetch;
  std::string engine = "production";
  std::string device = "cpu";
  std::string output_path;
};

int RunNetCommand(const RunOptions& options) {
  NetRunRequest request;
  request.net = LoadNetDef(options.net_path);
  if (!options.init_path.empty()) request.init_net = LoadNetDef(options.init_path);
  request.inputs = LoadInputSpecs(options.inputs);
  request.fetch = options.fetch;
  request.engine = ParseEngine(options.engine);
  request.device = ParseDevice(options.device);
  std::vector<caffe2::TensorProto> outputs = RunNetRequest(request);
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
      auto options = std::make_shared<RunOptions>();
      app->add_option("net", options->net_path, "NetDef file (.pb binary or .pbtxt text)")
          ->required();
      app->add_option("--init", options->init_path, "Init net, run first in the same workspace");
      app->add_option("--input", options->inputs,
                      "NAME=FILE: feed blob NAME from a tensor file (.npy, .pb, .pbtxt); or FILE "
                      "alone to feed every tensor it holds under its own name");
      app->add_option("--fetch", options->fetch, "Blobs to print instead of the external outputs")
          ->delimiter(',');
      app->add_option("--engine", options->engine, "production or reference")
          ->check(CLI::IsMember({"production", "reference"}));
      app->add_option("--device", options->device, "cpu or cuda")
          ->check(CLI::IsMember({"cpu", "cuda"}));
      app->add_option("-o,--output", options->output_path,
                      "Write the outputs as TensorProtos (.pb/.pbtxt) or one .npy");
      return [options] { return RunNetCommand(*options); };
    }});

}  // namespace
}  // namespace parity::tools
