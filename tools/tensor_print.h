// Human-readable tensor printing for the command line: "y: float [2, 2] = [1, 2, 3, 4]".
#ifndef PARITY_TOOLS_TENSOR_PRINT_H_
#define PARITY_TOOLS_TENSOR_PRINT_H_

#include <string>

#include "core/proto/caffe2.pb.h"

namespace parity::tools {

// At most `max_values` values are printed; the rest is summarized as "... (N more)".
std::string FormatTensor(const std::string& name, const caffe2::TensorProto& tensor,
                         int max_values = 64);

}  // namespace parity::tools

#endif  // PARITY_TOOLS_TENSOR_PRINT_H_
