#include "oracles/localize.h"

#include <map>
#include <set>
#include <string>

#include "oracles/finding.h"

namespace parity::oracles {
namespace {

const OpTrace* FindTrace(const BackendRun& run, int index) {
  for (const OpTrace& entry : run.trace) {
    if (entry.op_index == index) return &entry;
  }
  return nullptr;
}

}  // namespace

Blame Localize(const caffe2::NetDef& net, const Blobs& initial, const BackendRun& production,
               const BackendRun& reference_f64, const BackendRun& reference_f32,
               const ToleranceClass& tolerance) {
  // Current value of every blob on each side, as execution proceeds.
  Blobs prod = initial, truth = initial, f32 = initial;
  for (int i = 0; i < net.op_size(); ++i) {
    const OpTrace* p = FindTrace(production, i);
    const OpTrace* t = FindTrace(reference_f64, i);
    if (p == nullptr || t == nullptr) break;  // one side stopped (error) before this op
    const OpTrace* r = FindTrace(reference_f32, i);
    bool inputs_agree = true;
    for (const auto& input : net.op(i).input()) {
      auto pi = prod.find(input), ti = truth.find(input);
      if (pi == prod.end() || ti == truth.end()) continue;
      auto ri = f32.find(input);
      const caffe2::TensorProto& r32 = ri == f32.end() ? ti->second : ri->second;
      if (!CompareWithTruth(ti->second, r32, pi->second, tolerance).ok) {
        inputs_agree = false;
        break;
      }
    }
    if (inputs_agree) {
      for (const auto& [name, expected] : t->outputs) {
        auto actual = p->outputs.find(name);
        if (actual == p->outputs.end()) continue;
        const caffe2::TensorProto* r32 = &expected;
        if (r != nullptr) {
          auto it = r->outputs.find(name);
          if (it != r->outputs.end()) r32 = &it->second;
        }
        Comparison comparison = CompareWithTruth(expected, *r32, actual->second, tolerance);
        if (!comparison.ok) return Blame{i, name, comparison, truth};
      }
    }
    for (const auto& [name, value] : p->outputs) prod[name] = value;
    for (const auto& [name, value] : t->outputs) truth[name] = value;
    if (r != nullptr) {
      for (const auto& [name, value] : r->outputs) f32[name] = value;
    }
  }
  return {};
}

bool OpRightOnItsInputs(const Case& c, int op_index, const BackendRun& traced,
                        const ToleranceClass& tolerance) {
  if (op_index < 0 || op_index >= c.net().op_size()) return false;
  const OpTrace* own = FindTrace(traced, op_index);
  if (own == nullptr) return false;
  Blobs before = CaseInputs(c);
  for (const OpTrace& entry : traced.trace) {
    if (entry.op_index >= op_index) continue;
    for (const auto& [name, value] : entry.outputs) before[name] = value;
  }
  const caffe2::OperatorDef& op = c.net().op(op_index);
  Case replay;
  replay.set_seed(c.seed());
  caffe2::NetDef* net = replay.mutable_net();
  net->set_name(c.net().name() + "_op" + std::to_string(op_index));
  *net->add_op() = op;
  std::set<std::string> added;
  for (const std::string& input : op.input()) {
    auto it = before.find(input);
    if (it == before.end()) return false;
    if (!added.insert(input).second) continue;
    caffe2::TensorProto* value = replay.add_inputs();
    *value = it->second;
    value->set_name(input);
    net->add_external_input(input);
  }
  for (const std::string& output : op.output()) net->add_external_output(output);
  const BackendRun truth = GetBackend(kReference).Run(replay);
  const BackendRun f32 = GetBackend(kReferenceF32).Run(replay);
  if (truth.error || f32.error) return false;
  for (const auto& [name, actual] : own->outputs) {
    auto expected = truth.blobs.find(name);
    auto r32 = f32.blobs.find(name);
    if (expected == truth.blobs.end() || r32 == f32.blobs.end()) return false;
    if (!CompareWithTruth(expected->second, r32->second, actual, tolerance).ok) return false;
  }
  return !own->outputs.empty();
}

int UpstreamCulprit(const Case& c, const Backend& under_test, const Error& error,
                    const ToleranceClass& tolerance) {
  const int failing = FailingOpIndex(error);
  const RunOptions traced{/*trace=*/true, ""};
  BackendRun production = under_test.Run(c, traced);
  BackendRun truth = GetBackend(kReference).Run(c, traced);
  BackendRun f32 = GetBackend(kReferenceF32).Run(c, traced);
  Blame blame = Localize(c.net(), CaseInputs(c), production, truth, f32, tolerance);
  if (blame.op_index >= 0 && (failing < 0 || blame.op_index < failing)) return blame.op_index;
  return failing;
}

}  // namespace parity::oracles
