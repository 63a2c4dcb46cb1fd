// Mutants of the graph transforms (issue 15): the bugs a pass author makes. Each swaps a registered
// pass (PassRegistry::Replace) while it is hunted; the transform oracle must find the rewritten
// net computing something else, and name the pass.
#include <rapidcheck.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/transforms/memonger.h"
#include "core/transforms/net_edits.h"
#include "core/transforms/pass.h"
#include "fuzz/generators.h"
#include "tests/mutants/mutant_cases.h"
#include "tests/mutants/mutant_wrap.h"

namespace parity::mutants {
namespace {

using transforms::PassInfo;
using transforms::PassRegistry;
using transforms::TransformedNet;

// Runs `real` on ops the pass sees through `edit` (each tagged with its index as its name), then
// gives every op the pass kept back its own name and arguments: a pass that misreads what `edit`
// hides, and acts on it.
void RunOnEditedOps(TransformedNet* t, const std::function<void(caffe2::OperatorDef*)>& edit,
                    const PassRun& real) {
  const std::vector<caffe2::OperatorDef> originals(t->predict.op().begin(), t->predict.op().end());
  for (int i = 0; i < t->predict.op_size(); ++i) {
    caffe2::OperatorDef* op = t->predict.mutable_op(i);
    op->set_name(std::to_string(i));
    edit(op);
  }
  real(t);
  for (auto& op : *t->predict.mutable_op()) {
    const caffe2::OperatorDef& original = originals.at(std::stoul(op.name()));
    *op.mutable_arg() = original.arg();
    op.set_name(original.name());
  }
}

// Generated nets of `ops` only.
std::function<Case(uint64_t)> NetsOf(const std::vector<std::string>& ops) {
  fuzz::NetGenOptions options;
  options.min_ops = 2;
  options.max_ops = 6;
  options.ops = ops;
  return [options](uint64_t seed) { return fuzz::SampleCase(fuzz::NetCaseGen(options), seed); };
}

// Conv -> inference SpatialBN on a small NCHW image, every parameter fed (the transform oracle
// deploys them as init-net constants), variances down to 1e-6 so that epsilon matters.
Case ConvBnCase() {
  const int64_t n = fuzz::Dim(1, 2), c = fuzz::Dim(1, 3), h = fuzz::Dim(2, 5), w = fuzz::Dim(2, 5);
  const int64_t m = fuzz::Dim(1, 3), k = *rc::gen::inRange<int64_t>(1, std::min(h, w) + 1);
  Case out;
  caffe2::NetDef* net = out.mutable_net();
  net->set_name("conv_bn_mutant_case");
  auto input = [&](const std::string& name, const std::vector<int64_t>& dims, fuzz::Domain domain) {
    fuzz::InputSpec spec;
    spec.dims = dims;
    spec.domain = domain;
    *out.add_inputs() = fuzz::DrawTensor(name, spec);
    net->add_external_input(name);
  };
  input("x", {n, c, h, w}, fuzz::Domain::kAny);
  input("w", {m, c, k, k}, fuzz::Domain::kAny);
  input("b", {m}, fuzz::Domain::kAny);
  input("scale", {m}, fuzz::Domain::kAny);
  input("bias", {m}, fuzz::Domain::kAny);
  input("mean", {m}, fuzz::Domain::kAny);
  input("var", {m}, fuzz::Domain::kVariance);
  caffe2::OperatorDef* conv = net->add_op();
  conv->set_type("Conv");
  for (const char* in : {"x", "w", "b"}) conv->add_input(in);
  conv->add_output("y");
  SetInt(conv, "kernel", k);
  caffe2::OperatorDef* bn = net->add_op();
  bn->set_type("SpatialBN");
  for (const char* in : {"y", "scale", "bias", "mean", "var"}) bn->add_input(in);
  bn->add_output("z");
  SetInt(bn, "is_test", 1);
  SetFloat(bn, "epsilon", *rc::gen::element(1e-5f, 1e-3f));
  net->add_external_output("z");
  out.set_generator_version(fuzz::kGeneratorVersion);
  out.set_description("Conv -> SpatialBN");
  return out;
}

Mutant PassMutant(const std::string& name, const std::string& pass, const std::string& description,
                  std::function<Case(uint64_t)> build,
                  const std::function<void(caffe2::OperatorDef*)>& edit) {
  return PassRunMutant(name, pass, description, std::move(build),
                       [edit](TransformedNet* t, const PassRun& real) {
                         RunOnEditedOps(t, edit, real);
                       });
}

// optimize_inference_for_dag with every live range one op short: a blob's name goes to the next
// blob after its second-to-last use. Caffe2's checks are left out with the bug (they would name
// it): only the rewritten net's outputs, or its ops' in-place rules, can tell.
void ShortLivedSharing(TransformedNet* t) {
  auto ranges = transforms::ComputeLiveRanges(t->predict, [](const std::string&) { return true; });
  for (auto& [blob, range] : ranges) range.last_used = std::max(range.defined, range.last_used - 1);
  transforms::ApplyAssignments(
      transforms::ComputeBlobRecycling(t->predict, ranges, "", transforms::NamesIn(*t)),
      &t->predict);
}

}  // namespace

Mutant PassRunMutant(const std::string& name, const std::string& pass,
                     const std::string& description, std::function<Case(uint64_t)> build,
                     std::function<void(TransformedNet*, const PassRun&)> mutated_run) {
  Mutant m = M(name, "pass " + pass, "transform", "transform", description);
  m.build = std::move(build);
  m.install = [pass, mutated_run] {
    PassInfo mutated = *PassRegistry::Find(pass);
    const PassRun real = mutated.run;
    mutated.run = [real, mutated_run](TransformedNet* t) { mutated_run(t, real); };
    const PassInfo original = PassRegistry::Replace(pass, mutated);
    return std::function<void()>([pass, original] { PassRegistry::Replace(pass, original); });
  };
  return m;
}

void AddTransformMutants(std::vector<Entry>* out) {
  out->push_back({PassMutant("CSE_IGNORES_ARGUMENTS", "cse",
                             "cse merges ops of the same type and inputs whatever their arguments "
                             "(two Scales by different factors become one)",
                             NetsOf({"Scale", "LeakyRelu", "Elu", "Softmax", "Clip", "Sigmoid"}),
                             [](caffe2::OperatorDef* op) { op->clear_arg(); }),
                  Wrap{}});
  out->push_back({PassMutant("FUSE_CONV_BN_DROPS_EPSILON", "fuse_conv_bn",
                             "fuse_conv_bn folds scale / sqrt(var) into the weights, forgetting "
                             "the epsilon added to the variance",
                             cases::Builder(ConvBnCase),
                             [](caffe2::OperatorDef* op) {
                               if (op->type() == "SpatialBN") SetFloat(op, "epsilon", 0.0f);
                             }),
                  Wrap{}});
  Mutant liveness = M("MEMONGER_LIVENESS_OFF_BY_ONE", "pass optimize_inference_for_dag", "transform",
                      "transform",
                      "optimize_inference_for_dag frees a blob's name one op before its last use, "
                      "so the next blob written takes it while it is still to be read");
  liveness.build = NetsOf({"Relu", "Sigmoid", "Softmax", "FC", "Transpose", "Sum", "Mul"});
  liveness.install = [] {
    PassInfo mutated = *PassRegistry::Find("optimize_inference_for_dag");
    mutated.run = ShortLivedSharing;
    const PassInfo original = PassRegistry::Replace("optimize_inference_for_dag", mutated);
    return std::function<void()>([original] {
      PassRegistry::Replace("optimize_inference_for_dag", original);
    });
  };
  out->push_back({liveness, Wrap{}});
}

}  // namespace parity::mutants
