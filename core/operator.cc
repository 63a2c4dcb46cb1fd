#include "core/operator.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <set>
#include <tuple>

namespace parity {
namespace {

using Key = std::tuple<std::string, int, std::string>;

std::map<Key, OperatorFactory>& Factories() {
  static auto* factories = new std::map<Key, OperatorFactory>();
  return *factories;
}

// (type, device) -> the engine name the default kernel is also registered under.
std::map<std::pair<std::string, int>, std::string>& DefaultEngines() {
  static auto* names = new std::map<std::pair<std::string, int>, std::string>();
  return *names;
}

std::mutex& FactoriesMutex() {
  static auto* mutex = new std::mutex();
  return *mutex;
}

Device DeviceOf(const caffe2::OperatorDef& def) {
  Device device;
  if (def.has_device_option()) {
    device.type = def.device_option().device_type();
    device.id = def.device_option().device_id();
  }
  return device;
}

}  // namespace

Operator::Operator(const caffe2::OperatorDef& def, Workspace* ws)
    : def_(def),
      schema_(&OpSchemaRegistry::Get(def.type())),
      args_(def_, schema_),
      ws_(ws),
      device_(DeviceOf(def)) {
  inputs_.reserve(def_.input_size());
  for (int i = 0; i < def_.input_size(); ++i) {
    Blob* blob = ws->GetBlob(def_.input(i));
    PARITY_ENFORCE(blob != nullptr, ErrorKind::kMissingBlob, label(), ": input ", i, " '",
                   def_.input(i), "' does not exist in the workspace");
    inputs_.push_back(blob);
  }
  outputs_.reserve(def_.output_size());
  for (int i = 0; i < def_.output_size(); ++i) {
    Blob* blob = ws->CreateBlob(def_.output(i));
    if (std::find(outputs_.begin(), outputs_.end(), blob) != outputs_.end()) {
      aliased_outputs_.emplace_back(std::make_unique<Blob>(def_.output(i)), blob);
      blob = aliased_outputs_.back().first.get();
    }
    outputs_.push_back(blob);
  }
}

void Operator::CommitAliasedOutputs() {
  for (auto& [own, blob] : aliased_outputs_) {
    *blob = std::move(*own);
    *own = Blob(blob->name());
  }
}

bool OperatorRegistry::Register(const std::string& type, int device_type, const std::string& engine,
                                OperatorFactory factory) {
  std::lock_guard<std::mutex> lock(FactoriesMutex());
  Factories()[Key{type, device_type, engine}] = std::move(factory);
  return true;
}

bool OperatorRegistry::RegisterDefault(const std::string& type, int device_type,
                                       const std::string& engine, OperatorFactory factory) {
  std::lock_guard<std::mutex> lock(FactoriesMutex());
  Factories()[Key{type, device_type, engine}] = factory;
  Factories()[Key{type, device_type, ""}] = std::move(factory);
  DefaultEngines()[{type, device_type}] = engine;
  return true;
}

std::string OperatorRegistry::DefaultEngine(const std::string& type, int device_type) {
  std::lock_guard<std::mutex> lock(FactoriesMutex());
  auto it = DefaultEngines().find({type, device_type});
  return it == DefaultEngines().end() ? std::string() : it->second;
}

const OperatorFactory* OperatorRegistry::Find(const std::string& type, int device_type,
                                              const std::string& engine) {
  std::lock_guard<std::mutex> lock(FactoriesMutex());
  auto it = Factories().find(Key{type, device_type, engine});
  if (it == Factories().end() && !engine.empty()) it = Factories().find(Key{type, device_type, ""});
  return it == Factories().end() ? nullptr : &it->second;
}

bool OperatorRegistry::HasKernel(const std::string& type, int device_type) {
  return Find(type, device_type, "") != nullptr;
}

std::vector<std::string> OperatorRegistry::Engines(const std::string& type, int device_type) {
  std::lock_guard<std::mutex> lock(FactoriesMutex());
  std::vector<std::string> engines;
  for (const auto& [key, factory] : Factories()) {
    if (std::get<0>(key) == type && std::get<1>(key) == device_type) {
      engines.push_back(std::get<2>(key));
    }
  }
  return engines;
}

std::vector<std::string> OperatorRegistry::Types(int device_type) {
  std::lock_guard<std::mutex> lock(FactoriesMutex());
  std::set<std::string> types;
  for (const auto& [key, factory] : Factories()) {
    if (std::get<1>(key) == device_type) types.insert(std::get<0>(key));
  }
  return {types.begin(), types.end()};
}

std::unique_ptr<Operator> CreateOperator(const caffe2::OperatorDef& def, Workspace* ws) {
  const OpSchema& schema = OpSchemaRegistry::Get(def.type());
  schema.Verify(def);
  int device_type = def.has_device_option() ? def.device_option().device_type() : kCpuDeviceType;
  // caffe2.proto's DeviceTypeProto: PROTO_CPU = 0 ... PROTO_COMPILE_TIME_MAX_DEVICE_TYPES = 11
  // (exclusive). Any other number is not a device, whichever kernels are built.
  PARITY_ENFORCE(device_type >= 0 && device_type < kDeviceTypeCount, ErrorKind::kBadArgument,
                 OpLabel(def), ": device_option.device_type ", device_type,
                 " is not a DeviceTypeProto value (0 CPU, 1 CUDA, ... 10)");
  const OperatorFactory* factory = OperatorRegistry::Find(def.type(), device_type, def.engine());
  PARITY_ENFORCE(factory != nullptr, ErrorKind::kUnknownOp, OpLabel(def),
                 ": no kernel for device type ", device_type,
                 def.engine().empty() ? std::string() : " (engine '" + def.engine() + "')");
  return (*factory)(def, ws);
}

std::string OpContext(int index, const caffe2::OperatorDef& def) {
  std::string context = "op #" + std::to_string(index) + " (" + def.type();
  if (!def.name().empty()) context += " '" + def.name() + "'";
  return context + ")";
}

}  // namespace parity
