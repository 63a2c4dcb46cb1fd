// Determinism on the device (issue 19): the device oracle runs a case twice on the GPU and the
// two runs must agree bit for bit, as the determinism oracle asks of the CPU. A difference is a
// finding, "device nondeterminism", unless the op behind it is declared nondeterministic on CUDA.
//
// Which kernels are nondeterministic: none today. No kernel in gpu/kernels/ uses atomics; every
// output element is written by one thread, summing in a fixed order, and cuBLAS (its GEMMs, on
// one stream per device) gives the same bits run to run by its documented guarantee. A kernel that
// adds float atomics (a scatter-add, a split reduction) goes into CudaNondeterministicOps() with
// its reason; the blobs it writes, and everything computed from them, are then judged only
// against the truth, within tolerance, never bit for bit between runs.
#ifndef PARITY_ORACLES_DEVICE_DETERMINISM_H_
#define PARITY_ORACLES_DEVICE_DETERMINISM_H_

#include <optional>
#include <set>
#include <string>

#include "core/proto/caffe2.pb.h"
#include "core/proto/parity.pb.h"
#include "oracles/backend.h"

namespace parity::oracles {

// The error class of a device-nondeterminism finding.
inline constexpr char kDeviceNondeterminism[] = "device nondeterminism";

// Op types whose CUDA kernel may give other bits from run to run (the order of float atomics is
// the scheduler's). Empty: see the file comment.
const std::set<std::string>& CudaNondeterministicOps();

// The blobs of `net` that an op of `ops`, or an op reading such a blob (transitively, in op
// order), writes: their bits may change between runs by design.
std::set<std::string> NondeterministicBlobs(const caffe2::NetDef& net,
                                            const std::set<std::string>& ops);

// Two runs of `c` on the device, compared bit for bit: a run that failed where the other did not
// (or failed otherwise), or the first compared blob that differs and is not one of
// NondeterministicBlobs(c.net(), nondeterministic_ops), is a finding of the "device" oracle with
// error class kDeviceNondeterminism. It blames the first op whose traced outputs differ, where
// both runs carry traces. No finding when the runs agree.
std::optional<Finding> CompareDeviceRuns(const Case& c, const BackendRun& first,
                                         const BackendRun& second,
                                         const std::set<std::string>& nondeterministic_ops);

}  // namespace parity::oracles

#endif  // PARITY_ORACLES_DEVICE_DETERMINISM_H_
