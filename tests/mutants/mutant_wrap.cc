#include "tests/mutants/mutant_wrap.h"

#include <algorithm>

namespace parity::mutants {

Mutant M(const std::string& name, const std::string& op_type, const std::string& oracle,
         const std::string& family, const std::string& description) {
  Mutant m;
  m.name = name;
  m.op_type = op_type;
  m.oracle = oracle;
  m.family = family;
  m.description = description;
  return m;
}

const caffe2::Argument* FindArg(const caffe2::OperatorDef& def, const std::string& name) {
  for (const auto& arg : def.arg()) {
    if (arg.name() == name) return &arg;
  }
  return nullptr;
}

void RemoveArg(caffe2::OperatorDef* def, const std::string& name) {
  auto* args = def->mutable_arg();
  for (int i = args->size() - 1; i >= 0; --i) {
    if (args->Get(i).name() == name) args->DeleteSubrange(i, 1);
  }
}

void SetInt(caffe2::OperatorDef* def, const std::string& name, int64_t value) {
  RemoveArg(def, name);
  caffe2::Argument* arg = def->add_arg();
  arg->set_name(name);
  arg->set_i(value);
}

void SetInts(caffe2::OperatorDef* def, const std::string& name, const std::vector<int64_t>& v) {
  RemoveArg(def, name);
  caffe2::Argument* arg = def->add_arg();
  arg->set_name(name);
  for (int64_t x : v) arg->add_ints(x);
}

int64_t IntArg(const caffe2::OperatorDef& def, const std::string& name, int64_t fallback) {
  const caffe2::Argument* arg = FindArg(def, name);
  return arg != nullptr && arg->has_i() ? arg->i() : fallback;
}

std::vector<int64_t> IntsArg(const caffe2::OperatorDef& def, const std::string& name) {
  const caffe2::Argument* arg = FindArg(def, name);
  if (arg == nullptr) return {};
  return {arg->ints().begin(), arg->ints().end()};
}

void SwapPads(caffe2::OperatorDef* def, const char* a, const char* b, int ia, int ib) {
  if (FindArg(*def, a) != nullptr && FindArg(*def, b) != nullptr) {
    const int64_t va = IntArg(*def, a, 0), vb = IntArg(*def, b, 0);
    SetInt(def, a, vb);
    SetInt(def, b, va);
  }
  std::vector<int64_t> pads = IntsArg(*def, "pads");
  if (pads.size() == 4) {
    std::swap(pads[ia], pads[ib]);
    SetInts(def, "pads", pads);
  }
}

int64_t Canonical(int64_t axis, int64_t rank) { return axis < 0 ? axis + rank : axis; }

void ShiftAxis(const Operator& self, caffe2::OperatorDef* def, const std::string& name,
               int64_t fallback) {
  const int64_t rank = self.Input(0).ndim();
  const int64_t axis = Canonical(IntArg(*def, name, fallback), rank);
  SetInt(def, name, (axis + 1) % rank);
}

float* FloatOutput(Operator& self, int i) { return self.Output(i)->mutable_data<float>(); }
const float* FloatInput(const Operator& self, int i) { return self.Input(i).data<float>(); }

void SetFloat(caffe2::OperatorDef* def, const std::string& name, float value) {
  RemoveArg(def, name);
  caffe2::Argument* arg = def->add_arg();
  arg->set_name(name);
  arg->set_f(value);
}

void SetString(caffe2::OperatorDef* def, const std::string& name, const std::string& value) {
  RemoveArg(def, name);
  caffe2::Argument* arg = def->add_arg();
  arg->set_name(name);
  arg->set_s(value);
}

float FloatArgOr(const caffe2::OperatorDef& def, const std::string& name, float fallback) {
  const caffe2::Argument* arg = FindArg(def, name);
  return arg != nullptr && arg->has_f() ? arg->f() : fallback;
}

void ZerosLike(const Operator&, const Tensor& in, Tensor* out) {
  out->Resize(in.dims());
  float* o = out->mutable_data<float>();
  std::fill(o, o + out->numel(), 0.0f);
}

}  // namespace parity::mutants
