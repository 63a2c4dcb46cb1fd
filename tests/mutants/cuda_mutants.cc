// GPU kernel mutants (issue 19): bugs planted in CUDA kernels, hunted by the device oracle (the
// same case on the CPU and on the GPU, both judged against the f64 reference, and the GPU run
// twice bit for bit). Each wraps the op's real default CUDA kernel from the host side: it edits
// the kernel's arguments before the launch, or post-processes host copies of its outputs and
// writes them back to the device, so no mutant needs device code of its own (nvcc builds only
// gpu/), and each follows the production kernel as it changes.
//
// Their kernels register in CUDA builds only (a build without CUDA has no CUDA kernel to wrap);
// their backends (MUTANT_CUDA_*, oracles::MakeCudaBackend) exist in every build and say why they
// cannot run. Compiled, not run on a GPU: no machine with a device has hunted them yet.
#include <atomic>
#include <cmath>
#include <limits>

#include "core/operator.h"
#include "core/tensor.h"
#include "gpu/device.h"
#include "tests/mutants/mutant_cases.h"
#include "tests/mutants/mutant_wrap.h"

namespace parity::mutants {
namespace {

using namespace cases;  // NOLINT: the private case builders

class CudaWrappedMutant final : public Operator {
 public:
  CudaWrappedMutant(const caffe2::OperatorDef& def, Workspace* ws, const Wrap* wrap)
      : Operator(def, ws), wrap_(wrap) {}

  void Run() override {
    caffe2::OperatorDef inner = def();
    inner.clear_engine();
    if (wrap_->edit) wrap_->edit(*this, &inner);
    const OperatorFactory* factory = OperatorRegistry::Find(inner.type(), kCudaDeviceType, "");
    PARITY_ENFORCE(factory != nullptr, ErrorKind::kInternal, "CUDA mutant of ", inner.type(),
                   ": no default CUDA kernel");
    std::unique_ptr<Operator> op = (*factory)(inner, workspace());
    op->Run();
    if (!wrap_->after_on_host) return;
    std::vector<Tensor> inputs, outputs;
    for (int i = 0; i < InputSize(); ++i) inputs.push_back(gpu::ToCpu(Input(i)));
    // A fresh host tensor per output (ToCpu shares a host tensor's storage).
    for (int i = 0; i < OutputSize(); ++i) {
      Tensor host;
      gpu::CopyTensor(*Output(i), &host);
      outputs.push_back(host);
    }
    wrap_->after_on_host(*this, inputs, &outputs);
    for (int i = 0; i < OutputSize(); ++i) gpu::CopyTensor(outputs[i], Output(i));
  }

 private:
  const Wrap* wrap_;
};

Mutant CudaM(const std::string& name, const std::string& op_type, const std::string& description) {
  Mutant m = M(name, op_type, "device", "gpu", description);
  m.device = "cuda";
  return m;
}

// Counts the calls of CUDA_REDUCESUM_NONDETERMINISTIC's kernel: every second call moves a bit.
std::atomic<int64_t> reduce_calls{0};

}  // namespace

std::unique_ptr<Operator> MakeCudaMutantKernel(const caffe2::OperatorDef& def, Workspace* ws,
                                               const Wrap* wrap) {
  return std::make_unique<CudaWrappedMutant>(def, ws, wrap);
}

void AddCudaMutants(std::vector<Entry>* out) {
  auto add = [out](Mutant m, Wrap w) { out->push_back({std::move(m), std::move(w)}); };
  {
    Wrap w;
    w.after_on_host = [](const Operator&, const std::vector<Tensor>& in, std::vector<Tensor>* o) {
      const float* x = in[0].data<float>();
      float* y = (*o)[0].mutable_data<float>();
      for (int64_t i = 0; i < (*o)[0].numel(); ++i) {
        if (x[i] < 0) y[i] = 0.01f * x[i];
      }
    };
    Mutant m = CudaM("CUDA_RELU_LEAKS", "Relu",
                     "the CUDA Relu lets 1% of negative inputs through (fmaxf(x, 0.01f * x))");
    m.make = [](const Primary*) { return MakeUnary("Relu", Domain::kAwayFromZero); };
    add(m, w);
  }
  {
    Wrap w;
    w.after_on_host = [](const Operator&, const std::vector<Tensor>& in, std::vector<Tensor>* o) {
      if (in.size() < 3) return;
      const float* b = in[2].data<float>();
      float* y = (*o)[0].mutable_data<float>();
      const int64_t n = in[2].numel(), total = (*o)[0].numel();
      for (int64_t i = 0; n > 0 && i < total; ++i) y[i] -= b[i % n];
    };
    add(CudaM("CUDA_FC_BIAS_DROPPED", "FC", "the CUDA FC ignores its bias (beta = 0 in the GEMM)"),
        w);
  }
  {
    Wrap w;
    w.edit = [](const Operator& self, caffe2::OperatorDef* def) {
      ShiftAxis(self, def, "axis", 1);
    };
    Mutant m = CudaM("CUDA_SOFTMAX_AXIS_OFF_BY_ONE", "Softmax",
                     "the CUDA Softmax coerces at axis + 1 (its row geometry built wrong)");
    m.make = MakeSoftmax;
    m.tolerance = "transcendental";
    add(m, w);
  }
  {
    Wrap w;
    // What an atomicAdd reduction does: the last bit of a sum depends on the order the threads
    // add in, so two runs disagree while each is within tolerance of the truth. Only the
    // run-twice check (oracles/device_determinism.h) sees it.
    w.after_on_host = [](const Operator&, const std::vector<Tensor>&, std::vector<Tensor>* o) {
      if (reduce_calls++ % 2 == 0 || (*o)[0].numel() == 0) return;
      float* y = (*o)[0].mutable_data<float>();
      if (std::isfinite(y[0])) y[0] = std::nextafter(y[0], std::numeric_limits<float>::infinity());
    };
    Mutant m = CudaM("CUDA_REDUCESUM_NONDETERMINISTIC", "ReduceSum",
                     "the CUDA ReduceSum's first sum moves by one ulp every second run (atomics)");
    m.make = MakeReduceSum;
    add(m, w);
  }
}

}  // namespace parity::mutants
