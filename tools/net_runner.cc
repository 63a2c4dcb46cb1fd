#include "tools/net_runner.h"

#include <set>

#include "core/io.h"
#include "core/net.h"
#include "core/proto/error.h"
#include "core/tensor_proto.h"
#include "core/workspace.h"
#include "reference/interpreter.h"

namespace parity::tools {

Engine ParseEngine(const std::string& name) {
  if (name == "production") return Engine::kProduction;
  if (name == "reference") return Engine::kReference;
  throw MakeError(ErrorKind::kBadArgument, "unknown engine '", name,
                  "' (expected production or reference)");
}

DeviceKind ParseDevice(const std::string& name) {
  if (name == "cpu") return DeviceKind::kCpu;
  if (name == "cuda") return DeviceKind::kCuda;
  throw MakeError(ErrorKind::kBadArgument, "unknown device '", name, "' (expected cpu or cuda)");
}

std::vector<caffe2::TensorProto> LoadInputSpecs(const std::vector<std::string>& specs) {
  std::vector<caffe2::TensorProto> inputs;
  for (const std::string& spec : specs) {
    size_t eq = spec.find('=');
    if (eq == std::string::npos) {
      for (auto& tensor : LoadTensors(spec)) {
        PARITY_ENFORCE(!tensor.name().empty(), ErrorKind::kBadArgument, "--input ", spec,
                       ": a tensor in the file has no name; use --input NAME=", spec);
        inputs.push_back(std::move(tensor));
      }
      continue;
    }
    std::string name = spec.substr(0, eq);
    std::string path = spec.substr(eq + 1);
    PARITY_ENFORCE(!name.empty() && !path.empty(), ErrorKind::kBadArgument, "--input '", spec,
                   "' should be NAME=FILE");
    std::vector<caffe2::TensorProto> tensors = LoadTensors(path);
    const caffe2::TensorProto* chosen = tensors.size() == 1 ? &tensors[0] : nullptr;
    for (const auto& tensor : tensors) {
      if (tensor.name() == name) chosen = &tensor;
    }
    PARITY_ENFORCE(chosen != nullptr, ErrorKind::kBadArgument, "--input ", spec, ": ", path,
                   " holds ", tensors.size(), " tensors and none is named '", name, "'");
    caffe2::TensorProto fed = *chosen;
    fed.set_name(name);
    inputs.push_back(std::move(fed));
  }
  return inputs;
}

std::vector<std::string> DefaultFetchList(const caffe2::NetDef& net) {
  if (net.external_output_size() > 0) {
    return {net.external_output().begin(), net.external_output().end()};
  }
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (const auto& op : net.op()) {
    for (const auto& out : op.output()) {
      if (seen.insert(out).second) names.push_back(out);
    }
  }
  return names;
}

namespace {

std::vector<caffe2::TensorProto> RunProduction(const NetRunRequest& request) {
  Workspace ws;
  for (const auto& input : request.inputs) {
    ws.CreateTensor(input.name())->CopyFrom(TensorFromProto(input));
  }
  if (request.init_net) ws.RunNetOnce(*request.init_net);
  ws.RunNetOnce(request.net);
  std::vector<std::string> fetch =
      request.fetch.empty() ? DefaultFetchList(request.net) : request.fetch;
  std::vector<caffe2::TensorProto> out;
  for (const std::string& name : fetch) {
    Blob* blob = ws.GetBlob(name);
    PARITY_ENFORCE(blob != nullptr, ErrorKind::kMissingBlob, "blob '", name,
                   "' to fetch does not exist after running net '", request.net.name(), "'");
    out.push_back(TensorToProto(blob->GetTensor(), name));
  }
  return out;
}

std::vector<caffe2::TensorProto> RunReference(const NetRunRequest& request) {
  std::map<std::string, caffe2::TensorProto> inputs;
  for (const auto& input : request.inputs) inputs[input.name()] = input;
  reference::RunResult result =
      request.init_net ? reference::RunNets(*request.init_net, request.net, inputs)
                       : reference::RunNet(request.net, inputs);
  std::vector<std::string> fetch =
      request.fetch.empty() ? DefaultFetchList(request.net) : request.fetch;
  std::vector<caffe2::TensorProto> out;
  for (const std::string& name : fetch) {
    auto it = result.blobs.find(name);
    PARITY_ENFORCE(it != result.blobs.end(), ErrorKind::kMissingBlob, "blob '", name,
                   "' to fetch does not exist after running net '", request.net.name(), "'");
    caffe2::TensorProto tensor = it->second;
    tensor.set_name(name);
    out.push_back(std::move(tensor));
  }
  return out;
}

}  // namespace

std::vector<caffe2::TensorProto> RunNetRequest(const NetRunRequest& request) {
  PARITY_ENFORCE(request.device == DeviceKind::kCpu, ErrorKind::kUnknownOp,
                 "--device cuda: this build of parity has no CUDA support");
  switch (request.engine) {
    case Engine::kProduction:
      return RunProduction(request);
    case Engine::kReference:
      return RunReference(request);
  }
  return {};
}

}  // namespace parity::tools
