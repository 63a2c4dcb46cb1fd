#include "fuzz/misshapen.h"

#include <algorithm>
#include <string>
#include <vector>

namespace parity::fuzz {
namespace {

bool IsFloating(const caffe2::TensorProto& t) {
  return t.data_type() == caffe2::TensorProto::FLOAT ||
         t.data_type() == caffe2::TensorProto::DOUBLE;
}

// The case inputs op `op` reads, by index into c.inputs().
std::vector<int> InputsRead(const Case& c, const caffe2::OperatorDef& op) {
  std::vector<int> read;
  for (int i = 0; i < c.inputs_size(); ++i) {
    if (std::find(op.input().begin(), op.input().end(), c.inputs(i).name()) != op.input().end()) {
      read.push_back(i);
    }
  }
  return read;
}

// Axis `axis` of `t` one longer: each new last slice repeats the first.
template <typename Field>
void GrowField(Field* field, int64_t outer, int64_t size, int64_t inner) {
  const Field old = *field;
  field->Clear();
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t a = 0; a <= size; ++a) {
      const int64_t from = a < size ? a : 0;
      for (int64_t k = 0; k < inner; ++k) {
        field->Add(old.Get(static_cast<int>((o * size + from) * inner + k)));
      }
    }
  }
}

bool GrowAxis(caffe2::TensorProto* t, int axis) {
  int64_t outer = 1, inner = 1;
  for (int k = 0; k < axis; ++k) outer *= t->dims(k);
  for (int k = axis + 1; k < t->dims_size(); ++k) inner *= t->dims(k);
  const int64_t size = t->dims(axis);
  if (outer * size * inner == 0) return false;  // no slice to repeat
  if (t->data_type() == caffe2::TensorProto::FLOAT) {
    GrowField(t->mutable_float_data(), outer, size, inner);
  } else {
    GrowField(t->mutable_double_data(), outer, size, inner);
  }
  t->set_dims(axis, size + 1);
  return true;
}

// `t` fed as int32, its values truncated (and clamped to int32's range).
void ToInt32(caffe2::TensorProto* t) {
  std::vector<double> values(t->float_data().begin(), t->float_data().end());
  values.insert(values.end(), t->double_data().begin(), t->double_data().end());
  t->clear_float_data();
  t->clear_double_data();
  t->set_data_type(caffe2::TensorProto::INT32);
  for (double v : values) t->add_int32_data(static_cast<int32_t>(std::clamp(v, -1e9, 1e9)));
}

void EraseName(google::protobuf::RepeatedPtrField<std::string>* names, const std::string& name) {
  names->erase(std::remove(names->begin(), names->end(), name), names->end());
}

}  // namespace

std::optional<Case> MisshapenVariant(const Case& c, uint64_t pick) {
  if (c.net().op_size() == 0) return std::nullopt;
  for (const caffe2::OperatorDef& op : c.net().op()) {
    for (const caffe2::Argument& arg : op.arg()) {
      if (arg.has_n() || arg.nets_size() > 0) return std::nullopt;
    }
  }
  Case out = c;
  caffe2::OperatorDef* op = out.mutable_net()->mutable_op(out.net().op_size() - 1);
  const std::vector<int> read = InputsRead(out, *op);
  std::vector<int> floating;
  for (int i : read) {
    if (IsFloating(out.inputs(i))) floating.push_back(i);
  }
  std::string what;
  switch (pick % 4) {
    case 0: {  // an axis one longer
      std::vector<std::pair<int, int>> axes;
      for (int i : floating) {
        for (int a = 0; a < out.inputs(i).dims_size(); ++a) axes.emplace_back(i, a);
      }
      if (axes.empty()) return std::nullopt;
      const auto [input, axis] = axes[(pick / 4) % axes.size()];
      if (!GrowAxis(out.mutable_inputs(input), axis)) return std::nullopt;
      what =
          "input '" + out.inputs(input).name() + "' axis " + std::to_string(axis) + " one longer";
      break;
    }
    case 1: {  // an integer where a float belongs
      if (floating.empty()) return std::nullopt;
      const int input = floating[(pick / 4) % floating.size()];
      ToInt32(out.mutable_inputs(input));
      EraseName(out.mutable_grad_inputs(), out.inputs(input).name());
      what = "input '" + out.inputs(input).name() + "' fed as int32";
      break;
    }
    case 2: {  // an input too many
      if (op->input_size() == 0) return std::nullopt;
      auto first =
          std::find_if(out.inputs().begin(), out.inputs().end(),
                       [&](const caffe2::TensorProto& t) { return t.name() == op->input(0); });
      if (first == out.inputs().end()) return std::nullopt;
      caffe2::TensorProto extra = *first;
      extra.set_name("extra_input");
      *out.add_inputs() = extra;
      out.mutable_net()->add_external_input(extra.name());
      op->add_input(extra.name());
      what = "an input too many";
      break;
    }
    default: {  // an input too few
      if (op->input_size() < 2) return std::nullopt;
      const std::string dropped = op->input(op->input_size() - 1);
      op->mutable_input()->RemoveLast();
      bool still_read = false;
      for (const caffe2::OperatorDef& other : out.net().op()) {
        still_read |=
            std::find(other.input().begin(), other.input().end(), dropped) != other.input().end();
      }
      if (!still_read) {
        auto* inputs = out.mutable_inputs();
        inputs->erase(
            std::remove_if(inputs->begin(), inputs->end(),
                           [&](const caffe2::TensorProto& t) { return t.name() == dropped; }),
            inputs->end());
        EraseName(out.mutable_net()->mutable_external_input(), dropped);
        EraseName(out.mutable_grad_inputs(), dropped);
      }
      what = "its last input dropped";
      break;
    }
  }
  out.set_description(c.description() + ", made wrong: " + what);
  return out;
}

}  // namespace parity::fuzz
