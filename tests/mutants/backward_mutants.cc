// Mutants of the backward-pass builder (core/grad/backward.cc): the bugs a builder author makes in
// what Caffe2's IR.GetBackwardPass does beyond calling makers — accumulating a blob's gradient
// from several consumers. Each is planted through the ReplaceBackwardPassEdit seam as an edit of
// the pass the builder returns, leaving the pass exactly as the bug would have built it. The
// gradient oracle must find each and blame it as "gradient wiring" (every maker is right alone).
#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <string>

#include "core/grad/backward.h"
#include "tests/mutants/mutant_cases.h"
#include "tests/mutants/mutant_wrap.h"

namespace parity::mutants {
namespace {

bool IsAutoSum(const caffe2::OperatorDef& op) {
  if (op.type() != "Sum") return false;
  const auto& info = op.device_option().extra_info();
  return std::find(info.begin(), info.end(), "is_auto_gen_sum_ops:1") != info.end();
}

Mutant BuilderMutant(const std::string& name, const std::string& description,
                     std::function<void(BackwardPass*)> edit) {
  Mutant m = M(name, "backward pass", "gradient", "backward", description);
  m.build = cases::AccumulationCases();
  m.install = ThroughSeam(&ReplaceBackwardPassEdit, std::move(edit));
  return m;
}

}  // namespace

void AddBackwardMutants(std::vector<Entry>* out) {
  auto add = [out](Mutant m) { out->push_back({std::move(m), Wrap{}}); };
  add(BuilderMutant("BACKWARD_SUM_DROPS_LAST_INPUT",
                    "the accumulation of a gradient from several consumers leaves out the last "
                    "consumer's contribution",
                    [](BackwardPass* pass) {
                      for (auto& op : pass->ops) {
                        if (IsAutoSum(op) && op.input_size() > 1) {
                          op.mutable_input()->RemoveLast();
                        }
                      }
                    }));
  add(BuilderMutant(
      "BACKWARD_AUTOSPLIT_NOT_RENAMED",
      "the second and later contributions to a shared gradient are not renamed apart, so each "
      "overwrites the one before and the Sum adds the last one several times",
      [](BackwardPass* pass) {
        std::map<std::string, std::string> base_of;  // "_g_autosplit_k" -> the Sum's output
        for (const auto& op : pass->ops) {
          if (!IsAutoSum(op)) continue;
          for (const auto& in : op.input()) {
            if (in.find("_autosplit_") != std::string::npos) base_of[in] = op.output(0);
          }
        }
        for (auto& op : pass->ops) {
          for (int i = 0; i < op.output_size(); ++i) {
            auto it = base_of.find(op.output(i));
            if (it != base_of.end()) op.set_output(i, it->second);
          }
          for (int i = 0; i < op.input_size(); ++i) {
            auto it = base_of.find(op.input(i));
            if (it != base_of.end()) op.set_input(i, it->second);
          }
        }
      }));
  add(BuilderMutant("BACKWARD_PASS_THROUGH_NOT_SUMMED",
                    "a contribution no gradient op makes (a seed, or a gradient passed straight "
                    "through, as Sum's and Add's are) is left out of the accumulation",
                    [](BackwardPass* pass) {
                      std::set<std::string> made;
                      for (auto& op : pass->ops) {
                        if (IsAutoSum(op) && op.input_size() > 1) {
                          auto* inputs = op.mutable_input();
                          for (int i = inputs->size() - 1; i >= 1 && inputs->size() > 1; --i) {
                            if (!made.count(inputs->Get(i))) inputs->DeleteSubrange(i, 1);
                          }
                        }
                        for (const auto& o : op.output()) made.insert(o);
                      }
                    }));
  add(BuilderMutant("BACKWARD_SUM_TOO_EARLY",
                    "the accumulating Sum is emitted before the last contribution's gradient op "
                    "instead of after it",
                    [](BackwardPass* pass) {
                      for (size_t k = 1; k < pass->ops.size(); ++k) {
                        if (!IsAutoSum(pass->ops[k])) continue;
                        std::swap(pass->ops[k], pass->ops[k - 1]);
                        return;
                      }
                    }));
}

}  // namespace parity::mutants
