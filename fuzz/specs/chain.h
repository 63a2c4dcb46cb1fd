// Chains of ops drawn from the op specs, for the specs of ops that run nets (Do, If, While,
// RecurrentNetwork): the same descriptions the net generator uses, so every op of the set runs
// inside a body, a branch or a step net. Ops that run nets themselves are left out, which bounds
// the nesting.
#ifndef PARITY_FUZZ_SPECS_CHAIN_H_
#define PARITY_FUZZ_SPECS_CHAIN_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/proto/caffe2.pb.h"
#include "fuzz/spec.h"

namespace parity::fuzz {

struct Chain {
  std::vector<caffe2::OperatorDef> ops;
  std::vector<int64_t> dims;
  std::vector<std::string> intermediates;  // every blob the chain writes but `out`
};

// A chain of 1..max_len ops reading `in` (of `dims`) and writing `out`. Each op's other inputs are
// added to `op`, and named in the chain by `input_name(index in op)`; the chain's other blobs by
// `local_name()`. With `same_dims` every op keeps the dims. Draws; call inside a spec's Make.
std::optional<Chain> DrawChain(OpInstance* op, const std::string& in, std::vector<int64_t> dims,
                               const std::string& out,
                               const std::function<std::string(int)>& input_name,
                               const std::function<std::string()>& local_name, bool same_dims,
                               int max_len);

caffe2::NetDef MakeNet(const std::string& name, const std::vector<caffe2::OperatorDef>& ops);
caffe2::Argument NetArg(const std::string& name, const caffe2::NetDef& net);
caffe2::OperatorDef SimpleOp(const std::string& type, const std::vector<std::string>& inputs,
                             const std::vector<std::string>& outputs);
// "$<index>" (instance input) or "@<index>" (instance output), resolved by the generator.
std::string Placeholder(char kind, int index);

}  // namespace parity::fuzz

#endif  // PARITY_FUZZ_SPECS_CHAIN_H_
