// Mutants of a non-default engine (issue 37): a bug in the kernel an op runs only when its
// OperatorDef names that engine (Conv's IM2COL beside its default DNNL). A campaign that always
// ran the default engine could never see it. Each swaps the engine's registered kernel while it is
// hunted (OperatorRegistry::Register replaces a key's factory), so it runs on the production
// backend exactly where a case asks for the engine, and nowhere else.
#include <functional>
#include <stdexcept>
#include <string>

#include "core/operator.h"
#include "tests/mutants/mutant_wrap.h"

namespace parity::mutants {
namespace {

// `type`'s kernel under `engine` built from `edit`ed defs: the real kernel, misreading its def.
Mutant EngineMutant(const std::string& name, const std::string& type, const std::string& engine,
                    const std::string& description,
                    std::function<void(caffe2::OperatorDef*)> edit) {
  Mutant m = M(name, type, "forward", "conv", description);
  m.install = [type, engine, edit] {
    const OperatorFactory* found = OperatorRegistry::Find(type, kCpuDeviceType, engine);
    if (found == nullptr) throw std::logic_error(type + " has no kernel under engine " + engine);
    const OperatorFactory real = *found;
    OperatorRegistry::Register(type, kCpuDeviceType, engine,
                               [real, edit](const caffe2::OperatorDef& def, Workspace* ws) {
                                 caffe2::OperatorDef edited = def;
                                 edit(&edited);
                                 return real(edited, ws);
                               });
    return std::function<void()>(
        [type, engine, real] { OperatorRegistry::Register(type, kCpuDeviceType, engine, real); });
  };
  return m;
}

}  // namespace

void AddEngineMutants(std::vector<Entry>* out) {
  out->push_back({EngineMutant("CONV_IM2COL_DROPS_BIAS", "Conv", "IM2COL",
                               "Conv's IM2COL kernel forgets the bias (the default DNNL kernel "
                               "adds it): only a Conv that asks for IM2COL by name is wrong",
                               [](caffe2::OperatorDef* def) {
                                 if (def->input_size() == 3) def->mutable_input()->RemoveLast();
                               }),
                  Wrap{}});
}

}  // namespace parity::mutants
