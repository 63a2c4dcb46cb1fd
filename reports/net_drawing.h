// Drawing nets with Graphviz (libgvc and libcgraph, called as libraries), as Caffe2's
// net_drawer.py draws them: every op a box labelled "Type (op#i)" filled #0F9D58 with a white
// font; every blob an octagon, re-created each time it is written (an in-place op gets a new node
// for the version it writes, so versions show); edges blob -> op for inputs, op -> blob for
// outputs. Beyond net_drawer:
//   - sub-nets (If then_net/else_net, While loop_net/cond_net, Do net, RecurrentNetwork
//     step_net/backward_step_net given as NetDef text, any NetDef argument) are clusters attached
//     to their op by a dashed edge, recursively, each with its own blob nodes (a blob a sub-net
//     reads from outside appears again inside its cluster); a step net that does not parse is
//     drawn as a note saying so, not an error;
//   - one op can be highlighted (the blamed op of a finding) in red, and the ops downstream of it
//     (reading, transitively, a version it wrote) shaded;
//   - tooltips (xlink:title in SVG) give each op's name, engine, device and arguments, and each
//     blob's SSA version (as parity ssa numbers them);
//   - the same net always gives the same bytes.
//
// Everything that comes from the net (names, types, arguments) is escaped for Graphviz: control
// characters and bytes that are not UTF-8 are printed as C escapes (`\n`, `\xff`), backslashes and
// ampersands are escaped so that Graphviz shows them literally, and DOT quoting is left to
// cgraph's writer. Graphviz escapes '<', '>', '"' and '&' in the SVG it writes, so a blob named
// `<script>` is text there (&lt;script&gt;), never markup. Node ids are generated (n0, n1, ...),
// never the names.
//
// Graphviz's libraries are not thread-safe: every call here holds one process-wide lock. Graphviz's
// messages never reach stderr; they end up in the parity::Error that a failure throws.
#ifndef PARITY_REPORTS_NET_DRAWING_H_
#define PARITY_REPORTS_NET_DRAWING_H_

#include <string>
#include <vector>

#include "core/proto/caffe2.pb.h"

namespace parity::reports {

inline constexpr char kOpColor[] = "#0F9D58";          // net_drawer's op fill
inline constexpr char kHighlightColor[] = "#DB4437";   // the highlighted (blamed) op
inline constexpr char kDownstreamColor[] = "#F4CCCC";  // ops downstream of it
inline constexpr char kBlobShape[] = "octagon";        // net_drawer's blob shape

// Layout is bounded: dot's time grows faster than the graph (its network-simplex passes run over
// one virtual node per rank an edge crosses), so a net is laid out only when its drawing has at
// most `max_layout_nodes` nodes (ops, blob versions, notes) and at most `max_layout_size` nodes
// plus estimated virtual nodes. Past either, RenderNet refuses svg and png with a kResourceLimit
// error that says so (DOT output, which needs no layout, is never refused). Graphs of more than
// kBoundedLayoutAbove layout nodes are laid out with bounded iterations (mclimit, nslimit,
// nslimit1) and straight edges: a little less tidy, but about 5 s at the limits instead of minutes.
inline constexpr int kMaxLayoutNodes = 2000;
inline constexpr int kMaxLayoutSize = 25000;
inline constexpr int kBoundedLayoutAbove = 2500;

struct DrawOptions {
  // Graphviz's rankdir: "LR" (net_drawer's default), "TB", "BT" or "RL".
  std::string rankdir = "LR";
  // Index of a top-level op to draw in red (the blamed op); -1 for none.
  int highlighted_op = -1;
  // Shade the ops downstream of the highlighted op (those reading, transitively, a version it
  // wrote; a sub-net op counts as reading what its sub-nets read from outside).
  bool shade_downstream = true;
  int max_layout_nodes = kMaxLayoutNodes;
  int max_layout_size = kMaxLayoutSize;
};

// The net as DOT text, without layout (any size). kBadArgument for a bad rankdir or a highlighted
// op that is not in the net.
std::string NetToDot(const caffe2::NetDef& net, const DrawOptions& options = {});

// The net drawn in `format`: "svg" or "png" (laid out with Graphviz's dot layout and rendered with
// gvRenderData), or "dot" (NetToDot's text). kBadArgument for an unknown format or bad options,
// kResourceLimit for a net too large to lay out (see above), kInternal when Graphviz fails (its
// messages in the error).
std::string RenderNet(const caffe2::NetDef& net, const DrawOptions& options,
                      const std::string& format);

// The formats RenderNet takes: svg, png, dot.
const std::vector<std::string>& DrawingFormats();

// The format a file name asks for by its extension (case-insensitive): "svg" for .svg, "png" for
// .png, "dot" for .dot and .gv; "" for anything else.
std::string DrawingFormatForPath(const std::string& path);

// How big a drawing is, for the layout bound: nodes and edges of the graph, and the nodes dot's
// layout works on (nodes plus one per rank each edge crosses, ranks by longest path: an estimate).
struct DrawingSize {
  int nodes = 0;
  int edges = 0;
  int clusters = 0;
  long long layout_nodes = 0;
};
DrawingSize MeasureDrawing(const caffe2::NetDef& net, const DrawOptions& options = {});

}  // namespace parity::reports

#endif  // PARITY_REPORTS_NET_DRAWING_H_
