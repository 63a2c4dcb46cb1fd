// The builder oracle and the textbook cells it holds the builders' nets to (issue 37): the
// textbook LSTM and GRU against values worked out step by step here, the builders' drawn nets
// agreeing with them, and a builder bug (an option lost on the way to the net) that the forward
// and gradient oracles cannot see, found and blamed on the builder.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "core/rnn/rnn_cell.h"
#include "fuzz/cell_builder_cases.h"
#include "fuzz/generators.h"
#include "oracles/check.h"
#include "oracles/tolerance.h"
#include "reference/textbook_rnn.h"

namespace parity::testing {
namespace {

using Blobs = std::map<std::string, caffe2::TensorProto>;

caffe2::TensorProto Floats(const std::vector<int64_t>& dims, const std::vector<float>& values) {
  caffe2::TensorProto t;
  t.set_data_type(caffe2::TensorProto::FLOAT);
  for (int64_t d : dims) t.add_dims(d);
  for (float v : values) t.add_float_data(v);
  return t;
}

caffe2::TensorProto Lengths(const std::vector<int32_t>& values) {
  caffe2::TensorProto t;
  t.set_data_type(caffe2::TensorProto::INT32);
  t.add_dims(static_cast<int64_t>(values.size()));
  for (int32_t v : values) t.add_int32_data(v);
  return t;
}

double Sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

// One unit (H = D = 1), one step, two rows: row 0 runs the step, row 1's length is 0.
TEST(TextbookLstm, OneStepWorkedOutByHand) {
  CellPromise promise;
  promise.set_cell("lstm");
  promise.set_input("x");
  promise.set_seq_lengths("len");
  promise.set_hidden_init("h0");
  promise.set_cell_init("c0");
  for (const char* p : {"w", "b", "wh", "bh"}) promise.add_parameters(p);
  promise.set_forget_bias(1.0f);
  promise.set_hidden_all("h_all");
  promise.set_hidden_last("h_last");
  promise.set_cell_all("c_all");
  promise.set_cell_last("c_last");
  Blobs inputs = {{"x", Floats({1, 2, 1}, {0.5f, -0.7f})},
                  {"len", Lengths({1, 0})},
                  {"h0", Floats({2, 1}, {0.25f, 0.75f})},
                  {"c0", Floats({1}, {-0.5f})},  // [H]: the same for both rows
                  {"w", Floats({4, 1}, {0.125f, 0.25f, 0.375f, 0.5f})},
                  {"b", Floats({4}, {0.0625f, 0.125f, 0.1875f, 0.25f})},
                  {"wh", Floats({4, 1}, {0.5f, -0.5f, 0.25f, -0.25f})},
                  {"bh", Floats({4}, {0.0f, 0.125f, 0.0f, -0.125f})}};
  // Row 0, gates [i, f, o, g] = x w + b + h wh + bh, forget gate shifted by forget_bias.
  const double x = 0.5, h = 0.25, c = -0.5;
  const double gi = x * 0.125 + 0.0625 + h * 0.5 + 0.0;
  const double gf = x * 0.25 + 0.125 + h * -0.5 + 0.125;
  const double go = x * 0.375 + 0.1875 + h * 0.25 + 0.0;
  const double gg = x * 0.5 + 0.25 + h * -0.25 - 0.125;
  const double c1 = Sigmoid(gf + 1.0) * c + Sigmoid(gi) * std::tanh(gg);
  const double h1 = Sigmoid(go) * std::tanh(c1);

  for (bool drop : {false, true}) {
    promise.set_drop_states(drop);
    const Blobs out = reference::EvaluateCell(promise, inputs, reference::Precision::kF64);
    const std::vector<double> h_all = oracles::ProtoValues(out.at("h_all"));
    const std::vector<double> c_all = oracles::ProtoValues(out.at("c_all"));
    ASSERT_EQ(h_all.size(), 2u);
    EXPECT_NEAR(h_all[0], h1, 1e-15);
    EXPECT_NEAR(c_all[0], c1, 1e-15);
    // Row 1 is past its length: it keeps its state (0.75 and c0's -0.5), or drops it to 0.
    EXPECT_EQ(h_all[1], drop ? 0.0 : 0.75);
    EXPECT_EQ(c_all[1], drop ? 0.0 : -0.5);
    EXPECT_EQ(oracles::ProtoValues(out.at("h_last")), h_all);
    EXPECT_EQ(std::vector<int64_t>(out.at("h_last").dims().begin(), out.at("h_last").dims().end()),
              (std::vector<int64_t>{1, 2, 1}));
    EXPECT_EQ(oracles::ProtoValues(out.at("c_last")), c_all);
  }
}

// A GRU over x, len and h0 with parameters w, b, wr, br, wz, bz, wn, bn.
CellPromise GruPromise() {
  CellPromise promise;
  promise.set_cell("gru");
  promise.set_input("x");
  promise.set_seq_lengths("len");
  promise.set_hidden_init("h0");
  for (const char* p : {"w", "b", "wr", "br", "wz", "bz", "wn", "bn"}) promise.add_parameters(p);
  promise.set_hidden_all("h_all");
  promise.set_hidden_last("h_last");
  return promise;
}

// H = D = 1 over two steps: the reset gate applied before or after the candidate's projection.
TEST(TextbookGru, BothCandidateFormsOverTwoSteps) {
  CellPromise promise = GruPromise();
  const Blobs inputs = {{"x", Floats({2, 1, 1}, {0.5f, -1.0f})},
                        {"len", Lengths({2})},
                        {"h0", Floats({1, 1, 1}, {0.5f})},
                        {"w", Floats({3, 1}, {0.25f, -0.5f, 0.75f})},
                        {"b", Floats({3}, {0.125f, 0.0f, -0.25f})},
                        {"wr", Floats({1, 1}, {0.5f})},
                        {"br", Floats({1}, {0.0f})},
                        {"wz", Floats({1, 1}, {-0.25f})},
                        {"bz", Floats({1}, {0.125f})},
                        {"wn", Floats({1, 1}, {1.5f})},
                        {"bn", Floats({1}, {0.5f})}};
  for (bool linear_before_reset : {false, true}) {
    promise.set_linear_before_reset(linear_before_reset);
    double h = 0.5;
    std::vector<double> expected;
    for (double x : {0.5, -1.0}) {
      const double r = Sigmoid(x * 0.25 + 0.125 + h * 0.5);
      const double z = Sigmoid(x * -0.5 + h * -0.25 + 0.125);
      const double recurrent = linear_before_reset ? r * (h * 1.5 + 0.5) : (r * h) * 1.5 + 0.5;
      const double n = std::tanh(x * 0.75 - 0.25 + recurrent);
      h = z * h + (1 - z) * n;
      expected.push_back(h);
    }
    const Blobs out = reference::EvaluateCell(promise, inputs, reference::Precision::kF64);
    const std::vector<double> h_all = oracles::ProtoValues(out.at("h_all"));
    ASSERT_EQ(h_all.size(), 2u);
    EXPECT_NEAR(h_all[0], expected[0], 1e-15) << linear_before_reset;
    EXPECT_NEAR(h_all[1], expected[1], 1e-15) << linear_before_reset;
    EXPECT_EQ(oracles::ProtoValues(out.at("h_last")), std::vector<double>{expected[1]});
  }
}

TEST(TextbookCell, RefusesInputsThatDoNotFitNamingTheBlob) {
  CellPromise promise = GruPromise();
  Blobs inputs = {{"x", Floats({1, 1, 1}, {0.5f})}, {"len", Lengths({1})}};
  try {
    reference::EvaluateCell(promise, inputs, reference::Precision::kF64);
    FAIL() << "a missing parameter was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kMissingBlob);
    EXPECT_NE(std::string(e.what()).find("'wr'"), std::string::npos) << e.what();
  }
  inputs["wr"] = Floats({1, 1}, {0.5f});
  inputs["h0"] = Floats({1}, {0.5f});
  for (const char* p : {"br", "wz", "bz", "wn", "bn"}) inputs[p] = Floats({1}, {0.5f});
  inputs["w"] = Floats({2, 1}, {0.5f, 0.5f});  // [3H, D] is [3, 1]
  inputs["b"] = Floats({3}, {0.5f, 0.5f, 0.5f});
  try {
    reference::EvaluateCell(promise, inputs, reference::Precision::kF64);
    FAIL() << "a misshapen parameter was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kShapeMismatch);
    EXPECT_NE(std::string(e.what()).find("parameter 'w' must be [3, 1], got [2, 1]"),
              std::string::npos)
        << e.what();
  }
  promise.set_cell("rnn");
  EXPECT_THROW(reference::EvaluateCell(promise, inputs, reference::Precision::kF64), Error);
}

// The campaign's builder cases: every default oracle agrees with the built nets, and the builder
// oracle checks each one (never "not applicable": a drawn promise always fits its inputs).
TEST(BuilderOracle, DrawnBuilderNetsPassEveryOracle) {
  int lstm = 0, gru = 0, with_gradient = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    const Case c = fuzz::SampleCase(fuzz::CellBuilderCaseGen(), seed);
    ASSERT_TRUE(c.has_cell_promise());
    (c.cell_promise().cell() == "lstm" ? lstm : gru)++;
    const CaseReport report = oracles::CheckCase(c);
    for (const OracleVerdict& verdict : report.verdicts()) {
      EXPECT_NE(verdict.status(), OracleVerdict::FINDING)
          << "seed " << seed << " " << c.description() << ": " << verdict.finding().message();
      if (verdict.oracle() == "builder") {
        EXPECT_EQ(verdict.status(), OracleVerdict::OK) << seed << ": " << verdict.reason();
      }
      if (verdict.oracle() == "gradient" && verdict.status() == OracleVerdict::OK) ++with_gradient;
    }
  }
  EXPECT_GT(lstm, 10);
  EXPECT_GT(gru, 10);
  EXPECT_GT(with_gradient, 20);
}

// An LSTM (T 3, N 2, D = H = 2) with a forget bias of 1, its promise, and fixed inputs.
Case LstmWithForgetBias() {
  Case c;
  c.set_seed(5);
  LstmSpec spec;
  spec.dim_in = 2;
  spec.dim_out = 2;
  spec.forget_bias = 1.0f;
  spec.outputs_with_grads = {0, 1, 2, 3};
  const LstmOutputs out = Lstm(c.mutable_net(), spec);
  *c.mutable_cell_promise() = fuzz::PromiseOf(spec, out);
  float v = 0.1f;
  auto next = [&v](int64_t n) {
    std::vector<float> values;
    for (int64_t k = 0; k < n; ++k) values.push_back(v = std::fmod(v * 7.3f + 0.31f, 2.0f) - 1.0f);
    return values;
  };
  auto add = [&](const std::string& name, const caffe2::TensorProto& t) {
    caffe2::TensorProto named = t;
    named.set_name(name);
    *c.add_inputs() = named;
    c.mutable_net()->add_external_input(name);
  };
  add("input", Floats({3, 2, 2}, next(12)));
  add("seq_lengths", Lengths({3, 3}));
  add("hidden_init", Floats({1, 2, 2}, next(4)));
  add("cell_init", Floats({1, 2, 2}, next(4)));
  for (const RnnParameter& p : out.parameters) {
    int64_t n = 1;
    for (int64_t d : p.dims) n *= d;
    add(p.name, Floats(p.dims, next(n)));
  }
  for (const std::string& o : {out.hidden_all, out.hidden_last, out.cell_all, out.cell_last}) {
    c.mutable_net()->add_external_output(o);
  }
  return c;
}

TEST(BuilderOracle, FindsAnOptionTheBuilderLostThatNoOtherOracleSees) {
  // A builder that loses forget_bias on the way to LSTMUnit, as a bug in rnn_cell.cc would.
  auto real = std::make_shared<LstmBuilder>();
  *real = InstallLstmBuilder([real](caffe2::NetDef* net, const LstmSpec& spec) {
    LstmSpec lost = spec;
    lost.forget_bias = 0.0f;
    return (*real)(net, lost);
  });
  const Case wrong = LstmWithForgetBias();
  InstallLstmBuilder(*real);

  const CaseReport report = oracles::CheckCase(wrong);
  bool found = false;
  for (const OracleVerdict& verdict : report.verdicts()) {
    if (verdict.oracle() == "builder") {
      ASSERT_EQ(verdict.status(), OracleVerdict::FINDING) << verdict.reason();
      const Finding& f = verdict.finding();
      EXPECT_EQ(f.blamed_op_type(), "builder Lstm");
      EXPECT_EQ(f.signature().blamed_op_type(), "builder Lstm");
      EXPECT_EQ(f.signature().error_class(), "value mismatch");
      // The forget gate is wrong at the first step already.
      EXPECT_NE(f.message().find("first differs at step 0"), std::string::npos) << f.message();
      EXPECT_NE(f.message().find("textbook LSTM equations"), std::string::npos) << f.message();
      found = true;
    } else {
      // Both engines run the wrong net alike, and its backward pass is its own: the other
      // oracles agree with it.
      EXPECT_NE(verdict.status(), OracleVerdict::FINDING)
          << verdict.oracle() << ": " << verdict.finding().message();
    }
  }
  EXPECT_TRUE(found);
  // The real builder is back: the same case built again passes.
  oracles::CheckRequest request;
  request.oracles = {"builder"};
  EXPECT_EQ(oracles::CheckCase(LstmWithForgetBias(), request).verdicts(0).status(),
            OracleVerdict::OK);
}

TEST(BuilderOracle, AppliesOnlyToNetsWithAPromiseThatFits) {
  Case c = LstmWithForgetBias();
  oracles::CheckRequest request;
  request.oracles = {"builder"};
  c.mutable_cell_promise()->set_input("nowhere");
  OracleVerdict verdict = oracles::CheckCase(c, request).verdicts(0);
  EXPECT_EQ(verdict.status(), OracleVerdict::NOT_APPLICABLE);
  EXPECT_NE(verdict.reason().find("'nowhere' is not an input of the case"), std::string::npos)
      << verdict.reason();
  c.clear_cell_promise();
  verdict = oracles::CheckCase(c, request).verdicts(0);
  EXPECT_EQ(verdict.status(), OracleVerdict::NOT_APPLICABLE);
  EXPECT_EQ(verdict.reason(), "not a cell builder's net (no cell promise)");
}

}  // namespace
}  // namespace parity::testing
