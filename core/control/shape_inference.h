// Shape inference through the nets of control ops: the types of a subnet's blobs follow from its
// ops' own shape functions, so If, Do and While know their outputs' types whenever their nets do.
// A workspace stack is the known non-tensor type kScopeType.
#ifndef PARITY_CORE_CONTROL_SHAPE_INFERENCE_H_
#define PARITY_CORE_CONTROL_SHAPE_INFERENCE_H_

#include <map>
#include <string>
#include <vector>

#include "core/argument.h"
#include "core/schema.h"

namespace parity {

// What CreateScope makes: no tensor, but a known kind of blob (so Do's inference can proceed).
TensorType ScopeType();

// Every blob's type after `net`, starting from `known`: each op's schema infers its outputs
// (unknown where the op has no shape function, an input is unknown, or inference fails).
std::map<std::string, TensorType> InferNetTypes(const caffe2::NetDef& net,
                                                std::map<std::string, TensorType> known);

std::vector<TensorType> DoShapes(const caffe2::OperatorDef& def, const ArgumentHelper& args,
                                 const std::vector<TensorType>& in);
// An output is known when every branch that can run leaves it with one type (a branch that does
// not write it leaves the input of that name, or nothing).
std::vector<TensorType> IfShapes(const caffe2::OperatorDef& def, const ArgumentHelper& args,
                                 const std::vector<TensorType>& in);
// Known when one pass of cond_net + loop_net leaves every output with the type it had before the
// pass (so any number of passes does), or when the blob is not written by the loop at all.
std::vector<TensorType> WhileShapes(const caffe2::OperatorDef& def, const ArgumentHelper& args,
                                    const std::vector<TensorType>& in);

}  // namespace parity

#endif  // PARITY_CORE_CONTROL_SHAPE_INFERENCE_H_
