#include "fuzz/spec.h"

#include <rapidcheck.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>

#include "oracles/op_facts.h"

namespace parity::fuzz {

OpInstance::OpInstance(const std::string& type, int num_outputs)
    : type_(type), num_outputs_(num_outputs) {}

int OpInstance::Input(const std::vector<int64_t>& dims, Domain domain, DataType dtype) {
  InputSpec spec;
  spec.dims = dims;
  spec.domain = domain;
  spec.dtype = dtype;
  spec.differentiable = dtype == DataType::kFloat || dtype == DataType::kDouble;
  inputs_.push_back(spec);
  return static_cast<int>(inputs_.size()) - 1;
}

int OpInstance::IndexInput(const std::vector<int64_t>& dims, int64_t bound, DataType dtype) {
  int i = Input(dims, Domain::kIndex, dtype);
  inputs_[i].bound = bound;
  inputs_[i].differentiable = false;
  return i;
}

int OpInstance::ShapeInput(const std::vector<int64_t>& values, DataType dtype) {
  int i = Input({static_cast<int64_t>(values.size())}, Domain::kShape, dtype);
  inputs_[i].values = values;
  inputs_[i].differentiable = false;
  return i;
}

int OpInstance::IntegerInput(const std::vector<int64_t>& dims, DataType dtype, int64_t lo,
                             int64_t hi, bool nonzero) {
  int64_t lowest = 0, highest = 0;
  switch (dtype) {
    case DataType::kInt8: lowest = -128, highest = 127; break;
    case DataType::kUint8: lowest = 0, highest = 255; break;
    case DataType::kInt16: lowest = -32768, highest = 32767; break;
    case DataType::kUint16: lowest = 0, highest = 65535; break;
    case DataType::kInt32: lowest = INT32_MIN, highest = INT32_MAX; break;
    default: lowest = INT64_MIN, highest = INT64_MAX; break;
  }
  lo = std::max(lo, lowest);
  hi = std::min(hi, highest);
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  InputSpec spec;
  spec.dims = dims;
  spec.dtype = dtype;
  spec.domain = Domain::kShape;
  spec.differentiable = false;
  spec.values = *rc::gen::container<std::vector<int64_t>>(
      static_cast<size_t>(n), rc::gen::inRange<int64_t>(lo, hi == INT64_MAX ? hi : hi + 1));
  if (nonzero) {
    // A zero becomes the nearest non-zero value in range (1, or -1 when 1 is out of it).
    for (int64_t& v : spec.values) {
      if (v == 0) v = hi >= 1 ? 1 : -1;
    }
  }
  return AddInput(spec);
}

int OpInstance::ScopeInput() {
  int i = Input({}, Domain::kScope, DataType::kUndefined);
  inputs_[i].differentiable = false;
  return i;
}

OpInstance& OpInstance::Arg(const std::string& name, int64_t value) {
  caffe2::Argument arg;
  arg.set_name(name);
  arg.set_i(value);
  args_.push_back(arg);
  return *this;
}

OpInstance& OpInstance::Arg(const std::string& name, float value) {
  caffe2::Argument arg;
  arg.set_name(name);
  arg.set_f(value);
  args_.push_back(arg);
  return *this;
}

OpInstance& OpInstance::Arg(const std::string& name, const std::vector<int64_t>& values) {
  caffe2::Argument arg;
  arg.set_name(name);
  for (int64_t v : values) arg.add_ints(v);
  args_.push_back(arg);
  return *this;
}

OpInstance& OpInstance::Arg(const std::string& name, const std::string& value) {
  caffe2::Argument arg;
  arg.set_name(name);
  arg.set_s(value);
  args_.push_back(arg);
  return *this;
}

OpSpec& OpSpec::Skip(const std::string& oracle, const std::string& reason) {
  skips_.emplace_back(oracle, reason);
  return *this;
}

bool OpSpec::Skips(const std::string& oracle) const {
  return std::any_of(skips_.begin(), skips_.end(),
                     [&](const auto& skip) { return skip.first == oracle; });
}

namespace {

std::map<std::string, std::unique_ptr<OpSpec>>& Specs() {
  static auto* specs = new std::map<std::string, std::unique_ptr<OpSpec>>();
  return *specs;
}

// The oracles read each op's tolerance class and skipped oracles through this lookup
// (oracles/op_facts.h), so the specs stay the one place those facts are written.
const bool kOpFactsInstalled =
    oracles::SetOpFactsLookup([](const std::string& type) -> std::optional<oracles::OpTestFacts> {
      const OpSpec* spec = SpecRegistry::Find(type);
      if (spec == nullptr) return std::nullopt;
      return oracles::OpTestFacts{spec->tolerance(), spec->skips()};
    });

}  // namespace

OpSpec& SpecRegistry::New(const std::string& type) {
  auto& slot = Specs()[type];
  if (slot != nullptr) {
    std::fprintf(stderr, "parity: op spec %s registered twice\n", type.c_str());
    std::abort();
  }
  slot = std::make_unique<OpSpec>(type);
  return *slot;
}

const OpSpec* SpecRegistry::Find(const std::string& type) {
  auto it = Specs().find(type);
  return it == Specs().end() ? nullptr : it->second.get();
}

std::vector<std::string> SpecRegistry::Types() {
  std::vector<std::string> types;
  for (const auto& [type, spec] : Specs()) types.push_back(type);
  return types;
}

std::vector<int64_t> AnyDims(int min_rank, int max_rank, int64_t max_dim) {
  // The rare draws below test `Pick(16) == 15`: Pick shrinks towards 0, so a shrunk case leaves
  // them for the common shapes whenever the failure allows.
  int rank;
  if (max_rank == kAnyRank && Pick(16) == 15) {
    // An op that takes any rank meets rank 5 or 6 in one draw of 16 (dims of at most 3 there, so
    // the case stays small): axis merging in reductions, transposes and broadcasts, and rank
    // limits of kernels, past the ranks of images.
    rank = 5 + Pick(2);
    max_dim = std::min<int64_t>(max_dim, 3);
  } else {
    rank = *rc::gen::inRange(min_rank, (max_rank == kAnyRank ? 4 : max_rank) + 1);
  }
  std::vector<int64_t> dims;
  for (int i = 0; i < rank; ++i) dims.push_back(*rc::gen::inRange<int64_t>(1, max_dim + 1));
  // One draw in 16 holds an empty dim: both halves must take an empty tensor, or refuse it with
  // the same error (a max over nothing, a mean over an empty last dim, a fill's fan_in of 0 / 0,
  // a batch norm without channels all once differed between them). A whole-net draw passes it on
  // to every op downstream.
  if (rank > 0 && Pick(16) == 15) dims[Pick(rank)] = 0;
  return dims;
}

int64_t Dim(int64_t min, int64_t max) { return *rc::gen::inRange<int64_t>(min, max + 1); }

int Pick(int n) { return *rc::gen::resize(rc::kNominalSize, rc::gen::inRange(0, n)); }

std::vector<int64_t> BlockEdgeDims(int64_t block, int64_t max_blocks) {
  const int64_t n = block * *rc::gen::inRange<int64_t>(1, max_blocks + 1) +
                    *rc::gen::elementOf(std::vector<int64_t>{0, 1, block - 1});
  if (*rc::gen::arbitrary<bool>()) return {n};
  return {1, n};
}

}  // namespace parity::fuzz
