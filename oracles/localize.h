// Localization: given both sides' traces of the same net, the first op (in execution order) whose
// outputs diverge while all of its inputs agree — the op to blame (CRADLE/Muffin's rule).
#ifndef PARITY_ORACLES_LOCALIZE_H_
#define PARITY_ORACLES_LOCALIZE_H_

#include "core/proto/caffe2.pb.h"
#include "core/proto/error.h"
#include "core/proto/parity.pb.h"
#include "oracles/backend.h"
#include "oracles/tolerance.h"

namespace parity::oracles {

struct Blame {
  int op_index = -1;  // -1: nothing to blame (no divergence, or inputs already diverged)
  std::string blob;   // the first diverging output of that op
  Comparison comparison;
  Blobs truth_before;  // the reference's (f64) blobs just before that op ran
};

// `initial` holds the values every side starts from (the case inputs and init-net results).
Blame Localize(const caffe2::NetDef& net, const Blobs& initial, const BackendRun& production,
               const BackendRun& reference_f64, const BackendRun& reference_f32,
               const ToleranceClass& tolerance);

// Whether op `op_index` of `c`'s net, run by the f64 reference on the inputs `traced` gave it (its
// trace: the case inputs and the outputs of the ops before), gives `traced`'s outputs of that op
// within `tolerance` (sized by the f32 reference on the same inputs). Localize blames the first op
// whose inputs agree with the truth and whose outputs do not; where that op is right on its own
// inputs, the divergence came through them: they agreed within tolerance but sat where the op
// amplifies any difference (Tan at 1.7e20, where one f32 ulp is 1.6e13). False where the op's
// inputs are not all traced tensors (a workspace, a nested net's scope) or a reference fails.
bool OpRightOnItsInputs(const Case& c, int op_index, const BackendRun& traced,
                        const ToleranceClass& tolerance);

// The op to blame for `error`, which one side raised running `c`: the first op before the failing
// one whose outputs already differ between `under_test` and the reference (a wrong shape upstream
// that a later op rejects: the later op is right to reject it), else the op the error names (-1
// when it names none). Runs the three backends traced.
int UpstreamCulprit(const Case& c, const Backend& under_test, const Error& error,
                    const ToleranceClass& tolerance);

}  // namespace parity::oracles

#endif  // PARITY_ORACLES_LOCALIZE_H_
