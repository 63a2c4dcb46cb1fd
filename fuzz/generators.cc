#include "fuzz/generators.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <string>

#include "core/proto/error.h"
#include "core/schema.h"
#include "core/tensor.h"
#include "core/tensor_proto.h"
#include "core/transforms/pass.h"

namespace parity::fuzz {
namespace {

constexpr int kGrid = 2000;  // values are drawn on a grid so they shrink toward the low end

// Grid index -> value for the continuous domains.
double GridValue(Domain domain, int k, bool negative) {
  double t = static_cast<double>(k) / kGrid;  // [0, 1]
  switch (domain) {
    case Domain::kAny:
      return -1.0 + 2.0 * t;
    case Domain::kAwayFromZero:
      return (negative ? -1.0 : 1.0) * (0.1 + 0.9 * t);
    case Domain::kPositive:
      return 0.5 + 1.5 * t;
    case Domain::kProbability:
      return 0.05 + 0.9 * t;
    case Domain::kSmall:
      return -0.5 + t;
    default:
      return 0.0;
  }
}

// Points 0.02 apart (shuffled), scaled into [-1, 1] when there are many.
std::vector<double> DistinctValues(const std::string& name, int64_t n) {
  std::vector<double> values(n, 0.0);
  uint64_t shuffle_seed = *rc::gen::arbitrary<uint64_t>();
  std::vector<int64_t> order(n);
  for (int64_t i = 0; i < n; ++i) order[i] = i;
  std::mt19937_64 rng(shuffle_seed);
  std::shuffle(order.begin(), order.end(), rng);
  double spacing = n > 1 ? std::min(0.02, 2.0 / static_cast<double>(n)) : 0.02;
  // Tensors of one case differ by a phase: the name's trailing number j (in0, in1, ... or
  // p0, p1, ...) shifts the grid by (j % 3) / 3 of the spacing, so the operands of Max, Min
  // and the comparisons never tie position-wise (a tie is a kink of Max / Min).
  size_t digits = name.find_last_not_of("0123456789") + 1;
  int64_t j = digits < name.size() ? std::stoll(name.substr(digits)) % 3 : 0;
  double phase = static_cast<double>(j) * spacing / 3.0;
  for (int64_t i = 0; i < n; ++i) values[i] = (order[i] - (n - 1) / 2.0) * spacing + phase;
  return values;
}

// In whole nets the numerically hard domains are drawn tame: a variance of 1e-6 or a logit of
// 1000 amplified through a chain of ops (SpatialBN, FC, Exp, ...) leaves f32's range or precision
// for reasons no single kernel owns, so the oracles would compare numbers f32 cannot hold. The
// hard domains exercise each op on its own, in single-op cases, against its own tolerance.
// An op's "order" argument (NCHW unless set) where its schema has one, the layout a rewritten
// pair must share; "" for ops without a layout (Relu, FC), which pair with any.
std::string LayoutOf(const caffe2::OperatorDef& op) {
  const OpSchema* schema = OpSchemaRegistry::Find(op.type());
  if (schema == nullptr || schema->FindArg("order") == nullptr) return "";
  for (const auto& arg : op.arg()) {
    if (arg.name() == "order") return arg.s();
  }
  return "NCHW";
}

InputSpec Tame(const InputSpec& spec) {
  InputSpec tame = spec;
  switch (spec.domain) {
    case Domain::kLogits:
      tame.domain = Domain::kDistinct;
      break;
    case Domain::kVariance:
      tame.domain = Domain::kModestVariance;
      break;
    case Domain::kNarrow:
      tame.domain = Domain::kAny;
      break;
    default:
      break;
  }
  return tame;
}

caffe2::TensorProto ToProto(const std::string& name, const InputSpec& spec,
                            const std::vector<double>& values) {
  Tensor tensor;
  tensor.Resize(spec.dims);
  DispatchNumeric(spec.dtype, "DrawTensor", [&](auto zero) {
    using T = decltype(zero);
    T* data = tensor.mutable_data<T>();
    for (size_t i = 0; i < values.size(); ++i) data[i] = static_cast<T>(values[i]);
  });
  return TensorToProto(tensor, name);
}

}  // namespace

caffe2::TensorProto DrawTensor(const std::string& name, const InputSpec& spec) {
  int64_t n = CheckedNumElements(spec.dims);
  std::vector<double> values(n, 0.0);
  switch (spec.domain) {
    case Domain::kShape:
      for (int64_t i = 0; i < n; ++i) values[i] = static_cast<double>(spec.values.at(i));
      break;
    case Domain::kIndex: {
      auto draws = *rc::gen::container<std::vector<int64_t>>(
          n, rc::gen::inRange<int64_t>(0, std::max<int64_t>(spec.bound, 1)));
      for (int64_t i = 0; i < n; ++i) values[i] = static_cast<double>(draws[i]);
      break;
    }
    case Domain::kBool: {
      auto draws = *rc::gen::container<std::vector<bool>>(n, rc::gen::arbitrary<bool>());
      for (int64_t i = 0; i < n; ++i) values[i] = draws[i] ? 1.0 : 0.0;
      break;
    }
    case Domain::kDistinct:
      values = DistinctValues(name, n);
      break;
    case Domain::kLogits: {
      // Distinct points (no ties between the largest logits), scaled per tensor.
      const double scale = *rc::gen::element(1.0, 30.0, 1000.0);
      values = DistinctValues(name, n);
      for (double& v : values) v *= scale;
      break;
    }
    case Domain::kVariance:
    case Domain::kModestVariance: {
      const double decades = spec.domain == Domain::kVariance ? 6.0 : 3.0;
      auto grid = *rc::gen::container<std::vector<int>>(n, rc::gen::inRange(0, kGrid + 1));
      for (int64_t i = 0; i < n; ++i) {
        values[i] = std::pow(10.0, -decades + decades * grid[i] / kGrid);
      }
      break;
    }
    case Domain::kNarrow: {
      const double spread = std::pow(10.0, -3.0 * *rc::gen::inRange(0, kGrid + 1) / kGrid);
      auto grid = *rc::gen::container<std::vector<int>>(n, rc::gen::inRange(0, kGrid + 1));
      for (int64_t i = 0; i < n; ++i) {
        values[i] = 0.5 + spread * GridValue(Domain::kAny, grid[i], false);
      }
      break;
    }
    default: {
      auto grid = *rc::gen::container<std::vector<int>>(n, rc::gen::inRange(0, kGrid + 1));
      std::vector<bool> signs(n, false);
      if (spec.domain == Domain::kAwayFromZero) {
        signs = *rc::gen::container<std::vector<bool>>(n, rc::gen::arbitrary<bool>());
      }
      for (int64_t i = 0; i < n; ++i) values[i] = GridValue(spec.domain, grid[i], signs[i]);
    }
  }
  return ToProto(name, spec, values);
}

namespace {

// "$<i>" -> inputs[i], "@<j>" -> outputs[j], also with a suffix after the number ("$0_grad" ->
// inputs[0] + "_grad", as RecurrentNetwork's gradient links name them).
// A name that is not a placeholder, or names an index past the list, is left as it is.
void ResolvePlaceholder(std::string* name, const std::vector<std::string>& inputs,
                        const std::vector<std::string>& outputs) {
  if (name->size() < 2 || ((*name)[0] != '$' && (*name)[0] != '@')) return;
  const auto& names = (*name)[0] == '$' ? inputs : outputs;
  size_t k = 0, end = 1;
  for (; end < name->size() && std::isdigit(static_cast<unsigned char>((*name)[end])); ++end) {
    k = k * 10 + static_cast<size_t>((*name)[end] - '0');
    if (k >= names.size()) return;  // also keeps a long digit run from overflowing
  }
  if (end == 1) return;
  *name = names[k] + name->substr(end);
}

void ResolvePlaceholders(caffe2::NetDef* net, const std::vector<std::string>& inputs,
                         const std::vector<std::string>& outputs);

// Placeholders in an argument: its string list (blob names such as RecurrentNetwork's links) and
// the nets in it.
void ResolveArgument(caffe2::Argument* arg, const std::vector<std::string>& inputs,
                     const std::vector<std::string>& outputs) {
  for (auto& str : *arg->mutable_strings()) ResolvePlaceholder(&str, inputs, outputs);
  if (arg->has_n()) ResolvePlaceholders(arg->mutable_n(), inputs, outputs);
  for (auto& nested : *arg->mutable_nets()) ResolvePlaceholders(&nested, inputs, outputs);
}

// Placeholders in the ops of `net` and of the nets nested in them.
void ResolvePlaceholders(caffe2::NetDef* net, const std::vector<std::string>& inputs,
                         const std::vector<std::string>& outputs) {
  for (auto& op : *net->mutable_op()) {
    for (auto& in : *op.mutable_input()) ResolvePlaceholder(&in, inputs, outputs);
    for (auto& out : *op.mutable_output()) ResolvePlaceholder(&out, inputs, outputs);
    for (auto& arg : *op.mutable_arg()) ResolveArgument(&arg, inputs, outputs);
  }
}

// The instance as ops: a CreateScope for each workspace-stack input, then the op itself (inputs in
// the instance's op order, placeholders in its nets resolved). `inputs` are named by instance
// input.
std::vector<caffe2::OperatorDef> BuildOps(const OpInstance& inst,
                                          const std::vector<std::string>& inputs,
                                          const std::vector<std::string>& outputs) {
  std::vector<caffe2::OperatorDef> ops;
  for (size_t i = 0; i < inst.inputs().size(); ++i) {
    if (inst.inputs()[i].domain != Domain::kScope) continue;
    caffe2::OperatorDef create;
    create.set_type("CreateScope");
    create.add_output(inputs[i]);
    ops.push_back(create);
  }
  caffe2::OperatorDef def;
  def.set_type(inst.type());
  if (!inst.engine().empty()) def.set_engine(inst.engine());
  if (inst.op_input_order().empty()) {
    for (const auto& in : inputs) def.add_input(in);
  } else {
    for (int i : inst.op_input_order()) def.add_input(inputs.at(i));
  }
  for (const auto& out : outputs) def.add_output(out);
  for (const auto& arg : inst.args()) {
    caffe2::Argument* added = def.add_arg();
    *added = arg;
    ResolveArgument(added, inputs, outputs);
  }
  ops.push_back(def);
  return ops;
}

// `values` (one per instance input) in the op's input order.
template <typename T>
std::vector<T> InOpOrder(const OpInstance& inst, const std::vector<T>& values) {
  if (inst.op_input_order().empty()) return values;
  std::vector<T> ordered;
  for (int i : inst.op_input_order()) ordered.push_back(values.at(i));
  return ordered;
}

bool IsScope(const InputSpec& spec) { return spec.domain == Domain::kScope; }

}  // namespace

int FeedDoubles(Case* c) {
  int converted = 0;
  for (caffe2::TensorProto& t : *c->mutable_inputs()) {
    if (t.data_type() != caffe2::TensorProto::FLOAT) continue;
    const std::vector<double> values(t.float_data().begin(), t.float_data().end());
    t.clear_float_data();
    t.set_data_type(caffe2::TensorProto::DOUBLE);
    for (double v : values) t.add_double_data(v);
    ++converted;
  }
  return converted;
}

rc::Gen<Case> OpCaseGen(const OpSpec& spec) {
  return rc::gen::exec([&spec] {
    std::optional<OpInstance> inst = spec.Instantiate(nullptr);
    RC_PRE(inst.has_value());
    Case c;
    std::vector<std::string> inputs, outputs;
    caffe2::NetDef* net = c.mutable_net();
    for (size_t i = 0; i < inst->inputs().size(); ++i) {
      std::string name = "in" + std::to_string(i);
      inputs.push_back(name);
      if (IsScope(inst->inputs()[i])) continue;  // made by CreateScope, not fed
      *c.add_inputs() = DrawTensor(name, inst->inputs()[i]);
      net->add_external_input(name);
      if (inst->inputs()[i].differentiable) c.add_grad_inputs(name);
    }
    for (int i = 0; i < inst->num_outputs(); ++i) {
      auto inplace = inst->inplace_outputs().find(i);
      outputs.push_back(inplace != inst->inplace_outputs().end() ? inputs.at(inplace->second)
                                                                 : "out" + std::to_string(i));
      if (!inst->IsScopeOutput(i)) net->add_external_output(outputs.back());
    }
    net->set_name(spec.type() + "_case");
    for (auto& op : BuildOps(*inst, inputs, outputs)) *net->add_op() = std::move(op);
    c.set_generator_version(kGeneratorVersion);
    c.set_description("single op " + spec.type());
    // One case in 16 is fed doubles, but for float-only ops and ops with sub-nets: the gradients of If and While
    // zero-fill with ConstantFill, which makes floats (its default dtype, as in Caffe2), so the
    // backward net of a double loop mixes dtypes and refuses to run.
    const bool runs_nets = std::any_of(net->op().begin(), net->op().end(), [](const auto& op) {
      return std::any_of(op.arg().begin(), op.arg().end(),
                         [](const caffe2::Argument& arg) { return arg.has_n(); });
    });
    if (Pick(16) == 0 && !runs_nets && !spec.float_only()) {
      FeedDoubles(&c);
      c.set_description(c.description() + " in double");
    }
    return c;
  });
}

namespace {

// Text that parsers and printers mishandle: comment starters, quotes, backslashes and escape
// sequences (literal and real), non-ASCII (Latin, CJK, a 4-byte emoji), spaces, braces, the empty
// string, and what the workbench itself parses out of messages ("op #9") or keys on in files
// ("protos", the one field of a TensorProtos: a tensor file's loader once took any text holding
// the word for one).
const std::vector<std::string>& HostileTexts() {
  static const auto* texts = new std::vector<std::string>{"//c",
                                                          "#c",
                                                          "\"q\"",
                                                          "'q'",
                                                          "\\",
                                                          "\\n",
                                                          "\n",
                                                          "\t",
                                                          " sp",
                                                          "\xC3\xA9",
                                                          "\xE5\x90\x8D\xE5\x89\x8D",
                                                          "\xF0\x9F\x98\x80",
                                                          "{x: 1}",
                                                          "<b>&amp;",
                                                          "op #9",
                                                          "protos",
                                                          ""};
  return *texts;
}

// One net in 8 has every blob name decorated with a hostile suffix, hostile op names, and a
// hostile string argument no op reads (Caffe2 ignores unknown arguments): the round-trip oracle
// prints and re-parses them, every other oracle runs them.
// Arguments whose strings name blobs: Do's inner_blobs (names in its subnet) and
// RecurrentNetwork's links, aliases, states, param gradients and recomputed blobs.
bool NamesBlobs(const std::string& arg) {
  static const auto* names = new std::set<std::string>{"inner_blobs",
                                                       "link_internal",
                                                       "link_external",
                                                       "alias_src",
                                                       "alias_dst",
                                                       "recurrent_states",
                                                       "param_grads",
                                                       "backward_link_internal",
                                                       "backward_link_external",
                                                       "recompute_blobs_on_backward"};
  return names->count(arg) > 0;
}

// Renames every blob of `net` (its ops, its external inputs and outputs), of the nets nested in its
// ops, and in the arguments that name blobs, with `rename`.
void RenameBlobs(caffe2::NetDef* net, const std::function<void(std::string*)>& rename) {
  for (auto& name : *net->mutable_external_input()) rename(&name);
  for (auto& name : *net->mutable_external_output()) rename(&name);
  for (auto& op : *net->mutable_op()) {
    for (auto& in : *op.mutable_input()) rename(&in);
    for (auto& out : *op.mutable_output()) rename(&out);
    for (auto& arg : *op.mutable_arg()) {
      if (arg.has_n()) RenameBlobs(arg.mutable_n(), rename);
      for (auto& nested : *arg.mutable_nets()) RenameBlobs(&nested, rename);
      if (NamesBlobs(arg.name())) {
        for (auto& blob : *arg.mutable_strings()) rename(&blob);
      }
      if (op.type() == "RecurrentNetwork" && arg.name() == "timestep") rename(arg.mutable_s());
    }
  }
}

void DecorateWithHostileText(Case* c) {
  const std::string text = *rc::gen::elementOf(HostileTexts());
  if (text.empty()) return;  // an empty blob name is not a blob
  // RecurrentNetwork derives blob names by appending ("<state>_grad", "<param grad>_tmpstep"), so
  // a suffix would separate a derived name from the one its links spell out; a prefix commutes with
  // appending. Other nets get either.
  bool prefix = Pick(2) == 0;
  for (const auto& op : c->net().op()) prefix = prefix || op.type() == "RecurrentNetwork";
  auto rename = [&text, prefix](std::string* name) {
    *name = prefix ? text + *name : *name + text;
  };
  caffe2::NetDef* net = c->mutable_net();
  RenameBlobs(net, rename);
  for (auto& op : *net->mutable_op()) {
    op.set_name(*rc::gen::elementOf(HostileTexts()));
    caffe2::Argument* note = op.add_arg();
    note->set_name("parity_note");
    note->set_s(*rc::gen::elementOf(HostileTexts()));
  }
  for (auto& input : *c->mutable_inputs()) rename(input.mutable_name());
  for (auto& name : *c->mutable_grad_inputs()) rename(&name);
  for (auto& name : *c->mutable_loss_blobs()) rename(&name);
}

}  // namespace

rc::Gen<Case> NetCaseGen(const NetGenOptions& options) {
  return rc::gen::exec([options] {
    static const auto& kRewrites = *new auto(transforms::PassRegistry::Rewrites());
    static const auto& kRewriteHeads = *new auto([] {
      std::vector<std::string> heads;
      for (const auto& [head, consumers] : kRewrites) heads.push_back(head);
      return heads;
    }());
    std::vector<std::string> types = options.ops;
    if (types.empty()) {
      for (const auto& type : SpecRegistry::Types()) {
        if (SpecRegistry::Find(type)->consumes_intermediates()) types.push_back(type);
      }
    } else {
      types.erase(std::remove_if(types.begin(), types.end(),
                                 [](const std::string& t) {
                                   const OpSpec* s = SpecRegistry::Find(t);
                                   return s == nullptr || !s->consumes_intermediates();
                                 }),
                  types.end());
    }
    RC_PRE(!types.empty());
    Case c;
    caffe2::NetDef* net = c.mutable_net();
    net->set_name("fuzz_net");
    std::map<std::string, TensorType> types_of;  // every float blob available so far
    std::vector<std::string> available;
    InputSpec x0;
    x0.dims = AnyDims(1, 4, 5);
    *c.add_inputs() = DrawTensor("x0", x0);
    c.add_grad_inputs("x0");
    net->add_external_input("x0");
    types_of["x0"] = TensorType{DataType::kFloat, x0.dims, true};
    available.push_back("x0");

    const int num_ops = *rc::gen::inRange(options.min_ops, options.max_ops + 1);
    int param = 0;
    std::set<std::string> scopes;  // workspace stacks: no tensor, never an external output
    std::set<std::string> views;   // blobs sharing storage with others: never updated in place
    // Float parameters drawn so far (case inputs; init-net constants once deployed).
    std::vector<std::string> parameters;
    // The last op added: its spec, primary input and first output.
    std::string last_type, last_primary, last_output;
    for (int k = 0; k < num_ops; ++k) {
      // Now and then the next op is drawn to meet a graph transform (core/transforms/pass.h):
      // half the ops a pass rewrites are followed by the consumer it looks for (Conv ->
      // SpatialBN), reading their output — such pairs are rare in random draws (Conv needs a 4-D
      // input, SpatialBN the same order) — and one op in eight otherwise repeats the last one
      // on the same input (what cse merges, or must not).
      std::string suggested_type, suggested_primary;
      if (!last_type.empty()) {
        auto next = kRewrites.find(last_type);
        if (next != kRewrites.end() && types_of.count(last_output) && *rc::gen::arbitrary<bool>()) {
          suggested_type = *rc::gen::elementOf(next->second);
          suggested_primary = last_output;
        } else if (*rc::gen::inRange(0, 8) == 0) {
          suggested_type = last_type;
          suggested_primary = last_primary;
        }
      }
      // And one op in eight otherwise is a rewrite's head (Conv, FC, Reshape) on any blob so
      // far: drawn among ~120 types, a Conv on a 4-D blob came too seldom for its consumers to
      // follow it (the fuse_conv_bn mutant needed ~17K cases to meet a Conv -> SpatialBN).
      if (suggested_type.empty() && *rc::gen::inRange(0, 8) == 0) {
        suggested_type = *rc::gen::elementOf(kRewriteHeads);  // on a blob drawn per try
      }
      const bool can_suggest =
          !suggested_type.empty() &&
          std::find(types.begin(), types.end(), suggested_type) != types.end() &&
          (suggested_primary.empty() ||
           std::find(available.begin(), available.end(), suggested_primary) != available.end());
      for (int attempt = 0; attempt < 8; ++attempt) {
        // A suggestion gets three tries: its consumer must also match the producer's layout.
        const bool suggested = can_suggest && attempt < 3;
        const std::string type = suggested ? suggested_type : *rc::gen::elementOf(types);
        const OpSpec& spec = *SpecRegistry::Find(type);
        const std::string primary = suggested && !suggested_primary.empty()
                                        ? suggested_primary
                                        : *rc::gen::elementOf(available);
        const Primary dims = types_of[primary].dims;
        std::optional<OpInstance> inst = spec.Instantiate(&dims);
        if (!inst || inst->inputs().empty() || inst->inputs()[0].dtype != DataType::kFloat) {
          continue;
        }
        // An op that updates its primary in place (a loop-carried While, an If without else) must
        // not overwrite the net's own input, nor a view of storage other blobs share: it gets a
        // copy.
        bool updates_primary = false;
        for (const auto& [output, input] : inst->inplace_outputs()) {
          updates_primary = updates_primary || input == 0;
        }
        const bool copy_input = updates_primary && (primary == "x0" || views.count(primary) > 0);
        std::vector<std::string> inputs = {copy_input ? "c" + std::to_string(k) : primary};
        std::vector<TensorType> in_types = {types_of[primary]};
        std::vector<std::pair<caffe2::TensorProto, bool>> new_inputs;  // value, differentiable
        for (size_t i = 1; i < inst->inputs().size(); ++i) {
          const InputSpec& in = inst->inputs()[i];
          if (IsScope(in)) {
            inputs.push_back("ws" + std::to_string(param++));
            scopes.insert(inputs.back());
            in_types.push_back(TensorType{DataType::kUndefined, {}, true});
            continue;
          }
          std::string name = "p" + std::to_string(param++);
          inputs.push_back(name);
          in_types.push_back(TensorType{in.dtype, in.dims, true});
          new_inputs.emplace_back(DrawTensor(name, Tame(in)), in.differentiable);
        }
        // One op in eight writes its first output over a name an earlier op wrote, or over an
        // earlier op's parameter (not one it reads): readers before it see the old value, readers
        // after the new one. Nets are not SSA, and a pass or the backward pass that assumes a
        // name has one value meets one; a deployed case's predict net overwrites a constant of
        // its init net.
        std::string overwritten;
        if (*rc::gen::inRange(0, 8) == 0) {
          std::vector<std::string> candidates;
          for (const auto* names : {&available, &parameters}) {
            for (const std::string& name : *names) {
              if (name != "x0" && !views.count(name) &&
                  std::find(inputs.begin(), inputs.end(), name) == inputs.end()) {
                candidates.push_back(name);
              }
            }
          }
          if (!candidates.empty()) overwritten = *rc::gen::elementOf(candidates);
        }
        std::vector<std::string> outputs;
        for (int j = 0; j < inst->num_outputs(); ++j) {
          auto inplace = inst->inplace_outputs().find(j);
          if (inplace != inst->inplace_outputs().end()) {
            outputs.push_back(inputs.at(inplace->second));
          } else if (j == 0 && !overwritten.empty()) {
            outputs.push_back(overwritten);
          } else {
            outputs.push_back("t" + std::to_string(k) + (j ? "_" + std::to_string(j) : ""));
          }
        }
        std::vector<caffe2::OperatorDef> built = BuildOps(*inst, inputs, outputs);
        if (copy_input) {
          caffe2::OperatorDef copy;
          copy.set_type("Copy");
          copy.add_input(primary);
          copy.add_output(inputs[0]);
          built.insert(built.begin(), copy);
        }
        caffe2::OperatorDef def = built.back();
        built.pop_back();
        std::vector<TensorType> out_types;
        try {
          const OpSchema& schema = OpSchemaRegistry::Get(def.type());
          schema.Verify(def);
          out_types = schema.InferShapes(def, InOpOrder(*inst, in_types));
        } catch (const Error&) {
          continue;
        }
        // A consumer a pass looks for reads its producer in the producer's layout (fuse_conv_bn
        // folds only a SpatialBN of the Conv's order); the specs draw "order" independently.
        if (suggested && suggested_primary == last_output && net->op_size() > 0) {
          const std::string consumer = LayoutOf(def);
          const std::string producer = LayoutOf(net->op(net->op_size() - 1));
          if (!consumer.empty() && !producer.empty() && consumer != producer) continue;
        }
        bool fits = true;
        for (const auto& t : out_types) {
          fits = fits && t.known && CheckedNumElements(t.dims) <= options.max_elements;
        }
        if (!fits) continue;
        // Sometimes run in place on the primary input, where the schema allows it.
        const OpSchema& schema = OpSchemaRegistry::Get(def.type());
        // Not for ops that already update a blob in place (Do's workspace stack: Do binds each
        // outer blob once, so its output cannot be its input).
        if (inst->inplace_outputs().empty() && inst->op_input_order().empty() &&
            schema.IsInplaceAllowed(0, 0) && out_types[0].dims == dims && primary != "x0" &&
            !views.count(primary) && *rc::gen::inRange(0, 8) == 0) {
          def.set_output(0, primary);
          outputs[0] = primary;
        }
        for (const auto& [value, differentiable] : new_inputs) {
          *c.add_inputs() = value;
          net->add_external_input(value.name());
          if (differentiable) c.add_grad_inputs(value.name());
          if (value.data_type() == caffe2::TensorProto::FLOAT) parameters.push_back(value.name());
        }
        for (auto& op : built) *net->add_op() = std::move(op);
        *net->add_op() = def;
        for (size_t j = 0; j < outputs.size(); ++j) {
          if (inst->IsScopeOutput(static_cast<int>(j))) scopes.insert(outputs[j]);
          if (spec.outputs_are_views()) views.insert(outputs[j]);
          // Statistics outputs carry no gradient: a loss built on them would differ from what
          // the backward pass computes, so later ops do not consume them.
          // Scalars (losses) are sinks: specs take tensors of rank >= 1 as their primary input.
          // Empty blobs (a zero-size Split piece) are edge cases for single ops, not for chains.
          if (out_types[j].dtype != DataType::kFloat || out_types[j].dims.empty() ||
              CheckedNumElements(out_types[j].dims) == 0 ||
              !schema.IsOutputDifferentiable(static_cast<int>(j))) {
            types_of.erase(outputs[j]);
            available.erase(std::remove(available.begin(), available.end(), outputs[j]),
                            available.end());
            continue;
          }
          if (!types_of.count(outputs[j])) available.push_back(outputs[j]);
          types_of[outputs[j]] = out_types[j];
        }
        // A rewritten pair stays a pair: nothing else reads the producer's output.
        if (suggested && suggested_primary == last_output) {
          available.erase(std::remove(available.begin(), available.end(), primary),
                          available.end());
        }
        last_type = type;
        last_primary = primary;
        last_output = outputs[0];
        break;
      }
    }
    RC_PRE(net->op_size() > 0);
    // External outputs: every blob written and never read afterwards (the net's sinks).
    std::set<std::string> read_later;
    std::vector<std::string> sinks;
    for (int i = net->op_size() - 1; i >= 0; --i) {
      for (const auto& out : net->op(i).output()) {
        if (!read_later.count(out) && !scopes.count(out) &&
            std::find(sinks.begin(), sinks.end(), out) == sinks.end()) {
          sinks.push_back(out);
        }
      }
      for (const auto& in : net->op(i).input()) read_later.insert(in);
    }
    for (auto it = sinks.rbegin(); it != sinks.rend(); ++it) net->add_external_output(*it);
    if (*rc::gen::inRange(0, 8) == 0) DecorateWithHostileText(&c);
    c.set_generator_version(kGeneratorVersion);
    c.set_description("net of " + std::to_string(net->op_size()) + " ops");
    return c;
  });
}

int SizeForSeed(uint64_t seed) {
  // The seed's high bits: campaign seeds are hashes (oracles/seeds.h), tests use small integers,
  // and both should see every size.
  return static_cast<int>((seed * 0x9E3779B97F4A7C15ull >> 32) % (rc::kNominalSize + 1));
}

std::optional<Case> TrySampleCase(const rc::Gen<Case>& gen, uint64_t seed, int size) {
  if (size == kSizeFromSeed) size = SizeForSeed(seed);
  rc::Random random(rc::Random::Key{seed, seed ^ 0x5DEECE66Dull, ~seed, 0x9E3779B97F4A7C15ull});
  for (int attempt = 0; attempt < 100; ++attempt) {
    // Each failed draw moves the size a little towards the nominal size: a spec that needs
    // more than the smallest shapes (LayerNorm wants two elements per row) still gets a case.
    const int attempt_size = size + (rc::kNominalSize - size) * attempt / 50;
    try {
      Case c = gen(random, std::min(attempt_size, rc::kNominalSize)).value();
      c.set_seed(seed);
      return c;
    } catch (const rc::GenerationFailure&) {
      random.split();
    } catch (const rc::detail::CaseResult&) {  // RC_PRE inside exec discards the draw
      random = random.split();
    }
  }
  return std::nullopt;
}

Case SampleCase(const rc::Gen<Case>& gen, uint64_t seed, int size) {
  std::optional<Case> c = TrySampleCase(gen, seed, size);
  PARITY_ENFORCE(c.has_value(), ErrorKind::kInternal, "could not generate a case for seed ", seed);
  return *c;
}

}  // namespace parity::fuzz
