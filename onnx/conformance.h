// ONNX's backend test suites as ground truth written by others (issue 17): every case directory
// (model.onnx + test_data_set_N/input_K.pb, output_K.pb) is imported, run on a parity backend and
// compared with the expected outputs by ONNX's own rule (onnx/backend/test/runner): the same
// number of outputs, exactly the expected dtype and shape, and |out - ref| <= 1e-7 + 1e-3 * |ref|
// elementwise, NaN equal to NaN. A backend computing in f64 (the reference) has its f64 results
// cast to the expected f32 first.
//
// input_K.pb feeds the K-th graph input that is not an initializer (by position: the pytorch
// suites' files carry no names); parameter inputs (ParameterInputs: shapes, axes, bounds) are
// bound as constants, since parity's ops take those as arguments.
#ifndef PARITY_ONNX_CONFORMANCE_H_
#define PARITY_ONNX_CONFORMANCE_H_

#include <functional>
#include <string>
#include <vector>

#include "oracles/backend.h"

namespace parity::onnx {

// ONNX's tolerances for every suite with a model.onnx (loader/__init__.py).
inline constexpr double kConformanceRtol = 1e-3;
inline constexpr double kConformanceAtol = 1e-7;

enum class CaseStatus { kPassed, kFailed, kUnsupported };
const char* CaseStatusName(CaseStatus status);  // "passed", "failed", "unsupported"

struct CaseResult {
  std::string name;  // the case directory's name
  CaseStatus status = CaseStatus::kPassed;
  // failed: which output and how ("output 'y': 3 of 60 elements differ, max abs error 0.02"), or
  // the engine's error; unsupported: every node or value not translated.
  std::string detail;
  double max_error = 0;               // the largest |out - ref| of a failed comparison
  std::vector<std::string> notes;     // the importer's translation notes
  std::vector<std::string> op_types;  // the model's op types, in first-use order
  // unsupported: the op types of the untranslated nodes ("" for a value or file of a type parity
  // cannot hold).
  std::vector<std::string> unsupported_ops;
};

struct SuiteResult {
  std::string dir;
  std::string engine;
  std::vector<CaseResult> cases;
  int passed = 0;
  int failed = 0;
  int unsupported = 0;
};

// The directories under `dir` holding a model.onnx, sorted (kIo when `dir` is not a directory).
std::vector<std::string> ListCases(const std::string& dir);
// One case, every test_data_set_* of it (kIo / kInvalidNet for unreadable files; everything the
// importer or the files' dtypes do not cover is kUnsupported, a run or comparison failure
// kFailed).
CaseResult RunCase(const std::string& case_dir, const oracles::Backend& backend);
// A case's name: its directory's last component.
std::string CaseName(const std::string& case_dir);

// RunCase, with whatever it throws turned into a kFailed result naming the reason ("cannot run
// the case: ..."): never throws.
CaseResult RunCaseOrReport(const std::string& case_dir, const oracles::Backend& backend);

// How a suite runs one case (its directory): in this process (RunCaseOrReport, the default) or in
// a worker (IsolatedCaseRunner, onnx/conformance_isolated.h).
using CaseRunner = std::function<CaseResult(const std::string& case_dir)>;

// Every case of `dir`, each by `run_case`.
SuiteResult RunSuite(const std::string& dir, const oracles::Backend& backend,
                     const CaseRunner& run_case = {});

// Compares one output by ONNX's rule; "" when it passes, else what differs (and `max_error`).
std::string CompareOutput(const std::string& name, const caffe2::TensorProto& actual,
                          const caffe2::TensorProto& expected, bool cast_f64_to_expected,
                          double* max_error);

}  // namespace parity::onnx

#endif  // PARITY_ONNX_CONFORMANCE_H_
