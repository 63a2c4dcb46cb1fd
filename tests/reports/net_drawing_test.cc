// Drawing nets (reports/net_drawing.h): the DOT graph read back with Graphviz's own parser (boxes,
// versioned blob nodes, edges, sub-net clusters, highlight colours), SVG that is well-formed and
// shows every name from the net as text (never markup), PNG bytes, the layout bound and errors.
#include "reports/net_drawing.h"

#include <graphviz/cgraph.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "core/proto/error.h"
#include "core/rnn/rnn_cell.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

using reports::DrawOptions;
using reports::NetToDot;
using reports::RenderNet;

// ---------------------------------------------------------------------------------------------
// The DOT text read back with cgraph.

struct DotNode {
  std::string id, label, shape, fillcolor, fontcolor, tooltip;
  std::string cluster;  // innermost cluster holding it, "" for the root
};
struct DotEdge {
  std::string tail, head, lhead;
};
struct DotCluster {
  std::string label, parent;  // parent "" for the root
};
struct DotGraph {
  std::map<std::string, std::string> graph_attrs;
  std::vector<DotNode> nodes;
  std::vector<DotEdge> edges;
  std::map<std::string, DotCluster> clusters;

  const DotNode& Node(const std::string& id) const {
    for (const auto& node : nodes) {
      if (node.id == id) return node;
    }
    ADD_FAILURE() << "no node " << id;
    static const DotNode kNone;
    return kNone;
  }
  std::vector<const DotNode*> WithLabel(const std::string& label) const {
    std::vector<const DotNode*> out;
    for (const auto& node : nodes) {
      if (node.label == label) out.push_back(&node);
    }
    return out;
  }
  const DotNode& Op(const std::string& label) const {
    const auto found = WithLabel(label);
    EXPECT_EQ(found.size(), 1u) << label;
    static const DotNode kNone;
    return found.empty() ? kNone : *found[0];
  }
  int CountShape(const std::string& shape) const {
    return static_cast<int>(std::count_if(nodes.begin(), nodes.end(),
                                          [&](const DotNode& n) { return n.shape == shape; }));
  }
  // Sorted (cgraph lists edges by tail node).
  std::vector<std::string> Tails(const std::string& head) const {
    std::vector<std::string> out;
    for (const auto& edge : edges) {
      if (edge.head == head) out.push_back(edge.tail);
    }
    std::sort(out.begin(), out.end());
    return out;
  }
  std::vector<std::string> Heads(const std::string& tail) const {
    std::vector<std::string> out;
    for (const auto& edge : edges) {
      if (edge.tail == tail) out.push_back(edge.head);
    }
    return out;
  }
};

std::string Get(void* object, const char* name) {
  const char* value = agget(object, const_cast<char*>(name));
  return value == nullptr ? "" : value;
}

void ReadClusters(Agraph_t* graph, const std::string& parent, DotGraph* out) {
  for (Agraph_t* sub = agfstsubg(graph); sub != nullptr; sub = agnxtsubg(sub)) {
    const std::string name = agnameof(sub);
    out->clusters[name] = {Get(sub, "label"), parent};
    for (Agnode_t* node = agfstnode(sub); node != nullptr; node = agnxtnode(sub, node)) {
      for (auto& n : out->nodes) {
        if (n.id == agnameof(node)) n.cluster = name;  // inner clusters overwrite outer
      }
    }
    ReadClusters(sub, name, out);
  }
}

DotGraph ParseDot(const std::string& text) {
  DotGraph out;
  Agraph_t* graph = agmemread(text.c_str());
  if (graph == nullptr) {
    ADD_FAILURE() << "Graphviz cannot read the DOT:\n" << text;
    return out;
  }
  for (const char* name : {"rankdir", "label", "compound"})
    out.graph_attrs[name] = Get(graph, name);
  for (Agnode_t* node = agfstnode(graph); node != nullptr; node = agnxtnode(graph, node)) {
    out.nodes.push_back({agnameof(node), Get(node, "label"), Get(node, "shape"),
                         Get(node, "fillcolor"), Get(node, "fontcolor"), Get(node, "tooltip"), ""});
  }
  for (Agnode_t* node = agfstnode(graph); node != nullptr; node = agnxtnode(graph, node)) {
    for (Agedge_t* edge = agfstout(graph, node); edge != nullptr; edge = agnxtout(graph, edge)) {
      out.edges.push_back({agnameof(agtail(edge)), agnameof(aghead(edge)), Get(edge, "lhead")});
    }
  }
  ReadClusters(graph, "", &out);
  agclose(graph);
  return out;
}

// ---------------------------------------------------------------------------------------------
// SVG: well-formed XML, as far as a small checker sees: every tag closed in order, attributes
// quoted, no raw '<' or '&' in text.

::testing::AssertionResult WellFormedXml(const std::string& xml) {
  std::vector<std::string> open;
  size_t i = 0;
  while (i < xml.size()) {
    if (xml[i] == '&') {
      static const std::regex kEntity("^&(amp|lt|gt|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);");
      if (!std::regex_search(xml.substr(i, 12), kEntity)) {
        return ::testing::AssertionFailure() << "bare '&' at " << xml.substr(i, 40);
      }
      ++i;
      continue;
    }
    if (xml[i] != '<') {
      if (xml[i] == '>') return ::testing::AssertionFailure() << "bare '>' at " << i;
      ++i;
      continue;
    }
    if (xml.compare(i, 4, "<!--") == 0) {
      const size_t end = xml.find("-->", i + 4);
      if (end == std::string::npos) return ::testing::AssertionFailure() << "open comment";
      if (xml.substr(i + 4, end - i - 4).find("--") != std::string::npos) {
        return ::testing::AssertionFailure() << "'--' inside a comment at " << i;
      }
      i = end + 3;
      continue;
    }
    if (xml.compare(i, 2, "<?") == 0 || xml.compare(i, 2, "<!") == 0) {
      const size_t end = xml.find('>', i);
      if (end == std::string::npos) return ::testing::AssertionFailure() << "open declaration";
      i = end + 1;
      continue;
    }
    // A tag: name, then attributes name="value" (no '<' inside values), then > or />.
    const bool closing = xml[i + 1] == '/';
    size_t j = i + (closing ? 2 : 1);
    const size_t name_start = j;
    while (j < xml.size() && (std::isalnum(static_cast<unsigned char>(xml[j])) || xml[j] == ':' ||
                              xml[j] == '_' || xml[j] == '-')) {
      ++j;
    }
    const std::string name = xml.substr(name_start, j - name_start);
    if (name.empty()) return ::testing::AssertionFailure() << "bad tag at " << xml.substr(i, 40);
    bool self_closing = false;
    while (true) {
      while (j < xml.size() && std::isspace(static_cast<unsigned char>(xml[j]))) ++j;
      if (j >= xml.size()) return ::testing::AssertionFailure() << "open tag " << name;
      if (xml[j] == '>') break;
      if (xml.compare(j, 2, "/>") == 0) {
        self_closing = true;
        ++j;
        break;
      }
      if (closing) return ::testing::AssertionFailure() << "attributes in </" << name << ">";
      const size_t eq = xml.find('=', j);
      if (eq == std::string::npos || xml[eq + 1] != '"') {
        return ::testing::AssertionFailure() << "unquoted attribute in <" << name << ">";
      }
      const size_t close = xml.find('"', eq + 2);
      if (close == std::string::npos) return ::testing::AssertionFailure() << "open attribute";
      const std::string value = xml.substr(eq + 2, close - eq - 2);
      if (value.find('<') != std::string::npos) {
        return ::testing::AssertionFailure() << "'<' in an attribute of <" << name << ">";
      }
      j = close + 1;
    }
    if (closing) {
      if (open.empty() || open.back() != name) {
        return ::testing::AssertionFailure()
               << "</" << name << "> closes <" << (open.empty() ? "" : open.back()) << ">";
      }
      open.pop_back();
    } else if (!self_closing) {
      open.push_back(name);
    }
    i = j + 1;
  }
  if (!open.empty()) return ::testing::AssertionFailure() << "<" << open.back() << "> not closed";
  return ::testing::AssertionSuccess();
}

std::string Lower(std::string text) {
  for (char& ch : text) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return text;
}

int Count(const std::string& text, const std::string& needle) {
  int count = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    ++count;
  }
  return count;
}

bool IsGeneratedId(const std::string& id) { return std::regex_match(id, std::regex("n[0-9]+")); }

// ---------------------------------------------------------------------------------------------
// Nets.

// y = FC(x, w, b); Relu in place (a second version of y); z = Add(y, x).
caffe2::NetDef FcReluAdd() {
  caffe2::NetDef net;
  net.set_name("small");
  *net.add_op() = MakeOp("FC", {"x", "w", "b"}, {"y"});
  *net.add_op() = MakeOp("Relu", {"y"}, {"y"});
  *net.add_op() = MakeOp("Add", {"y", "x"}, {"z"});
  net.add_external_input("x");
  net.add_external_output("z");
  return net;
}

caffe2::Argument NetArg(const std::string& name, const caffe2::NetDef& net) {
  caffe2::Argument arg;
  arg.set_name(name);
  *arg.mutable_n() = net;
  return arg;
}

caffe2::NetDef IfNet() {
  caffe2::NetDef then_net;
  then_net.set_name("then");
  *then_net.add_op() = MakeOp("Relu", {"x"}, {"y"});
  caffe2::NetDef inner;
  *inner.add_op() = MakeOp("Sigmoid", {"y"}, {"y"});
  caffe2::OperatorDef inner_do = MakeOp("Do", {"y"}, {"y"});
  *inner_do.add_arg() = NetArg("net", inner);
  *then_net.add_op() = inner_do;
  caffe2::NetDef else_net;
  *else_net.add_op() = MakeOp("Tanh", {"x"}, {"y"});
  caffe2::NetDef net;
  *net.add_op() = MakeOp("LT", {"a", "b"}, {"cond"});
  caffe2::OperatorDef if_op = MakeOp("If", {"cond"}, {"y"});
  *if_op.add_arg() = NetArg("then_net", then_net);
  *if_op.add_arg() = NetArg("else_net", else_net);
  *net.add_op() = if_op;
  return net;
}

// ---------------------------------------------------------------------------------------------

TEST(NetDrawing, OneBoxPerOpAndAVersionNodePerWrite) {
  const DotGraph dot = ParseDot(NetToDot(FcReluAdd()));
  EXPECT_EQ(dot.graph_attrs.at("rankdir"), "LR");
  EXPECT_EQ(dot.graph_attrs.at("label"), "small");
  EXPECT_EQ(dot.CountShape("box"), 3);
  const DotNode& fc = dot.Op("FC (op#0)");
  const DotNode& relu = dot.Op("Relu (op#1)");
  const DotNode& add = dot.Op("Add (op#2)");
  for (const DotNode* op : {&fc, &relu, &add}) {
    EXPECT_EQ(op->fillcolor, reports::kOpColor);
    EXPECT_EQ(op->fontcolor, "#FFFFFF");
  }
  // Blobs: x, w, b, y (twice: the Relu writes a new version), z.
  EXPECT_EQ(dot.CountShape(reports::kBlobShape), 6);
  EXPECT_EQ(dot.nodes.size(), 9u);
  for (const auto& node : dot.nodes) EXPECT_TRUE(IsGeneratedId(node.id)) << node.id;
  const auto ys = dot.WithLabel("y");
  ASSERT_EQ(ys.size(), 2u);
  EXPECT_NE(ys[0]->id, ys[1]->id);
  const DotNode& x = *dot.WithLabel("x").at(0);
  // The version FC writes is what the Relu reads; the Relu's version is what Add reads.
  ASSERT_EQ(dot.Heads(fc.id).size(), 1u);
  const std::string y1 = dot.Heads(fc.id)[0];
  ASSERT_EQ(dot.Heads(relu.id).size(), 1u);
  const std::string y2 = dot.Heads(relu.id)[0];
  EXPECT_NE(y1, y2);
  EXPECT_EQ(dot.Node(y1).label, "y");
  EXPECT_EQ(dot.Node(y2).label, "y");
  EXPECT_EQ(dot.Tails(relu.id), std::vector<std::string>{y1});
  EXPECT_EQ(dot.Heads(y1), std::vector<std::string>{relu.id});
  std::vector<std::string> add_inputs = {y2, x.id};
  std::sort(add_inputs.begin(), add_inputs.end());
  EXPECT_EQ(dot.Tails(add.id), add_inputs);
  EXPECT_EQ(dot.Tails(fc.id).size(), 3u);
  EXPECT_EQ(dot.Heads(x.id), (std::vector<std::string>{fc.id, add.id}));
  EXPECT_EQ(dot.Node(dot.Heads(add.id).at(0)).label, "z");
  // x, w, b -> FC, FC -> y, y -> Relu, Relu -> y, y, x -> Add, Add -> z.
  EXPECT_EQ(dot.edges.size(), 9u);
  // Tooltips carry the SSA version (as parity ssa: y@1, y@2).
  EXPECT_NE(dot.Node(y1).tooltip.find("blob 'y' version 1"), std::string::npos);
  EXPECT_NE(dot.Node(y2).tooltip.find("blob 'y' version 2"), std::string::npos);
}

TEST(NetDrawing, RankdirAndEmptyNet) {
  DrawOptions options;
  options.rankdir = "TB";
  EXPECT_EQ(ParseDot(NetToDot(FcReluAdd(), options)).graph_attrs.at("rankdir"), "TB");
  const DotGraph empty = ParseDot(NetToDot(caffe2::NetDef()));
  ASSERT_EQ(empty.nodes.size(), 1u);
  EXPECT_EQ(empty.nodes[0].shape, "note");
  EXPECT_TRUE(WellFormedXml(RenderNet(caffe2::NetDef(), {}, "svg")));
}

TEST(NetDrawing, SvgIsWellFormedAndShowsTheLabels) {
  const std::string svg = RenderNet(FcReluAdd(), {}, "svg");
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u) << svg.substr(0, 100);
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_TRUE(WellFormedXml(svg));
  for (const char* label : {">FC (op#0)<", ">Relu (op#1)<", ">Add (op#2)<", ">small<"}) {
    EXPECT_NE(svg.find(label), std::string::npos) << label;
  }
  EXPECT_EQ(Count(svg, "class=\"node\""), 9);
  EXPECT_EQ(Count(svg, "class=\"edge\""), 9);
  EXPECT_EQ(Count(svg, ">y</text>"), 2);
  EXPECT_NE(Lower(svg).find("fill=\"#0f9d58\""), std::string::npos);
  // Nothing on stderr from Graphviz is checked by the command test; the DOT renders the same.
  EXPECT_EQ(RenderNet(FcReluAdd(), {}, "dot"), NetToDot(FcReluAdd()));
}

TEST(NetDrawing, NamesFromTheNetAreTextNeverMarkup) {
  caffe2::NetDef net;
  net.set_name("</title><script>alert('net')</script>");
  caffe2::OperatorDef op = MakeOp("Foo\"bar\\baz<b>", {"<script>alert(1)</script>", "a&b"},
                                  {"&lt;b&gt;", "\\N", "bad\nname", "latin1\xff"},
                                  {{"note", "\"><script>alert(2)</script>&amp;"}});
  op.set_name("line1\nline2 <img src=x onerror=alert(3)>");
  op.set_engine("<i>engine</i>");
  *net.add_op() = op;
  *net.add_op() = MakeOp("Relu", {"\\N"}, {"]]><svg onload=alert(4)>"});

  const std::string svg = RenderNet(net, {}, "svg");
  EXPECT_TRUE(WellFormedXml(svg));
  const std::string lower = Lower(svg);
  for (const char* markup : {"<script", "<img", "<b>", "<i>", "<svg onload", "]]>"}) {
    EXPECT_EQ(lower.find(markup), std::string::npos) << markup << " appears raw";
  }
  EXPECT_EQ(Count(svg, "<svg"), 1);
  // The blob shows as text, escaped by Graphviz's SVG writer.
  EXPECT_NE(svg.find(">&lt;script&gt;alert(1)&lt;/script&gt;</text>"), std::string::npos);
  // Shown literally: '&' (not an entity), an entity-like name (not decoded), '\N' (not Graphviz's
  // node-name escape), a newline as \n, a byte that is not UTF-8 as \xff, a quote and backslash.
  EXPECT_NE(svg.find(">a&amp;b</text>"), std::string::npos);
  EXPECT_NE(svg.find(">&amp;lt;b&amp;gt;</text>"), std::string::npos);
  EXPECT_EQ(Count(svg, ">\\N</text>"), 1);  // op #0 writes it, op #1 reads that node
  EXPECT_NE(svg.find(">bad\\nname</text>"), std::string::npos);
  EXPECT_NE(svg.find(">latin1\\xff</text>"), std::string::npos);
  EXPECT_NE(svg.find(">Foo&quot;bar\\baz&lt;b&gt; (op#0)</text>"), std::string::npos);
  EXPECT_NE(svg.find(">&lt;/title&gt;&lt;script&gt;alert(&#39;net&#39;)&lt;/script&gt;</text>"),
            std::string::npos)
      << svg.substr(0, 2000);
  // Tooltips (xlink:title attributes) hold the op's name and arguments, escaped.
  EXPECT_NE(svg.find("line1\\nline2 &lt;img src=x onerror=alert(3)&gt;"), std::string::npos);
  EXPECT_NE(svg.find("note = &quot;&quot;&gt;&lt;script&gt;alert(2)&lt;/script&gt;&amp;amp;"),
            std::string::npos);

  // The DOT reads back with every name intact, on generated node ids.
  const DotGraph dot = ParseDot(NetToDot(net));
  for (const auto& node : dot.nodes) EXPECT_TRUE(IsGeneratedId(node.id)) << node.id;
  EXPECT_EQ(dot.WithLabel("<script>alert(1)</script>").size(), 1u);
  EXPECT_EQ(dot.WithLabel("a&amp;b").size(), 1u);  // Graphviz's entity: shows as a&b
  EXPECT_EQ(dot.WithLabel("\\\\N").size(), 1u);    // Graphviz's escaped backslash
  EXPECT_EQ(dot.WithLabel("bad\\\\nname").size(), 1u);
  EXPECT_EQ(dot.WithLabel("Foo\"bar\\\\baz<b> (op#0)").size(), 1u);
  EXPECT_EQ(dot.graph_attrs.at("label"), "</title><script>alert('net')</script>");
}

TEST(NetDrawing, SubNetsAreClustersAttachedToTheirOp) {
  const DotGraph dot = ParseDot(NetToDot(IfNet()));
  std::map<std::string, std::string> by_label;  // cluster label -> name
  for (const auto& [name, cluster] : dot.clusters) {
    EXPECT_EQ(name.rfind("cluster_", 0), 0u) << name;
    by_label[cluster.label] = name;
  }
  ASSERT_EQ(by_label.count("then_net 'then'"), 1u);
  ASSERT_EQ(by_label.count("else_net"), 1u);
  ASSERT_EQ(by_label.count("net"), 1u);  // the Do inside then_net
  const std::string then_cluster = by_label["then_net 'then'"];
  EXPECT_EQ(dot.clusters.at(then_cluster).parent, "");
  EXPECT_EQ(dot.clusters.at(by_label["net"]).parent, then_cluster);
  EXPECT_EQ(dot.Op("Relu (op#0)").cluster, then_cluster);
  EXPECT_EQ(dot.Op("Sigmoid (op#0)").cluster, by_label["net"]);
  EXPECT_EQ(dot.Op("Tanh (op#0)").cluster, by_label["else_net"]);
  EXPECT_EQ(dot.Op("If (op#1)").cluster, "");
  // The If points at each of its clusters (lhead), the Do at its own.
  std::set<std::string> if_lheads, do_lheads;
  for (const auto& edge : dot.edges) {
    if (edge.tail == dot.Op("If (op#1)").id && !edge.lhead.empty()) if_lheads.insert(edge.lhead);
    if (edge.tail == dot.Op("Do (op#1)").id && !edge.lhead.empty()) do_lheads.insert(edge.lhead);
  }
  EXPECT_EQ(if_lheads, (std::set<std::string>{then_cluster, by_label["else_net"]}));
  EXPECT_EQ(do_lheads, std::set<std::string>{by_label["net"]});
  EXPECT_TRUE(WellFormedXml(RenderNet(IfNet(), {}, "svg")));
}

TEST(NetDrawing, RecurrentNetworkStepNetsFromTheirText) {
  caffe2::NetDef net;
  LstmSpec spec;
  spec.dim_in = 3;
  spec.dim_out = 4;
  Lstm(&net, spec);
  const DotGraph dot = ParseDot(NetToDot(net));
  std::map<std::string, std::string> by_label;
  for (const auto& [name, cluster] : dot.clusters) by_label[cluster.label] = name;
  ASSERT_TRUE(std::any_of(by_label.begin(), by_label.end(), [](const auto& entry) {
    return entry.first.rfind("step_net", 0) == 0;
  })) << "no step_net cluster";
  ASSERT_TRUE(std::any_of(by_label.begin(), by_label.end(), [](const auto& entry) {
    return entry.first.rfind("backward_step_net", 0) == 0;
  })) << "no backward_step_net cluster";
  std::string step_cluster;
  for (const auto& [label, name] : by_label) {
    if (label.rfind("step_net", 0) == 0) step_cluster = name;
  }
  int step_ops = 0;
  bool lstm_unit = false;
  for (const auto& node : dot.nodes) {
    if (node.cluster != step_cluster || node.shape != "box") continue;
    ++step_ops;
    lstm_unit |= node.label.rfind("LSTMUnit (op#", 0) == 0;
  }
  EXPECT_GE(step_ops, 3);
  EXPECT_TRUE(lstm_unit);
  const std::string svg = RenderNet(net, {}, "svg");
  EXPECT_TRUE(WellFormedXml(svg));
  EXPECT_NE(svg.find(">RecurrentNetwork (op#1)</text>"), std::string::npos);

  // A step net that does not parse is a note in its cluster, not a failure.
  caffe2::NetDef broken;
  *broken.add_op() = MakeOp("RecurrentNetwork", {"x"}, {"y"}, {{"step_net", "op { type: "}});
  const DotGraph broken_dot = ParseDot(NetToDot(broken));
  ASSERT_EQ(broken_dot.clusters.size(), 1u);
  ASSERT_EQ(broken_dot.CountShape("note"), 1);
  for (const auto& node : broken_dot.nodes) {
    if (node.shape == "note") {
      EXPECT_NE(node.label.find("argument 'step_net' is not a valid text caffe2.NetDef"),
                std::string::npos)
          << node.label;
    }
  }
}

// op0 A = Relu(x); op1 B = Relu(A) (highlighted); op2 C = Relu(B) (downstream); op3 D = Relu(x);
// op4 B = Relu(x) (overwrites B: clean again); op5 E = Relu(B) (reads the clean B);
// op6 F = Add(C, D) (downstream through C); op7 If(x) whose then_net reads C (downstream through
// its sub-net), with an op reading C (shaded) and one reading x (not).
caffe2::NetDef TaintNet() {
  caffe2::NetDef net;
  *net.add_op() = MakeOp("Relu", {"x"}, {"A"});
  *net.add_op() = MakeOp("Relu", {"A"}, {"B"});
  *net.add_op() = MakeOp("Relu", {"B"}, {"C"});
  *net.add_op() = MakeOp("Relu", {"x"}, {"D"});
  *net.add_op() = MakeOp("Relu", {"x"}, {"B"});
  *net.add_op() = MakeOp("Relu", {"B"}, {"E"});
  *net.add_op() = MakeOp("Add", {"C", "D"}, {"F"});
  caffe2::NetDef then_net;
  *then_net.add_op() = MakeOp("Sigmoid", {"C"}, {"G"});
  *then_net.add_op() = MakeOp("Tanh", {"x"}, {"H"});
  caffe2::OperatorDef if_op = MakeOp("If", {"x"}, {});
  *if_op.add_arg() = NetArg("then_net", then_net);
  *net.add_op() = if_op;
  return net;
}

TEST(NetDrawing, HighlightedOpIsRedAndDownstreamShaded) {
  DrawOptions options;
  options.highlighted_op = 1;
  const DotGraph dot = ParseDot(NetToDot(TaintNet(), options));
  auto fill = [&](const std::string& label) { return dot.Op(label).fillcolor; };
  EXPECT_EQ(fill("Relu (op#0)"), reports::kOpColor);
  EXPECT_EQ(fill("Relu (op#1)"), reports::kHighlightColor);
  EXPECT_EQ(fill("Relu (op#2)"), reports::kDownstreamColor);
  EXPECT_EQ(fill("Relu (op#3)"), reports::kOpColor);
  EXPECT_EQ(fill("Relu (op#4)"), reports::kOpColor);
  EXPECT_EQ(fill("Relu (op#5)"), reports::kOpColor);
  EXPECT_EQ(fill("Add (op#6)"), reports::kDownstreamColor);
  EXPECT_EQ(fill("If (op#7)"), reports::kDownstreamColor);
  EXPECT_EQ(fill("Sigmoid (op#0)"), reports::kDownstreamColor);
  EXPECT_EQ(fill("Tanh (op#1)"), reports::kOpColor);
  EXPECT_NE(dot.Op("Relu (op#1)").tooltip.find("highlighted"), std::string::npos);

  const std::string svg = Lower(RenderNet(TaintNet(), options, "svg"));
  EXPECT_EQ(Count(svg, "fill=\"" + Lower(reports::kHighlightColor) + "\""), 1);
  EXPECT_EQ(Count(svg, "fill=\"" + Lower(reports::kDownstreamColor) + "\""), 4);

  options.shade_downstream = false;
  const DotGraph plain = ParseDot(NetToDot(TaintNet(), options));
  EXPECT_EQ(plain.Op("Relu (op#1)").fillcolor, reports::kHighlightColor);
  EXPECT_EQ(plain.Op("Relu (op#2)").fillcolor, reports::kOpColor);
  EXPECT_EQ(plain.Op("Add (op#6)").fillcolor, reports::kOpColor);
}

TEST(NetDrawing, PngHasThePngSignature) {
  const std::string png = RenderNet(FcReluAdd(), {}, "png");
  ASSERT_GT(png.size(), 8u);
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
}

TEST(NetDrawing, Errors) {
  auto expect_error = [](ErrorKind kind, const std::string& words, auto call) {
    try {
      call();
      ADD_FAILURE() << "no error; expected: " << words;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), kind) << e.what();
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  expect_error(ErrorKind::kBadArgument, "unknown drawing format 'pdf' (formats: svg, png, dot)",
               [] { RenderNet(FcReluAdd(), {}, "pdf"); });
  expect_error(ErrorKind::kBadArgument, "unknown drawing format 'svg\\n'",
               [] { RenderNet(FcReluAdd(), {}, "svg\n"); });
  DrawOptions bad_rankdir;
  bad_rankdir.rankdir = "XY";
  expect_error(ErrorKind::kBadArgument, "rankdir 'XY' is not one of LR, TB, BT, RL",
               [&] { NetToDot(FcReluAdd(), bad_rankdir); });
  DrawOptions out_of_range;
  out_of_range.highlighted_op = 3;
  expect_error(ErrorKind::kBadArgument, "cannot highlight op #3: the net has 3 ops (#0 to #2)",
               [&] { RenderNet(FcReluAdd(), out_of_range, "svg"); });
  out_of_range.highlighted_op = -2;
  expect_error(ErrorKind::kBadArgument, "cannot highlight op #-2",
               [&] { NetToDot(FcReluAdd(), out_of_range); });
}

TEST(NetDrawing, FormatsFromPaths) {
  EXPECT_EQ(reports::DrawingFormatForPath("out/net.svg"), "svg");
  EXPECT_EQ(reports::DrawingFormatForPath("NET.PNG"), "png");
  EXPECT_EQ(reports::DrawingFormatForPath("a.dot"), "dot");
  EXPECT_EQ(reports::DrawingFormatForPath("a.gv"), "dot");
  EXPECT_EQ(reports::DrawingFormatForPath("a.pdf"), "");
  EXPECT_EQ(reports::DrawingFormatForPath("dir.svg/net"), "");
  EXPECT_EQ(reports::DrawingFormatForPath("svg"), "");
}

// A chain of `ops` Relus, each reading the previous output and, when `reach` > 0, also the output
// `reach` ops back (edges spanning ranks: virtual nodes for dot).
caffe2::NetDef Chain(int ops, int reach) {
  caffe2::NetDef net;
  for (int i = 0; i < ops; ++i) {
    std::vector<std::string> inputs = {"b" + std::to_string(i)};
    if (reach > 0 && i >= reach) inputs.push_back("b" + std::to_string(i - reach));
    *net.add_op() =
        MakeOp(inputs.size() == 1 ? "Relu" : "Add", inputs, {"b" + std::to_string(i + 1)});
  }
  return net;
}

TEST(NetDrawing, LayoutIsBounded) {
  const reports::DrawingSize chain = reports::MeasureDrawing(Chain(10, 0));
  EXPECT_EQ(chain.nodes, 21);
  EXPECT_EQ(chain.edges, 20);
  EXPECT_EQ(chain.layout_nodes, 21);  // no edge crosses a rank
  // b(i-3) (rank 2i-6) -> Add(i) (rank 2i+1) crosses 6 ranks: 6 virtual nodes, for ops 3..9.
  EXPECT_EQ(reports::MeasureDrawing(Chain(10, 3)).layout_nodes, 21 + 7 * 6);

  // Over the node limit: refused at once for svg and png, with what to do instead; dot is fine.
  const caffe2::NetDef big = Chain(1200, 0);
  const auto start = std::chrono::steady_clock::now();
  try {
    RenderNet(big, {}, "svg");
    ADD_FAILURE() << "a net of 2401 nodes was laid out";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kResourceLimit);
    EXPECT_NE(std::string(e.what()).find("is too large to lay out as svg: its drawing has 2401 "
                                         "nodes and 2400 edges"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("draw it as .dot instead"), std::string::npos);
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_EQ(ParseDot(RenderNet(big, {}, "dot")).nodes.size(), 2401u);
  // Over the layout-size limit (edges crossing many ranks), though under the node limit.
  DrawOptions small_budget;
  small_budget.max_layout_size = 40;
  EXPECT_THROW(RenderNet(Chain(10, 3), small_budget, "png"), Error);
  EXPECT_NO_THROW(RenderNet(Chain(10, 0), small_budget, "png"));
}

// cgraph orders clusters by ID; parity's ID discipline numbers them in creation order, so a net
// always draws to the same bytes (by default the order would follow heap addresses).
TEST(NetDrawing, SameNetSameBytes) {
  for (const char* format : {"svg", "dot"}) {
    const std::string first = RenderNet(IfNet(), {}, format);
    for (int again = 0; again < 3; ++again) EXPECT_EQ(RenderNet(IfNet(), {}, format), first);
  }
}

TEST(NetDrawing, ConcurrentCallsAreSerialized) {
  std::vector<std::thread> threads;
  std::vector<std::string> outputs(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] { outputs[t] = RenderNet(IfNet(), {}, t % 2 ? "svg" : "dot"); });
  }
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < 4; ++t) {
    EXPECT_EQ(outputs[t], t % 2 ? outputs[1] : outputs[0]);
    EXPECT_FALSE(outputs[t].empty());
  }
}

}  // namespace
}  // namespace parity::testing
