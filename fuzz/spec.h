// Op test specs: each op's test inputs described once (architecture §4). A spec says how to build
// one instance of the op — its arguments and the shapes, dtypes and value domains of its inputs —
// from RapidCheck choices, so the same description serves single-op properties, whole-net
// generation, shrinking and reproducible fuzz cases:
//
//   PARITY_OP_SPEC(Relu).Tolerance("exact").Make([](const Primary* primary) {
//     OpInstance op("Relu");
//     op.Input(primary ? *primary : AnyDims(), Domain::kAwayFromZero);  // kink at 0
//     return op;
//   });
//
// Inside Make, draw with `*rc::gen::...` (it runs under rc::gen::exec). `primary`, when given, is
// the dims of an existing float blob the op must take as input 0 (net generation); return
// std::nullopt if the op cannot take it.
#ifndef PARITY_FUZZ_SPEC_H_
#define PARITY_FUZZ_SPEC_H_

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/proto/caffe2.pb.h"
#include "core/types.h"

namespace parity::fuzz {

// Where an input's values come from. Margins keep inputs away from kinks, ties and poles, so
// finite differences never straddle one and f32/f64 never fall on different sides.
enum class Domain {
  kAny,           // uniform in [-1, 1]
  kAwayFromZero,  // ±[0.1, 1]: kinks at 0 (Relu, Abs, LeakyRelu, Elu)
  kPositive,      // [0.5, 2]: Log, Sqrt, denominators, variances
  kProbability,   // [0.05, 0.95]
  kDistinct,      // [-1, 1] with every pair at least 0.01 apart (Max, MaxPool, ReduceMax ties)
  kSmall,         // [-0.5, 0.5] (Exp chains, Pow bases' exponents)
  // The next three are numerically hard on purpose and drawn so only in single-op cases (whole
  // nets draw them tame: kDistinct, kPositive, kAny; see Tame in generators.cc).
  // Magnitudes where numerical stability matters (issue 12): one scale per tensor, drawn from
  // {1, 30, 1000}, times [-1, 1] points 0.02 apart. exp(1000) overflows even f64, so a softmax or
  // log-sum-exp that does not subtract the row max comes out inf/NaN (Softmax, SoftmaxWithLoss).
  kLogits,
  // Variances from 1e-6 to 1, log-uniform, so an epsilon of 1e-5..1e-2 is sometimes the dominant
  // term (SpatialBN's running variance).
  kVariance,
  // Rows that are nearly constant: 0.5 + s * [-1, 1] with one s per tensor, log-uniform in
  // [1e-3, 1] (row variances down to ~1e-7: LayerNorm's epsilon dominates).
  kNarrow,
  // The tame form of kVariance in whole nets: variances from 1e-3 to 1, log-uniform. An epsilon
  // of 1e-3 is then up to half the denominator, so a pass that drops it (fuse_conv_bn) changes
  // the output visibly, while 1 / sqrt(var) amplifies at most ~32x, no more than a kLogits scale.
  kModestVariance,
  kIndex,  // integers in [0, bound)
  kBool,   // true / false
  kShape,  // the exact values given (shape inputs, split sizes)
  kScope,  // a workspace stack: the generator puts CreateScope before the op, draws no tensor
};

struct InputSpec {
  std::vector<int64_t> dims;
  DataType dtype = DataType::kFloat;
  Domain domain = Domain::kAny;
  int64_t bound = 0;            // kIndex: values in [0, bound)
  std::vector<int64_t> values;  // kShape: the values
  bool differentiable = true;   // checked by the gradient oracle
};

// One op with its inputs' descriptions; input i is named by the generator.
//
// Control ops carry nets in their arguments. Ops of those nets that run in the op's own workspace
// (If, While) name the op's blobs by placeholder: "$<i>" is the blob of instance input i, "@<j>"
// that of output j; the generator replaces them (in nested nets too) with the names it picks.
class OpInstance {
 public:
  explicit OpInstance(const std::string& type, int num_outputs = 1);

  // Adds an input (in order) and returns its index.
  int Input(const std::vector<int64_t>& dims, Domain domain = Domain::kAny,
            DataType dtype = DataType::kFloat);
  int IndexInput(const std::vector<int64_t>& dims, int64_t bound,
                 DataType dtype = DataType::kInt32);
  int ShapeInput(const std::vector<int64_t>& values, DataType dtype = DataType::kInt64);
  // An integer tensor of `dtype` with values drawn uniformly in [lo, hi] clipped to the dtype's
  // range, 0 excluded when `nonzero` (divisors); exact values (kShape), not differentiable.
  int IntegerInput(const std::vector<int64_t>& dims, DataType dtype, int64_t lo, int64_t hi,
                   bool nonzero = false);
  // A workspace stack made by CreateScope (Do's last input).
  int ScopeInput();
  // Any input, described in full (control specs copy the inputs of the ops in their nets).
  int AddInput(const InputSpec& spec) {
    inputs_.push_back(spec);
    return static_cast<int>(inputs_.size()) - 1;
  }
  void SetNumOutputs(int n) { num_outputs_ = n; }
  // The op's inputs are the instance inputs in this order (default: as added). Lets input 0 of
  // the instance, the one nets chain through, be a later input of the op (If's condition first).
  OpInstance& OpInputOrder(std::vector<int> order) {
    op_input_order_ = std::move(order);
    return *this;
  }
  const std::vector<int>& op_input_order() const { return op_input_order_; }
  void NotDifferentiable(int input) { inputs_[input].differentiable = false; }
  // Output `output` is written in place over input `input` (an op that updates a state blob,
  // such as SpatialBN's running statistics in training). In nets the input is a fresh parameter,
  // never the primary (input 0).
  OpInstance& OutputInPlace(int output, int input) {
    inplace_outputs_[output] = input;
    return *this;
  }
  const std::map<int, int>& inplace_outputs() const { return inplace_outputs_; }
  // Output `output` is a workspace stack (CreateScope), not a tensor: never an external output.
  OpInstance& ScopeOutput(int output) {
    scope_outputs_.push_back(output);
    return *this;
  }
  bool IsScopeOutput(int output) const {
    for (int j : scope_outputs_) {
      if (j == output) return true;
    }
    auto inplace = inplace_outputs_.find(output);
    return inplace != inplace_outputs_.end() &&
           inputs_.at(inplace->second).domain == Domain::kScope;
  }

  // The kernel engine the op asks for (OperatorDef.engine; "" is the default kernel): a spec
  // draws each of its op's registered engines, so every kernel faces the oracles.
  OpInstance& Engine(const std::string& engine) {
    engine_ = engine;
    return *this;
  }
  const std::string& engine() const { return engine_; }
  OpInstance& Arg(const std::string& name, int64_t value);
  OpInstance& Arg(const std::string& name, float value);
  OpInstance& Arg(const std::string& name, const std::vector<int64_t>& values);
  OpInstance& Arg(const std::string& name, const std::string& value);
  // Any argument as a proto (lists of floats, nets, ...).
  OpInstance& RawArg(const caffe2::Argument& arg) {
    args_.push_back(arg);
    return *this;
  }

  const std::string& type() const { return type_; }
  int num_outputs() const { return num_outputs_; }
  const std::vector<InputSpec>& inputs() const { return inputs_; }
  const std::vector<caffe2::Argument>& args() const { return args_; }

 private:
  std::string type_;
  int num_outputs_;
  std::vector<InputSpec> inputs_;
  std::vector<caffe2::Argument> args_;
  std::map<int, int> inplace_outputs_;  // output -> input it overwrites
  std::vector<int> op_input_order_;
  std::vector<int> scope_outputs_;
  std::string engine_;
};

using Primary = std::vector<int64_t>;
using MakeFunction = std::function<std::optional<OpInstance>(const Primary* primary)>;

class OpSpec {
 public:
  explicit OpSpec(std::string type) : type_(std::move(type)) {}
  OpSpec& Make(MakeFunction make) {
    make_ = std::move(make);
    return *this;
  }
  // A tolerance class of oracles/tolerance.h ("exact", "default", "transcendental", ...).
  OpSpec& Tolerance(std::string name) {
    tolerance_ = std::move(name);
    return *this;
  }
  // The op may take an arbitrary intermediate blob as input 0 (no domain restriction on it).
  OpSpec& ConsumesIntermediates(bool value) {
    consumes_intermediates_ = value;
    return *this;
  }
  // The op's outputs share storage with each other (RecurrentNetwork's `_all` and `_last` are views
  // of one state tensor, as in Caffe2). In generated nets no later op writes such a blob in place:
  // it would change the other views too, which the reference (copies) does not model.
  OpSpec& OutputsAreViews(bool value) {
    outputs_are_views_ = value;
    return *this;
  }
  // Oracles this op skips, with the reason (e.g. "gradient": not differentiable).
  OpSpec& Skip(const std::string& oracle, const std::string& reason);
  // The op's CPU kernel takes float, not double: its cases are never fed doubles (the generator
  // feeds one single-op case in 16 doubles otherwise; tests/coverage/dtypes_test holds both to
  // what the kernel takes).
  OpSpec& FloatOnly(std::string reason) {
    float_only_ = std::move(reason);
    return *this;
  }

  const std::string& type() const { return type_; }
  const std::string& tolerance() const { return tolerance_; }
  bool consumes_intermediates() const { return consumes_intermediates_; }
  bool outputs_are_views() const { return outputs_are_views_; }
  bool float_only() const { return !float_only_.empty(); }
  const std::vector<std::pair<std::string, std::string>>& skips() const { return skips_; }
  bool Skips(const std::string& oracle) const;
  std::optional<OpInstance> Instantiate(const Primary* primary) const { return make_(primary); }

 private:
  std::string type_;
  MakeFunction make_;
  std::string tolerance_ = "default";
  bool consumes_intermediates_ = false;
  bool outputs_are_views_ = false;
  std::string float_only_;  // why, when the kernel takes float only
  std::vector<std::pair<std::string, std::string>> skips_;
};

class SpecRegistry {
 public:
  static OpSpec& New(const std::string& type);
  static const OpSpec* Find(const std::string& type);
  static std::vector<std::string> Types();  // sorted
};

// Common shape draws (RapidCheck, must run inside rc::gen::exec). AnyDims gives one dim 0 in one
// draw of 16 (empty tensors); Dim never does. Without a max_rank (kAnyRank: the op takes any
// rank) it draws rank min_rank..4, and 5 or 6 in one draw of 16.
constexpr int kAnyRank = -1;
std::vector<int64_t> AnyDims(int min_rank = 1, int max_rank = kAnyRank, int64_t max_dim = 5);
int64_t Dim(int64_t min = 1, int64_t max = 5);
// Which of `n` variants (0..n-1), uniform whatever RapidCheck's size: rc::gen::inRange scales its
// range with the size, so at small sizes it only ever draws the first few (dims should grow with
// the size; a choice between an op's variants should not). Shrinks towards 0.
int Pick(int n);
// [n] or [1, n] with n = block * k + r, k in 1..max_blocks, r in {0, 1, block - 1}: the edges of a
// blocked or vectorized kernel's main loop and tail (core/ops/common/size_paths.h).
std::vector<int64_t> BlockEdgeDims(int64_t block, int64_t max_blocks = 8);

}  // namespace parity::fuzz

#define PARITY_SPEC_CONCAT_INNER(a, b) a##b
#define PARITY_SPEC_CONCAT(a, b) PARITY_SPEC_CONCAT_INNER(a, b)
#define PARITY_OP_SPEC(type)                                                        \
  static ::parity::fuzz::OpSpec& PARITY_SPEC_CONCAT(parity_spec_##type, __LINE__) = \
      ::parity::fuzz::SpecRegistry::New(#type)

#endif  // PARITY_FUZZ_SPEC_H_
