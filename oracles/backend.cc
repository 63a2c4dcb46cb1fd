#include "oracles/backend.h"

#include <algorithm>
#include <cstring>
#include <set>

#include "core/net.h"
#include "core/parallel.h"
#include "core/process_caches.h"
#include "core/schema.h"
#include "core/tensor_proto.h"
#include "core/threads.h"
#include "core/workspace.h"
#include "reference/interpreter.h"

namespace parity::oracles {
namespace {

std::map<std::string, std::unique_ptr<Backend>>& Backends() {
  static auto* backends = new std::map<std::string, std::unique_ptr<Backend>>();
  return *backends;
}

// Sets the calling thread's compute threads for a scope (0: leaves them); the DAG executor's
// workers take the setting of the thread that creates the net.
class ComputeThreadsScope {
 public:
  explicit ComputeThreadsScope(int threads) : previous_(ComputeThreads()), set_(threads > 0) {
    if (set_) SetComputeThreads(threads);
  }
  ~ComputeThreadsScope() {
    if (set_) SetComputeThreads(previous_);
  }
  ComputeThreadsScope(const ComputeThreadsScope&) = delete;
  ComputeThreadsScope& operator=(const ComputeThreadsScope&) = delete;

 private:
  int previous_;
  bool set_;
};

}  // namespace

bool Backend::SupportsDtype(int data_type) const {
  // Both engines hold every numeric TensorProto type; strings are not tensors they compute on.
  return data_type != caffe2::TensorProto::STRING && data_type != caffe2::TensorProto::UNDEFINED;
}

bool RegisterBackend(std::unique_ptr<Backend> backend) {
  const std::string name = backend->name();
  PARITY_ENFORCE(!name.empty() && !Backends().count(name), ErrorKind::kInternal, "backend '", name,
                 "' registered twice (or without a name)");
  Backends()[name] = std::move(backend);
  return true;
}

const Backend* FindBackend(const std::string& name) {
  auto it = Backends().find(name);
  return it == Backends().end() ? nullptr : it->second.get();
}

std::vector<std::string> BackendNames() {
  std::vector<std::string> names;
  for (const auto& entry : Backends()) names.push_back(entry.first);
  return names;
}

const Backend& GetBackend(const std::string& name) {
  if (const Backend* backend = FindBackend(name)) return *backend;
  std::string known;
  for (const auto& n : BackendNames()) known += (known.empty() ? "" : ", ") + n;
  throw MakeError(ErrorKind::kBadArgument, "unknown engine '", name, "' (registered: ", known, ")");
}

Blobs CaseInputs(const Case& c) {
  Blobs inputs;
  for (const auto& t : c.inputs()) inputs[t.name()] = t;
  return inputs;
}

std::vector<std::string> ComparedBlobs(const Case& c) {
  if (c.net().external_output_size() > 0) {
    return {c.net().external_output().begin(), c.net().external_output().end()};
  }
  std::set<std::string> inputs;
  for (const auto& t : c.inputs()) inputs.insert(t.name());
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (const auto& op : c.net().op()) {
    for (const auto& out : op.output()) {
      if (!inputs.count(out) && seen.insert(out).second) names.push_back(out);
    }
  }
  return names;
}

namespace {

// A tensor a run leaves is a result only with data (a failed op can leave one without).
bool HasData(const Blob* blob) {
  return blob != nullptr && blob->IsTensor() && blob->GetTensor().defined() &&
         blob->GetTensor().has_data();
}

}  // namespace

BackendRun RunProductionNet(Workspace* ws, const std::function<NetBase*()>& start, bool trace,
                            const ToHost& to_host) {
  BackendRun run;
  try {
    NetBase* instance = start();
    if (trace) {
      instance->RunObserved([&](int index, const Operator& op) {
        OpTrace entry;
        entry.op_index = index;
        entry.op_type = op.type();
        for (int i = 0; i < op.OutputSize(); ++i) {
          if (HasData(op.OutputBlob(i))) {
            entry.outputs[op.OutputName(i)] =
                TensorToProto(to_host(op.OutputBlob(i)->GetTensor()), op.OutputName(i));
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
  for (const std::string& name : ws->Blobs()) {
    const Blob* blob = ws->GetBlob(name);
    if (!HasData(blob)) continue;
    try {
      run.blobs[name] = TensorToProto(to_host(blob->GetTensor()), name);
    } catch (const Error& error) {
      if (!run.error) run.error = error;
    }
  }
  return run;
}

namespace {

// ---- production: the core engine on the CPU ----

class ProductionBackend final : public Backend {
 public:
  ProductionBackend(BackendInfo info, std::string engine)
      : Backend(std::move(info)), engine_(std::move(engine)) {}

  bool SupportsOp(const std::string& op_type) const override {
    return OpSchemaRegistry::Find(op_type) != nullptr;
  }

  BackendRun Run(const Case& c, const RunOptions& options) const override {
    if (options.fresh_caches || options.warm_up != nullptr) ClearProcessCaches();
    if (options.warm_up != nullptr) {
      RunOptions plain = options;
      plain.fresh_caches = false;
      plain.warm_up = nullptr;
      plain.trace = false;
      plain.rerun_inputs = nullptr;
      Run(*options.warm_up, plain);  // whatever it gives: it only fills the caches
      plain.trace = options.trace;
      BackendRun run = Run(c, plain);
      run.warmed = true;
      return run;
    }
    ComputeThreadsScope threads(options.compute_threads);
    // The case's split (Case.compute_threads): ParallelFor over that many threads in chunks of a
    // few elements, so a fuzz-sized tensor takes the paths a large one takes.
    constexpr int64_t kCaseSplitMinWork = 4;
    ParallelSplitScope split(c.compute_threads() > 1
                                 ? ParallelSplit{c.compute_threads(), kCaseSplitMinWork}
                                 : CurrentParallelSplit());
    Workspace ws;
    const auto feed = [&](const google::protobuf::RepeatedPtrField<caffe2::TensorProto>& inputs) {
      for (const auto& input : inputs) {
        Tensor value = TensorFromProto(input);
        const bool floating =
            value.dtype() == DataType::kFloat || value.dtype() == DataType::kDouble;
        if (options.input_offset > 0 && floating) {
          // The value at element `input_offset` of a buffer of its own: a view off alignment.
          Tensor storage(value.dtype(), {options.input_offset + value.numel()});
          const size_t item = value.numel() > 0 ? value.nbytes() / value.numel() : 0;
          if (value.nbytes() > 0) {
            std::memcpy(
                static_cast<char*>(storage.raw_mutable_data()) + options.input_offset * item,
                value.raw_data(), value.nbytes());
          }
          ws.CreateTensor(input.name())
              ->ShareData(storage.View(options.input_offset, value.dims()));
          continue;
        }
        ws.CreateTensor(input.name())->CopyFrom(value);
      }
      if (c.has_init_net()) ws.RunNetOnce(Configured(c.init_net(), options));
    };
    const auto same = [](const Tensor& tensor) { return tensor; };
    NetBase* net = nullptr;
    const auto start = [&] {
      feed(c.inputs());
      net = ws.CreateNet(Configured(c.net(), options));
      return net;
    };
    if (options.rerun_inputs == nullptr) {
      BackendRun run = RunProductionNet(&ws, start, options.trace, same);
      run.offset_inputs = options.input_offset > 0;
      return run;
    }
    BackendRun first = RunProductionNet(&ws, start, false, same);
    if (first.error || net == nullptr) return first;
    BackendRun second = RunProductionNet(
        &ws,
        [&] {
          feed(*options.rerun_inputs);
          return net;
        },
        options.trace, same);
    second.reran = true;
    return second;
  }

 private:
  // Every op runs under the backend's engine, those of sub-nets (Do/If/While bodies, step nets
  // given as NetDef arguments) too, so a kernel under test is exercised wherever it appears.
  static void SetEngine(caffe2::NetDef* net, const std::string& engine) {
    for (auto& op : *net->mutable_op()) {
      op.set_engine(engine);
      for (auto& arg : *op.mutable_arg()) {
        if (arg.has_n()) SetEngine(arg.mutable_n(), engine);
        for (auto& nested : *arg.mutable_nets()) SetEngine(&nested, engine);
      }
    }
  }

  caffe2::NetDef Configured(const caffe2::NetDef& net, const RunOptions& options) const {
    caffe2::NetDef out = net;
    if (!engine_.empty()) SetEngine(&out, engine_);
    if (!options.net_type.empty()) out.set_type(options.net_type);
    return out;
  }

  std::string engine_;
};

// ---- reference: the naive interpreter, f64 or f32 ----

class ReferenceBackend final : public Backend {
 public:
  ReferenceBackend(BackendInfo info, reference::Precision precision)
      : Backend(std::move(info)), precision_(precision) {}

  // Asked lazily: the reference's op table may still be filling while backends register.
  bool SupportsOp(const std::string& op_type) const override {
    static const std::set<std::string>* ops = [] {
      std::vector<std::string> names = reference::SupportedOps();
      return new std::set<std::string>(names.begin(), names.end());
    }();
    return ops->count(op_type) > 0;
  }

  // The interpreter has one executor; `net_type` changes nothing here.
  BackendRun Run(const Case& c, const RunOptions& options) const override {
    BackendRun run;
    reference::RunOptions reference_options;
    reference_options.precision = precision_;
    reference_options.trace = options.trace;
    try {
      reference::RunResult result =
          c.has_init_net()
              ? reference::RunNets(c.init_net(), c.net(), CaseInputs(c), reference_options)
              : reference::RunNet(c.net(), CaseInputs(c), reference_options);
      run.blobs = std::move(result.blobs);
      run.first_non_finite = std::move(result.first_non_finite);
      const int init_ops = c.has_init_net() ? c.init_net().op_size() : 0;
      for (auto& entry : result.trace) {
        if (entry.op_index < init_ops) continue;
        OpTrace trace;
        trace.op_index = entry.op_index - init_ops;
        trace.op_type = entry.op_type;
        trace.outputs = std::move(entry.outputs);
        run.trace.push_back(std::move(trace));
      }
    } catch (const Error& error) {
      run.error = error;
    }
    return run;
  }

 private:
  reference::Precision precision_;
};

}  // namespace

std::unique_ptr<Backend> MakeProductionBackend(std::string name, std::string engine,
                                               std::string description) {
  BackendInfo info{std::move(name), "cpu", Precision::kF32, std::move(description)};
  return std::make_unique<ProductionBackend>(std::move(info), std::move(engine));
}

PARITY_REGISTER_BACKEND(MakeProductionBackend(kProduction, "",
                                              "the production engine on the CPU (core/)"));
// The conv family's default kernels are oneDNN's (engine DNNL); this keeps their im2col kernels
// (engine IM2COL) reachable by every oracle: parity fuzz --engine production-im2col.
PARITY_REGISTER_BACKEND(MakeProductionBackend(
    "production-im2col", "IM2COL", "the production engine with the conv family's im2col kernels"));
PARITY_REGISTER_BACKEND(std::make_unique<ReferenceBackend>(
    BackendInfo{kReference, "cpu", Precision::kF64,
                "the reference interpreter in f64: the truth (reference/)"},
    reference::Precision::kF64));
PARITY_REGISTER_BACKEND(std::make_unique<ReferenceBackend>(
    BackendInfo{kReferenceF32, "cpu", Precision::kF32,
                "the reference interpreter in f32: sizes the tolerances"},
    reference::Precision::kF32));

}  // namespace parity::oracles
