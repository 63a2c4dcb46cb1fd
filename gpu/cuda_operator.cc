#include "gpu/cuda_operator.h"

namespace parity::gpu {

std::string DeviceName(Device device) {
  if (device.type == kCpuDeviceType) return "cpu";
  if (device.type == kCudaDeviceType) return "cuda:" + std::to_string(device.id);
  return "device type " + std::to_string(device.type);
}

CudaOperator::CudaOperator(const caffe2::OperatorDef& def, Workspace* ws)
    : Operator(def, ws), context_(&CudaContext::Get(device().id)) {}

const Tensor& CudaOperator::DeviceInput(int i) const {
  const Tensor& tensor = Input(i);
  PARITY_ENFORCE(tensor.device() == device(), ErrorKind::kBadArgument, label(), ": input '",
                 InputName(i), "' is on ", DeviceName(tensor.device()), " but the op runs on ",
                 DeviceName(device()), " (copy it there with CopyCPUToGPU)");
  return tensor;
}

const Tensor& CudaOperator::FloatInput(int i) const {
  const Tensor& tensor = DeviceInput(i);
  PARITY_ENFORCE(tensor.dtype() == DataType::kFloat, ErrorKind::kUnknownOp, label(),
                 ": the CUDA kernel takes float only, but input '", InputName(i), "' is ",
                 tensor.DebugString(), " (run the op on the CPU)");
  return tensor;
}

Tensor* CudaOperator::OutputOn(int i, Device device) {
  Tensor* tensor = OutputBlob(i)->GetMutableTensor(device);
  if (tensor->device() != device) *tensor = Tensor(device);
  return tensor;
}

void CudaOperator::CheckLaunch() const {
  const cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess) CudaCheck(status, (label() + ": kernel launch").c_str());
}

std::vector<TensorType> CudaOperator::InferOutputs(const caffe2::OperatorDef& def) const {
  const OpSchema* schema = OpSchemaRegistry::Find(def.type());
  PARITY_ENFORCE(schema != nullptr, ErrorKind::kInternal, label(), ": no schema");
  std::vector<TensorType> in;
  for (int i = 0; i < def.input_size(); ++i) {
    in.push_back(TensorType{Input(i).dtype(), Input(i).dims(), true});
  }
  return schema->InferShapes(def, in);
}

}  // namespace parity::gpu
