// The gradient registry: for each op type, how to build the ops that compute its input gradients
// from its output gradients (Caffe2's GradientMakerBase, as C++ lambdas).
//
//   PARITY_REGISTER_GRADIENT(Relu, [](GradientContext& g) {
//     return Ops{g.Op("ReluGradient", {g.O(0), g.GO(0)}, {g.GI(0)})};
//   });
//   PARITY_NO_GRADIENT(Shape);                 // flow stops here (StopGradient, comparisons)
//   PARITY_SHOULD_NOT_DO_GRADIENT(CreateScope); // asking is an error
//
// Names follow Caffe2: GI(i) = input i + "_grad" (and marks input i as having a gradient), GO(i)
// the given gradient of output i. GetGradientForOp copies the forward op's device option, engine
// and arguments into every gradient op (unless the maker opts out) and marks them is_gradient_op.
// Dense gradients only: Caffe2's sparse GradientSlice is out of scope.
#ifndef PARITY_CORE_GRAD_GRADIENT_H_
#define PARITY_CORE_GRAD_GRADIENT_H_

#include <functional>
#include <string>
#include <vector>

#include "core/proto/caffe2.pb.h"

namespace parity {

using Ops = std::vector<caffe2::OperatorDef>;

class GradientContext {
 public:
  GradientContext(const caffe2::OperatorDef& def, const std::vector<std::string>& g_output);

  const caffe2::OperatorDef& def() const { return def_; }
  const std::string& I(int i) const;
  const std::string& O(int i) const;
  // The gradient of output i. When nothing downstream provides it, a zero gradient of output i's
  // shape: "<output>_zero_grad", made by a ConstantFill the gradient ops start with (PyTorch
  // autograd's rule; Caffe2 raised "gradient of output ... is not provided" instead).
  const std::string& GO(int i);
  bool HasGO(int i) const;
  // The gradient of output i that the backward pass provides, or "" (no zero fill).
  std::string ProvidedGO(int i) const { return HasGO(i) ? g_output_[i] : ""; }
  // Marks input i's gradient as I(i) + "_grad" and returns that name.
  std::string GI(int i);
  // Marks input i's gradient as `name` (pass-through gradients such as Sum's reuse GO(0)).
  void SetGI(int i, const std::string& name);
  int num_inputs() const { return def_.input_size(); }
  int num_outputs() const { return def_.output_size(); }

  // A gradient op; `args` are added before the forward op's copied arguments.
  caffe2::OperatorDef Op(const std::string& type, const std::vector<std::string>& inputs,
                         const std::vector<std::string>& outputs,
                         const std::vector<caffe2::Argument>& args = {}) const;

  const std::vector<std::string>& g_input() const { return g_input_; }
  // The ConstantFill ops for the zero gradients GO handed out, to run before the gradient ops.
  Ops ZeroFilledOutputGradients() const;

 private:
  const caffe2::OperatorDef& def_;
  const std::vector<std::string>& g_output_;
  std::vector<std::string> g_input_;
  std::vector<std::string> zero_filled_;  // per output: the zero gradient's name, or ""
};

caffe2::Argument IntArg(const std::string& name, int64_t value);
// ConstantFill(like) -> output, value 0: zeros of `like`'s shape (float).
caffe2::OperatorDef ZeroFillLike(const std::string& like, const std::string& output);
caffe2::Argument FloatArg(const std::string& name, float value);
caffe2::Argument IntsArg(const std::string& name, const std::vector<int64_t>& values);

using GradientMaker = std::function<Ops(GradientContext&)>;

enum class GradientKind {
  kMaker,           // a maker builds gradient ops
  kNoGradient,      // no ops, no input gradients: the backward flow stops (NO_GRADIENT)
  kShouldNotDo,     // asking for it is an error (SHOULD_NOT_DO_GRADIENT)
  kNotImplemented,  // differentiable, but parity has no gradient yet (an error naming the op)
};

struct GradientOptions {
  bool copy_arguments = true;
  bool copy_device_option = true;
  bool copy_engine = true;
};

struct GradientEntry {
  GradientKind kind = GradientKind::kMaker;
  GradientMaker maker;
  GradientOptions options;
  std::string file;
  int line = 0;
};

class GradientRegistry {
 public:
  static bool Register(const std::string& type, GradientEntry entry);
  static const GradientEntry* Find(const std::string& type);
  static std::vector<std::string> Types();
  // Puts `entry` in place of the registered entry of `type` and returns the one it replaces
  // (kUnknownOp when there is none). A fault-injection seam: the mutant catalogue
  // (tests/mutants) plants bugs in gradient makers this way, and restores the original after.
  static GradientEntry Replace(const std::string& type, GradientEntry entry);
};

// The gradient ops of one forward op and the gradient name of each of its inputs ("" for none).
struct GradientOpsMeta {
  Ops ops;
  std::vector<std::string> g_input;
};

// `g_output[i]` is the gradient blob of output i, or "" when it has none. Errors (kUnknownOp for a
// type without any registration, kBadArgument for SHOULD_NOT_DO / not implemented / a missing
// required output gradient) name the op.
GradientOpsMeta GetGradientForOp(const caffe2::OperatorDef& def,
                                 const std::vector<std::string>& g_output);

// The op's integer argument `name`, or `fallback` when absent (makers read the forward op's
// arguments without its schema's defaults, as Caffe2's makers do).
int64_t GradientArgOr(const caffe2::OperatorDef& def, const char* name, int64_t fallback);

}  // namespace parity

#define PARITY_GRADIENT_CONCAT_INNER(a, b) a##b
#define PARITY_GRADIENT_CONCAT(a, b) PARITY_GRADIENT_CONCAT_INNER(a, b)
// The maker is the variadic tail so that commas inside the lambda need no parentheses.
#define PARITY_REGISTER_GRADIENT_ENTRY(type, kind, options, ...)            \
  static const bool PARITY_GRADIENT_CONCAT(parity_gradient_, __COUNTER__) = \
      ::parity::GradientRegistry::Register(                                 \
          #type, ::parity::GradientEntry{kind, __VA_ARGS__, options, __FILE__, __LINE__})
#define PARITY_REGISTER_GRADIENT(type, ...) \
  PARITY_REGISTER_GRADIENT_ENTRY(type, ::parity::GradientKind::kMaker, {}, __VA_ARGS__)
// For makers that set their own arguments (Caffe2's CopyArguments() == false).
#define PARITY_REGISTER_GRADIENT_OWN_ARGS(type, ...)                   \
  PARITY_REGISTER_GRADIENT_ENTRY(type, ::parity::GradientKind::kMaker, \
                                 (::parity::GradientOptions{false, true, true}), __VA_ARGS__)
#define PARITY_NO_GRADIENT(type) \
  PARITY_REGISTER_GRADIENT_ENTRY(type, ::parity::GradientKind::kNoGradient, {}, nullptr)
#define PARITY_SHOULD_NOT_DO_GRADIENT(type) \
  PARITY_REGISTER_GRADIENT_ENTRY(type, ::parity::GradientKind::kShouldNotDo, {}, nullptr)
#define PARITY_GRADIENT_NOT_IMPLEMENTED(type) \
  PARITY_REGISTER_GRADIENT_ENTRY(type, ::parity::GradientKind::kNotImplemented, {}, nullptr)

#endif  // PARITY_CORE_GRAD_GRADIENT_H_
