// Control flow on the device: Do, If, While, CreateScope and HasScope registered for CUDA with the
// CPU's own kernels (core/control/control_ops.h). They do no arithmetic: their subnets' ops run on
// whatever device their DeviceOptions name (the CUDA backend puts every nested op on the device),
// If and While read a condition made on either side through a host copy of its one byte, and
// HasScope leaves its flag on the host. Caffe2 registers its Do, If and While for CUDA the same
// way, as templates over the context that never touch tensor data.
#include "core/control/control_ops.h"
#include "gpu/cuda_operator.h"

namespace parity::gpu {

PARITY_REGISTER_CUDA_OPERATOR(Do, DoOp);
PARITY_REGISTER_CUDA_OPERATOR(If, IfOp);
PARITY_REGISTER_CUDA_OPERATOR(While, WhileOp);
PARITY_REGISTER_CUDA_OPERATOR(CreateScope, CreateScopeOp);
PARITY_REGISTER_CUDA_OPERATOR(HasScope, HasScopeOp);

}  // namespace parity::gpu
