// The transform oracle: every graph transform that promises the same external outputs
// (core/transforms/pass.h) is applied to the case's net, alone and in one random pipeline, and the
// rewritten net's outputs are compared with the original's truth (the f64 reference), on the
// backend under test and on the reference, with the forward oracle's tolerances. A pass that
// refuses (kIllegalTransform) or changes nothing is skipped; one that breaks its contract, or
// whose rewritten net computes something else, is a finding naming the pass, with the net before
// (the case) and after (in the message). Passes that fold constants get the case deployed: its
// parameters frozen into an init net, as Export writes them.
#include <algorithm>
#include <random>

#include "core/transforms/constants.h"
#include "core/transforms/export.h"
#include "core/transforms/pass.h"
#include "oracles/finding.h"
#include "oracles/oracle.h"

namespace parity::oracles {
namespace {

// Passes per random pipeline, at most.
constexpr int kMaxPipeline = 4;

std::string Joined(const std::vector<std::string>& passes) {
  std::string out;
  for (const auto& pass : passes) out += (out.empty() ? "" : ",") + pass;
  return out;
}

std::string OpTypes(const caffe2::NetDef& net) {
  std::string out;
  for (const auto& op : net.op()) out += (out.empty() ? "" : " ") + op.type();
  return "[" + out + "]";
}

Finding PassFinding(const Case& c, const std::vector<std::string>& passes,
                    const std::string& error_class, const std::string& message) {
  Finding finding =
      MakeFinding("transform", c, error_class, "pass " + Joined(passes) + ": " + message);
  const std::string blamed = "pass " + Joined(passes);
  finding.set_blamed_op_type(blamed);
  finding.set_blamed_op_path(blamed);
  finding.mutable_signature()->set_blamed_op_type(blamed);
  return finding;
}

// The rewritten case: the pipeline's net, with inputs and outputs under the names it gave them.
Case Rewritten(const Case& c, const transforms::TransformedNet& t) {
  Case out = c;
  *out.mutable_net() = t.predict;
  *out.mutable_init_net() = t.init;
  for (auto& input : *out.mutable_inputs()) {
    auto renamed = t.renamed_inputs.find(input.name());
    if (renamed != t.renamed_inputs.end()) input.set_name(renamed->second);
  }
  return out;
}

// The first external output of `run` out of tolerance with the truth (or missing), as a finding.
std::optional<Finding> Compare(const Case& c, const std::vector<std::string>& passes,
                               const transforms::TransformedNet& t, const BackendRun& truth,
                               const BackendRun& f32, const BackendRun& run,
                               const std::string& side, const OracleOptions& options) {
  const auto name_in_run = [&t](const std::string& blob) {
    auto renamed = t.renamed_outputs.find(blob);
    return renamed == t.renamed_outputs.end() ? blob : renamed->second;
  };
  const std::vector<std::string> outputs(c.net().external_output().begin(),
                                         c.net().external_output().end());
  for (const TruthDisagreement& d :
       DisagreementsWithTruth(outputs, truth, f32, run, options.tolerance, name_in_run)) {
    if (d.expected == nullptr) continue;  // the truth has no value to keep
    const std::string after = "; the net after: " + OpTypes(t.predict);
    if (d.actual == nullptr) {
      return PassFinding(
          c, passes, "missing output",
          side + " did not produce '" + d.name_in_run + "' (was '" + d.blob + "')" + after);
    }
    Finding finding = PassFinding(c, passes, d.comparison.error_class,
                                  side + " on the rewritten net, blob '" + d.name_in_run +
                                      "': " + d.comparison.detail + after);
    AddComparison(&finding, d.blob, *d.expected, *d.actual, d.comparison);
    return finding;
  }
  return std::nullopt;
}

// The case deployed (Export's form, core/transforms/export.h): every input but the first becomes a
// GivenTensor*Fill of an init net, so passes that fold parameters have constants to fold. `c` has
// no init net; nullopt for a single input, or an input no fill writes.
std::optional<Case> Deployed(const Case& c) {
  if (c.inputs_size() < 2) return std::nullopt;
  Case out = c;
  out.clear_inputs();
  *out.add_inputs() = c.inputs(0);
  caffe2::NetDef* init = out.mutable_init_net();
  init->set_name(c.net().name() + "_init");
  for (int i = 1; i < c.inputs_size(); ++i) {
    try {
      *init->add_op() = transforms::ConstantFillOf(c.inputs(i));
    } catch (const Error&) {
      return std::nullopt;
    }
  }
  return out;
}

// `c`'s nets as passes take them: its inputs are fed (never constants), even where its init net
// writes them.
transforms::TransformedNet Untransformed(const Case& c) {
  transforms::TransformedNet t;
  t.predict = c.net();
  t.init = c.init_net();
  std::string fed;
  for (const auto& input : c.inputs()) fed += (fed.empty() ? "" : ",") + input.name();
  t.settings[transforms::kFedInputsSetting] = fed;
  return t;
}

// 2 to kMaxPipeline passes drawn from `passes`, `must_hold` (when given) at a random position;
// none when fewer than two passes are given.
std::vector<std::string> RandomPipeline(const std::vector<std::string>& passes,
                                        std::mt19937_64* rng, const std::string& must_hold = "") {
  if (passes.size() < 2) return {};
  std::vector<std::string> pipeline;
  const size_t length = 2 + (*rng)() % (kMaxPipeline - 1);
  for (size_t i = 0; i < length; ++i) pipeline.push_back(passes[(*rng)() % passes.size()]);
  if (!must_hold.empty()) pipeline[(*rng)() % length] = must_hold;
  return pipeline;
}

OracleResult CheckTransform(const Case& original, const OracleOptions& options) {
  // The compared blobs are the interface every pass keeps.
  Case c = original;
  const std::vector<std::string> compared = ComparedBlobs(original);
  c.mutable_net()->clear_external_output();
  for (const auto& blob : compared) c.mutable_net()->add_external_output(blob);

  const BackendRun truth = GetBackend(kReference).Run(c);
  if (truth.error)
    return {std::nullopt, "the reference cannot run the net (other oracles judge it)"};
  const BackendRun f32 = GetBackend(kReferenceF32).Run(c);
  const BackendRun production = options.backend->Run(c);
  if (production.error)
    return {std::nullopt, "the backend cannot run the net (other oracles judge it)"};
  // Where the untransformed net already disagrees with the truth, the forward oracle speaks.
  const auto agrees = [&](const BackendRun& run) {
    for (const TruthDisagreement& d :
         DisagreementsWithTruth(compared, truth, f32, run, options.tolerance)) {
      if (d.expected != nullptr) return false;
    }
    return true;
  };
  if (!agrees(production)) {
    return {std::nullopt,
            "the net disagrees with the truth before any pass (the forward oracle's)"};
  }

  // Each pass alone, then a random pipeline; passes that fold constants on the deployed case.
  std::vector<std::string> preserving;
  std::vector<std::string> on_constants;
  std::vector<std::vector<std::string>> pipelines;
  for (const auto& name : transforms::PassRegistry::Names()) {
    const transforms::PassInfo& pass = *transforms::PassRegistry::Find(name);
    if (!pass.preserves_outputs) continue;
    preserving.push_back(name);
    if (pass.uses_constants) {
      on_constants.push_back(name);
    } else {
      pipelines.push_back({name});
    }
  }
  std::mt19937_64 rng(c.seed() * 0xD1B54A32D192ED03ull + 5);
  if (auto pipeline = RandomPipeline(preserving, &rng); !pipeline.empty()) {
    pipelines.push_back(pipeline);
  }
  std::vector<std::pair<const Case*, std::vector<std::vector<std::string>>>> forms = {
      {&c, pipelines}};
  std::optional<Case> deployed;
  if (!on_constants.empty()) {
    std::vector<std::vector<std::string>> with_constants;
    for (const auto& name : on_constants) with_constants.push_back({name});
    const std::string held = on_constants[rng() % on_constants.size()];
    if (auto pipeline = RandomPipeline(preserving, &rng, held); !pipeline.empty()) {
      with_constants.push_back(pipeline);
    }
    if (c.has_init_net()) {  // the case brings its own constants
      forms[0].second.insert(forms[0].second.end(), with_constants.begin(), with_constants.end());
    } else if ((deployed = Deployed(c))) {
      // The deployed case counts only where it runs as the case does.
      const BackendRun run = options.backend->Run(*deployed);
      if (!run.error && agrees(run)) forms.emplace_back(&*deployed, with_constants);
    }
  }

  int applied = 0;
  for (const auto& [form_case, form_pipelines] : forms) {
    const Case& form = *form_case;
    for (const auto& passes : form_pipelines) {
      transforms::TransformedNet t;
      try {
        t = transforms::ApplyPasses(Untransformed(form), passes);
      } catch (const Error& error) {
        if (error.kind() == ErrorKind::kIllegalTransform) continue;  // the net is not for it
        return {PassFinding(form, passes, "contract broken", error.what()), ""};
      }
      if (t.predict.SerializeAsString() == form.net().SerializeAsString() &&
          t.init.SerializeAsString() == form.init_net().SerializeAsString()) {
        continue;  // nothing to compare
      }
      ++applied;
      const Case rewritten = Rewritten(form, t);
      for (const Backend* backend : {options.backend, &GetBackend(kReference)}) {
        const BackendRun run = backend->Run(rewritten);
        const std::string side =
            backend == options.backend ? backend->info().name : "the reference";
        if (run.error) {
          return {
              PassFinding(form, passes, "rejected after the pass",
                          side + " rejects the rewritten net: " + std::string(run.error->what()) +
                              "; the net after: " + OpTypes(t.predict)),
              ""};
        }
        if (auto finding = Compare(form, passes, t, truth, f32, run, side, options)) {
          return {finding, ""};
        }
      }
    }
  }
  if (applied == 0) return {std::nullopt, "no pass changes this net"};
  return {};
}

const bool kRegistered = RegisterOracle("transform", CheckTransform);

}  // namespace
}  // namespace parity::oracles
