// Internal to the mutant catalogue: how a mutant is made (a Wrap around the real kernel, or an
// installer that swaps a registry entry), the catalogue's entries, and the argument-editing helpers
// the entries share. The catalogue's parts add their entries with Add*Mutants.
#ifndef PARITY_TESTS_MUTANTS_MUTANT_WRAP_H_
#define PARITY_TESTS_MUTANTS_MUTANT_WRAP_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/operator.h"
#include "core/proto/caffe2.pb.h"
#include "core/tensor.h"
#include "core/transforms/pass.h"
#include "tests/mutants/mutants.h"

namespace parity::mutants {

// The wrapping kernel of a kernel mutant.
struct Wrap {
  // Input i is replaced by a scratch tensor computed from the original.
  std::map<int, std::function<void(const Operator& self, const Tensor& in, Tensor* out)>> inputs;
  // Edits the inner kernel's def (after the input renaming); may read the mutant's inputs.
  std::function<void(const Operator& self, caffe2::OperatorDef* inner)> edit;
  // Post-processes the outputs (the mutant's inputs still name the original blobs).
  std::function<void(Operator& self)> after;
  // CUDA mutants (no `inputs`, no `after`: device memory is not the host's): post-processes host
  // copies of the outputs, given host copies of the inputs; the outputs go back to the device.
  std::function<void(const Operator& self, const std::vector<Tensor>& inputs,
                     std::vector<Tensor>* outputs)>
      after_on_host;
};

struct Entry {
  Mutant mutant;
  Wrap wrap;  // unused when mutant.install is set
};

Mutant M(const std::string& name, const std::string& op_type, const std::string& oracle,
         const std::string& family, const std::string& description);

template <typename T>
struct NonDeduced {
  using type = T;
};

// A mutant's `install` that plants `edit` through a fault-injection seam's Replace function
// (ReplaceBackwardPassEdit, ReplaceTensorLoadEdit) and puts the previous edit back when undone.
template <typename Edit>
std::function<std::function<void()>()> ThroughSeam(Edit (*replace)(Edit),
                                                   typename NonDeduced<Edit>::type edit) {
  return [replace, edit] {
    auto previous = std::make_shared<Edit>(replace(edit));
    return std::function<void()>([replace, previous] { replace(*previous); });
  };
}

// A mutant of graph transform `pass` (family "transform", killed by the transform oracle): while
// installed, the registered pass runs as `mutated_run(net, real)`, around or instead of the real
// pass (transform_mutants.cc).
using PassRun = std::function<void(transforms::TransformedNet*)>;
Mutant PassRunMutant(const std::string& name, const std::string& pass,
                     const std::string& description, std::function<Case(uint64_t)> build,
                     std::function<void(transforms::TransformedNet*, const PassRun&)> mutated_run);

// Argument editing on OperatorDefs.
const caffe2::Argument* FindArg(const caffe2::OperatorDef& def, const std::string& name);
void RemoveArg(caffe2::OperatorDef* def, const std::string& name);
void SetInt(caffe2::OperatorDef* def, const std::string& name, int64_t value);
void SetFloat(caffe2::OperatorDef* def, const std::string& name, float value);
void SetString(caffe2::OperatorDef* def, const std::string& name, const std::string& value);
void SetInts(caffe2::OperatorDef* def, const std::string& name, const std::vector<int64_t>& v);
int64_t IntArg(const caffe2::OperatorDef& def, const std::string& name, int64_t fallback);
float FloatArgOr(const caffe2::OperatorDef& def, const std::string& name, float fallback);
std::vector<int64_t> IntsArg(const caffe2::OperatorDef& def, const std::string& name);
// Swaps two scalar arguments or two entries of a list argument (pads: t, l, b, r).
void SwapPads(caffe2::OperatorDef* def, const char* a, const char* b, int ia, int ib);
int64_t Canonical(int64_t axis, int64_t rank);
// Shifts an integer axis argument by one (wrapping within the rank of input 0).
void ShiftAxis(const Operator& self, caffe2::OperatorDef* def, const std::string& name,
               int64_t fallback);
float* FloatOutput(Operator& self, int i);
const float* FloatInput(const Operator& self, int i);
// Input replacements: a tensor of zeros like the original; the original negated.
void ZerosLike(const Operator& self, const Tensor& in, Tensor* out);

// The parts of the catalogue, in catalogue order.
void AddKernelMutants(std::vector<Entry>* out);      // kernel_mutants.cc
void AddMoreKernelMutants(std::vector<Entry>* out);  // kernel_mutants_more.cc
void AddMakerMutants(std::vector<Entry>* out);       // maker_mutants.cc
void AddInferenceMutants(std::vector<Entry>* out);   // inference_mutants.cc
void AddBackwardMutants(std::vector<Entry>* out);    // backward_mutants.cc
void AddExecutorMutants(std::vector<Entry>* out);    // executor_mutants.cc
void AddRnnMutants(std::vector<Entry>* out);         // rnn_mutants.cc
void AddBuilderMutants(std::vector<Entry>* out);     // builder_mutants.cc
void AddControlMutants(std::vector<Entry>* out);     // control_mutants.cc
void AddTransformMutants(std::vector<Entry>* out);   // transform_mutants.cc
void AddOverwriteMutants(std::vector<Entry>* out);   // overwrite_mutants.cc
void AddEngineMutants(std::vector<Entry>* out);      // engine_mutants.cc
void AddFileMutants(std::vector<Entry>* out);        // file_mutants.cc
void AddCudaMutants(std::vector<Entry>* out);        // cuda_mutants.cc

// The kernel of a CUDA mutant: the op's default CUDA kernel run on the edited def, then
// `after_on_host` through host copies (cuda_mutants.cc; CUDA builds register it).
std::unique_ptr<Operator> MakeCudaMutantKernel(const caffe2::OperatorDef& def, Workspace* ws,
                                               const Wrap* wrap);

}  // namespace parity::mutants

#endif  // PARITY_TESTS_MUTANTS_MUTANT_WRAP_H_
