// "production-cuda": the core engine with every op on CUDA device 0, those of nested nets (Do, If
// and While bodies, step nets) too (what `parity run --device cuda` and the device oracle run). Registered
// in every build, so a build or machine without CUDA says why it cannot run (kUnknownOp) instead
// of not knowing the name.
//
// The case's inputs, and whatever an init net made (run on the CPU, as a predictor's init net
// would be), are copied to the device before the net runs, except those a CopyCPUToGPU reads
// (gpu/placement.h); every tensor comes back to the host for the comparison.
#include <google/protobuf/text_format.h>

#include "core/proto/nesting.h"

#include <set>

#include "core/net.h"
#include "core/operator.h"
#include "core/tensor_proto.h"
#include "core/workspace.h"
#include "gpu/device.h"
#include "gpu/placement.h"
#include "oracles/backend.h"

namespace parity::oracles {
namespace {

constexpr int kDeviceId = 0;

// Every op of `net` and of the nested nets a forward run runs must have a CUDA kernel: checked
// before anything runs, so a CPU-only op is named the same way on every machine, with a device or
// without. (RecurrentNetwork's backward_step_net runs in its gradient op only.)
void CheckCudaKernels(const caffe2::NetDef& net, const std::string& where_in = "") {
  for (int i = 0; i < net.op_size(); ++i) {
    const caffe2::OperatorDef& op = net.op(i);
    PARITY_ENFORCE(OperatorRegistry::HasKernel(op.type(), kCudaDeviceType), ErrorKind::kUnknownOp,
                   where_in, OpContext(i, op), ": ", op.type(), " has no CUDA kernel (CPU only)",
                   gpu::CudaBuild() ? "" : "; this build of parity has no CUDA at all");
    for (const auto& arg : op.arg()) {
      if (arg.name() == "backward_step_net") continue;
      const std::string inside = where_in + OpContext(i, op) + ": net '" + arg.name() + "': ";
      if (arg.has_n()) CheckCudaKernels(arg.n(), inside);
      for (const auto& nested : arg.nets()) CheckCudaKernels(nested, inside);
    }
  }
}

// Every op of `net` and of the nets nested in its ops (Do, If and While bodies, RecurrentNetwork's
// step nets) on CUDA device `device_id`, under `engine` when one is given. (Caffe2's RunAllOnGPU
// sets the net's option and RecurrentNetwork's step net's; control-flow bodies need theirs too.) A
// step net given as text becomes a NetDef argument, which the op reads the same way.
void PlaceOnDevice(caffe2::NetDef* net, int device_id, const std::string& engine) {
  for (auto& op : *net->mutable_op()) {
    op.mutable_device_option()->set_device_type(kCudaDeviceType);
    op.mutable_device_option()->set_device_id(device_id);
    if (!engine.empty()) op.set_engine(engine);
    for (auto& arg : *op.mutable_arg()) {
      if (arg.has_s() && (arg.name() == "step_net" || arg.name() == "backward_step_net") &&
          !arg.s().empty()) {
        caffe2::NetDef parsed;
        PARITY_ENFORCE(ParseNetText(arg.s(), &parsed),
                       ErrorKind::kBadArgument, op.type(), ": argument '", arg.name(),
                       "' is a string that does not parse as a NetDef in text format");
        arg.clear_s();
        *arg.mutable_n() = std::move(parsed);
      }
      if (arg.has_n()) PlaceOnDevice(arg.mutable_n(), device_id, engine);
      for (auto& nested : *arg.mutable_nets()) PlaceOnDevice(&nested, device_id, engine);
    }
  }
}

class CudaBackend final : public Backend {
 public:
  CudaBackend(BackendInfo info, std::string engine)
      : Backend(std::move(info)), engine_(std::move(engine)) {}

  bool SupportsOp(const std::string& op_type) const override {
    return OperatorRegistry::HasKernel(op_type, kCudaDeviceType);
  }
  // Every dtype the engine's tensors hold (Backend's): the gate is per kernel. A CUDA op without a
  // kernel for an input's dtype raises kUnknownOp, which the device oracle calls not applicable.

  BackendRun Run(const Case& c, const RunOptions& options) const override {
    Workspace ws;
    return RunProductionNet(
        &ws,
        [&] {
          caffe2::NetDef net = c.net();
          PlaceOnDevice(&net, kDeviceId, engine_);
          CheckCudaKernels(net);
          PARITY_ENFORCE(gpu::DeviceCount() > 0, ErrorKind::kUnknownOp,
                         "no CUDA device: ", gpu::NoDeviceReason());
          for (const auto& input : c.inputs()) {
            *ws.CreateTensor(input.name()) = TensorFromProto(input);
          }
          if (c.has_init_net()) ws.RunNetOnce(c.init_net());
          const Device device{kCudaDeviceType, kDeviceId};
          // Inputs that CopyCPUToGPU reads stay on the host (gpu/placement.h); the rest go over.
          const std::set<std::string> host_inputs = gpu::PlanCudaPlacement(c.net()).host_inputs;
          for (const std::string& name : ws.Blobs()) {
            Blob* blob = ws.GetBlob(name);
            if (blob == nullptr || !blob->IsTensor() || !blob->GetTensor().defined()) continue;
            if (host_inputs.count(name) > 0) continue;
            Tensor on_device(device);
            gpu::CopyTensor(blob->GetTensor(), &on_device);
            *blob->GetMutableTensor() = on_device;
          }
          if (!options.net_type.empty()) net.set_type(options.net_type);
          return ws.CreateNet(net);
        },
        // A kernel's late (asynchronous) error surfaces at the copy back: the run's error.
        options.trace, [](const Tensor& tensor) { return gpu::ToCpu(tensor); });
  }

 private:
  std::string engine_;
};

}  // namespace

std::unique_ptr<Backend> MakeCudaBackend(std::string name, std::string engine,
                                         std::string description) {
  BackendInfo info{std::move(name), "cuda", Precision::kF32, std::move(description)};
  return std::make_unique<CudaBackend>(std::move(info), std::move(engine));
}

PARITY_REGISTER_BACKEND(MakeCudaBackend(kProductionCuda, "",
                                        "the production engine with every op on CUDA device 0"));

}  // namespace parity::oracles
