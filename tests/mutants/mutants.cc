// The mutant catalogue (mutants.h). Every mutant wraps the op's real default-engine kernel
// (OperatorRegistry::Find(type, CPU, "")): it replaces some inputs by scratch blobs computed from
// the originals, edits the kernel's arguments, and/or post-processes its outputs. None reimplements
// an op, so the catalogue follows production kernels as they change.
#include "tests/mutants/mutants.h"

#include <rapidcheck.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <tuple>

#include "core/operator.h"
#include "core/proto/error.h"
#include "core/tensor.h"
#include "fuzz/generators.h"
#include "gpu/device.h"
#include "oracles/backend.h"
#include "tests/mutants/mutant_cases.h"
#include "tests/mutants/mutant_wrap.h"

namespace parity::mutants {
namespace {

using namespace cases;  // NOLINT: the private case builders

using fuzz::Dim;
using fuzz::Domain;
using fuzz::OpInstance;
using fuzz::Primary;

std::atomic<int64_t> next_scratch{0};

class WrappedMutant final : public Operator {
 public:
  WrappedMutant(const caffe2::OperatorDef& def, Workspace* ws, const Wrap* wrap)
      : Operator(def, ws), wrap_(wrap), id_(next_scratch++) {}

  void Run() override {
    caffe2::OperatorDef inner = def();
    inner.clear_engine();
    // The catalogue's bugs are written against floats (FloatInput, FloatOutput, float scratch
    // tensors): a case fed doubles runs the real kernel.
    for (int i = 0; i < InputSize(); ++i) {
      if (InputBlob(i)->IsTensor() && Input(i).dtype() == DataType::kDouble) {
        RunReal(inner);
        return;
      }
    }
    for (const auto& [index, replace] : wrap_->inputs) {
      if (index >= InputSize()) continue;
      const std::string name = "__mutant_" + std::to_string(id_) + "_in" + std::to_string(index);
      Tensor* scratch = workspace()->CreateTensor(name);
      replace(*this, Input(index), scratch);
      inner.set_input(index, name);
    }
    if (wrap_->edit) wrap_->edit(*this, &inner);
    const OperatorFactory* factory = OperatorRegistry::Find(inner.type(), kCpuDeviceType, "");
    PARITY_ENFORCE(factory != nullptr, ErrorKind::kInternal, "mutant of ", inner.type(),
                   ": no default kernel");
    std::unique_ptr<Operator> op = (*factory)(inner, workspace());
    op->Run();
    if (wrap_->after) wrap_->after(*this);
  }

 private:
  void RunReal(const caffe2::OperatorDef& inner) {
    const OperatorFactory* factory = OperatorRegistry::Find(inner.type(), kCpuDeviceType, "");
    PARITY_ENFORCE(factory != nullptr, ErrorKind::kInternal, "mutant of ", inner.type(),
                   ": no default kernel");
    (*factory)(inner, workspace())->Run();
  }

  const Wrap* wrap_;
  const int64_t id_;
};

std::vector<Entry> BuildCatalogue() {
  std::vector<Entry> out;
  AddKernelMutants(&out);
  AddMoreKernelMutants(&out);
  AddMakerMutants(&out);
  AddInferenceMutants(&out);
  AddBackwardMutants(&out);
  AddExecutorMutants(&out);
  AddRnnMutants(&out);
  AddBuilderMutants(&out);
  AddControlMutants(&out);
  AddTransformMutants(&out);
  AddOverwriteMutants(&out);
  AddEngineMutants(&out);
  AddFileMutants(&out);
  AddCudaMutants(&out);
  return out;
}

std::vector<Entry>& Entries() {
  static std::vector<Entry>* entries = new std::vector<Entry>(BuildCatalogue());
  return *entries;
}

bool RegisterAll() {
  for (const Entry& entry : Entries()) {
    if (entry.mutant.install) continue;  // a registry swap, installed only while it is hunted
    const Wrap* wrap = &entry.wrap;
    if (entry.mutant.needs_device()) {
      // A CUDA kernel to wrap exists in CUDA builds only; the backend everywhere, to say so.
      if (gpu::CudaBuild()) {
        OperatorRegistry::Register(entry.mutant.op_type, kCudaDeviceType, entry.mutant.engine(),
                                   [wrap](const caffe2::OperatorDef& def, Workspace* ws) {
                                     return MakeCudaMutantKernel(def, ws, wrap);
                                   });
      }
      oracles::RegisterBackend(oracles::MakeCudaBackend(
          entry.mutant.engine(), entry.mutant.engine(), entry.mutant.description));
      continue;
    }
    OperatorRegistry::Register(
        entry.mutant.op_type, kCpuDeviceType, entry.mutant.engine(),
        [wrap](const caffe2::OperatorDef& def, Workspace* ws) {
          return std::unique_ptr<Operator>(std::make_unique<WrappedMutant>(def, ws, wrap));
        });
    // The backend under test for this mutant: production with the one kernel swapped, so every
    // caller (CheckCase, `parity fuzz/check/repro --engine MUTANT_<name>`) reaches it by name.
    oracles::RegisterBackend(oracles::MakeProductionBackend(
        entry.mutant.engine(), entry.mutant.engine(), entry.mutant.description));
  }
  return true;
}

[[maybe_unused]] const bool kRegistered = RegisterAll();

}  // namespace

const std::vector<Mutant>& Catalogue() {
  static const std::vector<Mutant>* mutants = [] {
    auto* v = new std::vector<Mutant>();
    for (const Entry& entry : Entries()) v->push_back(entry.mutant);
    return v;
  }();
  return *mutants;
}

MutantScope::MutantScope(const Mutant& mutant) {
  if (mutant.install) undo_ = mutant.install();
}

MutantScope::~MutantScope() {
  if (undo_) undo_();
}

Case MutantCase(const Mutant& mutant, uint64_t seed) {
  if (mutant.build) return mutant.build(seed);
  if (mutant.make) {
    fuzz::OpSpec spec(mutant.op_type);
    spec.Make(mutant.make);
    return fuzz::SampleCase(fuzz::OpCaseGen(spec), seed);
  }
  const std::string type = mutant.spec_type.empty() ? mutant.op_type : mutant.spec_type;
  const fuzz::OpSpec* spec = fuzz::SpecRegistry::Find(type);
  PARITY_ENFORCE(spec != nullptr, ErrorKind::kBadArgument, "mutant ", mutant.name,
                 ": no case builder and no spec for ", type);
  return fuzz::SampleCase(fuzz::OpCaseGen(*spec), seed);
}

}  // namespace parity::mutants
