// Mutants of gradient makers (issue 12): the maker builds the backward net that both engines run,
// so its bug is the same on both sides and only the gradient oracle's finite differences of the
// forward net can see it. Each wraps the registered maker (GradientRegistry::Replace) and edits the
// ops it emits the way a maker author goes wrong: the wrong forward blob wired in, an argument not
// carried over, a constant dropped, outputs in the wrong order.
#include <algorithm>
#include <functional>
#include <string>

#include "core/grad/gradient.h"
#include "tests/mutants/mutant_wrap.h"

namespace parity::mutants {
namespace {

using Edit = std::function<void(const GradientContext& g, Ops* ops)>;

// `own_args`: the maker is registered as setting its own arguments (the forward op's are not
// copied onto its ops).
Mutant MakerMutant(const std::string& name, const std::string& type, const std::string& description,
                   Edit edit, bool own_args = false) {
  Mutant m = M(name, type, "gradient", "maker", description);
  m.install = [type, edit, own_args] {
    const GradientEntry* found = GradientRegistry::Find(type);
    PARITY_ENFORCE(found != nullptr, ErrorKind::kInternal, "maker mutant: no gradient for ", type);
    GradientEntry original = *found;
    GradientEntry mutated = original;
    if (own_args) mutated.options.copy_arguments = false;
    GradientMaker inner = original.maker;
    mutated.maker = [inner, edit](GradientContext& g) {
      Ops ops = inner(g);
      edit(g, &ops);
      return ops;
    };
    GradientRegistry::Replace(type, mutated);
    return std::function<void()>([type, original] { GradientRegistry::Replace(type, original); });
  };
  return m;
}

// Every input of `op` that reads blob `from` reads `to` instead.
void Rewire(caffe2::OperatorDef* op, const std::string& from, const std::string& to) {
  for (int i = 0; i < op->input_size(); ++i) {
    if (op->input(i) == from) op->set_input(i, to);
  }
}

void SwapInputs(caffe2::OperatorDef* op, int a, int b) {
  if (op->input_size() <= std::max(a, b)) return;
  const std::string first = op->input(a);
  op->set_input(a, op->input(b));
  op->set_input(b, first);
}

}  // namespace

void AddMakerMutants(std::vector<Entry>* out) {
  auto add = [out](Mutant m) { out->push_back({std::move(m), Wrap{}}); };

  // The gradient from the input where the convention says the output (y(1 - y) of x, ...).
  for (const char* type : {"Softmax", "Sigmoid", "Tanh", "Exp"}) {
    const std::string t = type;
    std::string name = t + "_MAKER_READS_X";
    std::transform(name.begin(), name.end(), name.begin(), ::toupper);
    add(MakerMutant(
        name, t, t + "'s gradient maker wires X where its gradient op reads Y",
        [](const GradientContext& g, Ops* ops) { Rewire(&ops->at(0), g.O(0), g.I(0)); }));
  }
  add(MakerMutant(
      "FC_MAKER_OUTPUTS_REORDERED", "FC",
      "FC's gradient maker lists FCGradient's outputs as (dX, db, dW), not (dW, db, dX)",
      [](const GradientContext&, Ops* ops) {
        caffe2::OperatorDef& op = ops->at(0);
        if (op.output_size() < 3) return;
        const std::string dw = op.output(0);
        op.set_output(0, op.output(2));
        op.set_output(2, dw);
      }));
  add(MakerMutant("SQRT_MAKER_MISSING_HALF", "Sqrt",
                  "Sqrt's gradient maker scales dY by 1 instead of 0.5",
                  [](const GradientContext&, Ops* ops) { SetFloat(&ops->at(0), "scale", 1.0f); }));
  add(MakerMutant("LOG_MAKER_MULTIPLIES", "Log",
                  "Log's gradient maker emits Mul(dY, X) instead of Div(dY, X)",
                  [](const GradientContext&, Ops* ops) { ops->at(0).set_type("Mul"); }));
  add(MakerMutant(
      "CONCAT_MAKER_DROPS_AXIS", "Concat",
      "Concat's gradient maker is registered as setting its own arguments and sets "
      "none: the Split splits on its default axis",
      [](const GradientContext&, Ops*) {}, /*own_args=*/true));
  add(MakerMutant("TRANSPOSE_MAKER_SAME_PERMUTATION", "Transpose",
                  "Transpose's gradient maker applies the forward permutation, not its inverse",
                  [](const GradientContext& g, Ops* ops) {
                    const std::vector<int64_t> axes = IntsArg(g.def(), "axes");
                    if (!axes.empty()) SetInts(&ops->at(0), "axes", axes);
                  }));
  add(MakerMutant("LAYERNORM_MAKER_MEAN_STD_SWAPPED", "LayerNorm",
                  "LayerNorm's gradient maker wires std where mean goes and mean where std goes",
                  [](const GradientContext&, Ops* ops) { SwapInputs(&ops->at(0), 2, 3); }));
  add(MakerMutant("SPATIALBN_MAKER_MEAN_VAR_SWAPPED", "SpatialBN",
                  "SpatialBN's gradient maker swaps the mean and variance inputs",
                  [](const GradientContext&, Ops* ops) { SwapInputs(&ops->at(0), 3, 4); }));
  // Only an empty tensor tells: old_shape's 0 read as "copy dY's dim" (Caffe2's maker).
  add(MakerMutant("RESHAPE_MAKER_COPYING_ZERO", "Reshape",
                  "Reshape's gradient maker drops allowzero: a 0 in old_shape copies dY's dim",
                  [](const GradientContext&, Ops* ops) { RemoveArg(&ops->at(0), "allowzero"); },
                  /*own_args=*/true));
  add(MakerMutant("MAXPOOL_MAKER_READS_X_AS_Y", "MaxPool",
                  "MaxPool's gradient maker wires X where MaxPoolGradient reads Y",
                  [](const GradientContext& g, Ops* ops) {
                    caffe2::OperatorDef& op = ops->at(0);
                    if (op.input_size() >= 2) op.set_input(1, g.I(0));
                  }));
}

}  // namespace parity::mutants
