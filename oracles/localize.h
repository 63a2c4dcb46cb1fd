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

// The op to blame for `error`, which one side raised running `c`: the first op before the failing
// one whose outputs already differ between `under_test` and the reference (a wrong shape upstream
// that a later op rejects: the later op is right to reject it), else the op the error names (-1
// when it names none). Runs the three backends traced.
int UpstreamCulprit(const Case& c, const Backend& under_test, const Error& error,
                    const ToleranceClass& tolerance);

}  // namespace parity::oracles

#endif  // PARITY_ORACLES_LOCALIZE_H_
