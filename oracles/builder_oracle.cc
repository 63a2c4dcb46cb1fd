// The builder oracle: a net made by a cell builder (Lstm, Gru: core/rnn/rnn_cell.h) against the
// textbook equations of the cell it promised (Case.cell_promise; reference/textbook_rnn.h), on
// the same inputs, with the tolerance sized by the textbook's own f32 run.
//
// A builder that wires its net wrongly (a step that ignores its previous state, a flag not passed
// on, a gate read from the wrong rows) builds the same wrong net for every engine: the reference
// runs it as faithfully as production, so the forward oracle sees agreement and the gradient
// oracle a backward pass consistent with the wrong forward. Only an independent statement of what
// the builder promised can disagree. The two oracles together cover the gradient as well: the
// gradient oracle holds the built net's backward pass to finite differences of the built net, and
// this one holds the built net to the textbook, so the backward pass is the textbook's gradient.
#include <string>
#include <vector>

#include "oracles/finding.h"
#include "oracles/oracle.h"
#include "reference/textbook_rnn.h"

namespace parity::oracles {
namespace {

// The builder function that made the net ("Lstm", "Gru").
std::string BuilderOf(const CellPromise& promise) {
  return promise.cell() == "lstm" ? "Lstm" : "Gru";
}

// The builder as findings name it ("builder Lstm"): what the mutant catalogue blames too.
std::string BuilderName(const CellPromise& promise) { return "builder " + BuilderOf(promise); }

std::pair<BackendRun, BackendRun> Textbook(const Case& c) {
  std::pair<BackendRun, BackendRun> runs;
  const Blobs inputs = CaseInputs(c);
  try {
    runs.first.blobs =
        reference::EvaluateCell(c.cell_promise(), inputs, reference::Precision::kF64);
    runs.second.blobs =
        reference::EvaluateCell(c.cell_promise(), inputs, reference::Precision::kF32);
  } catch (const Error& error) {
    runs.first.error = error;
    runs.second.error = error;
  }
  return runs;
}

std::vector<std::string> PromisedOutputs(const CellPromise& promise) {
  std::vector<std::string> names = {promise.hidden_all(), promise.hidden_last()};
  if (promise.cell() == "lstm") {
    names.push_back(promise.cell_all());
    names.push_back(promise.cell_last());
  }
  return names;
}

// The first step whose rows of `[T, N, H]` blob `name` are out of tolerance, or -1.
int FirstWrongStep(const std::string& name, const BackendRun& truth, const BackendRun& f32,
                   const BackendRun& run, const ToleranceClass& tolerance) {
  const caffe2::TensorProto& expected = truth.blobs.at(name);
  const caffe2::TensorProto& actual = run.blobs.at(name);
  if (expected.dims_size() != 3 || actual.dims_size() != 3) return -1;
  const int64_t row = expected.dims(1) * expected.dims(2);
  const std::vector<double> truth_values = ProtoValues(expected);
  const std::vector<double> f32_values = ProtoValues(f32.blobs.at(name));
  const std::vector<double> run_values = ProtoValues(actual);
  // Rows [step * row, (step + 1) * row) of `values` as a DOUBLE tensor of one step.
  auto step_of = [row](const std::vector<double>& values, int64_t step) {
    caffe2::TensorProto out;
    out.set_data_type(caffe2::TensorProto::DOUBLE);
    out.add_dims(row);
    for (int64_t k = 0; k < row; ++k) out.add_double_data(values[step * row + k]);
    return out;
  };
  for (int64_t t = 0;
       t < expected.dims(0) && (t + 1) * row <= static_cast<int64_t>(run_values.size()); ++t) {
    if (!CompareWithTruth(step_of(truth_values, t), step_of(f32_values, t), step_of(run_values, t),
                          tolerance)
             .ok) {
      return static_cast<int>(t);
    }
  }
  return -1;
}

OracleResult CheckBuilder(const Case& c, const OracleOptions& options) {
  if (!c.has_cell_promise()) return {std::nullopt, "not a cell builder's net (no cell promise)"};
  const CellPromise& promise = c.cell_promise();
  auto [truth, f32] = Textbook(c);
  if (truth.error) {
    return {std::nullopt, "the textbook " + promise.cell() +
                              " cannot take the case's inputs: " + truth.error->what()};
  }
  const BackendRun run = options.backend->Run(c);
  if (run.error) {
    return {std::nullopt, std::string("the backend rejected the built net (judged by the validity "
                                      "oracle): ") +
                              run.error->what()};
  }
  const std::vector<std::string> outputs = PromisedOutputs(promise);
  std::vector<TruthDisagreement> wrong =
      DisagreementsWithTruth(outputs, truth, f32, run, options.tolerance);
  if (!wrong.empty()) {
    // One realization of f32 rounding can land near the truth by luck: sample it on copies moved
    // by an ulp before calling the mismatch a finding (as the forward oracle does).
    f32 = SampledRounding(c, outputs, truth, f32, Textbook);
    wrong = DisagreementsWithTruth(outputs, truth, f32, run, options.tolerance);
  }
  if (wrong.empty()) return {};

  const TruthDisagreement& first = wrong.front();
  const std::string cell = promise.cell() == "lstm" ? "LSTM" : "GRU";
  std::string message = "the net built by " + BuilderOf(promise) + " disagrees with the textbook " +
                        cell + " equations on '" + first.blob + "'";
  std::string error_class = "missing output";
  if (first.actual == nullptr) {
    message += ": the built net does not produce it";
  } else {
    error_class = first.comparison.error_class;
    message += ": " + first.comparison.detail;
  }
  for (const TruthDisagreement& d : wrong) {
    const std::string& all = d.blob;
    if (d.actual == nullptr || (all != promise.hidden_all() && all != promise.cell_all())) continue;
    const int step = FirstWrongStep(all, truth, f32, run, options.tolerance);
    if (step < 0) continue;
    message +=
        "; '" + all + "' first differs at step " + std::to_string(step) +
        (step == 0 ? " (the step itself is wrong)"
                   : " (steps before it agree: what a step takes from the one before is wrong)");
    break;
  }
  Finding finding = MakeFinding("builder", c, error_class, message);
  for (const TruthDisagreement& d : wrong) {
    if (d.expected != nullptr && d.actual != nullptr) {
      AddComparison(&finding, d.blob, *d.expected, *d.actual, d.comparison);
    }
  }
  // The builder is to blame, not an op: both engines run the net it made alike.
  finding.set_blamed_op_type(BuilderName(promise));
  finding.set_blamed_op_path("the net " + BuilderName(promise) + " made");
  finding.mutable_signature()->set_blamed_op_type(BuilderName(promise));
  return {finding, ""};
}

const bool kRegistered = RegisterOracle("builder", CheckBuilder);

}  // namespace
}  // namespace parity::oracles
