// parity onnx import MODEL.onnx -o NET [--init INIT] [--bind NAME=FILE]...
// parity onnx conformance [DIR|SUITE] [--engine E] [--json OUT] [--summary] [--case-timeout S]
//                         [--in-process]
//
// ONNX import (onnx/importer.h) and ONNX's backend test suites run through it
// (onnx/conformance.h): one line per case (failed, unsupported, passed), then the counts. Exit 0
// when no case failed (an unsupported case is not a failure), 1 when one did.
#include <sys/stat.h>

#include <iomanip>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "core/io.h"
#include "core/proto/error.h"
#include "onnx/conformance.h"
#include "onnx/conformance_isolated.h"
#include "onnx/importer.h"
#include "onnx/tensor.h"
#include "oracles/backend.h"
#include "tools/command.h"
#include "tools/output_files.h"

namespace parity::tools {
namespace {

using Json = nlohmann::ordered_json;

constexpr char kSuiteRoot[] = "/usr/share/libonnx-testdata/data/";
constexpr char kDefaultSuite[] = "/usr/share/libonnx-testdata/data/node";

// DIR, or the name of one of Debian's suites ("node", "pytorch-operator", "pytorch-converted",
// "simple") when no such directory exists here.
std::string SuiteDir(const std::string& dir) {
  struct stat st;
  if (dir.find('/') == std::string::npos && stat(dir.c_str(), &st) != 0) return kSuiteRoot + dir;
  return dir;
}

struct ImportCommandOptions {
  std::string model_path;
  std::string net_path;
  std::string init_path;
  std::vector<std::string> binds;
};

// NAME=FILE: FILE is an ONNX TensorProto (.pb, as in ONNX's test data) or one parity tensor
// (.npy, .pbtxt).
caffe2::TensorProto LoadBinding(const std::string& spec) {
  const size_t eq = spec.find('=');
  PARITY_ENFORCE(eq != std::string::npos && eq > 0 && eq + 1 < spec.size(), ErrorKind::kBadArgument,
                 "--bind '", spec, "': expected NAME=FILE");
  const std::string name = spec.substr(0, eq), path = spec.substr(eq + 1);
  caffe2::TensorProto value;
  if (path.size() > 3 && path.compare(path.size() - 3, 3, ".pb") == 0) {
    ::onnx::TensorProto tensor;
    ParseProto(ReadFileBytes(path), false, "ONNX tensor '" + path + "'", &tensor);
    value = onnx::Caffe2TensorFromOnnx(tensor);
  } else {
    const auto tensors = LoadTensors(path);
    PARITY_ENFORCE(tensors.size() == 1, ErrorKind::kBadArgument, "--bind '", spec, "': '", path,
                   "' holds ", tensors.size(), " tensors, expected 1");
    value = tensors[0];
  }
  value.set_name(name);
  return value;
}

int Import(const ImportCommandOptions& o) {
  // Refused before any work: the init net would silently replace the net.
  RefuseSharedFiles({{"-o", o.net_path}, {"--init", o.init_path}}, {});
  onnx::ImportOptions options;
  for (const auto& spec : o.binds) options.constant_inputs.push_back(LoadBinding(spec));
  const onnx::ImportResult result = onnx::ImportModel(onnx::LoadModel(o.model_path), options);
  PARITY_ENFORCE(!o.init_path.empty() || result.init_net.op_size() == 0, ErrorKind::kBadArgument,
                 "the model has initializers (", result.init_net.op_size(),
                 " fills): name their init net with --init");
  // Both files or neither: a failing --init must not leave a new -o beside an old init net.
  std::vector<std::pair<std::string, std::string>> files = {
      {o.net_path, ProtoFileBytes(o.net_path, result.net)}};
  if (!o.init_path.empty()) {
    files.emplace_back(o.init_path, ProtoFileBytes(o.init_path, result.init_net));
  }
  WriteFilesAtomic(files);
  for (const auto& note : result.notes) std::cerr << "note: " << note << "\n";
  std::cerr << "wrote " << o.net_path << " (" << result.net.op_size() << " ops";
  if (!o.init_path.empty()) {
    std::cerr << "), " << o.init_path << " (" << result.init_net.op_size() << " fills";
  }
  std::cerr << "); inputs:";
  for (const auto& name : result.inputs) std::cerr << " " << Printable(name);
  std::cerr << "\n";
  return kExitClean;
}

struct ConformanceOptions {
  std::string dir = kDefaultSuite;
  std::string engine = oracles::kProduction;
  std::string json_path;
  bool summary = false;
  bool in_process = false;    // --in-process: no worker, a crashing case ends the suite
  double case_timeout = 120;  // --case-timeout: seconds a case may take in its worker
};

Json SuiteJson(const onnx::SuiteResult& suite) {
  Json cases = Json::array();
  for (const auto& c : suite.cases) {
    Json entry = {{"case", c.name}, {"status", onnx::CaseStatusName(c.status)}};
    if (!c.detail.empty()) entry["detail"] = c.detail;
    if (c.status == onnx::CaseStatus::kFailed) entry["max_error"] = c.max_error;
    if (!c.unsupported_ops.empty()) entry["unsupported_ops"] = c.unsupported_ops;
    entry["ops"] = c.op_types;
    if (!c.notes.empty()) entry["notes"] = c.notes;
    cases.push_back(entry);
  }
  return {{"dir", suite.dir},
          {"engine", suite.engine},
          {"cases_total", suite.cases.size()},
          {"passed", suite.passed},
          {"failed", suite.failed},
          {"unsupported", suite.unsupported},
          {"rtol", onnx::kConformanceRtol},
          {"atol", onnx::kConformanceAtol},
          {"cases", cases}};
}

int Conformance(const ConformanceOptions& o) {
  const oracles::Backend& backend = oracles::GetBackend(o.engine);
  // Each case in a worker unless --in-process: a model that crashes or hangs the importer or an
  // engine fails that case, named, and the suite goes on.
  fuzz::SandboxLimits limits;
  limits.case_timeout = o.case_timeout;
  onnx::IsolatedCaseRunner isolated(backend, limits);
  onnx::CaseRunner run_case;
  if (!o.in_process) run_case = [&isolated](const std::string& dir) { return isolated(dir); };
  const onnx::SuiteResult suite = onnx::RunSuite(SuiteDir(o.dir), backend, run_case);
  std::cout << "ONNX conformance: " << suite.dir << " on " << suite.engine << " (rtol "
            << onnx::kConformanceRtol << ", atol " << onnx::kConformanceAtol << ")\n";
  size_t width = 0;
  for (const auto& c : suite.cases) width = std::max(width, c.name.size());
  for (auto status :
       {onnx::CaseStatus::kFailed, onnx::CaseStatus::kUnsupported, onnx::CaseStatus::kPassed}) {
    if (o.summary && status != onnx::CaseStatus::kFailed) continue;
    for (const auto& c : suite.cases) {
      if (c.status != status) continue;
      std::cout << std::left << std::setw(12) << onnx::CaseStatusName(status)
                << std::setw(width + 2) << Printable(c.name) << Printable(c.detail) << "\n";
    }
  }
  // What blocks the unsupported cases, by op type (each case counted once per op type).
  std::map<std::string, int> blockers;
  for (const auto& c : suite.cases) {
    std::set<std::string> ops(c.unsupported_ops.begin(), c.unsupported_ops.end());
    for (const auto& op : ops) ++blockers[op.empty() ? "(value type)" : op];
  }
  if (!blockers.empty()) {
    std::vector<std::pair<int, std::string>> sorted;
    for (const auto& [op, n] : blockers) sorted.emplace_back(-n, op);
    std::sort(sorted.begin(), sorted.end());
    std::cout << "unsupported cases by blocking op:";
    for (const auto& [n, op] : sorted) std::cout << " " << Printable(op) << " " << -n;
    std::cout << "\n";
  }
  std::cout << suite.cases.size() << " cases: " << suite.passed << " passed, " << suite.failed
            << " failed, " << suite.unsupported << " unsupported\n";
  if (!o.json_path.empty())
    WriteFileAtomic(
        o.json_path,
        SuiteJson(suite).dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  return suite.failed == 0 ? kExitClean : kExitDiscrepancies;
}

PARITY_REGISTER_COMMAND(Command{
    "onnx", "Import ONNX models; run ONNX's conformance suites", [](CLI::App* app) {
      app->footer(Examples({
          {"parity onnx import model.onnx -o net.pbtxt --init init.pb",
           "translate a model and its initializers"},
          {"parity onnx conformance --summary", "ONNX's node suite on the production engine"},
      }));
      app->require_subcommand(1);
      auto import = std::make_shared<ImportCommandOptions>();
      CLI::App* import_app = app->add_subcommand(
          "import", "Translate an ONNX model into a NetDef (and its initializers' init net)");
      import_app->footer(Examples({
          {"parity onnx import resnet18.onnx -o resnet18.pbtxt --init resnet18_init.pb",
           "the net, and an init net of fills holding the initializers"},
          {"parity onnx import model.onnx -o net.pbtxt --bind shape=shape.npy",
           "take graph input 'shape' as a constant (e.g. a Reshape's shape)"},
      }));
      import_app->add_option("model", import->model_path, "ONNX model (.onnx)")->required();
      import_app->add_option("-o,--output", import->net_path, "the net (.pbtxt or .pb)")
          ->required();
      import_app->add_option("--init", import->init_path,
                             "the init net filling the initializers (.pbtxt or .pb)");
      import_app->add_option("--bind", import->binds,
                             "NAME=FILE: take graph input NAME as a constant (an ONNX "
                             "TensorProto .pb, or .npy/.pbtxt), e.g. a Reshape's shape");

      auto conformance = std::make_shared<ConformanceOptions>();
      CLI::App* conformance_app =
          app->add_subcommand("conformance",
                              "Run an ONNX test suite (node, pytorch-operator, pytorch-converted, "
                              "simple) on an engine and compare with ONNX's rule");
      conformance_app->add_option(
          "dir", conformance->dir,
          std::string("suite directory, or node, pytorch-operator, pytorch-converted, simple "
                      "under ") +
              kSuiteRoot + " (default " + kDefaultSuite + ")");
      conformance_app->footer(Examples({
          {"parity onnx conformance --summary",
           "ONNX's node suite (Debian's libonnx-testdata) on production: failures and counts"},
          {"parity onnx conformance pytorch-converted --engine reference --json cases.json",
           "another suite on the f64 reference, every case's result as JSON"},
          {"parity onnx conformance onnx/backend/test/data/node",
           "a suite directory of a newer ONNX release"},
      }));
      conformance_app->add_option("--engine", conformance->engine,
                                  "A registered backend: production, reference (f64), ...");
      conformance_app->add_option("--json", conformance->json_path,
                                  "also write every case's result as JSON");
      conformance_app->add_flag("--summary", conformance->summary,
                                "print only the failed cases and the counts");
      conformance_app
          ->add_option("--case-timeout", conformance->case_timeout,
                       "seconds a case may take before it fails as hung (default 120)")
          ->check(kPositiveSeconds);
      conformance_app->add_flag("--in-process", conformance->in_process,
                                "run the cases in this process, not in a worker (faster to "
                                "debug; a case that crashes ends the run)");
      return [import_app, import, conformance] {
        if (import_app->parsed()) return Import(*import);
        return Conformance(*conformance);
      };
    }});

}  // namespace
}  // namespace parity::tools
