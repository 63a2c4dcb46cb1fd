// Every engine that can run a net is a Backend, registered by name (architecture §1; XLA's
// HloRunnerInterface): "production" (the core engine on the CPU), "reference" (the naive
// interpreter in f64, the truth), "reference-f32" (the same interpreter in f32, the yardstick that
// sizes tolerances). Later engines (production-cuda, production+passes) and test-only ones
// (mutant kernels, engines that crash or hang) register the same way, from their own files, and
// every caller — the oracles, `parity run/check/fuzz/repro`, tests and benches — finds them by
// name without a switch anywhere:
//
//   PARITY_REGISTER_BACKEND(MakeProductionBackend("production-fast", "FAST", "FC under FAST"));
//   const Backend& b = GetBackend("production-fast");   // kBadArgument, listing names, if unknown
//   BackendRun run = b.Run(c, {.trace = true});
//
// A backend runs a Case (a NetDef, an optional init net, and input tensors) and returns every
// tensor blob afterwards, an optional per-op trace (for localization) and the error, if any.
// Results travel as TensorProtos by blob name, so every backend is compared in one currency.
#ifndef PARITY_ORACLES_BACKEND_H_
#define PARITY_ORACLES_BACKEND_H_

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/proto/caffe2.pb.h"
#include "core/proto/error.h"
#include "core/proto/parity.pb.h"
#include "core/tensor.h"

namespace parity {
class NetBase;
class Workspace;
}  // namespace parity

namespace parity::oracles {

using Blobs = std::map<std::string, caffe2::TensorProto>;

struct OpTrace {
  int op_index = 0;  // position in the main net (init-net ops are not traced)
  std::string op_type;
  Blobs outputs;  // every tensor output of the op right after it ran
};

struct BackendRun {
  Blobs blobs;                 // every tensor blob after the run (inputs included)
  std::vector<OpTrace> trace;  // filled when asked
  std::optional<Error> error;  // the run failed (bad input or a kernel's complaint)
  // The reference only: where a floating value first came out inf or NaN, in any net at any
  // depth (reference::RunResult::first_non_finite); empty when none did, and for other backends.
  std::string first_non_finite;
  // The blobs are a second run of the same net instance (RunOptions::rerun_inputs).
  bool reran = false;
  // The run followed RunOptions::warm_up on emptied process-wide caches.
  bool warmed = false;
  // The floating inputs were fed as views off alignment (RunOptions::input_offset).
  bool offset_inputs = false;
};

enum class Precision { kF32, kF64 };

struct RunOptions {
  bool trace = false;  // keep every op's outputs (localization)
  // Replaces NetDef.type ("simple", "dag") where the backend has several executors; "" keeps it.
  std::string net_type;
  // The compute threads (core/threads.h) the run's ops may use, where the backend runs on the
  // CPU with parity's kernels; 0 keeps the calling thread's setting.
  int compute_threads = 0;
  // Where the backend keeps a net between runs (production): run the net on the case's inputs,
  // then feed these values (by blob name), run the init net again and run the same net instance a
  // second time; the blobs returned are the second run's, and BackendRun::reran says it was done.
  // A predictor runs one net on batch after batch: state an op instance keeps from one run to the
  // next (a cache keyed on too little, a buffer not cleared) shows only so.
  const google::protobuf::RepeatedPtrField<caffe2::TensorProto>* rerun_inputs = nullptr;
  // Where the backend has process-wide caches (production: core/process_caches.h): empty them
  // before the run; with `warm_up`, empty them, run that case first (its result and any error
  // ignored) and then this one, so a cache keyed on too little hands the warm-up's entry to this
  // case. BackendRun::warmed says it was done.
  bool fresh_caches = false;
  const Case* warm_up = nullptr;
  // Where the backend feeds tensors of its own (production): each float and double input fed as
  // a view starting this many elements into storage of its own, off the allocator's alignment,
  // as a RecurrentNetwork alias or any view at an offset is. A kernel's bits must not depend on
  // where its inputs lie (a vectorized sum that starts its packets at the first aligned address
  // rounds otherwise). BackendRun::offset_inputs says it was done.
  int input_offset = 0;
};

struct BackendInfo {
  std::string name;
  std::string device = "cpu";  // "cpu" or "cuda"
  Precision precision = Precision::kF32;
  std::string description;
};

class Backend {
 public:
  explicit Backend(BackendInfo info) : info_(std::move(info)) {}
  virtual ~Backend() = default;

  const BackendInfo& info() const { return info_; }
  const std::string& name() const { return info_.name; }

  // Whether the backend has a kernel for `op_type` (a net with other ops fails to run on it).
  virtual bool SupportsOp(const std::string& op_type) const = 0;
  // Whether it computes in this TensorProto.DataType (every backend keeps integers exact).
  virtual bool SupportsDtype(int data_type) const;

  virtual BackendRun Run(const Case& c, const RunOptions& options = {}) const = 0;

 private:
  BackendInfo info_;
};

// Registers a backend under its name; a second backend of the same name is an internal error.
bool RegisterBackend(std::unique_ptr<Backend> backend);
const Backend* FindBackend(const std::string& name);
// The named backend, or kBadArgument naming every registered backend.
const Backend& GetBackend(const std::string& name);
std::vector<std::string> BackendNames();  // sorted

// The names of the three built-in backends.
inline constexpr char kProduction[] = "production";
inline constexpr char kReference[] = "reference";
inline constexpr char kReferenceF32[] = "reference-f32";
// The production engine on CUDA device 0 (cuda_backend.cc); registered in every build.
inline constexpr char kProductionCuda[] = "production-cuda";

// A production engine on the CPU that runs every op under kernel engine `engine` (an op without a
// kernel under it falls back to the default one, as in Caffe2): how test code swaps one kernel.
std::unique_ptr<Backend> MakeProductionBackend(std::string name, std::string engine,
                                               std::string description);

// A tensor a run left, brought to the host for the comparison: the tensor itself on the CPU,
// gpu::ToCpu on a device. May throw parity::Error: a device kernel's late (asynchronous) error
// surfaces at the copy.
using ToHost = std::function<Tensor(const Tensor&)>;

// What every production engine does around its executor, whatever its device: `start` fills `ws`
// (inputs, init net, copies to the device) and returns the net to run; the net runs, traced when
// `trace` (each op's tensor outputs right after it ran), and every tensor blob with data comes
// back through `to_host`. An Error from `start`, the run or a traced copy is the run's error; one
// from the final copies too, unless the run had already failed (the first error is the cause).
BackendRun RunProductionNet(Workspace* ws, const std::function<NetBase*()>& start, bool trace,
                            const ToHost& to_host);

// The same on CUDA device 0: every op of the main net on the device under kernel engine `engine`
// (sub-nets stay as written), the inputs and the init net's results copied there first. A test's
// GPU kernel (a GPU mutant) is swapped in this way; the backend's device is "cuda".
std::unique_ptr<Backend> MakeCudaBackend(std::string name, std::string engine,
                                         std::string description);

// The case's inputs by blob name.
Blobs CaseInputs(const Case& c);

// Blobs the oracles compare: the net's external outputs, else every blob an op writes that is not
// an input of the case.
std::vector<std::string> ComparedBlobs(const Case& c);

}  // namespace parity::oracles

#define PARITY_BACKEND_CONCAT_INNER(a, b) a##b
#define PARITY_BACKEND_CONCAT(a, b) PARITY_BACKEND_CONCAT_INNER(a, b)
#define PARITY_REGISTER_BACKEND(...)                                                 \
  static const bool PARITY_BACKEND_CONCAT(parity_registered_backend_, __COUNTER__) = \
      ::parity::oracles::RegisterBackend(__VA_ARGS__)

#endif  // PARITY_ORACLES_BACKEND_H_
