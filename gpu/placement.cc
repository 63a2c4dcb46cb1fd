#include "gpu/placement.h"

#include <map>

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

}  // namespace

Placement CudaInputPlacement(const std::string& type, int index) {
  if (type == "CopyCPUToGPU" && index == 0) return Placement::kHost;
  if ((type == "CopyGPUToCPU" || type == "EnsureCPUOutput") && index == 0) {
    return Placement::kEither;
  }
  if ((type == "Reshape" || type == "ResizeLike") && index == 1) return Placement::kEither;
  if (IsHostFill(type)) return Placement::kEither;
  return Placement::kDevice;
}

Placement CudaOutputPlacement(const std::string& type, int index) {
  if ((type == "CopyGPUToCPU" || type == "EnsureCPUOutput") && index == 0) return Placement::kHost;
  if ((type == "Reshape" || type == "Concat") && index == 1) return Placement::kHost;
  return Placement::kDevice;
}

CudaPlacementPlan PlanCudaPlacement(const caffe2::NetDef& net) {
  CudaPlacementPlan plan;
  std::map<std::string, Placement> where;        // blobs placed so far
  std::map<std::string, std::string> placed_by;  // who put it there, for the message
  for (int i = 0; i < net.op_size(); ++i) {
    const caffe2::OperatorDef& op = net.op(i);
    const std::string who = "op #" + std::to_string(i) + " (" + op.type() + ")";
    for (int j = 0; j < op.input_size(); ++j) {
      const Placement wanted = CudaInputPlacement(op.type(), j);
      if (wanted == Placement::kEither) continue;
      const std::string& blob = op.input(j);
      auto it = where.find(blob);
      if (it == where.end()) {
        // Read before written: an input of the net, placed where its first strict reader wants it.
        where[blob] = wanted;
        placed_by[blob] = "the net's input placement for " + who;
        if (wanted == Placement::kHost) plan.host_inputs.insert(blob);
        continue;
      }
      if (it->second != wanted && plan.problem.empty()) {
        plan.problem = who + " reads '" + blob + "' on " + Where(wanted) + ", but " +
                       placed_by[blob] + " put it on " + Where(it->second) +
                       ": on CUDA the net needs a copy there (Caffe2 inserts none)";
      }
    }
    for (int j = 0; j < op.output_size(); ++j) {
      where[op.output(j)] = CudaOutputPlacement(op.type(), j);
      placed_by[op.output(j)] = who;
    }
  }
  return plan;
}

}  // namespace parity::gpu
