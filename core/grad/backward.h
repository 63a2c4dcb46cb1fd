// The backward pass: Caffe2's IR.GetBackwardPass (caffe2/python/core.py), in C++.
//
// The forward ops are played to version every blob (a first write is version 0; a rewrite bumps
// it). Walking the ops in reverse, each op whose output gradients are not all absent gets its
// gradient ops from the registry. When one blob version feeds several ops, their contributions are
// accumulated exactly as Caffe2 does: the first generator keeps its name, later ones are renamed
// "_<name>_autosplit_<k>", and Sum(...) -> <name> is appended when the first user is reached.
// Gradient ops may only read an output gradient at its version, forward inputs/outputs that were
// not overwritten later, or blobs made by earlier gradient ops of the same forward op; anything
// else is a kBadArgument error with the blob's version history.
#ifndef PARITY_CORE_GRAD_BACKWARD_H_
#define PARITY_CORE_GRAD_BACKWARD_H_

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/grad/gradient.h"
#include "core/proto/caffe2.pb.h"

namespace parity {

// What to differentiate: blob -> the blob holding its gradient, or "" to seed it with ones
// (ConstantFill(y) -> y + "_autogen_grad", value 1.0). Order is kept (Caffe2 iterates a dict).
using GradientSeeds = std::vector<std::pair<std::string, std::string>>;

struct BackwardPass {
  Ops ops;
  // Every blob that received a gradient -> its gradient blob (Caffe2's input_to_grad: a blob
  // written several times maps to the gradient of the earliest version that got one).
  std::map<std::string, std::string> gradient_of;
  // The gradients of the values blobs held before the ops ran: blobs the ops read before any of
  // them writes the name. What a caller feeding inputs asks for: a fed blob the ops overwrite
  // before reading it has none here (gradient_of holds the gradient of the value written over
  // it), nor does one whose original value only ops without gradients read.
  std::map<std::string, std::string> input_gradient_of;
};

BackwardPass GetBackwardPass(const std::vector<caffe2::OperatorDef>& forward_ops,
                             const GradientSeeds& ys);

// A fault-injection seam for the workbench's mutants of the builder (tests/mutants, like
// GradientRegistry::Replace for makers): when set, it edits every pass GetBackwardPass builds
// before returning it. Returns the edit it replaces; an empty function removes it.
using BackwardPassEdit = std::function<void(BackwardPass*)>;
BackwardPassEdit ReplaceBackwardPassEdit(BackwardPassEdit edit);

// Appends the backward pass of net->op[skip:] to `net`; returns the gradient map. (Caffe2's
// Net.AddGradientOperators.)
std::map<std::string, std::string> AddGradientOperators(caffe2::NetDef* net,
                                                        const GradientSeeds& ys, int skip = 0);

}  // namespace parity

#endif  // PARITY_CORE_GRAD_BACKWARD_H_
