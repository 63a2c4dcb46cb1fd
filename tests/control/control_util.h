// Building control-flow nets tersely in tests.
#ifndef PARITY_TESTS_CONTROL_CONTROL_UTIL_H_
#define PARITY_TESTS_CONTROL_CONTROL_UTIL_H_

#include <string>
#include <vector>

#include "tests/test_util.h"

namespace parity::testing {

inline caffe2::NetDef Net(const std::string& name, const std::vector<caffe2::OperatorDef>& ops) {
  caffe2::NetDef net;
  net.set_name(name);
  for (const auto& op : ops) *net.add_op() = op;
  return net;
}

inline caffe2::OperatorDef WithNet(caffe2::OperatorDef op, const std::string& name,
                                   const caffe2::NetDef& net) {
  caffe2::Argument* arg = op.add_arg();
  arg->set_name(name);
  *arg->mutable_n() = net;
  return op;
}

inline caffe2::OperatorDef WithStrings(caffe2::OperatorDef op, const std::string& name,
                                       const std::vector<std::string>& values) {
  caffe2::Argument* arg = op.add_arg();
  arg->set_name(name);
  for (const auto& v : values) arg->add_strings(v);
  return op;
}

// Do(inputs..., scope) -> (outputs..., scope) binding inner names to the outer blobs in order
// (inputs, then outputs; a name listed among both is bound once, at its input position).
inline caffe2::OperatorDef MakeDo(const std::vector<std::string>& inputs,
                                  const std::vector<std::string>& outputs,
                                  const std::vector<std::string>& inner_inputs,
                                  const std::vector<std::string>& inner_outputs,
                                  const std::string& scope, const caffe2::NetDef& net) {
  std::vector<std::string> in = inputs, out = outputs;
  in.push_back(scope);
  out.push_back(scope);
  caffe2::OperatorDef op = MakeOp("Do", in, out);
  std::vector<std::string> inner;
  Ints index;
  std::vector<std::string> outer = inputs;
  outer.insert(outer.end(), outputs.begin(), outputs.end());
  std::vector<std::string> inner_all = inner_inputs;
  inner_all.insert(inner_all.end(), inner_outputs.begin(), inner_outputs.end());
  std::vector<std::string> bound;
  for (size_t k = 0; k < outer.size(); ++k) {
    bool seen = false;
    for (const auto& b : bound) seen = seen || b == outer[k];
    if (seen) continue;
    bound.push_back(outer[k]);
    inner.push_back(inner_all[k]);
    index.push_back(static_cast<int64_t>(k));
  }
  op = WithStrings(op, "inner_blobs", inner);
  caffe2::Argument* idx = op.add_arg();
  idx->set_name("outer_blobs_idx");
  for (int64_t i : index) idx->add_ints(i);
  return WithNet(op, "net", net);
}

}  // namespace parity::testing

#endif  // PARITY_TESTS_CONTROL_CONTROL_UTIL_H_
