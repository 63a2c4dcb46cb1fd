// Renaming one versioned blob, as detectron2's Caffe2 export does it (the seed's rename_op_input
// and rename_op_output): every op input and output at that version takes the new name, and so do
// the net's external inputs (when the blob is at its starting version) and external outputs (when
// it is at its last), in the predict net and, for inputs coming from it, the init net.
#ifndef PARITY_CORE_TRANSFORMS_RENAME_H_
#define PARITY_CORE_TRANSFORMS_RENAME_H_

#include <string>

#include "core/proto/caffe2.pb.h"

namespace parity::transforms {

// Renames input `input_id` of op `op_id`. It must be read by that op only, or kIllegalTransform
// ("... are consumed by other ops, please use rename_op_output on the producer instead"). With
// `from_producer`, renames the producer's output instead (every consumer follows); an input with
// no producer in the predict net (it comes from the init net) is kIllegalTransform.
void RenameOpInput(caffe2::NetDef* predict, caffe2::NetDef* init, int op_id, int input_id,
                   const std::string& new_name, bool from_producer = false);

// Renames output `output_id` of op `op_id`; every consumer of that version follows.
void RenameOpOutput(caffe2::NetDef* predict, int op_id, int output_id, const std::string& new_name);

}  // namespace parity::transforms

#endif  // PARITY_CORE_TRANSFORMS_RENAME_H_
