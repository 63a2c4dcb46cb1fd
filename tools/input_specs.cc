#include "tools/input_specs.h"

#include "core/io.h"
#include "core/proto/error.h"

namespace parity::tools {

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

}  // namespace parity::tools
