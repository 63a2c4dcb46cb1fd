// Do's blob bindings, read and checked once for the op and for its gradient maker.
//
// Do(outer inputs..., scope) -> (outer outputs..., scope): inner_blobs[k] names outer blob
// outer_blobs_idx[k], an index into inputs-minus-scope followed by outputs-minus-scope. Every
// outer name is bound exactly once, no inner name twice, inputs and outputs each without
// duplicates, and the scope blob is the last input and the last output (Caffe2's DoOp checks).
#ifndef PARITY_CORE_CONTROL_DO_BINDINGS_H_
#define PARITY_CORE_CONTROL_DO_BINDINGS_H_

#include <map>
#include <string>
#include <vector>

#include "core/proto/caffe2.pb.h"

namespace parity {

struct DoBindings {
  std::vector<std::string> inputs;   // outer inputs without the scope blob
  std::vector<std::string> outputs;  // outer outputs without the scope blob
  std::string scope;
  std::map<std::string, std::string> inner_to_outer;
  std::map<std::string, std::string> outer_to_inner;
};

// kBadArgument naming the op and the offending blob or index.
DoBindings ReadDoBindings(const caffe2::OperatorDef& def);

}  // namespace parity

#endif  // PARITY_CORE_CONTROL_DO_BINDINGS_H_
