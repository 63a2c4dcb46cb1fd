#include "reports/net_drawing.h"

#include <graphviz/gvc.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <utility>

#include "core/io.h"
#include "core/proto/error.h"

namespace parity::reports {
namespace {

constexpr size_t kMaxLabelChars = 120;  // a name in a label
constexpr size_t kMaxValueChars = 200;  // an argument's value in a tooltip
constexpr int kMaxListItems = 8;        // of a repeated argument, in a tooltip
constexpr int kMaxTooltipArgs = 40;     // arguments listed in an op's tooltip
constexpr int kMaxSubNetDepth = 16;     // sub-nets nested deeper are a note
constexpr char kFontName[] = "Helvetica";
constexpr char kClusterColor[] = "#9E9E9E";
// PNG only: the drawing is scaled down to fit this many inches (96 dpi), so that a big net cannot
// ask cairo for a multi-gigabyte bitmap (SVG has no such limit).
constexpr char kPngMaxSize[] = "50,50";

// ---------------------------------------------------------------------------------------------
// Text from a net, escaped for Graphviz.

// The length of the valid UTF-8 sequence at text[i] (no overlong forms, surrogates or code points
// past U+10FFFF), or 0.
int Utf8Length(const std::string& text, size_t i) {
  const unsigned char lead = text[i];
  if (lead < 0x80) return 1;
  int length;
  unsigned code;
  if ((lead & 0xE0) == 0xC0) {
    length = 2;
    code = lead & 0x1F;
  } else if ((lead & 0xF0) == 0xE0) {
    length = 3;
    code = lead & 0x0F;
  } else if ((lead & 0xF8) == 0xF0) {
    length = 4;
    code = lead & 0x07;
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  for (int k = 1; k < length; ++k) {
    const unsigned char next = text[i + k];
    if ((next & 0xC0) != 0x80) return 0;
    code = (code << 6) | (next & 0x3F);
  }
  static const unsigned kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};
  if (code < kSmallest[length] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return 0;
  return length;
}

// `raw` as Graphviz shows it literally in a label or tooltip (an escString): control characters
// as C escapes (Printable), bytes that are not UTF-8 as \xNN, then '\' doubled (Graphviz reads
// \n, \N, \G, ... in labels) and '&' as &amp; (Graphviz decodes HTML entities in labels). At most
// `max_chars` characters, then "...". DOT quoting is left to cgraph's writer, and '<', '>', '"'
// to Graphviz's SVG writer, which escapes them.
std::string GraphvizText(const std::string& raw, size_t max_chars) {
  const std::string text = Printable(raw);
  std::string out;
  size_t chars = 0;
  for (size_t i = 0; i < text.size(); ++chars) {
    if (chars == max_chars) {
      out += "...";
      break;
    }
    const int length = Utf8Length(text, i);
    if (length == 0) {
      static const char kHex[] = "0123456789abcdef";
      const unsigned char byte = text[i];
      out += "\\\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 15];
      i += 1;
      continue;
    }
    if (text[i] == '\\') {
      out += "\\\\";
    } else if (text[i] == '&') {
      out += "&amp;";
    } else {
      out.append(text, i, length);
    }
    i += length;
  }
  return out;
}

std::string Label(const std::string& raw) { return GraphvizText(raw, kMaxLabelChars); }

// Tooltip lines (each already escaped) joined by Graphviz's line break.
std::string Lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& line : lines) out += (out.empty() ? "" : "\\n") + line;
  return out;
}

std::string Quoted(const std::string& text) { return "'" + text + "'"; }

// ---------------------------------------------------------------------------------------------
// Sub-nets.

struct SubNet {
  std::string label;  // the argument: "then_net", "nets[1]"
  caffe2::NetDef net;
  std::string error;  // set: not drawn, this note instead
};

bool IsStepNetText(const caffe2::Argument& arg) {
  // RecurrentNetwork passes its step nets as NetDef text in string arguments (as dag_net.cc).
  return arg.has_s() && (arg.name() == "step_net" || arg.name() == "backward_step_net");
}

bool HasSubNets(const caffe2::OperatorDef& op) {
  for (const auto& arg : op.arg()) {
    if (arg.has_n() || arg.nets_size() > 0 || IsStepNetText(arg)) return true;
  }
  return false;
}

std::vector<SubNet> SubNetsOf(const caffe2::OperatorDef& op, int depth) {
  std::vector<SubNet> subnets;
  if (!HasSubNets(op)) return subnets;
  if (depth >= kMaxSubNetDepth) {
    subnets.push_back(
        {"sub-nets",
         {},
         "nested deeper than " + std::to_string(kMaxSubNetDepth) + " levels: not drawn"});
    return subnets;
  }
  for (const auto& arg : op.arg()) {
    if (arg.has_n()) subnets.push_back({arg.name(), arg.n(), ""});
    for (int j = 0; j < arg.nets_size(); ++j) {
      subnets.push_back({arg.name() + "[" + std::to_string(j) + "]", arg.nets(j), ""});
    }
    if (!arg.has_n() && IsStepNetText(arg)) {
      SubNet subnet{arg.name(), {}, ""};
      try {
        ParseProto(arg.s(), /*text=*/true, "argument '" + arg.name() + "'", &subnet.net);
      } catch (const Error& e) {
        subnet.error = e.what();
      }
      subnets.push_back(std::move(subnet));
    }
  }
  return subnets;
}

// What a net reads from outside (before writing it) and every name it writes, its sub-nets' too.
void CollectNetAccess(const caffe2::NetDef& net, int depth, std::set<std::string>* reads,
                      std::set<std::string>* writes);

void CollectOpAccess(const caffe2::OperatorDef& op, const std::vector<SubNet>& subnets, int depth,
                     std::set<std::string>* reads, std::set<std::string>* writes) {
  reads->insert(op.input().begin(), op.input().end());
  for (const auto& subnet : subnets) {
    if (subnet.error.empty()) CollectNetAccess(subnet.net, depth + 1, reads, writes);
  }
  writes->insert(op.output().begin(), op.output().end());
}

void CollectNetAccess(const caffe2::NetDef& net, int depth, std::set<std::string>* reads,
                      std::set<std::string>* writes) {
  std::set<std::string> written;
  for (const auto& op : net.op()) {
    std::set<std::string> op_reads;
    CollectOpAccess(op, SubNetsOf(op, depth), depth, &op_reads, &written);
    for (const auto& name : op_reads) {
      if (!written.count(name)) reads->insert(name);
    }
  }
  writes->insert(written.begin(), written.end());
}

// ---------------------------------------------------------------------------------------------
// The drawing, before Graphviz: nodes n<i>, clusters cluster_<i>, attribute values escaped.

using Attrs = std::vector<std::pair<std::string, std::string>>;

struct Cluster {
  int parent;  // -1: the root graph
  Attrs attrs;
};
struct Node {
  int cluster;  // -1: the root graph
  Attrs attrs;
};
struct Edge {
  int tail, head;
  Attrs attrs;
};
struct Drawing {
  Attrs graph, node_defaults, edge_defaults;
  std::vector<Cluster> clusters;
  std::vector<Node> nodes;
  std::vector<Edge> edges;
};

std::string NodeId(int node) { return "n" + std::to_string(node); }
std::string ClusterId(int cluster) { return "cluster_" + std::to_string(cluster); }

std::string Number(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%g", value);
  return buffer;
}

template <typename Items, typename Format>
std::string ListValue(const Items& items, Format format) {
  std::string out = "[";
  for (int i = 0; i < items.size(); ++i) {
    if (i == kMaxListItems) {
      out += ", ... (" + std::to_string(items.size()) + " values)";
      break;
    }
    out += (i ? ", " : "") + format(items.Get(i));
  }
  return out + "]";
}

// An argument's value, raw (escaped by the caller).
std::string ArgValue(const caffe2::Argument& arg) {
  if (arg.has_n()) return "net" + (arg.n().name().empty() ? "" : " " + Quoted(arg.n().name()));
  if (IsStepNetText(arg)) return "net (text)";
  if (arg.has_f()) return Number(arg.f());
  if (arg.has_i()) return std::to_string(arg.i());
  if (arg.has_s()) return "\"" + arg.s() + "\"";
  if (arg.has_t()) {
    std::vector<int64_t> dims(arg.t().dims().begin(), arg.t().dims().end());
    return "tensor " + ShapeString(dims);
  }
  if (arg.floats_size()) return ListValue(arg.floats(), [](float v) { return Number(v); });
  if (arg.ints_size()) {
    return ListValue(arg.ints(), [](int64_t v) { return std::to_string(v); });
  }
  if (arg.strings_size()) {
    return ListValue(arg.strings(), [](const std::string& v) { return "\"" + v + "\""; });
  }
  if (arg.nets_size()) return std::to_string(arg.nets_size()) + " nets";
  if (arg.tensors_size()) return std::to_string(arg.tensors_size()) + " tensors";
  return "(no value)";
}

enum class Role { kPlain, kHighlighted, kDownstream };

class Builder {
 public:
  explicit Builder(const DrawOptions& options) : options_(options) {}

  Drawing Build(const caffe2::NetDef& net) {
    static const std::set<std::string> kRankdirs = {"LR", "TB", "BT", "RL"};
    PARITY_ENFORCE(kRankdirs.count(options_.rankdir), ErrorKind::kBadArgument, "rankdir '",
                   Printable(options_.rankdir), "' is not one of LR, TB, BT, RL");
    PARITY_ENFORCE(options_.highlighted_op >= -1 && options_.highlighted_op < net.op_size(),
                   ErrorKind::kBadArgument, "cannot highlight op #", options_.highlighted_op,
                   ": the net has ", net.op_size(), " ops",
                   net.op_size() ? " (#0 to #" + std::to_string(net.op_size() - 1) + ")" : "");
    drawing_.graph = {{"rankdir", options_.rankdir},
                      {"compound", "true"},
                      {"fontname", kFontName},
                      {"tooltip", Label(net.name().empty() ? "net" : net.name())}};
    if (!net.name().empty()) {
      drawing_.graph.push_back({"label", Label(net.name())});
      drawing_.graph.push_back({"labelloc", "t"});
    }
    drawing_.node_defaults = {{"fontname", kFontName}};
    drawing_.edge_defaults = {{"color", "#5F6368"}};
    std::set<std::string> tainted;
    DrawNet(net, -1, 0, "", options_.highlighted_op,
            options_.highlighted_op >= 0 ? &tainted : nullptr);
    return std::move(drawing_);
  }

 private:
  int AddNode(int cluster, Attrs attrs) {
    drawing_.nodes.push_back({cluster, std::move(attrs)});
    const int node = static_cast<int>(drawing_.nodes.size()) - 1;
    if (cluster >= 0 && first_node_[cluster] < 0) first_node_[cluster] = node;
    return node;
  }

  void AddEdge(int tail, int head, Attrs attrs = {}) {
    drawing_.edges.push_back({tail, head, std::move(attrs)});
  }

  int AddNote(int cluster, const std::string& escaped_text) {
    return AddNode(cluster, {{"shape", "note"},
                             {"label", escaped_text},
                             {"fontcolor", "#5F6368"},
                             {"color", kClusterColor}});
  }

  int AddBlob(int cluster, const std::string& name, int version, const std::string& where) {
    return AddNode(
        cluster,
        {{"shape", kBlobShape},
         {"label", Label(name)},
         {"tooltip", Lines({GraphvizText(where, kMaxValueChars) + "blob " + Label(Quoted(name)) +
                            " version " + std::to_string(version)})}});
  }

  int AddOp(const caffe2::OperatorDef& op, int index, Role role, int cluster,
            const std::string& where) {
    std::string title = where + "op #" + std::to_string(index) + " (" + op.type();
    if (!op.name().empty()) title += " " + Quoted(op.name());
    std::vector<std::string> lines = {GraphvizText(title + ")", kMaxValueChars)};
    if (role == Role::kHighlighted) lines.push_back("highlighted");
    if (role == Role::kDownstream) lines.push_back("downstream of the highlighted op");
    if (!op.engine().empty()) lines.push_back("engine: " + Label(op.engine()));
    if (op.has_device_option()) {
      lines.push_back("device: type " + std::to_string(op.device_option().device_type()) + ", id " +
                      std::to_string(op.device_option().device_id()));
    }
    for (int a = 0; a < op.arg_size(); ++a) {
      if (a == kMaxTooltipArgs) {
        lines.push_back("... (" + std::to_string(op.arg_size()) + " arguments)");
        break;
      }
      lines.push_back(Label(op.arg(a).name()) + " = " +
                      GraphvizText(ArgValue(op.arg(a)), kMaxValueChars));
    }
    const char* fill = role == Role::kHighlighted  ? kHighlightColor
                       : role == Role::kDownstream ? kDownstreamColor
                                                   : kOpColor;
    return AddNode(cluster, {{"shape", "box"},
                             {"style", "filled"},
                             {"fillcolor", fill},
                             {"color", role == Role::kPlain ? kOpColor : kHighlightColor},
                             {"fontcolor", role == Role::kDownstream ? "#000000" : "#FFFFFF"},
                             {"label", Label(op.type()) + " (op#" + std::to_string(index) + ")"},
                             {"tooltip", Lines(lines)}});
  }

  int AddCluster(int parent, const std::string& escaped_label, const std::string& where,
                 Role role) {
    drawing_.clusters.push_back(
        {parent,
         {{"label", escaped_label},
          {"tooltip", GraphvizText(where, kMaxValueChars)},
          {"style", "rounded"},
          {"color", role == Role::kHighlighted ? kHighlightColor : kClusterColor},
          {"fontcolor", "#5F6368"}}});
    first_node_.push_back(-1);
    return static_cast<int>(drawing_.clusters.size()) - 1;
  }

  // Draws `net` into `cluster` (-1: the root). `highlighted` is an op index of this net or -1;
  // `tainted` (null when nothing is highlighted) holds the names whose latest version is
  // downstream of the highlighted op, and is updated as the ops run.
  void DrawNet(const caffe2::NetDef& net, int cluster, int depth, const std::string& where,
               int highlighted, std::set<std::string>* tainted) {
    std::map<std::string, int> latest;    // name -> node of its latest version
    std::map<std::string, int> versions;  // name -> its latest version (0: read, not written)
    if (net.op_size() == 0) AddNote(cluster, "(no ops)");
    for (int i = 0; i < net.op_size(); ++i) {
      const caffe2::OperatorDef& op = net.op(i);
      const std::vector<SubNet> subnets = SubNetsOf(op, depth);
      std::set<std::string> reads, writes;
      if (tainted != nullptr) CollectOpAccess(op, subnets, depth, &reads, &writes);
      Role role = Role::kPlain;
      if (i == highlighted) {
        role = Role::kHighlighted;
      } else if (tainted != nullptr && options_.shade_downstream &&
                 std::any_of(reads.begin(), reads.end(),
                             [&](const std::string& name) { return tainted->count(name); })) {
        role = Role::kDownstream;
      }
      const int op_node = AddOp(op, i, role, cluster, where);
      for (const auto& input : op.input()) {
        auto found = latest.find(input);
        const int blob = found != latest.end()
                             ? found->second
                             : (latest[input] = AddBlob(cluster, input, versions[input], where));
        AddEdge(blob, op_node);
      }
      const std::string op_where = where + "op #" + std::to_string(i) + " (" + op.type() + ") > ";
      for (const SubNet& subnet : subnets) {
        const std::string name = subnet.net.name();
        const int sub =
            AddCluster(cluster, Label(subnet.label + (name.empty() ? "" : " " + Quoted(name))),
                       op_where + subnet.label, role);
        if (subnet.error.empty()) {
          std::set<std::string> inner_tainted;
          if (tainted != nullptr && role != Role::kHighlighted) inner_tainted = *tainted;
          DrawNet(subnet.net, sub, depth + 1, op_where + subnet.label + " > ", -1,
                  tainted != nullptr ? &inner_tainted : nullptr);
        } else {
          AddNote(sub, Label(subnet.error));
        }
        AddEdge(op_node, first_node_[sub],
                {{"lhead", ClusterId(sub)}, {"style", "dashed"}, {"color", kClusterColor}});
      }
      for (const auto& output : op.output()) {
        const int blob = AddBlob(cluster, output, ++versions[output], where);
        latest[output] = blob;
        AddEdge(op_node, blob);
      }
      if (tainted != nullptr) {
        if (role != Role::kPlain) {
          tainted->insert(writes.begin(), writes.end());
        } else {
          // A version written by an op outside the taint is clean. (What a plain op's sub-nets
          // write may not be written at all, so it stays as it was.)
          for (const auto& output : op.output()) tainted->erase(output);
        }
      }
    }
  }

  const DrawOptions& options_;
  Drawing drawing_;
  std::vector<int> first_node_;  // per cluster
};

DrawingSize Measure(const Drawing& drawing) {
  DrawingSize size;
  size.nodes = static_cast<int>(drawing.nodes.size());
  size.edges = static_cast<int>(drawing.edges.size());
  size.clusters = static_cast<int>(drawing.clusters.size());
  // Ranks by longest path (Kahn's order; the drawing is acyclic: every edge leaves a node made
  // earlier in execution order, and nodes on a cycle would just keep rank 0).
  std::vector<std::vector<int>> heads(size.nodes);
  std::vector<int> in_degree(size.nodes, 0), rank(size.nodes, 0);
  for (const Edge& edge : drawing.edges) {
    heads[edge.tail].push_back(edge.head);
    ++in_degree[edge.head];
  }
  std::vector<int> order;
  for (int n = 0; n < size.nodes; ++n) {
    if (in_degree[n] == 0) order.push_back(n);
  }
  for (size_t k = 0; k < order.size(); ++k) {
    for (int head : heads[order[k]]) {
      rank[head] = std::max(rank[head], rank[order[k]] + 1);
      if (--in_degree[head] == 0) order.push_back(head);
    }
  }
  size.layout_nodes = size.nodes;
  for (const Edge& edge : drawing.edges) {
    size.layout_nodes += std::max(0, rank[edge.head] - rank[edge.tail] - 1);
  }
  return size;
}

// ---------------------------------------------------------------------------------------------
// Graphviz.

std::mutex& GraphvizMutex() {
  static auto* mutex = new std::mutex();
  return *mutex;
}

// While a GraphvizSession holds the lock, Graphviz's messages are collected here, not printed.
std::string* collected_messages = nullptr;

int CollectMessage(char* text) {
  if (collected_messages != nullptr && collected_messages->size() < 4096) {
    collected_messages->append(text);
  }
  return 0;
}

class GraphvizSession {
 public:
  GraphvizSession() : lock_(GraphvizMutex()) {
    collected_messages = &messages_;
    previous_ = agseterrf(CollectMessage);
    agreseterrors();
  }
  ~GraphvizSession() {
    agseterrf(previous_);
    collected_messages = nullptr;
  }
  GraphvizSession(const GraphvizSession&) = delete;
  GraphvizSession& operator=(const GraphvizSession&) = delete;

  // What Graphviz said, on one line ("" when nothing).
  std::string Messages() const {
    std::string out;
    for (char ch : messages_) {
      if (ch == '\n') ch = ' ';
      if (!(ch == ' ' && (out.empty() || out.back() == ' '))) out += ch;
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out.empty() ? "" : ": Graphviz says: " + Printable(out);
  }

 private:
  std::lock_guard<std::mutex> lock_;
  std::string messages_;
  agusererrf previous_ = nullptr;
};

// cgraph's default ID discipline makes a name's ID the address of its interned copy, and keeps
// subgraphs in ID order: clusters would come out of agwrite and the SVG writer in an order that
// changes from run to run. This one numbers names in the order they are first used (even IDs,
// anonymous objects odd, as the default). The names are still interned with agstrdup (cgraph
// reads a refstr's header behind every name it prints, e.g. to tell HTML strings), and freed with
// the graph's string dictionary.
struct IdState {
  Agraph_t* graph;
  std::map<std::string, IDTYPE> ids;
  std::vector<char*> names;  // names[id / 2 - 1], interned
  IDTYPE next_anonymous = 1;
};

void* IdOpen(Agraph_t* graph, Agdisc_t*) { return new IdState{graph, {}, {}, 1}; }

long IdMap(void* state, int, char* name, IDTYPE* id, int create) {
  auto* ids = static_cast<IdState*>(state);
  if (name == nullptr) {
    *id = ids->next_anonymous;
    ids->next_anonymous += 2;
    return 1;
  }
  const auto found = ids->ids.find(name);
  if (found != ids->ids.end()) {
    *id = found->second;
    return 1;
  }
  if (!create) return 0;
  char* interned = agstrdup(ids->graph, name);
  if (interned == nullptr) return 0;
  ids->names.push_back(interned);
  *id = 2 * static_cast<IDTYPE>(ids->names.size());
  ids->ids.emplace(name, *id);
  return 1;
}

long IdAlloc(void*, int, IDTYPE) { return 0; }  // no IDs chosen by callers, as the default
void IdFree(void*, int, IDTYPE) {}              // names live as long as the graph

char* IdPrint(void* state, int, IDTYPE id) {
  auto* ids = static_cast<IdState*>(state);
  if (id % 2 != 0 || id == 0 || id / 2 > ids->names.size()) return nullptr;
  return ids->names[id / 2 - 1];
}

void IdClose(void* state) { delete static_cast<IdState*>(state); }
void IdRegister(void*, int, void*) {}

int PutString(void* chan, const char* text) {
  static_cast<std::string*>(chan)->append(text);
  return 0;
}
int FlushString(void*) { return 0; }

// A cgraph graph that closes itself (after the caller's gvFreeLayout, if it was laid out).
struct GraphCloser {
  void operator()(Agraph_t* graph) const { agclose(graph); }
};
using GraphPtr = std::unique_ptr<Agraph_t, GraphCloser>;

char* Str(const std::string& text) { return const_cast<char*>(text.c_str()); }

void SetAttrs(void* object, const Attrs& attrs) {
  for (const auto& [name, value] : attrs) {
    PARITY_ENFORCE(agsafeset(object, Str(name), Str(value), Str("")) == 0, ErrorKind::kInternal,
                   "Graphviz: cannot set attribute '", name, "'");
  }
}

// The graph of `drawing` in cgraph, with parity's ID discipline, and an I/O discipline under
// which agwrite appends to the std::string given as its channel.
GraphPtr BuildGraph(const Drawing& drawing, const Attrs& extra_graph_attrs) {
  static Agiodisc_t io = {AgIoDisc.afread, PutString, FlushString};
  static Agiddisc_t ids = {IdOpen, IdMap, IdAlloc, IdFree, IdPrint, IdClose, IdRegister};
  static Agdisc_t disc = {&AgMemDisc, &ids, &io};
  GraphPtr graph(agopen(Str("net"), Agdirected, &disc));
  PARITY_ENFORCE(graph != nullptr, ErrorKind::kInternal, "Graphviz: cannot create a graph");
  Agraph_t* root = graph.get();
  // Declared with a default of "" so that subgraphs (clusters) inherit none of the root's values.
  SetAttrs(root, drawing.graph);
  SetAttrs(root, extra_graph_attrs);
  for (const auto& [name, value] : drawing.node_defaults)
    agattr(root, AGNODE, Str(name), Str(value));
  for (const auto& [name, value] : drawing.edge_defaults)
    agattr(root, AGEDGE, Str(name), Str(value));
  std::vector<Agraph_t*> clusters;
  for (size_t c = 0; c < drawing.clusters.size(); ++c) {
    const Cluster& cluster = drawing.clusters[c];
    Agraph_t* parent = cluster.parent < 0 ? root : clusters[cluster.parent];
    Agraph_t* subgraph = agsubg(parent, Str(ClusterId(static_cast<int>(c))), 1);
    PARITY_ENFORCE(subgraph != nullptr, ErrorKind::kInternal, "Graphviz: cannot create a cluster");
    SetAttrs(subgraph, cluster.attrs);
    clusters.push_back(subgraph);
  }
  std::vector<Agnode_t*> nodes;
  for (size_t n = 0; n < drawing.nodes.size(); ++n) {
    const Node& node = drawing.nodes[n];
    Agraph_t* owner = node.cluster < 0 ? root : clusters[node.cluster];
    Agnode_t* made = agnode(owner, Str(NodeId(static_cast<int>(n))), 1);
    PARITY_ENFORCE(made != nullptr, ErrorKind::kInternal, "Graphviz: cannot create a node");
    SetAttrs(made, node.attrs);
    nodes.push_back(made);
  }
  for (const Edge& edge : drawing.edges) {
    Agedge_t* made = agedge(root, nodes[edge.tail], nodes[edge.head], nullptr, 1);
    PARITY_ENFORCE(made != nullptr, ErrorKind::kInternal, "Graphviz: cannot create an edge");
    SetAttrs(made, edge.attrs);
  }
  return graph;
}

Drawing MakeDrawing(const caffe2::NetDef& net, const DrawOptions& options) {
  return Builder(options).Build(net);
}

std::string WriteDot(const Drawing& drawing) {
  GraphvizSession session;
  GraphPtr graph = BuildGraph(drawing, {});
  std::string text;
  PARITY_ENFORCE(agwrite(graph.get(), &text) == 0, ErrorKind::kInternal,
                 "Graphviz could not write the net as DOT", session.Messages());
  return text;
}

// The one GVC context of the process, made on first use (under the lock) and never freed.
// Graphviz 2.42 cannot take a context per call: its pango text-layout plugin caches a pointer to
// the last font name, which lives in the context's font dictionary, so a second context reads
// freed memory (AddressSanitizer: heap-use-after-free in textspan_size); fontconfig state the
// plugin holds would leak with every context too.
GVC_t* Context() {
  static GVC_t* context = gvContext();
  return context;
}

// A graph laid out in the process's context; frees the layout, then the graph.
class LaidOutGraph {
 public:
  explicit LaidOutGraph(GraphPtr graph) : context_(Context()), graph_(std::move(graph)) {}
  ~LaidOutGraph() {
    if (laid_out_) gvFreeLayout(context_, graph_.get());
  }
  LaidOutGraph(const LaidOutGraph&) = delete;
  LaidOutGraph& operator=(const LaidOutGraph&) = delete;

  bool has_context() const { return context_ != nullptr; }
  bool Layout() {
    laid_out_ = gvLayout(context_, graph_.get(), "dot") == 0;
    return laid_out_;
  }
  // The rendered bytes, "" when Graphviz fails.
  std::string Render(const std::string& format) {
    char* data = nullptr;
    unsigned int length = 0;
    const int status = gvRenderData(context_, graph_.get(), format.c_str(), &data, &length);
    std::string out;
    if (data != nullptr && status == 0) out.assign(data, length);
    if (data != nullptr) gvFreeRenderData(data);
    return out;
  }

 private:
  GVC_t* context_;
  GraphPtr graph_;
  bool laid_out_ = false;
};

std::string Render(const Drawing& drawing, const DrawingSize& size, const std::string& format) {
  Attrs knobs;
  if (size.layout_nodes > kBoundedLayoutAbove) {
    // dot's defaults iterate without bound: cap mincross passes and network-simplex iterations
    // (nslimit * nodes of them) and draw straight edges.
    const double per_node = std::max(0.01, 500.0 / std::max(1, size.nodes));
    knobs = {{"mclimit", "0.1"},
             {"nslimit", Number(per_node)},
             {"nslimit1", Number(per_node)},
             {"splines", "line"}};
  }
  if (format == "png") knobs.push_back({"size", kPngMaxSize});
  GraphvizSession session;
  LaidOutGraph graph(BuildGraph(drawing, knobs));
  PARITY_ENFORCE(graph.has_context(), ErrorKind::kInternal, "Graphviz: cannot create a context",
                 session.Messages());
  PARITY_ENFORCE(graph.Layout(), ErrorKind::kInternal, "Graphviz could not lay out the net",
                 session.Messages());
  std::string out = graph.Render(format);
  PARITY_ENFORCE(!out.empty(), ErrorKind::kInternal, "Graphviz could not render ", format,
                 session.Messages());
  return out;
}

}  // namespace

const std::vector<std::string>& DrawingFormats() {
  static const auto* formats = new std::vector<std::string>{"svg", "png", "dot"};
  return *formats;
}

std::string DrawingFormatForPath(const std::string& path) {
  const size_t dot = path.rfind('.');
  const size_t slash = path.rfind('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  std::string extension = path.substr(dot + 1);
  for (char& ch : extension) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (extension == "gv") return "dot";
  for (const auto& format : DrawingFormats()) {
    if (extension == format) return format;
  }
  return "";
}

DrawingSize MeasureDrawing(const caffe2::NetDef& net, const DrawOptions& options) {
  return Measure(MakeDrawing(net, options));
}

std::string NetToDot(const caffe2::NetDef& net, const DrawOptions& options) {
  return WriteDot(MakeDrawing(net, options));
}

std::string RenderNet(const caffe2::NetDef& net, const DrawOptions& options,
                      const std::string& format) {
  const auto& formats = DrawingFormats();
  PARITY_ENFORCE(std::find(formats.begin(), formats.end(), format) != formats.end(),
                 ErrorKind::kBadArgument, "unknown drawing format '", Printable(format),
                 "' (formats: svg, png, dot)");
  const Drawing drawing = MakeDrawing(net, options);
  if (format == "dot") return WriteDot(drawing);
  const DrawingSize size = Measure(drawing);
  PARITY_ENFORCE(
      size.nodes <= options.max_layout_nodes && size.layout_nodes <= options.max_layout_size,
      ErrorKind::kResourceLimit,
      net.name().empty() ? std::string("the net") : "net " + Quoted(Printable(net.name())),
      " is too large to lay out as ", format, ": its drawing has ", size.nodes, " nodes and ",
      size.edges, " edges (about ", size.layout_nodes,
      " nodes for the layout), over the limits of ", options.max_layout_nodes, " nodes and ",
      options.max_layout_size, " layout nodes; draw it as .dot instead (no layout)");
  return Render(drawing, size, format);
}

}  // namespace parity::reports

// Graphviz 2.42 leaks inside its own code, whatever the caller frees: the dot layout's cluster
// skeletons (new_virtual_edge in build_skeleton) and the pango plugin's font maps (fontconfig
// patterns). LeakSanitizer (--config=asan) would report them for every drawing, so they are
// suppressed by library (quietly: the CLI's output stays the same under ASan). cgraph, whose
// graphs this file opens and closes, is still checked.
extern "C" const char* __lsan_default_options() { return "print_suppressions=0"; }
extern "C" const char* __lsan_default_suppressions() {
  return "leak:libgvplugin_dot_layout.so\n"
         "leak:libgvplugin_pango.so\n"
         "leak:libgvc.so\n"
         "leak:libfontconfig.so\n";
}
