// What the benchmark binaries share: inputs fed into a workspace, ops appended to a net.
#ifndef PARITY_BENCH_BENCH_UTIL_H_
#define PARITY_BENCH_BENCH_UTIL_H_

#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/workspace.h"

namespace parity::bench {

// Creates float blob `name` of `dims` in `ws`, uniform in [low, high) from a generator seeded
// with `seed` (the same values on every run and machine).
inline void FeedUniform(Workspace* ws, const std::string& name, const std::vector<int64_t>& dims,
                        uint32_t seed, float low, float high) {
  Tensor* t = ws->CreateTensor(name);
  t->Resize(dims);
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(low, high);
  float* data = t->mutable_data<float>();
  for (int64_t i = 0; i < t->numel(); ++i) data[i] = dist(gen);
}

// Appends an op of `type` to `net`, with integer arguments.
inline caffe2::OperatorDef* AddOp(caffe2::NetDef* net, const std::string& type,
                                  const std::vector<std::string>& inputs,
                                  const std::vector<std::string>& outputs,
                                  const std::vector<std::pair<std::string, int64_t>>& args = {}) {
  caffe2::OperatorDef* op = net->add_op();
  op->set_type(type);
  for (const auto& in : inputs) op->add_input(in);
  for (const auto& out : outputs) op->add_output(out);
  for (const auto& [name, value] : args) {
    caffe2::Argument* arg = op->add_arg();
    arg->set_name(name);
    arg->set_i(value);
  }
  return op;
}

}  // namespace parity::bench

#endif  // PARITY_BENCH_BENCH_UTIL_H_
