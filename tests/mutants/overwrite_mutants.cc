// Mutants of the names-overwritten class (issue 37): a net that writes over a name it was fed (a
// parameter, which a deployed case's init net holds as a constant) reads the old value before the
// write and the new one after it. Each mutant is the bug of a piece that assumes one value per
// name: constant folding that keeps folding the constant after the overwrite, an SSA rename that
// feeds the input under the output's name, a backward pass that hands the fed value the gradient
// of the value written over it.
#include <rapidcheck.h>

#include <set>
#include <string>

#include "core/grad/backward.h"
#include "core/transforms/pass.h"
#include "fuzz/generators.h"
#include "tests/mutants/mutant_cases.h"
#include "tests/mutants/mutant_wrap.h"

namespace parity::mutants {
namespace {

using transforms::TransformedNet;

// x and p fed (p a parameter: the transform oracle deploys it as an init-net constant); the net
// reads p, writes over it, reads it again, and ends with the new p as an output:
//   h = Mul(x, p); [h = Relu(x), overwriting h unread, in half the cases]; p = Tanh(h);
//   y = Scale(p); z = Sigmoid(y)
// With the overwrite of h, nothing differentiates the fed p: its gradient is zero.
Case OverwrittenParameterCase() {
  Case c;
  caffe2::NetDef* net = c.mutable_net();
  net->set_name("overwritten_parameter");
  fuzz::InputSpec spec;
  spec.dims = {fuzz::Dim(1, 3), fuzz::Dim(1, 4)};
  for (const char* name : {"x", "p"}) {
    *c.add_inputs() = fuzz::DrawTensor(name, spec);
    net->add_external_input(name);
    c.add_grad_inputs(name);
  }
  auto op = [&](const std::string& type, std::vector<std::string> in, const std::string& out) {
    caffe2::OperatorDef* def = net->add_op();
    def->set_type(type);
    for (const auto& name : in) def->add_input(name);
    def->add_output(out);
    return def;
  };
  op("Mul", {"x", "p"}, "h");
  const bool fed_p_unused = *rc::gen::arbitrary<bool>();
  if (fed_p_unused) op("Relu", {"x"}, "h");
  op("Tanh", {"h"}, "p");
  SetFloat(op("Scale", {"p"}, "y"), "scale", *rc::gen::element(-2.0f, 0.5f, 3.0f));
  op("Sigmoid", {"y"}, "z");  // constant_fold keeps ops writing external outputs: y is not one
  for (const char* out : {"z", "p"}) net->add_external_output(out);
  c.set_generator_version(fuzz::kGeneratorVersion);
  c.set_description(fed_p_unused ? "a fed parameter overwritten, its value unused"
                                 : "a fed parameter read, overwritten, read again");
  return c;
}

// Runs `real` with the predict net's writes over init-net outputs hidden under another name, then
// names them back: the pass sees every read of a constant as a read of the init net's value.
void HideOverwritesOfConstants(TransformedNet* t, const PassRun& real) {
  static const std::string kHidden = "/hidden_by_mutant";
  std::set<std::string> init_outputs, hidden;
  for (const auto& op : t->init.op()) init_outputs.insert(op.output().begin(), op.output().end());
  for (auto& op : *t->predict.mutable_op()) {
    for (auto& out : *op.mutable_output()) {
      if (!init_outputs.count(out)) continue;
      out += kHidden;
      hidden.insert(out);
    }
  }
  real(t);
  auto restore = [&hidden](std::string* name) {
    if (hidden.count(*name)) name->resize(name->size() - kHidden.size());
  };
  for (caffe2::NetDef* net : {&t->predict, &t->init}) {
    for (auto& op : *net->mutable_op()) {
      for (auto& name : *op.mutable_input()) restore(&name);
      for (auto& name : *op.mutable_output()) restore(&name);
    }
    for (auto& name : *net->mutable_external_input()) restore(&name);
    for (auto& name : *net->mutable_external_output()) restore(&name);
  }
}

}  // namespace

void AddOverwriteMutants(std::vector<Entry>* out) {
  const auto drawn = cases::Builder(OverwrittenParameterCase);
  out->push_back({PassRunMutant("CONSTANT_FOLD_PAST_OVERWRITE", "constant_fold",
                                "constant_fold keeps treating an init-net constant as constant "
                                "after a predict op writes over it, and folds the reads that "
                                "follow with the init net's value",
                                drawn, HideOverwritesOfConstants),
                  Wrap{}});
  out->push_back({PassRunMutant("SSA_REWRITE_ONE_RENAME_MAP", "ssa_rewrite",
                                "ssa_rewrite keeps one renaming per name, so an input the net "
                                "overwrites and outputs is fed under its last version's name",
                                drawn,
                                [](TransformedNet* t, const PassRun& real) {
                                  real(t);
                                  for (const auto& [from, to] : t->renamed_outputs) {
                                    if (t->renamed_inputs.count(from)) t->renamed_inputs[from] = to;
                                  }
                                }),
                  Wrap{}});
  Mutant backward =
      M("BACKWARD_FED_VALUE_GETS_LAST_GRADIENT", "backward pass", "gradient", "backward",
        "the backward pass gives a fed blob the net overwrites the gradient of the "
        "value written over it, when nothing differentiates the value it was fed");
  backward.build = drawn;
  backward.install = ThroughSeam(&ReplaceBackwardPassEdit, [](BackwardPass* pass) {
    pass->input_gradient_of = pass->gradient_of;
  });
  out->push_back({backward, Wrap{}});
}

}  // namespace parity::mutants
