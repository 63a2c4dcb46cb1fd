// What the control-flow gradient makers share (Caffe2's control_ops_grad.py helpers).
#ifndef PARITY_CORE_CONTROL_SUBNET_GRADIENT_H_
#define PARITY_CORE_CONTROL_SUBNET_GRADIENT_H_

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/grad/backward.h"
#include "core/grad/gradient.h"

namespace parity {

// The gradient of a subnet given the gradients of some of its blobs (Caffe2's
// _gen_subnet_gradient): `net` is the subnet's NetDef with its ops replaced by the backward pass
// (name + "_grad"), `gradient_of` maps every blob with a gradient to it (seeds included, also
// those the subnet never touches: their gradient passes through unchanged), `inputs` are the
// blobs its ops read before any of them writes them, `outputs` every blob they write.
// `input_gradient_of` is BackwardPass's: the gradients of the values blobs held when the subnet
// began (a blob it overwrites before reading has none).
struct SubnetGradient {
  caffe2::NetDef net;
  std::map<std::string, std::string> gradient_of;
  std::map<std::string, std::string> input_gradient_of;
  std::set<std::string> inputs;
  std::set<std::string> outputs;
};
SubnetGradient MakeSubnetGradient(const caffe2::NetDef& subnet, const GradientSeeds& seeds);

// Reads and writes of a list of ops: blobs read before written, and every blob written.
void CollectReadsAndWrites(const Ops& ops, std::set<std::string>* reads,
                           std::set<std::string>* writes);

// Caffe2's dedupe_g_output: Do, If and While bind gradients by name, so one gradient blob given
// for two different outputs is copied to "<output>_<gradient>_DEDUP" for the second. Returns the
// copies; `g_output` is rewritten in place.
Ops DedupeOutputGradients(const caffe2::OperatorDef& def, std::vector<std::string>* g_output);

// The output gradients the backward pass gave the op ("" for none).
std::vector<std::string> OutputGradients(const GradientContext& g);

caffe2::OperatorDef CopyOp(const std::string& from, const std::string& to);

// The gradient control op's skeleton: the forward op with name + "_grad" (when named), no inputs,
// outputs, arguments or control inputs, and is_gradient_op set.
caffe2::OperatorDef GradientControlOp(const caffe2::OperatorDef& def);

// One seed per output that has a gradient (the first of a repeated output), as blob -> gradient.
GradientSeeds OutputSeeds(const caffe2::OperatorDef& def, const std::vector<std::string>& g_output);

}  // namespace parity

#endif  // PARITY_CORE_CONTROL_SUBNET_GRADIENT_H_
