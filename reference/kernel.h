// Internal machinery shared by the reference kernels: workspaces, argument reading, the op table
// and the context a kernel runs in. Not part of the public API (see interpreter.h).
#ifndef PARITY_REFERENCE_KERNEL_H_
#define PARITY_REFERENCE_KERNEL_H_

#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/proto/caffe2.pb.h"
#include "core/proto/error.h"
#include "reference/interpreter.h"
#include "reference/value.h"

namespace parity::reference {

// ---- Workspaces ----

template <typename T>
class Workspace {
 public:
  explicit Workspace(Workspace* parent = nullptr) : parent_(parent) {}

  // Do's bindings: inner name -> (outer workspace, outer name). A workspace with bindings has no
  // fall-through parent: it sees only its own and its bound blobs.
  void SetBindings(std::map<std::string, std::pair<Workspace*, std::string>> bindings) {
    bindings_ = std::move(bindings);
  }
  const std::map<std::string, std::pair<Workspace*, std::string>>& bindings() const {
    return bindings_;
  }

  // The blob `name` as seen from here, or nullptr.
  Value<T>* Find(const std::string& name) {
    auto b = bindings_.find(name);
    if (b != bindings_.end()) return b->second.first->Find(b->second.second);
    auto it = blobs_.find(name);
    if (it != blobs_.end()) return &it->second;
    return parent_ ? parent_->Find(name) : nullptr;
  }

  // Stores `v` where `name` resolves (binding, local, or a parent that has it), else locally.
  // Writing a tensor of the same dtype and element count over an existing tensor writes into its
  // storage, so an Alias of it sees the new values (Caffe2 keeps the buffer in that case).
  // `rebind` (Alias) always replaces the blob's value, so it shares the new storage instead.
  void Write(const std::string& name, Value<T> v, bool rebind = false) {
    auto b = bindings_.find(name);
    if (b != bindings_.end()) {
      b->second.first->Write(b->second.second, std::move(v), rebind);
      return;
    }
    Value<T>* existing = FindNoBindings(name);
    if (!existing) {
      blobs_[name] = std::move(v);
      return;
    }
    if (!rebind && existing->dtype == v.dtype && IsTensorType(v.dtype) &&
        existing->size() == v.size() && (existing->real || existing->ints)) {
      if (v.real) *existing->real = *v.real;
      if (v.ints) *existing->ints = *v.ints;
      existing->dims = v.dims;
      return;
    }
    *existing = std::move(v);
  }

  std::map<std::string, Value<T>>& local_blobs() { return blobs_; }
  Workspace* parent() const { return parent_; }

 private:
  Value<T>* FindNoBindings(const std::string& name) {
    auto it = blobs_.find(name);
    if (it != blobs_.end()) return &it->second;
    return parent_ ? parent_->Find(name) : nullptr;
  }

  Workspace* parent_;
  std::map<std::string, std::pair<Workspace*, std::string>> bindings_;
  std::map<std::string, Value<T>> blobs_;
};

// CreateScope's blob: a stack of child workspaces. clear() keeps the allocated workspaces (and
// their local blobs), which a later push reuses, as Caffe2's WorkspaceStack does.
template <typename T>
struct ScopeStack {
  std::vector<std::shared_ptr<Workspace<T>>> workspaces;
  int top = -1;
};

// ---- Arguments ----

using ArgTable = std::vector<std::pair<std::string, std::string>>;

// Reads OperatorDef.arg by name; defaults come from the op's table, and reading a name that is not
// in the table is a bug in the reference (kInternal), which keeps the table complete.
class Args {
 public:
  Args(const caffe2::OperatorDef& def, const ArgTable& table);
  bool Has(const std::string& name) const;
  int64_t Int(const std::string& name) const;
  double Float(const std::string& name) const;
  bool Bool(const std::string& name) const { return Int(name) != 0; }
  std::string Str(const std::string& name) const;
  std::vector<int64_t> Ints(const std::string& name) const;
  std::vector<double> Floats(const std::string& name) const;
  std::vector<std::string> Strs(const std::string& name) const;
  // A NetDef argument: the `n` field, or text format in `s` (as RecurrentNetwork's builder uses).
  caffe2::NetDef Net(const std::string& name) const;
  const caffe2::Argument* Raw(const std::string& name) const;
  // The string argument `<blob>.rename` (memonger's, named after a blob: no table lists them),
  // else `blob`.
  std::string Renamed(const std::string& blob) const;

 private:
  const std::string& Default(const std::string& name) const;
  const ArgTable& table_;
  std::map<std::string, const caffe2::Argument*> by_name_;
};

// ---- The op table ----

template <typename T>
class OpContext;

struct OpSchema {
  std::string type;
  int min_inputs = 0, max_inputs = 0, min_outputs = 0, max_outputs = 0;  // -1: unbounded
  ArgTable args;
  void (*f64)(OpContext<double>&) = nullptr;
  void (*f32)(OpContext<float>&) = nullptr;
  // (input, output) index pairs that may name the same blob (Caffe2's AllowInplace); any other
  // input naming an output blob is rejected. `enforce_inplace` pairs must name the same blob
  // when both exist (Caffe2's EnforceInplace, e.g. SpatialBN's running statistics).
  std::vector<std::pair<int, int>> inplace;
  std::vector<std::pair<int, int>> enforce_inplace;
  // Every input may be written in place by any output (control ops bind blobs by name).
  bool any_inplace = false;
};

class Registry {
 public:
  static const Registry& Get();
  // Returns the stored schema, so a registration can add its in-place pairs:
  //   r->Add({"Relu", 1, 1, 1, 1, {}, PARITY_REF_KERNEL(Relu)}).inplace = {{0, 0}};
  OpSchema& Add(OpSchema schema);
  const OpSchema* Find(const std::string& type) const;
  const std::map<std::string, OpSchema>& all() const { return ops_; }

 private:
  std::map<std::string, OpSchema> ops_;
};

#define PARITY_REF_KERNEL(fn) &fn<double>, &fn<float>

// Each family file registers its ops from a function of its own, named to the registry at
// static-init time (so //reference is alwayslink):
//   void RegisterUnaryOps(Registry* r) { r->Add({...}); ... }
//   PARITY_REFERENCE_FAMILY(RegisterUnaryOps);
// A test or an out-of-tree family adds ops the same way from its own file. The registry runs every
// family once, when it is first used (after static initialization).
using FamilyRegistrar = void (*)(Registry*);
bool AddFamily(FamilyRegistrar registrar);

#define PARITY_REFERENCE_CONCAT_INNER(a, b) a##b
#define PARITY_REFERENCE_CONCAT(a, b) PARITY_REFERENCE_CONCAT_INNER(a, b)
#define PARITY_REFERENCE_FAMILY(registrar)                                           \
  static const bool PARITY_REFERENCE_CONCAT(parity_reference_family_, __COUNTER__) = \
      ::parity::reference::AddFamily(registrar)

// ---- Running ----

template <typename T>
class Runner {
 public:
  explicit Runner(const RunOptions& options);
  const RunOptions& options() const { return options_; }
  std::mt19937_64& rng() { return rng_; }
  // Runs every op of `net` in `ws`; top-level runs record the trace.
  void RunNet(Workspace<T>* ws, const caffe2::NetDef& net, bool top_level);
  std::vector<TraceEntry>& trace() { return trace_; }
  const std::string& first_non_finite() const { return first_non_finite_; }

 private:
  void RunOp(Workspace<T>* ws, const caffe2::OperatorDef& op, int index, bool top_level);
  RunOptions options_;
  std::mt19937_64 rng_;
  std::vector<TraceEntry> trace_;
  int trace_index_ = 0;
  std::string first_non_finite_;  // RunResult::first_non_finite
};

template <typename T>
class OpContext {
 public:
  OpContext(const caffe2::OperatorDef& def, const OpSchema& schema, Workspace<T>* ws,
            Runner<T>* runner)
      : def(def), args(def, schema.args), ws(ws), runner(runner), outputs_(def.output_size()) {}

  int InputSize() const { return def.input_size(); }
  int OutputSize() const { return def.output_size(); }
  const std::string& InputName(int i) const { return def.input(i); }
  const std::string& OutputName(int i) const { return def.output(i); }

  // Input i as a tensor; kMissingBlob when it does not exist.
  const Value<T>& Input(int i) const;
  // Input i, which must be a floating tensor (kShapeMismatch otherwise).
  const Value<T>& RealInput(int i) const;
  // Input i, which must be an integer tensor (int32 or int64 unless `any_int`).
  const Value<T>& IndexInput(int i) const;

  Value<T> NewTensor(DType dtype, const Dims& dims) const {
    return MakeTensor<T>(dtype, dims, runner->options().max_alloc_bytes);
  }
  Value<T> NewReal(const Dims& dims) const { return NewTensor(DType::kReal, dims); }
  // Checks that a tensor (or an index table) of `dims` fits the allocation cap before a kernel
  // builds per-element bookkeeping for it (kResourceLimit otherwise).
  void CheckAlloc(const Dims& dims) const {
    const int64_t n = Numel(dims);
    PARITY_ENFORCE(n <= runner->options().max_alloc_bytes / 8, ErrorKind::kResourceLimit, "shape ",
                   ShapeString(dims), " is over the allocation cap of ",
                   runner->options().max_alloc_bytes, " bytes");
  }
  void SetOutput(int i, Value<T> v) { outputs_.at(i) = std::move(v); }
  // Output i shares v's storage (Alias) instead of being written into the blob's old buffer.
  void SetOutputShared(int i, Value<T> v) {
    SetOutput(i, std::move(v));
    rebind_.resize(outputs_.size());
    rebind_[i] = true;
  }
  std::vector<Value<T>>& outputs() { return outputs_; }
  bool rebind(int i) const { return i < static_cast<int>(rebind_.size()) && rebind_[i]; }

  const caffe2::OperatorDef& def;
  Args args;
  Workspace<T>* ws;
  Runner<T>* runner;

 private:
  std::vector<Value<T>> outputs_;
  std::vector<bool> rebind_;
};

// "input 'X' [2, 3]" for messages.
template <typename T>
std::string Describe(const OpContext<T>& c, int input) {
  const Value<T>* v = c.ws->Find(c.InputName(input));
  std::string s = "input " + std::to_string(input) + " '" + c.InputName(input) + "'";
  if (v && IsTensorType(v->dtype)) s += " " + ShapeString(v->dims) + " " + DTypeName(v->dtype);
  return s;
}

}  // namespace parity::reference

#endif  // PARITY_REFERENCE_KERNEL_H_
