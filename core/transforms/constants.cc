#include "core/transforms/constants.h"

#include <sstream>

namespace parity::transforms {

std::set<std::string> FedBlobs(const TransformedNet& t) {
  std::set<std::string> fed;
  auto setting = t.settings.find(kFedInputsSetting);
  if (setting == t.settings.end()) return fed;
  std::stringstream list(setting->second);
  for (std::string name; std::getline(list, name, ',');) {
    if (!name.empty()) fed.insert(name);
  }
  return fed;
}

std::optional<FloatConstant> FindFloatConstant(const TransformedNet& t, const VersionedBlob& read) {
  if (read.second != 0 || FedBlobs(t).count(read.first)) return std::nullopt;
  for (int i = t.init.op_size() - 1; i >= 0; --i) {
    const caffe2::OperatorDef& op = t.init.op(i);
    bool writes = false;
    for (const auto& out : op.output()) writes = writes || out == read.first;
    if (!writes) continue;
    if (op.type() != "GivenTensorFill" || op.output_size() != 1 || op.input_size() != 0) {
      return std::nullopt;
    }
    FloatConstant value;
    bool has_shape = false;
    bool has_values = false;
    for (const auto& arg : op.arg()) {
      if (arg.name() == "shape") {
        value.dims.assign(arg.ints().begin(), arg.ints().end());
        has_shape = true;
      } else if (arg.name() == "values") {
        value.values.assign(arg.floats().begin(), arg.floats().end());
        has_values = true;
      } else if (arg.name() == "dtype" || arg.name() == "input_as_shape" ||
                 arg.name() == "extra_shape") {
        return std::nullopt;  // not the plain float form
      }
    }
    if (!has_shape || !has_values) return std::nullopt;
    int64_t count = 1;
    for (int64_t d : value.dims) {
      if (d < 0) return std::nullopt;
      count *= d;
    }
    if (count != static_cast<int64_t>(value.values.size())) return std::nullopt;
    return value;
  }
  return std::nullopt;
}

void AddFloatConstant(TransformedNet* t, const std::string& name, const FloatConstant& value) {
  caffe2::OperatorDef fill;
  fill.set_type("GivenTensorFill");
  fill.add_output(name);
  caffe2::Argument* shape = fill.add_arg();
  shape->set_name("shape");
  for (int64_t d : value.dims) shape->add_ints(d);
  caffe2::Argument* values = fill.add_arg();
  values->set_name("values");
  for (double v : value.values) values->add_floats(static_cast<float>(v));
  AddConstant(t, fill);
}

void AddConstant(TransformedNet* t, const caffe2::OperatorDef& fill) {
  *t->init.add_op() = fill;
  for (const auto& name : fill.output()) {
    if (t->init.external_output_size() > 0) t->init.add_external_output(name);
    if (t->predict.external_input_size() > 0) t->predict.add_external_input(name);
  }
}

}  // namespace parity::transforms
