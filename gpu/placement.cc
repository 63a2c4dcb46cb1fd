#include "gpu/placement.h"

#include <map>
#include <string>
#include <vector>

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

// The walk over a net and the nets nested in its ops, in run order.
class PlacementWalk {
 public:
  explicit PlacementWalk(CudaPlacementPlan* plan) : plan_(plan) {}

  // `names` maps the net's blob names to the walk's (Do's bindings; a Do's local blobs get a
  // prefix of their own, so they never meet the outer workspace's blobs of the same name).
  struct Names {
    std::map<std::string, std::string> bound;
    std::string local_prefix;
    std::string Resolve(const std::string& name) const {
      auto it = bound.find(name);
      return it != bound.end() ? it->second : local_prefix + name;
    }
  };

  void Net(const caffe2::NetDef& net, const Names& names, const std::string& where_in) {
    for (int i = 0; i < net.op_size(); ++i) {
      Op(net.op(i), names, where_in + "op #" + std::to_string(i) + " (" + net.op(i).type() + ")");
    }
  }

 private:
  void Op(const caffe2::OperatorDef& op, const Names& names, const std::string& who) {
    for (int j = 0; j < op.input_size(); ++j) {
      const Placement wanted = CudaInputPlacement(op.type(), j);
      if (wanted != Placement::kEither) Read(names.Resolve(op.input(j)), wanted, who);
    }
    if (op.type() == "Do" || op.type() == "If" || op.type() == "While") {
      Subnets(op, names, who);
      return;  // a control op's outputs are what its subnets wrote
    }
    for (int j = 0; j < op.output_size(); ++j) {
      const Placement placed = CudaOutputPlacement(op.type(), j);
      if (placed == Placement::kEither) continue;
      where_[names.Resolve(op.output(j))] = placed;
      placed_by_[names.Resolve(op.output(j))] = who;
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
      // Twice: the second pass reads what the first wrote.
      for (int pass = 0; pass < 2; ++pass) {
        walk("cond_net", names);
        walk("loop_net", names);
      }
    } else {
      walk("then_net", names);
      walk("else_net", names);
    }
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

  void Read(const std::string& blob, Placement wanted, const std::string& who) {
    auto it = where_.find(blob);
    if (it == where_.end()) {
      // Read before written: an input of the net, placed where its first strict reader wants it.
      where_[blob] = wanted;
      placed_by_[blob] = "the net's input placement for " + who;
      if (wanted == Placement::kHost) plan_->host_inputs.insert(blob);
      return;
    }
    if (it->second != wanted && plan_->problem.empty()) {
      plan_->problem = who + " reads '" + blob + "' on " + Where(wanted) + ", but " +
                       placed_by_[blob] + " put it on " + Where(it->second) +
                       ": on CUDA the net needs a copy there (Caffe2 inserts none)";
    }
  }

  CudaPlacementPlan* plan_;
  std::map<std::string, Placement> where_;        // blobs placed so far
  std::map<std::string, std::string> placed_by_;  // who put it there, for the message
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
