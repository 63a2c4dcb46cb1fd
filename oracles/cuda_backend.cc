// "production-cuda": the core engine with every op of the main net on CUDA device 0 (what `parity
// run --device cuda` and the device oracle run). Registered in every build, so a build or machine
// without CUDA says why it cannot run (kUnknownOp) instead of not knowing the name.
//
// The case's inputs, and whatever an init net made (run on the CPU, as a predictor's init net
// would be), are copied to the device before the net runs; every tensor comes back to the host for the
// comparison. Sub-nets (Do/If/While bodies, RecurrentNetwork steps) stay as written: control flow
// on the device is issue 19's later work.
#include "core/net.h"
#include "core/operator.h"
#include "core/tensor_proto.h"
#include "core/workspace.h"
#include "gpu/device.h"
#include "oracles/backend.h"

namespace parity::oracles {
namespace {

constexpr int kDeviceId = 0;

// Every op of `net` must have a CUDA kernel: checked before anything runs, so a CPU-only op is
// named the same way on every machine, with a device or without.
void CheckCudaKernels(const caffe2::NetDef& net) {
  for (int i = 0; i < net.op_size(); ++i) {
    const std::string& type = net.op(i).type();
    PARITY_ENFORCE(OperatorRegistry::HasKernel(type, kCudaDeviceType), ErrorKind::kUnknownOp,
                   OpContext(i, net.op(i)), ": ", type, " has no CUDA kernel (CPU only)",
                   gpu::CudaBuild() ? "" : "; this build of parity has no CUDA at all");
  }
}

class CudaBackend final : public Backend {
 public:
  CudaBackend()
      : Backend({"production-cuda", "cuda", Precision::kF32,
                 "the production engine with every op on CUDA device 0"}) {}

  bool SupportsOp(const std::string& op_type) const override {
    return OperatorRegistry::HasKernel(op_type, kCudaDeviceType);
  }
  // The device kernels are float only (integers would need their own kernels).
  bool SupportsDtype(int data_type) const override {
    return data_type == caffe2::TensorProto::FLOAT;
  }

  BackendRun Run(const Case& c, const RunOptions& options) const override {
    BackendRun run;
    Workspace ws;
    try {
      CheckCudaKernels(c.net());
      PARITY_ENFORCE(gpu::DeviceCount() > 0, ErrorKind::kUnknownOp,
                     "no CUDA device: ", gpu::NoDeviceReason());
      for (const auto& input : c.inputs()) *ws.CreateTensor(input.name()) = TensorFromProto(input);
      if (c.has_init_net()) ws.RunNetOnce(c.init_net());
      const Device device{kCudaDeviceType, kDeviceId};
      for (const std::string& name : ws.Blobs()) {
        Blob* blob = ws.GetBlob(name);
        if (blob == nullptr || !blob->IsTensor() || !blob->GetTensor().defined()) continue;
        Tensor on_device(device);
        gpu::CopyTensor(blob->GetTensor(), &on_device);
        *blob->GetMutableTensor() = on_device;
      }
      caffe2::NetDef net = c.net();
      for (auto& op : *net.mutable_op()) {
        op.mutable_device_option()->set_device_type(kCudaDeviceType);
        op.mutable_device_option()->set_device_id(kDeviceId);
      }
      if (!options.net_type.empty()) net.set_type(options.net_type);
      NetBase* instance = ws.CreateNet(net);
      if (options.trace) {
        instance->RunObserved([&](int index, const Operator& op) {
          OpTrace entry;
          entry.op_index = index;
          entry.op_type = op.type();
          for (int i = 0; i < op.OutputSize(); ++i) {
            const Blob* blob = op.OutputBlob(i);
            if (blob->IsTensor() && blob->GetTensor().defined() && blob->GetTensor().has_data()) {
              entry.outputs[op.OutputName(i)] =
                  TensorToProto(gpu::ToCpu(blob->GetTensor()), op.OutputName(i));
            }
          }
          run.trace.push_back(std::move(entry));
        });
      } else {
        instance->Run();
      }
    } catch (const Error& error) {
      run.error = error;
    }
    for (const std::string& name : ws.Blobs()) {
      Blob* blob = ws.GetBlob(name);
      if (blob == nullptr || !blob->IsTensor() || !blob->GetTensor().defined() ||
          !blob->GetTensor().has_data()) {
        continue;
      }
      try {
        run.blobs[name] = TensorToProto(gpu::ToCpu(blob->GetTensor()), name);
      } catch (const Error& error) {
        if (!run.error) run.error = error;  // a kernel's late (asynchronous) error surfaces here
      }
    }
    return run;
  }
};

PARITY_REGISTER_BACKEND(std::make_unique<CudaBackend>());

}  // namespace
}  // namespace parity::oracles
