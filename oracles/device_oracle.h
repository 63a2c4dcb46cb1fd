// The device oracle's judgment (device_oracle.cc), apart from the runs it makes, so tests can
// hand it synthetic runs on machines without a GPU.
#ifndef PARITY_ORACLES_DEVICE_ORACLE_H_
#define PARITY_ORACLES_DEVICE_ORACLE_H_

#include <functional>

#include "core/proto/parity.pb.h"
#include "oracles/backend.h"
#include "oracles/oracle.h"
#include "oracles/tolerance.h"

namespace parity::oracles {

// The verdict on one case's runs: the f64 reference (`truth`), the CPU and the GPU. Both failing
// is bad input (rejected); the reference failing alone makes the case not applicable, and so does
// the GPU failing alone with kUnknownOp (a CUDA op without a kernel for these inputs' dtypes or
// rank: "run the op on the CPU"); otherwise one side failing is an "error mismatch" blamed by the
// error's context. Otherwise each compared blob on the GPU is judged against the truth with
// `tolerance`, sized by the f32 reference's error (`reference_f32`, asked only here: a run the
// error paths do not need), NaN and +-Inf by position: the first disagreement names its blob and
// whether the CPU is within tolerance there; every disagreeing blob adds its comparison. No
// localization and no second GPU run here.
OracleResult JudgeDeviceRuns(const Case& c, const BackendRun& truth, const BackendRun& cpu,
                             const BackendRun& device,
                             const std::function<const BackendRun&()>& reference_f32,
                             const ToleranceClass& tolerance);

}  // namespace parity::oracles

#endif  // PARITY_ORACLES_DEVICE_ORACLE_H_
