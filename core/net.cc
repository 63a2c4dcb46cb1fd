#include "core/net.h"

#include <map>
#include <mutex>

#include "core/running_op.h"
#include "core/workspace.h"

namespace parity {
namespace {

std::string NetContext(const caffe2::NetDef& def) {
  return def.name().empty() ? std::string("net") : "net '" + def.name() + "'";
}

std::map<std::string, NetFactory>& NetFactories() {
  static auto* factories = new std::map<std::string, NetFactory>{
      {"simple", [](const caffe2::NetDef& def, Workspace* ws) -> std::unique_ptr<NetBase> {
         return std::make_unique<SimpleNet>(def, ws);
       }}};
  return *factories;
}

std::mutex& NetFactoriesMutex() {
  static auto* mutex = new std::mutex();
  return *mutex;
}

}  // namespace

caffe2::NetDef WithNetDeviceOption(const caffe2::NetDef& def) {
  caffe2::NetDef out = def;
  if (!def.has_device_option()) return out;
  for (auto& op : *out.mutable_op()) {
    if (!op.has_device_option()) *op.mutable_device_option() = def.device_option();
  }
  return out;
}

NetBase::NetBase(const caffe2::NetDef& def, Workspace* ws) : def_(WithNetDeviceOption(def)) {
  ops_.reserve(def_.op_size());
  for (int i = 0; i < def_.op_size(); ++i) {
    try {
      ops_.push_back(CreateOperator(def_.op(i), ws));
    } catch (Error& error) {
      error.AddContext(OpContext(i, def_.op(i)));
      error.AddContext(NetContext(def_));
      throw;
    }
  }
}

namespace {

// A CPU kernel handed a tensor in device memory would read it through a host pointer and crash:
// device tensors reach CPU ops only through CopyGPUToCPU / EnsureCPUOutput (run on the device).
void EnforceHostInputs(const Operator& op) {
  if (op.device().type != kCpuDeviceType) return;
  for (int i = 0; i < op.InputSize(); ++i) {
    const Blob* blob = op.InputBlob(i);
    if (!blob->IsTensor()) continue;
    const Device device = blob->GetTensor().device();
    PARITY_ENFORCE(device.type == kCpuDeviceType, ErrorKind::kBadArgument, "input '",
                   op.InputName(i), "' is in the memory of device type ", device.type, " (id ",
                   device.id, ") but the op runs on the CPU (copy it with CopyGPUToCPU, or give "
                   "the op that device's DeviceOption)");
  }
}

}  // namespace

void NetBase::RunOp(int index) {
  try {
    RunningOpScope running(&def_.op(index), index);  // for crash reports (core/running_op.h)
    EnforceHostInputs(*ops_[index]);
    ops_[index]->Run();
    ops_[index]->CommitAliasedOutputs();
  } catch (Error& error) {
    // Nested nets (Do, If, RecurrentNetwork) add their own context first, so a message reads
    // "net 'outer': op #2 (Do): net 'inner': op #0 (Add): ...".
    error.AddContext(OpContext(index, def_.op(index)));
    error.AddContext(NetContext(def_));
    throw;
  }
}

void NetBase::RunObserved(const std::function<void(int, const Operator&)>& after_op) {
  const int count = static_cast<int>(ops_.size());
  for (int i = 0; i < count; ++i) {
    RunOp(i);
    after_op(i, *ops_[i]);
  }
}

void SimpleNet::Run() {
  const int count = static_cast<int>(ops_.size());
  for (int i = 0; i < count; ++i) RunOp(i);
}

bool RegisterNetType(const std::string& type, NetFactory factory) {
  std::lock_guard<std::mutex> lock(NetFactoriesMutex());
  NetFactories()[type] = std::move(factory);
  return true;
}

NetFactory ReplaceNetType(const std::string& type, NetFactory factory) {
  std::lock_guard<std::mutex> lock(NetFactoriesMutex());
  NetFactory previous;
  auto it = NetFactories().find(type);
  if (it != NetFactories().end()) previous = std::move(it->second);
  if (factory) {
    NetFactories()[type] = std::move(factory);
  } else if (it != NetFactories().end()) {
    NetFactories().erase(it);
  }
  return previous;
}

std::vector<std::string> NetTypes() {
  std::lock_guard<std::mutex> lock(NetFactoriesMutex());
  std::vector<std::string> types;
  for (const auto& [type, factory] : NetFactories()) types.push_back(type);
  return types;
}

std::unique_ptr<NetBase> CreateNetForDef(const caffe2::NetDef& def, Workspace* ws) {
  std::string type = def.type().empty() ? "simple" : def.type();
  // A hint to the parallel executors, but a negative count of threads is no hint at all (Caffe2's
  // DAG executors enforce a positive one; 0 here means one per core).
  PARITY_ENFORCE(def.num_workers() >= 0, ErrorKind::kInvalidNet, NetContext(def),
                 ": num_workers ", def.num_workers(), " is negative");
  NetFactory factory;
  {
    std::lock_guard<std::mutex> lock(NetFactoriesMutex());
    auto it = NetFactories().find(type);
    PARITY_ENFORCE(it != NetFactories().end(), ErrorKind::kInvalidNet, NetContext(def),
                   ": unknown net type '", type, "'");
    factory = it->second;
  }
  return factory(def, ws);
}

}  // namespace parity
