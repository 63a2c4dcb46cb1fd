#include "fuzz/case_edits.h"

#include <algorithm>
#include <cmath>

namespace parity::fuzz {
namespace {

bool IsInput(const Case& c, const std::string& name) {
  return std::any_of(c.inputs().begin(), c.inputs().end(),
                     [&](const caffe2::TensorProto& t) { return t.name() == name; });
}

}  // namespace

std::optional<Case> RemoveOps(const Case& c, const std::set<int>& removed,
                              const OpOutputs& outputs) {
  const caffe2::NetDef& net = c.net();
  if (static_cast<int>(removed.size()) >= net.op_size()) return std::nullopt;
  // For each blob read by a remaining op: the op whose value it reads (-1: the case's input).
  std::map<std::string, int> last_writer;
  std::map<std::string, int> fed;            // blob -> the removed op whose output it must hold
  std::map<std::string, int> last_fed_read;  // blob -> the last remaining op reading the fed value
  std::set<std::string> read_as_input;
  std::set<std::string> read;
  for (int i = 0; i < net.op_size(); ++i) {
    const caffe2::OperatorDef& op = net.op(i);
    if (removed.count(i) == 0) {
      for (const std::string& blob : op.input()) {
        read.insert(blob);
        auto writer = last_writer.find(blob);
        if (writer == last_writer.end() || removed.count(writer->second) == 0) {
          if (writer == last_writer.end()) read_as_input.insert(blob);
          continue;
        }
        auto [it, fresh] = fed.emplace(blob, writer->second);
        if (!fresh && it->second != writer->second) return std::nullopt;
        last_fed_read[blob] = i;
      }
    }
    for (const std::string& blob : op.output()) last_writer[blob] = i;
  }
  // A remaining op writing a fed blob before its last reader would overwrite the fed value.
  for (int i = 0; i < net.op_size(); ++i) {
    if (removed.count(i) != 0) continue;
    for (const std::string& blob : net.op(i).output()) {
      auto read_at = last_fed_read.find(blob);
      if (read_at != last_fed_read.end() && i < read_at->second) return std::nullopt;
    }
  }
  Case out = c;
  caffe2::NetDef* edited = out.mutable_net();
  edited->clear_op();
  std::set<std::string> written;
  for (int i = 0; i < net.op_size(); ++i) {
    if (removed.count(i) != 0) continue;
    *edited->add_op() = net.op(i);
    for (const std::string& blob : net.op(i).output()) written.insert(blob);
  }
  for (const auto& [blob, producer] : fed) {
    if (read_as_input.count(blob) != 0) return std::nullopt;  // one name, two values
    if (producer >= static_cast<int>(outputs.size()) ||
        outputs[static_cast<size_t>(producer)].count(blob) == 0) {
      return std::nullopt;  // the traced run did not get that far
    }
  }
  // Inputs nothing reads any more go; so do outputs and losses nothing produces.
  out.clear_inputs();
  for (const auto& input : c.inputs()) {
    if (read.count(input.name()) != 0 && fed.count(input.name()) == 0) *out.add_inputs() = input;
  }
  for (const auto& [blob, producer] : fed) {
    caffe2::TensorProto tensor = outputs[static_cast<size_t>(producer)].at(blob);
    tensor.set_name(blob);
    *out.add_inputs() = tensor;
  }
  auto produced = [&](const std::string& blob) {
    return written.count(blob) != 0 || IsInput(out, blob);
  };
  if (net.external_input_size() > 0) {
    edited->clear_external_input();
    for (const auto& input : out.inputs()) edited->add_external_input(input.name());
  }
  edited->clear_external_output();
  for (const std::string& blob : net.external_output()) {
    if (written.count(blob) != 0) edited->add_external_output(blob);
  }
  out.clear_loss_blobs();
  for (const std::string& blob : c.loss_blobs()) {
    if (produced(blob)) out.add_loss_blobs(blob);
  }
  out.clear_grad_inputs();
  for (const std::string& blob : c.grad_inputs()) {
    if (IsInput(out, blob)) out.add_grad_inputs(blob);
  }
  return out;
}

std::optional<Case> EditValues(const Case& c, int input, ValueEdit edit) {
  if (input >= c.inputs_size()) return std::nullopt;
  Case out = c;
  caffe2::TensorProto* t = out.mutable_inputs(input);
  bool changed = false;
  auto apply = [&](auto* field) {
    for (auto& value : *field) {
      auto edited = value;
      switch (edit) {
        case ValueEdit::kZeros:
          edited = 0;
          break;
        case ValueEdit::kIntegers:
          edited = std::round(value);
          break;
        case ValueEdit::kOneDecimal:
          edited = std::round(value * 10) / 10;
          break;
      }
      if (!(edited == value)) changed = true;
      value = edited;
    }
  };
  apply(t->mutable_float_data());
  apply(t->mutable_double_data());
  if (!changed) return std::nullopt;
  return out;
}

std::optional<Case> RemoveArg(const Case& c, int op, int arg) {
  if (op >= c.net().op_size() || arg >= c.net().op(op).arg_size()) return std::nullopt;
  const caffe2::Argument& argument = c.net().op(op).arg(arg);
  if (argument.has_n() || argument.nets_size() > 0) return std::nullopt;
  Case out = c;
  auto* args = out.mutable_net()->mutable_op(op)->mutable_arg();
  args->erase(args->begin() + arg);
  return out;
}

}  // namespace parity::fuzz
