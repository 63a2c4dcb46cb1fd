#include "gpu/placement.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <google/protobuf/text_format.h>

#include "core/proto/nesting.h"

namespace parity::gpu {
namespace {

bool IsHostFill(const std::string& type) {
  static const std::set<std::string> kFills = {
      "ConstantFill",       "GivenTensorFill",      "GivenTensorDoubleFill",
      "GivenTensorIntFill", "GivenTensorInt64Fill", "GivenTensorBoolFill",
      "UniformFill",        "GaussianFill",         "XavierFill"};
  return kFills.count(type) > 0;
}

const char* Where(Placement p) { return p == Placement::kHost ? "the host" : "the device"; }

// Control ops bind blobs by name and read their condition through a host copy (If, While) or
// not at all; what their subnets read and write is planned op by op inside them.
bool IsControlOp(const std::string& type) {
  return type == "Do" || type == "If" || type == "While" || type == "CreateScope" ||
         type == "HasScope";
}

// The walk over a net and the nets nested in its ops, in run order. Where a blob ends up can
// depend on the run: If's branches, and While's loop, which may stop after any pass. Such a blob
// is placed "by the run" (kEither in `where_`), and a strict reader of it is a problem: on CUDA the
// net would run or not by its data.
class PlacementWalk {
 public:
  explicit PlacementWalk(CudaPlacementPlan* plan) : plan_(plan) {}

  // `names` maps the net's blob names to the walk's. Do's inner names are bound to its outer blobs
  // and its other blobs are local (a prefix of their own, so they never meet the outer
  // workspace's blobs of the same name). A step net's own blobs are local and the rest are its
  // parent's (`parent`: a step workspace reads through to the op's workspace).
  struct Names {
    std::map<std::string, std::string> bound;
    std::string local_prefix;
    const Names* parent = nullptr;
    std::string Resolve(const std::string& name) const {
      auto it = bound.find(name);
      if (it != bound.end()) return it->second;
      return parent != nullptr ? parent->Resolve(name) : local_prefix + name;
    }
  };

  void Net(const caffe2::NetDef& net, const Names& names, const std::string& where_in) {
    for (int i = 0; i < net.op_size(); ++i) {
      Op(net.op(i), names, where_in + "op #" + std::to_string(i) + " (" + net.op(i).type() + ")");
    }
  }

 private:
  // Where every blob is after some path through the net so far.
  struct State {
    std::map<std::string, Placement> where;        // kEither: by the run
    std::map<std::string, std::string> placed_by;  // who put it there, for the message
  };

  void Op(const caffe2::OperatorDef& op, const Names& names, const std::string& who) {
    for (int j = 0; j < op.input_size(); ++j) {
      const Placement wanted = CudaInputPlacement(op.type(), j);
      if (wanted != Placement::kEither) Read(names.Resolve(op.input(j)), wanted, who);
    }
    if (op.type() == "Do" || op.type() == "If" || op.type() == "While") {
      Subnets(op, names, who);
      return;  // a control op's outputs are what its subnets wrote
    }
    if (op.type() == "RecurrentNetwork") StepNet(op, names, who);
    for (int j = 0; j < op.output_size(); ++j) {
      const Placement placed = CudaOutputPlacement(op.type(), j);
      if (placed != Placement::kEither) Write(names.Resolve(op.output(j)), placed, who);
    }
  }

  void Subnets(const caffe2::OperatorDef& op, const Names& names, const std::string& who) {
    std::map<std::string, const caffe2::NetDef*> nets;
    for (const auto& arg : op.arg()) {
      if (arg.has_n()) nets[arg.name()] = &arg.n();
    }
    auto walk = [&](const std::string& arg, const Names& inner) {
      auto it = nets.find(arg);
      if (it != nets.end()) Net(*it->second, inner, who + " " + arg + ": ");
    };
    if (op.type() == "Do") {
      walk("net", DoNames(op, names, who));
    } else if (op.type() == "While") {
      // The condition runs, then the body and the condition again while it holds: the loop may
      // end after 0, 1 or 2 passes (more repeat the second), and a pass reads what the one before
      // wrote.
      std::vector<State> ends;
      walk("cond_net", names);
      ends.push_back(state_);
      for (int pass = 0; pass < 2; ++pass) {
        walk("loop_net", names);
        walk("cond_net", names);
        ends.push_back(state_);
      }
      Merge(ends, who);
    } else {
      // Either branch, from the same start.
      const State before = state_;
      walk("then_net", names);
      std::vector<State> ends = {state_};
      state_ = before;
      walk("else_net", names);
      ends.push_back(state_);
      Merge(ends, who);
    }
  }

  // A RecurrentNetwork's step net, once per step in its own workspace: its links are views of the
  // op's device tensors (a step op may not put one on the host), the blobs it writes are its own,
  // and it reads the rest from the op's workspace.
  void StepNet(const caffe2::OperatorDef& op, const Names& names, const std::string& who) {
    caffe2::NetDef step;
    std::vector<std::string> internal, external;
    for (const auto& arg : op.arg()) {
      if (arg.name() == "step_net") {
        if (arg.has_n()) {
          step = arg.n();
        } else if (!ParseNetText(arg.s(), &step)) {
          return;  // the op's own error when it runs
        }
      }
      if (arg.name() == "link_internal") internal.assign(arg.strings().begin(), arg.strings().end());
      if (arg.name() == "link_external") external.assign(arg.strings().begin(), arg.strings().end());
    }
    Names inner;
    inner.parent = &names;
    const std::string prefix = who + " step_net/";
    for (const auto& step_op : step.op()) {
      for (const std::string& out : step_op.output()) inner.bound[out] = prefix + out;
    }
    for (size_t k = 0; k < internal.size(); ++k) {
      const std::string blob = prefix + internal[k];
      inner.bound[internal[k]] = blob;
      state_.where[blob] = Placement::kDevice;
      state_.placed_by[blob] = who + ", a link to rows of '" +
                               (k < external.size() ? external[k] : std::string("?")) + "',";
      links_[blob] = internal[k];
    }
    // Twice: a step reads what the step before wrote.
    for (int pass = 0; pass < 2; ++pass) Net(step, inner, who + " step_net: ");
  }

  // Do's inner names bound to its outer blobs (inputs then outputs, the scope excluded); the
  // rest are local to the child workspace.
  Names DoNames(const caffe2::OperatorDef& op, const Names& outer, const std::string& who) {
    std::vector<std::string> outer_blobs;
    for (int j = 0; j + 1 < op.input_size(); ++j) outer_blobs.push_back(op.input(j));
    for (int j = 0; j + 1 < op.output_size(); ++j) outer_blobs.push_back(op.output(j));
    std::vector<std::string> inner;
    std::vector<int64_t> index;
    for (const auto& arg : op.arg()) {
      if (arg.name() == "inner_blobs") inner.assign(arg.strings().begin(), arg.strings().end());
      if (arg.name() == "outer_blobs_idx") index.assign(arg.ints().begin(), arg.ints().end());
    }
    Names names;
    names.local_prefix = who + "/";
    for (size_t k = 0; k < inner.size() && k < index.size(); ++k) {
      if (index[k] >= 0 && index[k] < static_cast<int64_t>(outer_blobs.size())) {
        names.bound[inner[k]] = outer.Resolve(outer_blobs[index[k]]);
      }
    }
    return names;
  }

  // Where `blob` is at the start of the net, if it is an input placed so far.
  std::optional<Placement> InputPlacement(const std::string& blob) const {
    auto it = inputs_.find(blob);
    if (it == inputs_.end()) return std::nullopt;
    return it->second;
  }

  // The paths that end at `ends` join: a blob placed alike on each stays there; one placed apart
  // (or left where it was before on some path) is placed by the run.
  void Merge(const std::vector<State>& ends, const std::string& who) {
    State merged;
    std::set<std::string> blobs;
    for (const State& end : ends) {
      for (const auto& [blob, placement] : end.where) blobs.insert(blob);
    }
    for (const std::string& blob : blobs) {
      std::optional<Placement> first;
      std::string first_by;
      bool apart = false;
      for (const State& end : ends) {
        auto it = end.where.find(blob);
        // Absent on a path: an input where it started, else a blob that path never made.
        std::optional<Placement> here =
            it != end.where.end() ? std::optional<Placement>(it->second) : InputPlacement(blob);
        if (!here) continue;
        if (!first) {
          first = here;
          first_by = it != end.where.end() ? end.placed_by.at(blob) : "";
        } else if (*here != *first) {
          apart = true;
        }
      }
      if (!first) continue;
      merged.where[blob] = apart ? Placement::kEither : *first;
      merged.placed_by[blob] =
          apart ? who + " leaves it on the host or on the device, by the run," : first_by;
    }
    state_ = std::move(merged);
  }

  void Read(const std::string& blob, Placement wanted, const std::string& who) {
    auto it = state_.where.find(blob);
    if (it == state_.where.end()) {
      if (std::optional<Placement> input = InputPlacement(blob)) {
        // An input read again on a path where it was not yet (another branch).
        state_.where[blob] = *input;
        state_.placed_by[blob] = input_placed_by_[blob];
        it = state_.where.find(blob);
      } else {
        // Read before written: an input of the net, placed where its first strict reader wants it.
        state_.where[blob] = wanted;
        state_.placed_by[blob] = input_placed_by_[blob] = "the net's input placement for " + who;
        inputs_[blob] = wanted;
        if (wanted == Placement::kHost) plan_->host_inputs.insert(blob);
        return;
      }
    }
    if (it->second == wanted || !plan_->problem.empty()) return;
    if (it->second == Placement::kEither) {
      plan_->problem = who + " reads '" + blob + "' on " + Where(wanted) + ", but " +
                       state_.placed_by[blob] +
                       " so on CUDA the net runs or not by its data (Caffe2 inserts no copy)";
      return;
    }
    plan_->problem = who + " reads '" + blob + "' on " + Where(wanted) + ", but " +
                     state_.placed_by[blob] + " put it on " + Where(it->second) +
                     ": on CUDA the net needs a copy there (Caffe2 inserts none)";
  }

  void Write(const std::string& blob, Placement placed, const std::string& who) {
    auto link = links_.find(blob);
    if (link != links_.end() && placed != Placement::kDevice) {
      if (plan_->problem.empty()) {
        plan_->problem = who + " writes '" + link->second + "' on " +
                         Where(placed) + ", but it is " + state_.placed_by[blob] +
                         " on the device: on CUDA a step may not move it (Caffe2 inserts no copy)";
      }
      return;
    }
    state_.where[blob] = placed;
    state_.placed_by[blob] = who;
  }

  CudaPlacementPlan* plan_;
  State state_;
  std::map<std::string, Placement> inputs_;             // the net's inputs, placed at its start
  std::map<std::string, std::string> input_placed_by_;  // who asked for that, for the message
  std::map<std::string, std::string> links_;  // step nets' links (views of the device): their names
};

}  // namespace

Placement CudaInputPlacement(const std::string& type, int index) {
  if (type == "CopyCPUToGPU" && index == 0) return Placement::kHost;
  if ((type == "CopyGPUToCPU" || type == "EnsureCPUOutput") && index == 0) {
    return Placement::kEither;
  }
  if ((type == "Reshape" || type == "ResizeLike") && index == 1) return Placement::kEither;
  if (IsHostFill(type) || IsControlOp(type)) return Placement::kEither;
  // The timestep is an int32 on the host, as in Caffe2; the linked tensor is only viewed.
  if (type == "rnn_internal_apply_link") return Placement::kEither;
  return Placement::kDevice;
}

Placement CudaOutputPlacement(const std::string& type, int index) {
  if ((type == "CopyGPUToCPU" || type == "EnsureCPUOutput") && index == 0) return Placement::kHost;
  if ((type == "Reshape" || type == "Concat") && index == 1) return Placement::kHost;
  if (type == "HasScope") return Placement::kHost;
  // A workspace stack is no tensor; Do, If and While write through their subnets' ops.
  if (IsControlOp(type)) return Placement::kEither;
  return Placement::kDevice;
}

CudaPlacementPlan PlanCudaPlacement(const caffe2::NetDef& net) {
  CudaPlacementPlan plan;
  PlacementWalk(&plan).Net(net, {}, "");
  return plan;
}

}  // namespace parity::gpu
