#include "core/transforms/device_inference.h"

#include <set>
#include <sstream>

#include "core/proto/error.h"

namespace parity::transforms {
namespace {

// Python's repr of what the seed formats into its messages, so the texts read as Caffe2's.
std::string PyRepr(const VersionedBlob& blob) {
  return "('" + blob.first + "', " + std::to_string(blob.second) + ")";
}

std::string PyRepr(const Statuses& statuses) {
  std::string out = "[";
  for (size_t i = 0; i < statuses.size(); ++i) {
    out += i ? ", " : "";
    out += statuses[i] ? "'" + *statuses[i] + "'" : "None";
  }
  return out + "]";
}

}  // namespace

BlobStatus IdentifyStatus(const caffe2::NetDef& net, const StatusUpdater& updater,
                          const BlobStatus& known) {
  const Ssa ssa = GetSsa(net);
  std::set<VersionedBlob> all_blobs;
  for (const OpSsa& op : ssa.ops) {
    all_blobs.insert(op.inputs.begin(), op.inputs.end());
    all_blobs.insert(op.outputs.begin(), op.outputs.end());
  }
  std::set<VersionedBlob> allowed = all_blobs;
  for (const auto& name : net.external_input()) allowed.insert({name, 0});
  for (const auto& name : net.external_output()) allowed.insert({name, ssa.versions.Get(name)});
  for (const auto& [blob, status] : known) {
    PARITY_ENFORCE(allowed.count(blob), ErrorKind::kBadArgument, "known status for ",
                   VersionedName(blob), ", which is not a blob of net '", net.name(), "'");
  }
  BlobStatus status = known;
  auto check_and_update = [&status](const VersionedBlob& blob, const std::string& value) {
    auto existing = status.find(blob);
    // "Confilict" is the seed's spelling.
    PARITY_ENFORCE(existing == status.end() || existing->second == value,
                   ErrorKind::kIllegalTransform, "Confilict status for ", PyRepr(blob),
                   ", existing status ", existing == status.end() ? "" : existing->second,
                   ", new status ", value);
    status[blob] = value;
  };
  auto update = [&](int i) {
    const OpSsa& op = ssa.ops[i];
    Statuses inputs, outputs;
    for (const auto& blob : op.inputs) {
      auto it = status.find(blob);
      inputs.push_back(it == status.end() ? std::nullopt : std::optional<std::string>(it->second));
    }
    for (const auto& blob : op.outputs) {
      auto it = status.find(blob);
      outputs.push_back(it == status.end() ? std::nullopt : std::optional<std::string>(it->second));
    }
    const auto [new_inputs, new_outputs] = updater(net.op(i), inputs, outputs);
    for (size_t k = 0; k < op.inputs.size() && k < new_inputs.size(); ++k) {
      if (new_inputs[k]) check_and_update(op.inputs[k], *new_inputs[k]);
    }
    for (size_t k = 0; k < op.outputs.size() && k < new_outputs.size(); ++k) {
      if (new_outputs[k]) check_and_update(op.outputs[k], *new_outputs[k]);
    }
  };
  for (int i = 0; i < net.op_size(); ++i) update(i);
  for (int i = net.op_size() - 1; i >= 0; --i) update(i);
  for (const auto& blob : all_blobs) {
    PARITY_ENFORCE(status.count(blob), ErrorKind::kIllegalTransform,
                   "Can not infer the status for ", PyRepr(blob),
                   ". Currently only support the case where a single forward and backward pass "
                   "can identify status for all blobs.");
  }
  return status;
}

BlobStatus InferDeviceType(const caffe2::NetDef& net, const BlobStatus& known, bool pytorch_names) {
  const std::string cpu = "cpu";
  const std::string gpu = pytorch_names ? "cuda" : "gpu";
  auto fail = [](const caffe2::OperatorDef& op, const Statuses& inputs, const Statuses& outputs) {
    PARITY_ENFORCE(false, ErrorKind::kIllegalTransform, "Failed to apply updater for op ",
                   op.DebugString(), " given input_types ", PyRepr(inputs), " and output_types ",
                   PyRepr(outputs));
  };
  const StatusUpdater updater = [&](const caffe2::OperatorDef& op, const Statuses& inputs,
                                    const Statuses& outputs) -> std::pair<Statuses, Statuses> {
    const bool to_gpu = op.type() == "CopyCPUToGPU";
    if (to_gpu || op.type() == "CopyGPUToCPU") {
      const std::string& from = to_gpu ? cpu : gpu;
      const std::string& to = to_gpu ? gpu : cpu;
      if ((!inputs.empty() && inputs[0] && *inputs[0] != from) ||
          (!outputs.empty() && outputs[0] && *outputs[0] != to)) {
        fail(op, inputs, outputs);
      }
      return {{from}, {to}};
    }
    std::optional<std::string> the_type;
    for (const Statuses* side : {&inputs, &outputs}) {
      for (const auto& s : *side) {
        if (!s) continue;
        if (the_type && *the_type != *s) fail(op, inputs, outputs);
        the_type = s;
      }
    }
    return {Statuses(op.input_size(), the_type), Statuses(op.output_size(), the_type)};
  };
  return IdentifyStatus(net, updater, known);
}

namespace {

void AssignOpDeviceOptions(caffe2::NetDef* net, const BlobStatus& devices) {
  const Ssa ssa = GetSsa(*net);
  for (int i = 0; i < net->op_size(); ++i) {
    caffe2::OperatorDef* op = net->mutable_op(i);
    bool on_gpu = op->type() == "CopyCPUToGPU" || op->type() == "CopyGPUToCPU";
    if (!on_gpu) {
      std::optional<std::string> device;
      for (const auto* side : {&ssa.ops[i].inputs, &ssa.ops[i].outputs}) {
        for (const auto& blob : *side) {
          const std::string& d = devices.at(blob);
          PARITY_ENFORCE(!device || *device == d, ErrorKind::kIllegalTransform, "op #", i, " (",
                         op->type(), ") has blobs on ", *device, " and ", d);
          device = d;
        }
      }
      on_gpu = device == "gpu";
    }
    if (on_gpu) {
      op->mutable_device_option()->set_device_type(1);  // CUDA
      op->mutable_device_option()->set_device_id(0);
    }
  }
}

}  // namespace

void AssignDeviceOption(TransformedNet* t,
                        const std::map<std::string, std::string>& input_devices) {
  for (const auto& [name, device] : input_devices) {
    PARITY_ENFORCE(device == "cpu" || device == "gpu", ErrorKind::kBadArgument, "device of '", name,
                   "' is '", device, "': cpu or gpu");
  }
  BlobStatus known;
  for (const auto& name : t->predict.external_input()) {
    auto device = input_devices.find(name);
    if (device != input_devices.end()) {
      known[{name, 0}] = device->second;
    } else if (input_devices.empty()) {
      known[{name, 0}] = "cpu";
    }
  }
  const BlobStatus predict_devices = InferDeviceType(t->predict, known);
  AssignOpDeviceOptions(&t->predict, predict_devices);
  if (t->init.op_size() == 0) return;
  const Ssa init_ssa = GetSsa(t->init);
  BlobStatus init_known;
  for (const auto& name : t->init.external_output()) {
    auto device = predict_devices.find({name, 0});
    PARITY_ENFORCE(device != predict_devices.end(), ErrorKind::kIllegalTransform,
                   "assign_device_option: init net output '", name,
                   "' is not read by the predict net, so it has no device");
    init_known[{name, init_ssa.versions.Get(name)}] = device->second;
  }
  AssignOpDeviceOptions(&t->init, InferDeviceType(t->init, init_known));
}

namespace {

// "x:gpu,y:cpu" -> {x: gpu, y: cpu}.
std::map<std::string, std::string> ParseDevices(const std::string& text) {
  std::map<std::string, std::string> devices;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(start, end - start);
    const size_t colon = item.rfind(':');
    PARITY_ENFORCE(colon != std::string::npos && colon > 0, ErrorKind::kBadArgument,
                   "input_devices: '", item, "' is not BLOB:DEVICE");
    devices[item.substr(0, colon)] = item.substr(colon + 1);
    start = end + 1;
  }
  return devices;
}

PARITY_REGISTER_PASS(PassInfo{
    "assign_device_option",
    "Requires every blob's device to follow from the external inputs' (setting input_devices = "
    "BLOB:cpu|gpu,...; unlisted inputs are inferred from their readers; with no setting every "
    "input is on the cpu) in one forward and one backward pass. "
    "Gives copy ops and ops whose blobs are on the gpu DeviceOption(CUDA, 0), in the predict net "
    "and, following its outputs, the init net (the seed's _assign_device_option). Refuses with "
    "the seed's texts an op whose blobs are on two devices and a blob whose device cannot be "
    "inferred. Changes where ops run, not what they compute.",
    /*preserves_outputs=*/false, [](TransformedNet* t) {
      auto devices = t->settings.find("input_devices");
      AssignDeviceOption(t, ParseDevices(devices == t->settings.end() ? "" : devices->second));
    },
    /*uses_constants=*/false, /*rewrites=*/{}, /*settings=*/{"input_devices"}});

}  // namespace

}  // namespace parity::transforms
