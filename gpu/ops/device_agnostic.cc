// Ops whose CPU kernels never touch tensor data on the host, registered for CUDA as they are: the
// CUDA kernel of each is its CPU kernel's factory, the op's DeviceOption saying where it runs.
//   - Do, If, While, CreateScope, HasScope: their subnets' ops run on whatever device their own
//     DeviceOptions name (the CUDA backend puts every nested op on the device); If and While read
//     a condition made on either side through HostCopy; HasScope leaves its flag on the host.
//     (Caffe2's Do, If and While are templates over the context that never read tensor data.)
//   - RecurrentNetwork and rnn_internal_apply_link: the recurrent states, links and aliases are
//     views of device tensors, the initial states and settled links move with CopyBytes (the
//     device's own copy), and the timestep is an int32 on the host, as in Caffe2. The step net
//     runs on the device when its ops' DeviceOptions say so (Caffe2's RunAllOnGPU sets the step
//     net's option). The gradient op accumulates on the host and stays CPU only.
#include <string>

#include "core/operator.h"

namespace parity::gpu {
namespace {

bool RegisterCpuKernelForCuda(const std::string& type) {
  return OperatorRegistry::Register(
      type, kCudaDeviceType, "",
      [type](const caffe2::OperatorDef& def, Workspace* ws) -> std::unique_ptr<Operator> {
        const OperatorFactory* cpu = OperatorRegistry::Find(type, kCpuDeviceType, "");
        PARITY_ENFORCE(cpu != nullptr, ErrorKind::kInternal, type,
                       ": no CPU kernel to run on CUDA");
        return (*cpu)(def, ws);
      });
}

const bool kRegistered = [] {
  for (const char* type : {"Do", "If", "While", "CreateScope", "HasScope", "RecurrentNetwork",
                           "rnn_internal_apply_link"}) {
    RegisterCpuKernelForCuda(type);
  }
  return true;
}();

}  // namespace
}  // namespace parity::gpu
