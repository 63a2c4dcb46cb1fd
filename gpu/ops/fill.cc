// The fillers on the device: ConstantFill, GivenTensor*Fill and the random fills. A fill computes
// nothing a kernel could check, so the CPU kernel itself makes the values on the host (in a scratch
// workspace, from a host copy of the optional shape input) and one copy puts them on the device:
// arguments, shapes, dtypes and errors are the CPU's by construction, and a random fill draws the
// same values on both devices (DeviceOption.random_seed is kept), so the device oracle compares
// what follows a fill rather than two generators. Caffe2's CUDA GivenTensorFill also fills on the
// host and copies.
#include <memory>

#include "core/workspace.h"
#include "gpu/cuda_operator.h"
#include "gpu/device.h"

namespace parity::gpu {
namespace {

class HostFillCudaOp final : public CudaOperator {
 public:
  HostFillCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : CudaOperator(def, ws), cpu_def_(def) {
    cpu_def_.mutable_device_option()->set_device_type(kCpuDeviceType);
    cpu_def_.mutable_device_option()->clear_device_id();
    factory_ = OperatorRegistry::Find(def.type(), kCpuDeviceType, "");
    PARITY_ENFORCE(factory_ != nullptr, ErrorKind::kInternal, label(), ": no CPU kernel to fill");
    // Argument errors surface when the op is created, as on the CPU: create it once here.
    Workspace probe;
    for (int i = 0; i < def.input_size(); ++i) probe.CreateTensor(def.input(i));
    (*factory_)(cpu_def_, &probe);
  }

  void Run() override {
    Workspace host;
    for (int i = 0; i < InputSize(); ++i) *host.CreateTensor(InputName(i)) = ToCpu(Input(i));
    std::unique_ptr<Operator> op = (*factory_)(cpu_def_, &host);
    op->Run();
    CopyTensor(host.GetTensor(cpu_def_.output(0)), DeviceOutput(0));
  }

 private:
  caffe2::OperatorDef cpu_def_;
  const OperatorFactory* factory_ = nullptr;
};

PARITY_REGISTER_CUDA_OPERATOR(ConstantFill, HostFillCudaOp);
PARITY_REGISTER_CUDA_OPERATOR(GivenTensorFill, HostFillCudaOp);
PARITY_REGISTER_CUDA_OPERATOR(GivenTensorDoubleFill, HostFillCudaOp);
PARITY_REGISTER_CUDA_OPERATOR(GivenTensorIntFill, HostFillCudaOp);
PARITY_REGISTER_CUDA_OPERATOR(GivenTensorInt64Fill, HostFillCudaOp);
PARITY_REGISTER_CUDA_OPERATOR(GivenTensorBoolFill, HostFillCudaOp);
PARITY_REGISTER_CUDA_OPERATOR(UniformFill, HostFillCudaOp);
PARITY_REGISTER_CUDA_OPERATOR(GaussianFill, HostFillCudaOp);
PARITY_REGISTER_CUDA_OPERATOR(XavierFill, HostFillCudaOp);

}  // namespace
}  // namespace parity::gpu
