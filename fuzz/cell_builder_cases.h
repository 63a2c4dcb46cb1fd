// Cases made by the cell builders (Lstm, Gru: core/rnn/rnn_cell.h), the nets `parity rnn` and a
// Caffe2 user's rnn_cell.py code make: one layer at small sizes with every option the builders
// take (forget_bias, drop_states, linear_before_reset, memory_optimization, forward_only, which
// outputs carry gradients), initial states of every accepted rank, sequence lengths shorter than
// the sequence. Each case carries the builder's promise (Case.cell_promise), so besides every other
// oracle the builder oracle holds the built net to the cell's textbook equations.
#ifndef PARITY_FUZZ_CELL_BUILDER_CASES_H_
#define PARITY_FUZZ_CELL_BUILDER_CASES_H_

#include <rapidcheck.h>

#include <string>
#include <vector>

#include "core/proto/parity.pb.h"
#include "core/rnn/rnn_cell.h"

namespace parity::fuzz {

rc::Gen<Case> CellBuilderCaseGen();

// Whether a campaign over `types` (op spec types) draws builder cases: those with
// RecurrentNetwork, whose nets they are.
bool DrawsCellBuilders(const std::vector<std::string>& types);

// What a builder was asked for (its spec's blob names and options) and what it built (its output
// and parameter names): the promise the builder oracle holds the net to (Case.cell_promise).
CellPromise PromiseOf(const LstmSpec& spec, const LstmOutputs& built);
CellPromise PromiseOf(const GruSpec& spec, const GruOutputs& built);

}  // namespace parity::fuzz

#endif  // PARITY_FUZZ_CELL_BUILDER_CASES_H_
