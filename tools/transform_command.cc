// parity transform NET [--init INIT] --pass P[,P...] [--set NAME=VALUE]... [-o OUT] [--init-out
// OUT] parity transform --list Graph transforms by name (core/transforms/pass.h), run in order on a
// copy of the net: every pass's guarantees are verified after it, and a pass that refuses leaves
// the files untouched and exits 2 with its reason. Without -o the rewritten net is printed as text.
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/io.h"
#include "core/proto/error.h"
#include "core/transforms/pass.h"
#include "tools/command.h"
#include "tools/output_files.h"

namespace parity::tools {
namespace {

struct TransformOptions {
  std::string net_path, init_path, out_path, init_out_path;
  std::vector<std::string> passes;
  std::vector<std::string> settings;  // name=value
  bool list = false;
};

int List() {
  for (const auto& name : transforms::PassRegistry::Names()) {
    const transforms::PassInfo& pass = *transforms::PassRegistry::Find(name);
    std::cout << name << (pass.preserves_outputs ? "" : " (changes outputs)") << "\n  "
              << pass.contract << "\n";
  }
  return kExitClean;
}

// The --set NAME=VALUE settings, each read by one of the chosen passes and given once: a
// misspelt or unread setting would silently change nothing.
std::map<std::string, std::string> Settings(const TransformOptions& options) {
  std::set<std::string> read;
  for (const std::string& name : options.passes) {
    if (const transforms::PassInfo* pass = transforms::PassRegistry::Find(name)) {
      for (const std::string& setting : transforms::SettingsReadBy(*pass)) read.insert(setting);
    }
  }
  std::map<std::string, std::string> settings;
  for (const auto& setting : options.settings) {
    const size_t equals = setting.find('=');
    PARITY_ENFORCE(equals != std::string::npos && equals > 0, ErrorKind::kBadArgument,
                   "transform: --set '", setting, "' is not NAME=VALUE");
    const std::string name = setting.substr(0, equals);
    std::string known;
    for (const std::string& r : read) known += (known.empty() ? "'" : ", '") + r + "'";
    PARITY_ENFORCE(read.count(name), ErrorKind::kBadArgument, "transform: --set '", name,
                   "' is read by none of the passes given (they read ",
                   known.empty() ? std::string("no settings") : known, ")");
    PARITY_ENFORCE(settings.emplace(name, setting.substr(equals + 1)).second,
                   ErrorKind::kBadArgument, "transform: --set '", name, "' given twice");
  }
  return settings;
}

int Transform(const TransformOptions& options) {
  if (options.list) return List();
  PARITY_ENFORCE(!options.net_path.empty(), ErrorKind::kBadArgument,
                 "transform: give a net file (or --list)");
  PARITY_ENFORCE(!options.passes.empty(), ErrorKind::kBadArgument,
                 "transform: give --pass P[,P...] (parity transform --list shows them)");
  // -o over NET is the usual in-place rewrite; over --init it would lose the parameters the net
  // was transformed with, and -o with --init-out would keep only one of the two.
  RefuseSharedFiles({{"-o", options.out_path}, {"--init-out", options.init_out_path}},
                    {{"--init", options.init_path}});
  transforms::TransformedNet net;
  net.predict = LoadNetDef(options.net_path);
  if (!options.init_path.empty()) net.init = LoadNetDef(options.init_path);
  net.settings = Settings(options);
  const transforms::TransformedNet out = transforms::ApplyPasses(net, options.passes);
  // Both files or neither: a failing --init-out must not leave a new -o beside an old init net.
  std::vector<std::pair<std::string, std::string>> files;
  if (options.out_path.empty()) {
    std::cout << out.predict.DebugString();
  } else {
    files.emplace_back(options.out_path, ProtoFileBytes(options.out_path, out.predict));
  }
  if (!options.init_out_path.empty()) {
    files.emplace_back(options.init_out_path, ProtoFileBytes(options.init_out_path, out.init));
  }
  if (!files.empty()) WriteFilesAtomic(files);
  std::cerr << "transform: " << net.predict.op_size() << " -> " << out.predict.op_size() << " ops";
  const auto print_renamed = [](const char* what, const std::map<std::string, std::string>& map) {
    for (const auto& [from, to] : map) {
      std::cerr << (from == map.begin()->first ? what : ", ") << Printable(from) << " -> "
                << Printable(to);
    }
  };
  print_renamed("; inputs renamed ", out.renamed_inputs);
  print_renamed("; outputs renamed ", out.renamed_outputs);
  std::cerr << "\n";
  return kExitClean;
}

PARITY_REGISTER_COMMAND(Command{
    "transform", "Graph transforms by name, each verified (see --list)", [](CLI::App* app) {
      app->footer(Examples({
          {"parity transform --list", "the passes and their contracts"},
          {"parity transform net.pbtxt --init init.pbtxt --pass fuse_conv_bn,cse -o fused.pbtxt "
           "--init-out fused_init.pbtxt",
           "two passes in order, each verified"},
          {"parity transform net.pbtxt --pass optimize_inference_for_dag --set namescope=m -o "
           "shared.pbtxt",
           "share blob names whose lives do not overlap"},
      }));
      auto options = std::make_shared<TransformOptions>();
      app->add_option("net", options->net_path, "NetDef file (.pb binary or .pbtxt text)");
      app->add_option("--init", options->init_path, "Its init net");
      app->add_option("--pass", options->passes, "Passes to run, in order")->delimiter(',');
      app->add_option("-o,--output", options->out_path, "Write the net here (.pb or .pbtxt)");
      app->add_option("--init-out", options->init_out_path, "Write the init net here");
      app->add_option("--set", options->settings,
                      "A pass setting NAME=VALUE (repeatable), e.g. "
                      "input_devices=x:gpu for assign_device_option");
      app->add_flag("--list", options->list, "List the passes with their contracts");
      return [options] { return Transform(*options); };
    }});

}  // namespace
}  // namespace parity::tools
