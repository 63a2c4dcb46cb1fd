#include "core/transforms/rename.h"

#include "core/proto/error.h"
#include "core/transforms/ssa.h"

namespace parity::transforms {
namespace {

// The seed's _rename_versioned_blob_in_proto.
void RenameVersionedBlob(caffe2::NetDef* net, const std::string& old_name,
                         const std::string& new_name, int64_t version, const Ssa& ssa,
                         const BlobVersions& start, const BlobVersions& end) {
  const VersionedBlob target{old_name, version};
  for (int i = 0; i < net->op_size(); ++i) {
    caffe2::OperatorDef* op = net->mutable_op(i);
    for (int j = 0; j < op->input_size(); ++j) {
      if (ssa.ops[i].inputs[j] == target) op->set_input(j, new_name);
    }
    for (int j = 0; j < op->output_size(); ++j) {
      if (ssa.ops[i].outputs[j] == target) op->set_output(j, new_name);
    }
  }
  if (start.Get(old_name) == version) {
    for (auto& name : *net->mutable_external_input()) {
      if (name == old_name) name = new_name;
    }
  }
  if (end.Get(old_name) == version) {
    for (auto& name : *net->mutable_external_output()) {
      if (name == old_name) name = new_name;
    }
  }
}

void EnforceOp(const caffe2::NetDef& net, int op_id, const char* what) {
  PARITY_ENFORCE(op_id >= 0 && op_id < net.op_size(), ErrorKind::kBadArgument, what, ": op #",
                 op_id, " is out of range (the net has ", net.op_size(), " ops)");
}

}  // namespace

void RenameOpOutput(caffe2::NetDef* predict, int op_id, int output_id,
                    const std::string& new_name) {
  EnforceOp(*predict, op_id, "rename_op_output");
  const caffe2::OperatorDef& op = predict->op(op_id);
  PARITY_ENFORCE(output_id >= 0 && output_id < op.output_size(), ErrorKind::kBadArgument,
                 "rename_op_output: op #", op_id, " (", op.type(), ") has no output ", output_id);
  const Ssa ssa = GetSsa(*predict);
  const auto [old_name, version] = ssa.ops[op_id].outputs[output_id];
  RenameVersionedBlob(predict, old_name, new_name, version, ssa, BlobVersions(), ssa.versions);
}

void RenameOpInput(caffe2::NetDef* predict, caffe2::NetDef* init, int op_id, int input_id,
                   const std::string& new_name, bool from_producer) {
  EnforceOp(*predict, op_id, "rename_op_input");
  const caffe2::OperatorDef& op = predict->op(op_id);
  PARITY_ENFORCE(input_id >= 0 && input_id < op.input_size(), ErrorKind::kBadArgument,
                 "rename_op_input: op #", op_id, " (", op.type(), ") has no input ", input_id);
  const Ssa init_ssa = GetSsa(*init);
  const Ssa ssa = GetSsa(*predict, init_ssa.versions);
  const auto [old_name, version] = ssa.ops[op_id].inputs[input_id];
  if (from_producer) {
    const auto producers = GetProducerMap(ssa);
    auto producer = producers.find({old_name, version});
    PARITY_ENFORCE(producer != producers.end(), ErrorKind::kIllegalTransform,
                   "Can't find producer, the input ", old_name,
                   " is probably from init_net, this is not supported yet.");
    RenameOpOutput(predict, producer->second.first, producer->second.second, new_name);
    return;
  }
  int consumers = 0;
  for (const OpSsa& entry : ssa.ops) {
    for (const auto& blob : entry.inputs) {
      if (blob == VersionedBlob{old_name, version}) {
        ++consumers;
        break;
      }
    }
  }
  PARITY_ENFORCE(consumers <= 1, ErrorKind::kIllegalTransform, "Input '", old_name,
                 "' of operator(#", op_id,
                 ") are consumed by other ops, please use rename_op_output on the producer "
                 "instead. Offending op: \n",
                 op.DebugString());
  RenameVersionedBlob(init, old_name, new_name, version, init_ssa, BlobVersions(),
                      init_ssa.versions);
  RenameVersionedBlob(predict, old_name, new_name, version, ssa, init_ssa.versions, ssa.versions);
}

}  // namespace parity::transforms
