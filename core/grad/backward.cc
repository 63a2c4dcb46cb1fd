#include "core/grad/backward.h"

#include <algorithm>
#include <set>
#include <sstream>

#include "core/argument.h"
#include "core/proto/error.h"
#include "core/schema.h"

namespace parity {
namespace {

struct OpVersions {
  const caffe2::OperatorDef* op;
  std::map<std::string, int> in;
  std::map<std::string, int> out;
};

// Where one contribution to a gradient comes from: output `index` of gradient op `op` (an index
// into the pass's op list), or a pass-through blob name when op < 0.
struct Generator {
  int op = -1;
  int index = 0;
  std::string gradient;
  caffe2::DeviceOption device_option;
  bool has_device_option = false;
};

// Renames the writes of `from` to `to` in `net`, and the reads that follow a write, descending
// into the nets of ops that run in the same workspace. Returns whether `net` wrote it.
bool RenameWritesInNet(caffe2::NetDef* net, const std::string& from, const std::string& to,
                       bool written);

bool RenameWritesInOp(caffe2::OperatorDef* op, const std::string& from, const std::string& to,
                      bool written) {
  for (auto& in : *op->mutable_input()) {
    if (written && in == from) in = to;
  }
  bool writes = false;
  // If and While run their nets in the op's own workspace; Do's net names blobs of its own.
  if (op->type() == "If" || op->type() == "While") {
    for (auto& arg : *op->mutable_arg()) {
      if (arg.has_n() && (arg.name() == "then_net" || arg.name() == "else_net" ||
                          arg.name() == "loop_net" || arg.name() == "cond_net")) {
        writes = RenameWritesInNet(arg.mutable_n(), from, to, written) || writes;
      }
    }
  }
  for (auto& out : *op->mutable_output()) {
    if (out == from) {
      out = to;
      writes = true;
    }
  }
  return writes;
}

bool RenameWritesInNet(caffe2::NetDef* net, const std::string& from, const std::string& to,
                       bool written) {
  bool writes = false;
  for (auto& op : *net->mutable_op())
    writes = RenameWritesInOp(&op, from, to, written || writes) || writes;
  return writes;
}

// Renames output `index` of gradient op `op` to `to`. A gradient If or While writes that blob from
// the nets it runs, so the writes there (and the reads after them) are renamed with it.
void RenameGradientOutput(caffe2::OperatorDef* op, int index, const std::string& to) {
  const std::string from = op->output(index);
  if (op->type() == "If" || op->type() == "While") {
    RenameWritesInOp(op, from, to, false);
  }
  op->set_output(index, to);
}

class IR {
 public:
  explicit IR(const std::vector<caffe2::OperatorDef>& ops) {
    for (const auto& op : ops) Play(op);
    for (const auto& op : ops) {
      PARITY_ENFORCE(op.type() != "StopGradient" || op.output_size() == 0 ||
                         input_usages_.count(op.output(0)) > 0,
                     ErrorKind::kBadArgument, OpLabel(op), ": StopGradient's output '",
                     op.output(0), "' is never read; StopGradient(X) -> X (in place) is the ",
                     "intended form");
    }
  }

  BackwardPass Run(const GradientSeeds& ys) {
    std::map<std::string, std::string> input_to_grad;  // "" = explicitly no gradient
    for (const auto& [y, g] : ys) {
      PARITY_ENFORCE(frontier_.count(y) > 0, ErrorKind::kMissingBlob, "cannot differentiate '", y,
                     "': no op of the net reads or writes a blob of that name");
    }
    for (const auto& [y, g] : ys) {
      gradient_frontier_[y] = frontier_[y];
      input_usages_[y][frontier_[y]].push_back(static_cast<int>(ssa_.size()));
    }
    for (const auto& [y, g] : ys) {
      if (!g.empty()) {
        input_to_grad[y] = g;
        // A given seed is a pass-through contribution to y's gradient: when y also feeds other
        // ops whose outputs are seeded (several losses), the gradients flowing back from them are
        // summed with it instead of overwriting it.
        Generator gen;
        gen.gradient = g;
        generators_[y][frontier_[y]].push_back(gen);
        continue;
      }
      caffe2::OperatorDef fill;
      fill.set_type("ConstantFill");
      fill.add_input(y);
      fill.add_output(y + "_autogen_grad");
      caffe2::Argument* value = fill.add_arg();
      value->set_name("value");
      value->set_f(1.0f);
      ops_.push_back(fill);
      input_to_grad[y] = fill.output(0);
      Generator gen;
      gen.op = static_cast<int>(ops_.size()) - 1;
      gen.gradient = fill.output(0);
      gen.has_device_option = fill.has_device_option();
      generators_[y][frontier_[y]].push_back(gen);
    }

    for (int index = static_cast<int>(ssa_.size()) - 1; index >= 0; --index) {
      GenerateForOp(index, &input_to_grad);
      std::vector<std::pair<std::string, std::string>> accumulated = Accumulate(index);
      for (const auto& [name, grad] : accumulated) input_to_grad[name] = grad;
    }

    BackwardPass pass;
    pass.ops = ops_;
    for (const auto& [name, grad] : input_to_grad) {
      if (grad.empty()) continue;
      pass.gradient_of[name] = grad;
      // The value held before the ops is version 0 of a name read first; a name written first
      // has no such version among them (its version 0 is the first write).
      auto version = gradient_frontier_.find(name);
      if (!written_first_.count(name) && version != gradient_frontier_.end() &&
          version->second == 0) {
        pass.input_gradient_of[name] = grad;
      }
    }
    return pass;
  }

 private:
  void Play(const caffe2::OperatorDef& op) {
    OpVersions v;
    v.op = &op;
    const int index = static_cast<int>(ssa_.size());
    for (const auto& s : op.input()) {
      int version = frontier_[s];  // inserts 0 for a blob never seen: Python's defaultdict
      v.in[s] = version;
      input_usages_[s][version].push_back(index);
      in_history_[s].push_back({&op, version});
    }
    for (const auto& s : op.output()) {
      auto it = frontier_.find(s);
      if (it != frontier_.end()) {
        ++it->second;
      } else {
        frontier_[s] = 0;
        written_first_.insert(s);
      }
      v.out[s] = frontier_[s];
      out_history_[s].push_back({&op, frontier_[s]});
    }
    ssa_.push_back(v);
  }

  std::string History(const std::string& name, bool outputs) {
    std::ostringstream out;
    out << "; version history of '" << name << "':";
    for (const auto& [op, version] : outputs ? out_history_[name] : in_history_[name]) {
      out << " [" << (outputs ? "written" : "read") << " at version " << version << " by "
          << OpLabel(*op) << "]";
    }
    return out.str();
  }

  void CheckGradientInput(const std::string& s, const std::vector<std::string>& g_output, int index,
                          const std::set<std::string>& local) {
    const OpVersions& v = ssa_[index];
    const caffe2::OperatorDef& op = *v.op;
    auto found = std::find(g_output.begin(), g_output.end(), s);
    if (!s.empty() && found != g_output.end()) {
      const std::string& original = op.output(static_cast<int>(found - g_output.begin()));
      PARITY_ENFORCE(v.out.at(original) == gradient_frontier_[original], ErrorKind::kBadArgument,
                     "gradient of ", OpLabel(op), ": gradient '", s,
                     "' is expected to correspond to version ", v.out.at(original), " of '",
                     original, "', but the gradient is at version ", gradient_frontier_[original],
                     History(original, true));
    } else if (v.out.count(s)) {
      PARITY_ENFORCE(frontier_[s] == v.out.at(s), ErrorKind::kBadArgument, "gradient of ",
                     OpLabel(op), " needs output '", s, "' at version ", v.out.at(s),
                     ", but it is overwritten later (version ", frontier_[s], ")",
                     History(s, true));
    } else if (v.in.count(s)) {
      PARITY_ENFORCE(frontier_[s] == v.in.at(s), ErrorKind::kBadArgument, "gradient of ",
                     OpLabel(op), " needs input '", s, "' at version ", v.in.at(s),
                     ", but it is overwritten later (version ", frontier_[s], ")",
                     History(s, false));
    } else {
      PARITY_ENFORCE(local.count(s) > 0, ErrorKind::kBadArgument, "gradient of ", OpLabel(op),
                     ": blob '", s, "' is neither an input, an output or an output gradient of ",
                     "the op, nor made by one of its earlier gradient ops");
    }
  }

  void GenerateForOp(int index, std::map<std::string, std::string>* input_to_grad) {
    const OpVersions& v = ssa_[index];
    const caffe2::OperatorDef& op = *v.op;
    std::vector<std::string> g_output;
    bool any = false;
    for (const auto& out : op.output()) {
      auto it = input_to_grad->find(out);
      std::string gradient = it == input_to_grad->end() ? "" : it->second;
      // The gradient held for a name is of one version of it (gradient_frontier_). An op that
      // wrote another version (overwritten before anything read it, or read only by ops without
      // a gradient) gets none of it: the later value did not come from this op. Caffe2 hands it
      // on anyway, and a pass-through maker (Sum, Copy, ...) then counts it twice.
      auto version = gradient_frontier_.find(out);
      if (version != gradient_frontier_.end() && version->second != v.out.at(out)) gradient = "";
      g_output.push_back(gradient);
      any = any || !g_output.back().empty();
    }
    if (!any && op.type() != "ZeroGradient") return;

    GradientOpsMeta meta;
    try {
      meta = GetGradientForOp(op, g_output);
    } catch (Error& error) {
      error.AddContext("backward pass: forward op #" + std::to_string(index));
      throw;
    }
    RenameClobberingOutputs(index, *input_to_grad, &meta);
    // Register the ops, checking their inputs and recording generators.
    const int first = static_cast<int>(ops_.size());
    std::set<std::string> local;
    for (size_t k = 0; k < meta.ops.size(); ++k) {
      const caffe2::OperatorDef& grad_op = meta.ops[k];
      for (const auto& s : grad_op.input()) CheckGradientInput(s, g_output, index, local);
      for (int i = 0; i < grad_op.output_size(); ++i) {
        const std::string& output = grad_op.output(i);
        local.insert(output);
        auto g = std::find(meta.g_input.begin(), meta.g_input.end(), output);
        if (output.empty() || g == meta.g_input.end()) continue;
        const std::string& input_name = op.input(static_cast<int>(g - meta.g_input.begin()));
        Generator gen;
        gen.op = first + static_cast<int>(k);
        gen.index = i;
        gen.gradient = output;
        gen.has_device_option = grad_op.has_device_option();
        gen.device_option = grad_op.device_option();
        generators_[input_name][v.in.at(input_name)].push_back(gen);
      }
    }
    ops_.insert(ops_.end(), meta.ops.begin(), meta.ops.end());
    // Pass-through gradients (no op made them) are generators too.
    for (int i = 0; i < op.input_size(); ++i) {
      const std::string& g = meta.g_input[i];
      if (g.empty() || local.count(g)) continue;
      Generator gen;
      gen.gradient = g;
      gen.has_device_option = op.has_device_option();
      gen.device_option = op.device_option();
      generators_[op.input(i)][v.in.at(op.input(i))].push_back(gen);
    }
    for (int i = 0; i < op.input_size(); ++i) {
      if (!meta.g_input[i].empty()) gradient_frontier_[op.input(i)] = v.in.at(op.input(i));
    }
    // Record the gradient map. A missing gradient never overwrites an existing one, unless the
    // input is also an output of the op (its version changed).
    std::set<std::string> outputs(op.output().begin(), op.output().end());
    std::map<std::string, std::string> updates;
    for (int i = 0; i < op.input_size(); ++i) {
      const std::string& name = op.input(i);
      const std::string& grad = meta.g_input[i];
      if (!grad.empty() || !input_to_grad->count(name) || outputs.count(name)) updates[name] = grad;
    }
    // Python builds the update dict in input order, later duplicates winning; then merges.
    for (int i = 0; i < op.input_size(); ++i) {
      const std::string& name = op.input(i);
      if (updates.count(name)) (*input_to_grad)[name] = updates[name];
    }
  }

  // Whether output `i` of `op` has the name of one of its inputs where its schema does not let
  // it run in place: an op whose output gradient passes straight through (t = Sum(x)) hands a
  // gradient op upstream the name it writes for its own input (t2 = Mean(a, p); p = Sum(t2):
  // MeanGradient would read p_grad as t2's gradient and write p_grad as p's).
  static bool IllegallyInPlace(const caffe2::OperatorDef& op, int i) {
    const OpSchema* schema = OpSchemaRegistry::Find(op.type());
    if (schema == nullptr) return false;
    for (int in = 0; in < op.input_size(); ++in) {
      if (op.input(in) == op.output(i) && !schema->IsInplaceAllowed(in, i)) return true;
    }
    return false;
  }

  // A gradient op must not overwrite a blob that still holds another blob's gradient: with in-place
  // forward ops, pass-through gradients (Sum) and in-place gradient ops can share one name, and a
  // later write would silently change the earlier gradient (Caffe2's Python pass has this flaw).
  // Such outputs get a fresh name, propagated to the maker's later ops and its input gradients.
  void RenameClobberingOutputs(int index, const std::map<std::string, std::string>& input_to_grad,
                               GradientOpsMeta* meta) {
    const caffe2::OperatorDef& op = *ssa_[index].op;
    // The gradients of this op's own inputs and outputs are consumed or accumulated here; any
    // other recorded gradient must survive.
    std::set<std::string> own(op.output().begin(), op.output().end());
    own.insert(op.input().begin(), op.input().end());
    std::set<std::string> live;
    for (const auto& [blob, grad] : input_to_grad) {
      if (!grad.empty() && !own.count(blob)) live.insert(grad);
    }
    // So must contributions passed through by name (no op made them: a Sum's or Copy's output
    // gradient handed on to its input) whose accumulation is still to come, own inputs' included:
    // their Sum reads them after this op's gradient ops, and unlike a contribution an op made,
    // they cannot be renamed apart. (t = Mul(x, p); p = Sum(x): x's contribution from Sum is
    // "p_grad", which MulGradient would write again as the first p's gradient.)
    for (const auto& [blob, versions] : generators_) {
      auto usages = input_usages_.find(blob);
      if (usages == input_usages_.end()) continue;
      for (const auto& [version, gens] : versions) {
        auto users = usages->second.find(version);
        if (users == usages->second.end() || users->second.empty() ||
            users->second.front() > index) {
          continue;  // accumulated already
        }
        for (const Generator& gen : gens) {
          if (gen.op < 0) live.insert(gen.gradient);
        }
      }
    }
    for (size_t k = 0; k < meta->ops.size(); ++k) {
      for (int i = 0; i < meta->ops[k].output_size(); ++i) {
        const std::string old_name = meta->ops[k].output(i);
        if (!live.count(old_name) && !IllegallyInPlace(meta->ops[k], i)) continue;
        const std::string fresh = "_" + old_name + "_ssa_" + std::to_string(renames_++);
        RenameGradientOutput(&meta->ops[k], i, fresh);
        for (size_t later = k + 1; later < meta->ops.size(); ++later) {
          for (int j = 0; j < meta->ops[later].input_size(); ++j) {
            if (meta->ops[later].input(j) == old_name) meta->ops[later].set_input(j, fresh);
          }
        }
        for (auto& g : meta->g_input) {
          if (g == old_name) g = fresh;
        }
      }
    }
  }

  std::vector<std::pair<std::string, std::string>> Accumulate(int index) {
    const OpVersions& v = ssa_[index];
    std::vector<std::pair<std::string, std::string>> grad_map;
    std::set<std::string> seen;
    for (const auto& input_name : v.op->input()) {
      if (!seen.insert(input_name).second) continue;
      int version = v.in.at(input_name);
      const std::vector<int>& usage = input_usages_[input_name][version];
      if (usage.size() <= 1 || usage[0] != index) continue;
      std::vector<Generator>& gens = generators_[input_name][version];
      if (gens.size() < 2) continue;
      const caffe2::DeviceOption* first_device = nullptr;
      for (const Generator& gen : gens) {
        if (!gen.has_device_option) continue;
        if (first_device == nullptr) {
          first_device = &gen.device_option;
        } else {
          PARITY_ENFORCE(gen.device_option.SerializeAsString() == first_device->SerializeAsString(),
                         ErrorKind::kBadArgument, "gradients of '", input_name,
                         "' come from ops on different devices; they cannot be summed");
        }
      }
      grad_map.emplace_back(input_name, MakeSum(input_name, gens));
    }
    return grad_map;
  }

  std::string MakeSum(const std::string& input_name, std::vector<Generator>& gens) {
    std::string base = input_name + "_grad";
    for (const Generator& gen : gens) {
      if (gen.op >= 0) {
        base = ops_[gen.op].output(gen.index);
        break;
      }
    }
    std::vector<std::string> sum_inputs;
    int count = 0;
    bool first_op = true;
    for (Generator& gen : gens) {
      if (gen.op >= 0) {
        std::string out = ops_[gen.op].output(gen.index);
        if (first_op) {
          first_op = false;
        } else {
          out = "_" + out + "_autosplit_" + std::to_string(count++);
          RenameGradientOutput(&ops_[gen.op], gen.index, out);
        }
        sum_inputs.push_back(out);
      } else {
        PARITY_ENFORCE(gen.gradient != base, ErrorKind::kBadArgument, "gradient of '", input_name,
                       "': a pass-through gradient has the same name '", base,
                       "' as the accumulated gradient");
        sum_inputs.push_back(gen.gradient);
      }
    }
    // Sum runs in place only on its first input.
    auto at = std::find(sum_inputs.begin(), sum_inputs.end(), base);
    if (at != sum_inputs.end()) std::iter_swap(sum_inputs.begin(), at);
    caffe2::OperatorDef sum;
    sum.set_type("Sum");
    for (const auto& in : sum_inputs) sum.add_input(in);
    sum.add_output(base);
    *sum.mutable_device_option() = gens[0].device_option;
    sum.mutable_device_option()->add_extra_info("is_auto_gen_sum_ops:1");
    ops_.push_back(sum);
    return base;
  }

  std::vector<OpVersions> ssa_;
  std::map<std::string, std::map<int, std::vector<int>>> input_usages_;
  std::map<std::string, int> frontier_;
  std::map<std::string, int> gradient_frontier_;
  std::set<std::string> written_first_;  // names an op writes before any op reads them
  std::map<std::string, std::map<int, std::vector<Generator>>> generators_;
  std::map<std::string, std::vector<std::pair<const caffe2::OperatorDef*, int>>> in_history_;
  std::map<std::string, std::vector<std::pair<const caffe2::OperatorDef*, int>>> out_history_;
  Ops ops_;
  int renames_ = 0;
};

BackwardPassEdit& InstalledEdit() {
  static auto* edit = new BackwardPassEdit();
  return *edit;
}

}  // namespace

BackwardPassEdit ReplaceBackwardPassEdit(BackwardPassEdit edit) {
  BackwardPassEdit previous = std::move(InstalledEdit());
  InstalledEdit() = std::move(edit);
  return previous;
}

BackwardPass GetBackwardPass(const std::vector<caffe2::OperatorDef>& forward_ops,
                             const GradientSeeds& ys) {
  IR ir(forward_ops);
  BackwardPass pass = ir.Run(ys);
  if (InstalledEdit()) InstalledEdit()(&pass);
  return pass;
}

std::map<std::string, std::string> AddGradientOperators(caffe2::NetDef* net,
                                                        const GradientSeeds& ys, int skip) {
  std::vector<caffe2::OperatorDef> forward(net->op().begin() + std::min(skip, net->op_size()),
                                           net->op().end());
  BackwardPass pass = GetBackwardPass(forward, ys);
  // An accumulating Sum copies its first generator's DeviceOption. A generator with none (the
  // ConstantFill seeding a loss, or the gradient of a forward op with none) runs under the net's
  // option, and so does the Sum here: its is_auto_gen_sum_ops tag alone would make it an explicit
  // CPU op, summing the device tensors of a net placed on CUDA by its NetDef's option (Caffe2 gives
  // the seed's fill the current DeviceScope instead).
  if (net->has_device_option()) {
    for (auto& op : pass.ops) {
      if (op.type() != "Sum" || !op.has_device_option()) continue;
      caffe2::DeviceOption* option = op.mutable_device_option();
      if (option->has_device_type() || option->has_device_id()) continue;
      const caffe2::DeviceOption& net_option = net->device_option();
      if (net_option.has_device_type()) option->set_device_type(net_option.device_type());
      if (net_option.has_device_id()) option->set_device_id(net_option.device_id());
    }
  }
  for (auto& op : pass.ops) *net->add_op() = std::move(op);
  return pass.gradient_of;
}

}  // namespace parity
