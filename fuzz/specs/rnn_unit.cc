// Test specs of the RNN cells: LSTMUnit, GRUUnit. seq_lengths in [0, 4) and a timestep in [0, 3]
// cut some rows (t >= seq_len: the previous state is copied, or zeroed with drop_states).
#include <rapidcheck.h>

#include "fuzz/spec.h"

namespace parity::fuzz {
namespace {

// [1, N, D] from the primary blob, or fresh dims.
std::optional<std::vector<int64_t>> StateDims(const Primary* p) {
  if (!p) return std::vector<int64_t>{1, Dim(), Dim()};
  if (p->size() != 3 || (*p)[0] != 1) return std::nullopt;
  return *p;
}

void AddStepInputs(OpInstance* op, int64_t n) {
  if (*rc::gen::inRange(0, 4) != 0) {
    op->IndexInput({n}, 4, DataType::kInt32);  // seq_lengths
  } else {
    op->Arg("sequence_lengths", int64_t{0});
  }
  op->ShapeInput({*rc::gen::inRange<int64_t>(0, 4)}, DataType::kInt32);  // timestep
  if (*rc::gen::arbitrary<bool>()) op->Arg("drop_states", int64_t{1});
}

PARITY_OP_SPEC(LSTMUnit)
    .Tolerance("transcendental")
    .ConsumesIntermediates(true)
    .Make([](const Primary* p) -> std::optional<OpInstance> {
      auto h = StateDims(p);
      if (!h) return std::nullopt;
      const int64_t n = (*h)[1], d = (*h)[2];
      OpInstance op("LSTMUnit", 2);
      op.Input(*h);             // hidden_prev
      op.Input(*h);             // cell_prev
      op.Input({1, n, 4 * d});  // gates
      AddStepInputs(&op, n);
      if (*rc::gen::arbitrary<bool>()) op.Arg("forget_bias", 1.0f);
      return op;
    });

PARITY_OP_SPEC(GRUUnit)
    .Tolerance("transcendental")
    .ConsumesIntermediates(true)
    .Make([](const Primary* p) -> std::optional<OpInstance> {
      auto h = StateDims(p);
      if (!h) return std::nullopt;
      const int64_t n = (*h)[1], d = (*h)[2];
      OpInstance op("GRUUnit");
      op.Input(*h);             // hidden_prev
      op.Input({1, n, 3 * d});  // gates
      AddStepInputs(&op, n);
      return op;
    });

}  // namespace
}  // namespace parity::fuzz
