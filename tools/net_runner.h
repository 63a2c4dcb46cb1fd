// Feeding, running and fetching a net on one engine: shared by `parity run` and the commands that
// run user nets (check, autodiff). Tensors travel as TensorProtos named by blob.
#ifndef PARITY_TOOLS_NET_RUNNER_H_
#define PARITY_TOOLS_NET_RUNNER_H_

#include <optional>
#include <string>
#include <vector>

#include "core/proto/caffe2.pb.h"

namespace parity::tools {

enum class Engine { kProduction, kReference };
enum class DeviceKind { kCpu, kCuda };

Engine ParseEngine(const std::string& name);
DeviceKind ParseDevice(const std::string& name);

struct NetRunRequest {
  caffe2::NetDef net;
  std::optional<caffe2::NetDef> init_net;
  std::vector<caffe2::TensorProto> inputs;  // fed by TensorProto.name
  std::vector<std::string> fetch;           // empty: external outputs (or every written blob)
  Engine engine = Engine::kProduction;
  DeviceKind device = DeviceKind::kCpu;
};

// `--input` values: "NAME=FILE" (one tensor, or the one named NAME in a multi-tensor file) or
// "FILE" (every tensor under its own name).
std::vector<caffe2::TensorProto> LoadInputSpecs(const std::vector<std::string>& specs);

// Blobs to report when none are asked for: the external outputs, else every blob an op writes (in
// first-write order).
std::vector<std::string> DefaultFetchList(const caffe2::NetDef& net);

// Runs the request; returns the fetched tensors, named.
std::vector<caffe2::TensorProto> RunNetRequest(const NetRunRequest& request);

}  // namespace parity::tools

#endif  // PARITY_TOOLS_NET_RUNNER_H_
