// parity draw NET -o FILE.svg|.png|.dot [--rankdir TB|LR|BT|RL] [--highlight OP_INDEX]
// Draws a net as Caffe2's net_drawer does (reports/net_drawing.h), with Graphviz's libraries: the
// format from the output's extension, the file written atomically.
#include <iostream>
#include <memory>

#include "core/io.h"
#include "core/proto/error.h"
#include "reports/net_drawing.h"
#include "tools/command.h"

namespace parity::tools {
namespace {

struct DrawCommandOptions {
  std::string net_path;
  std::string output_path;
  std::string rankdir = "LR";
  int highlight = -1;
};

int Draw(const DrawCommandOptions& options) {
  const std::string format = reports::DrawingFormatForPath(options.output_path);
  PARITY_ENFORCE(!format.empty(), ErrorKind::kBadArgument, "cannot tell the format of '",
                 Printable(options.output_path),
                 "' from its extension: -o must end in .svg, .png or .dot");
  const caffe2::NetDef net = LoadNetDef(options.net_path);
  reports::DrawOptions draw;
  draw.rankdir = options.rankdir;
  draw.highlighted_op = options.highlight;
  WriteFileAtomic(options.output_path, reports::RenderNet(net, draw, format));
  std::cout << "wrote " << Printable(options.output_path) << " (" << format << ", " << net.op_size()
            << " ops)\n";
  return kExitClean;
}

PARITY_REGISTER_COMMAND(Command{
    "draw", "Draw a net with Graphviz, as Caffe2's net_drawer (svg, png or dot)",
    [](CLI::App* app) {
      app->footer(Examples({
          {"parity draw examples/mlp.pbtxt -o mlp.svg", "the net as Caffe2's net_drawer draws it"},
          {"parity draw net.pbtxt -o net.svg --highlight 3 --rankdir LR",
           "op #3 in red, the ops downstream of it shaded, left to right"},
          {"parity draw big_net.pb -o big_net.dot",
           "the graph without layout, for nets too large to lay out"},
      }));
      auto options = std::make_shared<DrawCommandOptions>();
      app->add_option("net", options->net_path, "NetDef file (.pb binary or .pbtxt text)")
          ->required();
      app->add_option("-o,--output", options->output_path,
                      "Write the drawing here; the format from the extension: .svg, .png, .dot")
          ->required();
      app->add_option("--rankdir", options->rankdir, "Graphviz rankdir (default LR)")
          ->check(CLI::IsMember({"LR", "TB", "BT", "RL"}));
      app->add_option("--highlight", options->highlight,
                      "Index of a top-level op to draw in red, with the ops downstream of it "
                      "shaded")
          ->check(kWholeNumber);
      return [options] { return Draw(*options); };
    }});

}  // namespace
}  // namespace parity::tools
