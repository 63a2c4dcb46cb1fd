// Determinism: the same case run twice on production is bit-identical, and the parallel DAG
// executor gives SimpleNet's results bit for bit. With compare_threads = N > 1 (CheckRequest),
// ops also run on 1 compute thread and on N, SimpleNet and DAG, and must agree bit for bit: the
// intra-op split (core/parallel.h) may not change results. A case with compute_threads > 1 (the
// campaign draws them) is compared with its one-thread run the same way. And one net instance run a
// second time on other values, and on smaller inputs, must give what a fresh net gives on them;
// and a case gives the same bits on empty process-wide caches as after a neighbouring case (one
// argument moved) filled them.
// Inputs fed as views off alignment give the bits of fresh tensors, for the net and for the net
// followed by its backward pass.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/grad/backward.h"
#include "core/operator.h"
#include "core/schema.h"
#include "oracles/case_dims.h"
#include "oracles/finding.h"
#include "oracles/op_facts.h"
#include "oracles/oracle.h"

namespace parity::oracles {
namespace {

std::optional<Finding> CompareRuns(const Case& c, const BackendRun& a, const BackendRun& b,
                                   const std::string& what) {
  if (a.error || b.error) {
    if (a.error && b.error && std::string(a.error->what()) == b.error->what()) return std::nullopt;
    return MakeFinding("determinism", c, "error mismatch",
                       what + ": one run failed and the other did not, or they failed differently");
  }
  for (const std::string& blob : ComparedBlobs(c)) {
    auto x = a.blobs.find(blob), y = b.blobs.find(blob);
    if (x == a.blobs.end() || y == b.blobs.end()) continue;
    if (!BitwiseEqual(x->second, y->second)) {
      Finding finding = MakeFinding("determinism", c, "nondeterministic",
                                    what + ": blob '" + blob + "' differs between runs");
      Comparison comparison =
          CompareWithTruth(x->second, x->second, y->second, GetToleranceClass("exact"));
      AddComparison(&finding, blob, x->second, y->second, comparison);
      return finding;
    }
  }
  return std::nullopt;
}

// `c` with the elements of every floating input in reverse order: other values from the same
// domain (positive stays positive, probabilities stay in [0, 1]), so whatever ran on c runs on it.
// Nullopt when no floating input changes.
std::optional<Case> WithReversedFloatInputs(const Case& c) {
  Case other = c;
  bool changed = false;
  for (auto& input : *other.mutable_inputs()) {
    auto* f = input.mutable_float_data();
    auto* d = input.mutable_double_data();
    if (f->size() > 1) {
      std::reverse(f->begin(), f->end());
      changed = true;
    }
    if (d->size() > 1) {
      std::reverse(d->begin(), d->end());
      changed = true;
    }
  }
  if (!changed) return std::nullopt;
  return other;
}

// `c` with every input axis of one size (picked from the seed among the sizes above 1) cut by one:
// other shapes through the same ops. Nullopt when every input dim is 0 or 1.
std::optional<Case> WithSmallerShapes(const Case& c) {
  const std::vector<int64_t> sizes = InputDimSizes(c);
  if (sizes.empty()) return std::nullopt;
  const int64_t from = sizes[(c.seed() * 0x9E3779B97F4A7C15ull >> 40) % sizes.size()];
  return ShrinkDimEverywhere(c, from, from - 1);
}

// The op index of the first traced op whose outputs differ bit for bit between two runs, or -1.
int FirstDifferingOp(const BackendRun& a, const BackendRun& b) {
  for (size_t k = 0; k < a.trace.size() && k < b.trace.size(); ++k) {
    for (const auto& [name, value] : a.trace[k].outputs) {
      auto other = b.trace[k].outputs.find(name);
      if (other == b.trace[k].outputs.end() || !BitwiseEqual(value, other->second)) {
        return a.trace[k].op_index;
      }
    }
  }
  return -1;
}

// Whether any op of the net, nested ones too, is impure (a random fill continues its stream from
// run to run, so a second run differs by design).
bool HasImpureOp(const caffe2::NetDef& net) {
  bool impure = false;
  ForEachOp(net, [&](const caffe2::OperatorDef& op) {
    const OpSchema* schema = OpSchemaRegistry::Find(op.type());
    if (schema != nullptr && schema->impure()) impure = true;
  });
  return impure;
}

// CompareRuns of run `a` (of `a_case` under `a_options`) and run `b` (of c under `b_options`); a
// difference is blamed on the first top-level op whose outputs differ, from traced runs of both.
std::optional<Finding> CompareAndBlame(const Case& c, const Backend& backend, const Case& a_case,
                                       RunOptions a_options, const BackendRun& a,
                                       RunOptions b_options, const BackendRun& b,
                                       const std::string& what) {
  std::optional<Finding> finding = CompareRuns(c, a, b, what);
  if (!finding) return finding;
  a_options.trace = true;
  b_options.trace = true;
  const int index = FirstDifferingOp(backend.Run(a_case, a_options), backend.Run(c, b_options));
  if (index >= 0) SetBlame(&*finding, index, c.net());
  return finding;
}

// `c`'s net followed by its backward pass, seeded on every floating output `forward` computed
// (statistics left out) with normal values drawn from the case's seed, each seed a case input
// "<output>_parity_dy" as the gradient oracle names it; every blob the ops write is compared.
// Nullopt when the forward run failed or the net has no backward pass.
std::optional<Case> WithBackwardPass(const Case& c, const BackendRun& forward) {
  if (forward.error) return std::nullopt;
  const std::set<std::string> without_gradient = BlobsWithoutGradient(c.net());
  Case backward = c;
  GradientSeeds seeds;
  std::mt19937_64 rng(c.seed() * 0x9E3779B97F4A7C15ull + 29);
  std::normal_distribution<double> normal(0.0, 1.0);
  for (const std::string& y : ComparedBlobs(c)) {
    auto it = forward.blobs.find(y);
    if (it == forward.blobs.end() || without_gradient.count(y)) continue;
    const caffe2::TensorProto& value = it->second;
    const bool is_float = value.data_type() == caffe2::TensorProto::FLOAT;
    if (!is_float && value.data_type() != caffe2::TensorProto::DOUBLE) continue;
    int64_t numel = 1;
    for (int64_t d : value.dims()) numel *= d;
    caffe2::TensorProto* seed = backward.add_inputs();
    seed->set_name(y + "_parity_dy");
    *seed->mutable_dims() = value.dims();
    seed->set_data_type(value.data_type());
    for (int64_t k = 0; k < numel; ++k) {
      if (is_float) {
        seed->add_float_data(static_cast<float>(normal(rng)));
      } else {
        seed->add_double_data(normal(rng));
      }
    }
    seeds.emplace_back(y, seed->name());
  }
  if (seeds.empty()) return std::nullopt;
  BackwardPass pass;
  try {
    pass = GetBackwardPass({c.net().op().begin(), c.net().op().end()}, seeds);
  } catch (const Error&) {
    return std::nullopt;
  }
  if (pass.ops.empty()) return std::nullopt;
  backward.mutable_net()->clear_external_output();
  for (const caffe2::OperatorDef& op : pass.ops) *backward.mutable_net()->add_op() = op;
  return backward;
}

// Whether `op` runs the named engine its type's default kernel is (Conv's "DNNL": oneDNN, which
// builds plans keyed on the op's arguments and shapes); a kernel asked for by another name
// (IM2COL) or a default without a name keeps no such plans.
bool RunsNamedDefaultEngine(const caffe2::OperatorDef& op) {
  const std::string named = OperatorRegistry::DefaultEngine(op.type(), kCpuDeviceType);
  return !named.empty() && (op.engine().empty() || op.engine() == named);
}

// `c` with one integer argument of one top-level op moved up by one (which op, which argument
// and, for a list, which entry: from the case's seed), or nullopt when no op has one, or when the
// schema refuses the one picked once moved. The neighbour's ops read the same inputs with other
// arguments: what a cache keyed on too little would confuse with `c` (a plan keyed without the end
// pads). Arguments of ops that run a named default engine are picked first: theirs are the
// kernels with plans.
std::optional<Case> ArgumentNeighbour(const Case& c, std::string* what) {
  std::vector<std::pair<int, int>> candidates, planned;  // (op, argument)
  for (int i = 0; i < c.net().op_size(); ++i) {
    const caffe2::OperatorDef& op = c.net().op(i);
    if (OpSchemaRegistry::Find(op.type()) == nullptr) continue;
    const bool plans = RunsNamedDefaultEngine(op);
    for (int a = 0; a < op.arg_size(); ++a) {
      if (op.arg(a).has_i() || op.arg(a).ints_size() > 0) {
        candidates.emplace_back(i, a);
        if (plans) planned.emplace_back(i, a);
      }
    }
  }
  if (!planned.empty()) candidates = planned;
  if (candidates.empty()) return std::nullopt;
  // A mix of the seed's bits, so neighbouring seeds pick different arguments.
  const uint64_t pick = c.seed() * 0x9E3779B97F4A7C15ull;
  const auto [op_index, arg_index] = candidates[(pick >> 32) % candidates.size()];
  Case neighbour = c;
  caffe2::OperatorDef* op = neighbour.mutable_net()->mutable_op(op_index);
  caffe2::Argument* arg = op->mutable_arg(arg_index);
  std::string entry;
  if (arg->ints_size() > 0) {
    const int k = static_cast<int>((pick >> 16) % static_cast<uint64_t>(arg->ints_size()));
    if (arg->ints(k) == std::numeric_limits<int64_t>::max()) return std::nullopt;
    arg->set_ints(k, arg->ints(k) + 1);
    entry = " entry " + std::to_string(k);
  } else {
    if (arg->i() == std::numeric_limits<int64_t>::max()) return std::nullopt;
    arg->set_i(arg->i() + 1);
  }
  try {
    OpSchemaRegistry::Get(op->type()).Verify(*op);
  } catch (const Error&) {
    return std::nullopt;
  }
  *what = "op #" + std::to_string(op_index) + " (" + op->type() + ") with argument '" +
          arg->name() + "'" + entry + " moved up by one";
  return neighbour;
}

OracleResult CheckDeterminism(const Case& c, const OracleOptions& options) {
  const Backend& backend = *options.backend;
  const RunOptions simple{false, "simple"};
  const RunOptions dag{false, "dag"};
  BackendRun first = backend.Run(c, simple);
  BackendRun second = backend.Run(c, simple);
  if (auto finding = CompareRuns(c, first, second, "two SimpleNet runs")) return {finding, ""};
  // The same inputs fed as views off alignment (1 to 7 elements into buffers of their own, from
  // the seed) give the same bits: where a kernel's inputs lie must not change its rounding.
  {
    RunOptions offset = simple;
    offset.input_offset = 1 + static_cast<int>(c.seed() % 7);
    BackendRun moved = backend.Run(c, offset);
    if (moved.offset_inputs) {
      if (auto finding = CompareAndBlame(c, backend, c, simple, first, offset, moved,
                                         "fresh input tensors vs the same inputs fed as views " +
                                             std::to_string(offset.input_offset) +
                                             " elements into buffers of their own")) {
        return {finding, ""};
      }
    }
  }
  // The same for the net followed by its backward pass, the gradient seeds fed off alignment as
  // well: a gradient kernel's sums (over broadcast axes, a normalization's channels, a softmax
  // row) read views as often as a forward kernel's (RecurrentNetworkGradient's steps).
  if (std::optional<Case> backward = WithBackwardPass(c, first)) {
    BackendRun plain = backend.Run(*backward, simple);
    RunOptions offset = simple;
    offset.input_offset = 1 + static_cast<int>(c.seed() % 7);
    if (!plain.error) {
      BackendRun moved = backend.Run(*backward, offset);
      if (moved.offset_inputs) {
        if (auto finding = CompareAndBlame(
                *backward, backend, *backward, simple, plain, offset, moved,
                "the net and its backward pass on fresh input tensors vs the same inputs and "
                "gradient seeds fed as views " +
                    std::to_string(offset.input_offset) + " elements into buffers of their own")) {
          return {finding, ""};
        }
      }
    }
  }
  // A case that splits ParallelFor's work (Case.compute_threads) gives one thread's bits.
  if (c.compute_threads() > 1) {
    Case one_thread = c;
    one_thread.clear_compute_threads();
    if (auto finding = CompareRuns(c, backend.Run(one_thread, simple), first,
                                   "SimpleNet on 1 thread vs its work split over " +
                                       std::to_string(c.compute_threads()) + " threads")) {
      return {finding, ""};
    }
  }
  // Two checks of state that outlives one run, for nets without impure ops (a random fill
  // continues its stream from run to run, so a second run differs by design). Both are
  // reproducible from c alone.
  if (!HasImpureOp(c.net())) {
    // The same net instance run a second time, on other values, gives what a fresh net gives on
    // them: no state an op keeps between runs (a cache keyed on too little, a buffer not cleared)
    // may change a result. The other values are c's, reversed.
    if (std::optional<Case> other = WithReversedFloatInputs(c)) {
      RunOptions again = simple;
      again.rerun_inputs = &other->inputs();
      BackendRun reused = backend.Run(c, again);
      if (reused.reran) {
        if (auto finding = CompareAndBlame(c, backend, *other, simple, backend.Run(*other, simple),
                                           again, reused,
                                           "a fresh net vs the same net run again on other inputs "
                                           "(every floating input reversed)")) {
          return {finding, ""};
        }
      }
    }
    // The same net instance run again on smaller inputs gives what a fresh net gives on them: a
    // predictor meets batch after batch of other sizes, and an op that keeps what it derived from
    // the first run's shapes (dims appended to and never cleared, a plan or a check cached on too
    // little) would compute the second run with them. Where a fresh net refuses the smaller case
    // (an argument holds a size), there is nothing to compare.
    if (std::optional<Case> smaller = WithSmallerShapes(c)) {
      BackendRun fresh = backend.Run(*smaller, simple);
      if (!fresh.error) {
        RunOptions again = simple;
        again.rerun_inputs = &smaller->inputs();
        BackendRun reused = backend.Run(c, again);
        if (reused.reran) {
          if (auto finding = CompareAndBlame(c, backend, *smaller, simple, fresh, again, reused,
                                             "a fresh net vs the same net run again on smaller "
                                             "inputs (every axis of one size cut by one)")) {
            return {finding, ""};
          }
        }
      }
    }
    // A process-wide cache (core/process_caches.h: plans keyed by shapes and arguments) holds
    // what its key says: the case on empty caches, and the case after a neighbouring case (one
    // integer argument moved) filled them, give the same bits.
    std::string moved;
    if (std::optional<Case> neighbour = ArgumentNeighbour(c, &moved)) {
      RunOptions fresh = simple;
      fresh.fresh_caches = true;
      RunOptions warmed = simple;
      warmed.warm_up = &*neighbour;
      BackendRun after = backend.Run(c, warmed);
      if (after.warmed) {
        if (auto finding = CompareAndBlame(
                c, backend, c, fresh, backend.Run(c, fresh), warmed, after,
                "on empty process-wide caches vs after a neighbouring case filled them (" + moved +
                    ")")) {
          return {finding, ""};
        }
      }
    }
  }
  BackendRun parallel = backend.Run(c, dag);
  if (auto finding = CompareRuns(c, first, parallel, "SimpleNet vs the DAG executor")) {
    return {finding, ""};
  }
  if (options.compare_threads > 1) {
    const int n = options.compare_threads;
    RunOptions one = simple;
    one.compute_threads = 1;
    RunOptions many = simple;
    many.compute_threads = n;
    RunOptions many_dag = dag;
    many_dag.compute_threads = n;
    BackendRun single = backend.Run(c, one);
    const std::string threads = std::to_string(n) + " compute threads";
    if (auto finding = CompareRuns(c, single, backend.Run(c, many),
                                   "SimpleNet on 1 compute thread vs on " + threads)) {
      return {finding, ""};
    }
    if (auto finding =
            CompareRuns(c, single, backend.Run(c, many_dag),
                        "SimpleNet on 1 compute thread vs the DAG executor on " + threads)) {
      return {finding, ""};
    }
  }
  // Every run failed alike: the case is bad input.
  return {std::nullopt, "", first.error};
}

const bool kRegistered = RegisterOracle("determinism", CheckDeterminism);

}  // namespace
}  // namespace parity::oracles
