// ONNX conformance cases run in a worker process (fuzz/sandbox.h), so one model that crashes,
// hangs or exhausts memory in the importer or an engine fails that case with its reason and the
// suite goes on (hardening 2): a conformance run over models nobody here wrote must not end at
// the first bad one. The worker is forked once and serves case after case; it is replaced after a
// case that kills it.
#ifndef PARITY_ONNX_CONFORMANCE_ISOLATED_H_
#define PARITY_ONNX_CONFORMANCE_ISOLATED_H_

#include <memory>
#include <string>

#include "fuzz/sandbox.h"
#include "onnx/conformance.h"
#include "oracles/backend.h"

namespace parity::onnx {

class IsolatedCaseRunner {
 public:
  IsolatedCaseRunner(const oracles::Backend& backend, fuzz::SandboxLimits limits);
  ~IsolatedCaseRunner();

  // RunCaseOrReport(case_dir) in the worker; a case the worker dies on is kFailed, its detail
  // naming the signal or limit, the op that was running and the top frames of parity's code.
  CaseResult operator()(const std::string& case_dir);

 private:
  const oracles::Backend& backend_;
  fuzz::SandboxLimits limits_;
  std::unique_ptr<fuzz::Sandbox> sandbox_;
};

// The wire form of a CaseResult between the worker and the suite (JSON).
std::string EncodeCaseResult(const CaseResult& result);
CaseResult DecodeCaseResult(const std::string& bytes);

}  // namespace parity::onnx

#endif  // PARITY_ONNX_CONFORMANCE_ISOLATED_H_
