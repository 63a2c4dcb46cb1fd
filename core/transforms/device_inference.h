// Static inference of where each blob lives (CPU or GPU) and the device options that follow from
// it: the seed's _generic_status_identifier with detectron2's device updater (infer_device_type),
// and _assign_device_option for nets exported without devices (ONNX).
#ifndef PARITY_CORE_TRANSFORMS_DEVICE_INFERENCE_H_
#define PARITY_CORE_TRANSFORMS_DEVICE_INFERENCE_H_

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/proto/caffe2.pb.h"
#include "core/transforms/pass.h"
#include "core/transforms/ssa.h"

namespace parity::transforms {

using BlobStatus = std::map<VersionedBlob, std::string>;
using Statuses =
    std::vector<std::optional<std::string>>;  // one per input or output; nullopt: unknown

// Given an op and what is known of its inputs' and outputs' statuses, what they must be.
using StatusUpdater = std::function<std::pair<Statuses, Statuses>(
    const caffe2::OperatorDef& op, const Statuses& inputs, const Statuses& outputs)>;

// The seed's _generic_status_identifier: from `known` (versioned blobs of the net: its external
// inputs at version 0, its external outputs at their last version, or any op's), one pass over
// the ops forward and one backward apply `updater`; a status that contradicts a known one is
// kIllegalTransform ("Confilict status for ..."), and so is a blob left unknown ("Can not infer
// the status for ..."), both in the seed's words.
BlobStatus IdentifyStatus(const caffe2::NetDef& net, const StatusUpdater& updater,
                          const BlobStatus& known);

// infer_device_type: "cpu" or "gpu" ("cuda" with pytorch naming) for every versioned blob.
// CopyCPUToGPU reads cpu and writes gpu, CopyGPUToCPU the reverse; every other op keeps all its
// inputs and outputs on one device, and an op that cannot is kIllegalTransform ("Failed to apply
// updater for op ...").
BlobStatus InferDeviceType(const caffe2::NetDef& net, const BlobStatus& known,
                           bool pytorch_names = false);

// _assign_device_option: `input_devices` gives external inputs of the predict net their devices
// ("cpu" or "gpu"; unlisted ones are inferred from their readers; when it is empty, every input
// is on the cpu). Copy ops and ops whose blobs are on the gpu get
// DeviceOption(CUDA, 0); the init net's ops follow the devices its outputs have in the predict net.
void AssignDeviceOption(TransformedNet* t, const std::map<std::string, std::string>& input_devices);

}  // namespace parity::transforms

#endif  // PARITY_CORE_TRANSFORMS_DEVICE_INFERENCE_H_
