// CopyCPUToGPU, CopyGPUToCPU and EnsureCPUOutput under a CUDA device option (Caffe2's
// copy_op.cc): the ops that move tensors across the host/device border. On the CPU the same ops
// are identity copies (core/ops/fill/fill.cc). Copy itself copies on the device.
#include "gpu/cuda_operator.h"
#include "gpu/device.h"

namespace parity::gpu {
namespace {

// Output 0 on the CPU (kToCpu) or this op's device, a copy of input 0: from the CPU (kFromCpu),
// from anywhere (kToCpu: CopyGPUToCPU and EnsureCPUOutput accept a host input too), or from this
// device (Copy).
template <bool kFromCpu, bool kToCpu>
class CrossDeviceCopyOp final : public CudaOperator {
 public:
  using CudaOperator::CudaOperator;

  void Run() override {
    const Tensor& in = kFromCpu || kToCpu ? Input(0) : DeviceInput(0);
    if (kFromCpu) {
      PARITY_ENFORCE(in.device().type == kCpuDeviceType, ErrorKind::kBadArgument, label(),
                     ": input '", InputName(0), "' should be on the CPU, but is on ",
                     DeviceName(in.device()));
    }
    const Device to = kToCpu ? Device{} : device();
    // In place, the output tensor is the input itself on the other device: copy via a temporary.
    if (InputBlob(0) == OutputBlob(0)) {
      if (in.device() == to) return;
      Tensor moved(to);
      CopyTensor(in, &moved);
      *OutputOn(0, to) = moved;
      return;
    }
    CopyTensor(in, OutputOn(0, to));
  }
};

PARITY_REGISTER_CUDA_OPERATOR(CopyCPUToGPU, CrossDeviceCopyOp<true, false>);
PARITY_REGISTER_CUDA_OPERATOR(CopyGPUToCPU, CrossDeviceCopyOp<false, true>);
// Its input may be on either side: a CPU input is copied host to host.
PARITY_REGISTER_CUDA_OPERATOR(EnsureCPUOutput, CrossDeviceCopyOp<false, true>);
PARITY_REGISTER_CUDA_OPERATOR(Copy, CrossDeviceCopyOp<false, false>);

}  // namespace
}  // namespace parity::gpu
