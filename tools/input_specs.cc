#include "tools/input_specs.h"

#include <set>

#include "core/io.h"
#include "core/proto/error.h"

namespace parity::tools {

namespace {

// A blob fed twice (two --input flags, or one file and a flag) is ambiguous: refuse it instead of
// letting the last one win silently.
void EnforceFedOnce(const std::vector<caffe2::TensorProto>& inputs) {
  std::set<std::string> names;
  for (const auto& tensor : inputs) {
    PARITY_ENFORCE(names.insert(tensor.name()).second, ErrorKind::kBadArgument, "--input: blob '",
                   tensor.name(), "' is fed more than once");
  }
}

}  // namespace

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
  EnforceFedOnce(inputs);
  return inputs;
}

}  // namespace parity::tools
