// Mutants of the cell builders (core/rnn/rnn_cell.h): an option the caller asked for that never
// reaches the net. Each is planted through the builders' install seam (InstallLstmBuilder /
// InstallGruBuilder) as a builder that calls the real one with the option lost, so the net is
// exactly what the bug builds: forward and backward step nets consistent with each other and run
// alike by every engine. The forward and gradient oracles see nothing; only the builder oracle,
// which holds the net to the textbook cell the caller asked for (Case.cell_promise), can.
#include <functional>
#include <memory>
#include <string>

#include "core/rnn/rnn_cell.h"
#include "fuzz/cell_builder_cases.h"
#include "fuzz/generators.h"
#include "tests/mutants/mutant_wrap.h"

namespace parity::mutants {
namespace {

Mutant BuilderMutant(const std::string& name, const std::string& builder,
                     const std::string& description) {
  Mutant m = M(name, "builder " + builder, "builder", "builder", description);
  m.build = [](uint64_t seed) { return fuzz::SampleCase(fuzz::CellBuilderCaseGen(), seed); };
  return m;
}

// A mutant's install: a builder (through `install`, InstallLstmBuilder or InstallGruBuilder) that
// edits the caller's spec before the builder it replaces builds; undone by installing that one
// again.
template <typename Spec, typename Builder>
std::function<std::function<void()>()> SpecLost(Builder (*install)(Builder),
                                               std::function<void(Spec*)> lose) {
  return [install, lose] {
    auto previous = std::make_shared<Builder>();
    *previous = install([previous, lose](caffe2::NetDef* net, const Spec& spec) {
      Spec lost = spec;
      lose(&lost);
      return (*previous)(net, lost);
    });
    return std::function<void()>([install, previous] { install(*previous); });
  };
}

}  // namespace

void AddBuilderMutants(std::vector<Entry>* out) {
  auto add = [out](Mutant m) { out->push_back({std::move(m), Wrap{}}); };
  {
    Mutant m = BuilderMutant("LSTM_BUILDER_FORGET_BIAS_DROPPED", "Lstm",
                             "the LSTM builder never passes forget_bias on to LSTMUnit: the "
                             "forget gate is sigmoid(G_f), not sigmoid(G_f + forget_bias)");
    m.install = SpecLost<LstmSpec>(InstallLstmBuilder,
                                   [](LstmSpec* spec) { spec->forget_bias = 0.0f; });
    add(m);
  }
  {
    Mutant m = BuilderMutant("GRU_BUILDER_LINEAR_BEFORE_RESET_IGNORED", "Gru",
                             "the GRU builder ignores linear_before_reset: the reset gate always "
                             "scales the previous state before its projection");
    m.install = SpecLost<GruSpec>(InstallGruBuilder,
                                  [](GruSpec* spec) { spec->linear_before_reset = false; });
    add(m);
  }
}

}  // namespace parity::mutants
