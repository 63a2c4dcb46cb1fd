// The base of CUDA kernels (CUDA builds only): an Operator bound to its device's context, with
// inputs checked to live on that device and outputs placed there.
//
//   class ReluCudaOp final : public CudaOperator {
//    public:
//     using CudaOperator::CudaOperator;
//     void Run() override { ... kernels::UnaryFloat(..., stream()); CheckLaunch(); }
//   };
//   PARITY_REGISTER_CUDA_OPERATOR(Relu, ReluCudaOp);
#ifndef PARITY_GPU_CUDA_OPERATOR_H_
#define PARITY_GPU_CUDA_OPERATOR_H_

#include <string>
#include <vector>

#include "core/operator.h"
#include "core/schema.h"
#include "gpu/context.h"

namespace parity::gpu {

// "cpu" or "cuda:1", for messages.
std::string DeviceName(Device device);

class CudaOperator : public Operator {
 public:
  // kUnknownOp without a device, kBadArgument for a device_id the machine lacks.
  CudaOperator(const caffe2::OperatorDef& def, Workspace* ws);

 protected:
  CudaContext& context() const { return *context_; }
  cudaStream_t stream() const { return context_->stream(); }

  // Input i, which must be on this op's device (kBadArgument naming the blob and both devices:
  // a CPU tensor reaches a CUDA op through CopyCPUToGPU).
  const Tensor& DeviceInput(int i) const;
  // Input i as float, for a kernel with no other version: kUnknownOp for other dtypes ("run the op
  // on the CPU"), which the device oracle calls not applicable.
  const Tensor& FloatInput(int i) const;
  // Output i on `device` (this op's by default): a tensor of the blob on another device is
  // replaced, so a kernel never writes device memory through a host tensor or the reverse.
  Tensor* OutputOn(int i, Device device);
  Tensor* DeviceOutput(int i) { return OutputOn(i, device()); }
  // A launch error (bad configuration, no kernel image for this GPU) as parity::Error.
  void CheckLaunch() const;
  // The output types the op's schema infers for `def` (the op's own, or a copy with a data-given
  // shape turned into an argument) and its input tensors: the CPU kernel's dtype and shape checks,
  // with the CPU's messages, so both devices reject the same nets alike.
  std::vector<TensorType> InferOutputs(const caffe2::OperatorDef& def) const;
  std::vector<TensorType> InferOutputs() const { return InferOutputs(def()); }

 private:
  CudaContext* context_;
};

}  // namespace parity::gpu

#define PARITY_REGISTER_CUDA_OPERATOR(type, ...) \
  PARITY_REGISTER_OPERATOR(type, ::parity::kCudaDeviceType, "", __VA_ARGS__)

#endif  // PARITY_GPU_CUDA_OPERATOR_H_
