// Every default oracle on RecurrentNetwork cases: forward values against the reference's unrolled
// run, gradients (RecurrentNetworkGradient) against f64 finite differences of it, determinism and
// round trips. Caffe2's test_sum_mul and test_mul cells for T in {1, 2, 5} with [D] and [N, D]
// initial states, the LSTM with and without recompute, and forward-only, and the GRU (both
// output-gate variants, with and without recompute); the cells' nets also against their textbook
// equations (the builder oracle).
#include <gtest/gtest.h>

#include "core/rnn/rnn_cell.h"
#include "core/tensor_proto.h"
#include "fuzz/cell_builder_cases.h"
#include "oracles/check.h"
#include "tests/rnn/rnn_test_util.h"

namespace parity::testing {
namespace {

void ExpectEveryOracleOk(const Case& c) {
  const CaseReport report = oracles::CheckCase(c);
  EXPECT_EQ(report.verdicts_size(), static_cast<int>(oracles::DefaultOracles().size()));
  for (const auto& verdict : report.verdicts()) {
    // The graph transforms keep a RecurrentNetwork (and what it may read) as it is: no pass has
    // anything to rewrite in these nets.
    if (verdict.oracle() == "transform") {
      EXPECT_EQ(verdict.status(), OracleVerdict::NOT_APPLICABLE) << verdict.DebugString();
      EXPECT_EQ(verdict.reason(), "no pass changes this net");
      continue;
    }
    // The builder oracle checks the cells' nets (they carry a promise), not hand-built ones.
    if (verdict.oracle() == "builder" && !c.has_cell_promise()) {
      EXPECT_EQ(verdict.status(), OracleVerdict::NOT_APPLICABLE) << verdict.DebugString();
      continue;
    }
    // Where a GPU is present the device oracle joins: the forward RecurrentNetwork and its step
    // net run on the device (its gradient op, CPU only, is not part of the case's net).
    EXPECT_EQ(verdict.status(), OracleVerdict::OK)
        << verdict.oracle() << ": " << verdict.reason() << " " << verdict.finding().message();
  }
}

struct SimpleCase {
  bool sum_first;
  int64_t steps;
  int init_rank;
};

class SimpleCellOracles : public ::testing::TestWithParam<SimpleCase> {};

TEST_P(SimpleCellOracles, AllPass) {
  const SimpleCase p = GetParam();
  const int64_t n = 2, d = 3;
  Case c;
  c.set_seed(17);
  caffe2::NetDef* net = c.mutable_net();
  net->set_name("rnn_case");
  const RecurrentNetOutputs out = AddSimpleRnn(net, p.sum_first, {0, 1});
  net->add_external_input("x");
  net->add_external_input("o_init");
  for (const std::string& o : out.outputs) net->add_external_output(o);
  *c.add_inputs() = TensorToProto(RandomTensor({p.steps, n, d}, 5, 0.5f, 1.5f), "x");
  *c.add_inputs() = TensorToProto(
      RandomTensor(p.init_rank == 1 ? std::vector<int64_t>{d} : std::vector<int64_t>{n, d}, 6),
      "o_init");
  ExpectEveryOracleOk(c);
}

INSTANTIATE_TEST_SUITE_P(Cells, SimpleCellOracles,
                         ::testing::Values(SimpleCase{true, 1, 1}, SimpleCase{true, 2, 2},
                                           SimpleCase{true, 5, 1}, SimpleCase{true, 5, 2},
                                           SimpleCase{false, 1, 2}, SimpleCase{false, 2, 1},
                                           SimpleCase{false, 5, 2}));

struct CellSizes {
  int64_t steps, batch, dim_in, hidden;
  int init_rank;  // 1: [H], 2: [N, H], 3: [1, N, H]
};

// The inputs of a cell built with the builders' default names: `input` [T, N, D], `seq_lengths`
// (rows after the first one step short when T > 1), the initial `states` and the `parameters`,
// random from seeds `seed`, `seed` + 1, ... in that order; each is an external input of the net.
void AddCellInputs(Case* c, const CellSizes& z, const std::vector<std::string>& states,
                   const std::vector<RnnParameter>& parameters, uint32_t seed) {
  std::vector<int64_t> state_dims = {z.hidden};
  if (z.init_rank >= 2) state_dims.insert(state_dims.begin(), z.batch);
  if (z.init_rank == 3) state_dims.insert(state_dims.begin(), 1);
  *c->add_inputs() = TensorToProto(RandomTensor({z.steps, z.batch, z.dim_in}, seed++), "input");
  const auto steps = static_cast<int32_t>(z.steps);
  std::vector<int32_t> lengths(z.batch, steps > 1 ? steps - 1 : 1);
  lengths[0] = steps;
  *c->add_inputs() = TensorToProto(MakeTensor<int32_t>({z.batch}, lengths), "seq_lengths");
  for (const std::string& state : states) {
    *c->add_inputs() = TensorToProto(RandomTensor(state_dims, seed++), state);
  }
  for (const RnnParameter& param : parameters) {
    *c->add_inputs() = TensorToProto(RandomTensor(param.dims, seed++), param.name);
  }
  for (const auto& t : c->inputs()) c->mutable_net()->add_external_input(t.name());
}

struct LstmCase {
  int64_t steps;
  bool memory_optimization;
  bool forward_only;
  int init_rank;  // 1: [H], 2: [N, H], 3: [1, N, H]
};

class LstmOracles : public ::testing::TestWithParam<LstmCase> {};

TEST_P(LstmOracles, AllPass) {
  const LstmCase p = GetParam();
  const int64_t n = 2, d = 3, h = 2;
  Case c;
  c.set_seed(23);
  caffe2::NetDef* net = c.mutable_net();
  net->set_name("lstm_case");
  LstmSpec spec;
  spec.dim_in = d;
  spec.dim_out = h;
  spec.forget_bias = 1.0f;
  spec.memory_optimization = p.memory_optimization;
  spec.forward_only = p.forward_only;
  spec.outputs_with_grads = {0, 1, 2, 3};
  const LstmOutputs out = Lstm(net, spec);
  for (const std::string& o : {out.hidden_all, out.hidden_last, out.cell_all, out.cell_last}) {
    net->add_external_output(o);
  }
  AddCellInputs(&c, {p.steps, n, d, h, p.init_rank}, {"hidden_init", "cell_init"}, out.parameters,
                31);
  *c.mutable_cell_promise() = fuzz::PromiseOf(spec, out);
  if (p.forward_only) {
    // No gradient to check: the forward oracles only.
    oracles::CheckRequest request;
    request.oracles = {"forward", "determinism", "roundtrip", "builder"};
    const CaseReport report = oracles::CheckCase(c, request);
    ASSERT_EQ(report.verdicts_size(), 4);
    for (const auto& verdict : report.verdicts()) {
      EXPECT_EQ(verdict.status(), OracleVerdict::OK)
          << verdict.oracle() << ": " << verdict.reason() << " " << verdict.finding().message();
    }
    return;
  }
  ExpectEveryOracleOk(c);
}

INSTANTIATE_TEST_SUITE_P(Lstm, LstmOracles,
                         ::testing::Values(LstmCase{1, false, false, 3},
                                           LstmCase{2, false, false, 1},
                                           LstmCase{5, false, false, 2},
                                           LstmCase{2, true, false, 3}, LstmCase{5, true, false, 3},
                                           LstmCase{3, false, true, 3}));

struct GruOracleCase {
  int64_t steps;
  bool memory_optimization;
  bool linear_before_reset;
  int init_rank;
};

class GruOracles : public ::testing::TestWithParam<GruOracleCase> {};

TEST_P(GruOracles, AllPass) {
  const GruOracleCase p = GetParam();
  const int64_t n = 2, d = 3, h = 2;
  Case c;
  c.set_seed(29);
  caffe2::NetDef* net = c.mutable_net();
  net->set_name("gru_case");
  GruSpec spec;
  spec.dim_in = d;
  spec.dim_out = h;
  spec.memory_optimization = p.memory_optimization;
  spec.linear_before_reset = p.linear_before_reset;
  spec.outputs_with_grads = {0, 1};
  const GruOutputs out = Gru(net, spec);
  net->add_external_output(out.hidden_all);
  net->add_external_output(out.hidden_last);
  AddCellInputs(&c, {p.steps, n, d, h, p.init_rank}, {"hidden_init"}, out.parameters, 41);
  *c.mutable_cell_promise() = fuzz::PromiseOf(spec, out);
  ExpectEveryOracleOk(c);
}

INSTANTIATE_TEST_SUITE_P(
    Gru, GruOracles,
    ::testing::Values(GruOracleCase{1, false, false, 3}, GruOracleCase{2, false, false, 1},
                      GruOracleCase{5, false, false, 2}, GruOracleCase{3, true, false, 3},
                      GruOracleCase{3, false, true, 3}, GruOracleCase{4, true, true, 2}));

}  // namespace
}  // namespace parity::testing
