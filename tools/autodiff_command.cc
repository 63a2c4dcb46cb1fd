// parity autodiff NET --loss BLOB[,BLOB...] [-o OUT]: appends gradient operators (Caffe2's
// AddGradientOperators) and writes the net; prints the gradient map.
#include <google/protobuf/text_format.h>

#include <iostream>

#include "core/grad/backward.h"
#include "core/io.h"
#include "tools/command.h"

namespace parity::tools {
namespace {

struct AutodiffOptions {
  std::string net_path;
  std::vector<std::string> losses;
  std::string output_path;
};

int Autodiff(const AutodiffOptions& options) {
  caffe2::NetDef net = LoadNetDef(options.net_path);
  GradientSeeds seeds;
  for (const auto& loss : options.losses) seeds.emplace_back(loss, "");
  std::map<std::string, std::string> gradients = AddGradientOperators(&net, seeds);
  // The gradients become external outputs so that `parity run` prints them.
  for (const auto& [blob, grad] : gradients) {
    bool present = false;
    for (const auto& out : net.external_output()) present = present || out == grad;
    if (!present) net.add_external_output(grad);
  }
  if (options.output_path.empty()) {
    std::string text;
    google::protobuf::TextFormat::PrintToString(net, &text);
    std::cout << text;
  } else {
    SaveNetDef(options.output_path, net);
  }
  for (const auto& [blob, grad] : gradients) {
    std::cerr << Printable(blob) << " -> " << Printable(grad) << "\n";
  }
  return kExitClean;
}

PARITY_REGISTER_COMMAND(Command{
    "autodiff", "Append gradient operators for a loss (Caffe2's AddGradientOperators)",
    [](CLI::App* app) {
      app->footer(Examples({
          {"parity autodiff examples/mlp.pbtxt --loss loss -o mlp_train.pbtxt",
           "append the backward pass of blob 'loss'; prints each blob's gradient"},
          {"parity autodiff lstm.pbtxt --loss lstm/hidden_t_all -o lstm_train.pbtxt",
           "a net built by parity rnn, differentiated through its RecurrentNetwork"},
      }));
      auto options = std::make_shared<AutodiffOptions>();
      app->add_option("net", options->net_path, "NetDef file (.pb or .pbtxt)")->required();
      app->add_option("--loss", options->losses, "Blob(s) to differentiate, seeded with ones")
          ->required()
          ->delimiter(',')
          ->check(kNonEmpty);
      app->add_option("-o,--output", options->output_path,
                      "Write the net here (.pb or .pbtxt); default: print it as text");
      return [options] { return Autodiff(*options); };
    }});

}  // namespace
}  // namespace parity::tools
