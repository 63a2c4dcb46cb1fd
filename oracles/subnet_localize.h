// Localization inside a blamed op that runs nets: Do, If, While and RecurrentNetwork. Localize
// (localize.h) blames the first op whose outputs diverge while its inputs agree; when that op runs
// a sub-net, its body is cut out as a case of its own, fed the truth's values of what the body
// reads at that point, and localized again, so a finding names the op inside (CRADLE's rule, one
// level down, recursively):
//
//   op #2 (If) / then op #1 (Mul)
//   op #0 (While) / loop op #0 (Do) / body op #2 (Relu)
//   op #1 (RecurrentNetwork) / step op #2 (LSTMUnit)
//
// The body run is: If: the branch the condition takes; Do: `net` with the bound inner blobs;
// While: the first pass (cond_net then loop_net, in one workspace); RecurrentNetwork: step 0 (the
// step net with each link's rows of the sequence and of the initial states, timestep 0). A
// divergence that only shows at a later pass or step (a wrong link offset, a state carried
// wrongly) is not found inside, and the blame stays on the op itself.
#ifndef PARITY_ORACLES_SUBNET_LOCALIZE_H_
#define PARITY_ORACLES_SUBNET_LOCALIZE_H_

#include <optional>
#include <string>

#include "core/proto/caffe2.pb.h"
#include "core/proto/parity.pb.h"
#include "oracles/backend.h"
#include "oracles/localize.h"
#include "oracles/tolerance.h"

namespace parity::oracles {

struct InnerBlame {
  std::string path;     // " / then op #1 (Mul)", to append to the outer op's path
  std::string op_type;  // the innermost blamed op
  std::string blob;     // its first diverging output
  std::string detail;   // the comparison's
};

// The body case of `op` (the blamed op) at the truth's values `before` it ran; nullopt when the op
// runs no net (or its body cannot be cut out: a branch not taken, a malformed argument).
// `label` is set to "then", "else", "body", "loop" or "step".
std::optional<Case> BodyCase(const caffe2::OperatorDef& op, const Blobs& before, uint64_t seed,
                             std::string* label);

// Localizes inside `op`'s body on `under_test` against the reference; nullopt when the body's ops
// all agree (or it cannot run on both sides).
std::optional<InnerBlame> LocalizeInside(const caffe2::OperatorDef& op, const Blobs& before,
                                         uint64_t seed, const Backend& under_test,
                                         const ToleranceClass& tolerance, int depth = 0);

// After SetBlame(finding, blame.op_index, net): when the blamed op runs a net and an op inside it
// is to blame, the finding's path, blamed type and signature name that op (blamed_op_index stays
// the top-level op's) and its message says where inside the divergence starts.
void BlameInside(Finding* finding, const caffe2::NetDef& net, const Blame& blame, uint64_t seed,
                 const Backend& under_test, const ToleranceClass& tolerance);

}  // namespace parity::oracles

#endif  // PARITY_ORACLES_SUBNET_LOCALIZE_H_
