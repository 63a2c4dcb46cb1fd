#include "onnx/conformance.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>
#include <typeinfo>

#include "core/io.h"
#include "core/tensor_proto.h"
#include "onnx/importer.h"
#include "onnx/tensor.h"

namespace parity::onnx {
namespace {

bool IsDirectory(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool IsFile(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::vector<std::string> SortedEntries(const std::string& dir) {
  DIR* d = opendir(dir.c_str());
  PARITY_ENFORCE(d != nullptr, ErrorKind::kIo, "cannot read directory '", dir, "'");
  std::vector<std::string> names;
  while (const dirent* entry = readdir(d)) {
    const std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

::onnx::TensorProto LoadOnnxTensor(const std::string& path) {
  ::onnx::TensorProto tensor;
  ParseProto(ReadFileBytes(path), false, "ONNX tensor '" + path + "'", &tensor);
  return tensor;
}

// Thrown inside RunCase for what is out of the importer's or parity's reach.
struct Unsupported {
  std::string why;
  std::vector<std::string> op_types;
};

double ElementAsDouble(const Tensor& t, int64_t i) {
  double out = 0;
  DispatchNumeric(t.dtype(), "output", [&](auto zero) {
    using T = decltype(zero);
    out = static_cast<double>(static_cast<const T*>(t.raw_data())[i]);
  });
  return out;
}

// One data set: bind, import, run, compare. "" when it passes.
std::string RunDataSet(const ::onnx::ModelProto& model, const std::string& set_dir,
                       const oracles::Backend& backend, CaseResult* result) {
  const ::onnx::GraphProto& graph = model.graph();
  std::set<std::string> initializers;
  for (const auto& t : graph.initializer()) initializers.insert(t.name());
  const std::set<std::string> parameters = ParameterInputs(model);

  // A file parity cannot hold is not fed; the importer names the node that reads it, which says
  // more than the file's type alone (both are reported only when the importer has no objection).
  ImportOptions options;
  std::vector<caffe2::TensorProto> feeds;
  std::vector<std::string> unloadable;
  int k = 0;
  for (const auto& input : graph.input()) {
    if (initializers.count(input.name())) continue;
    const std::string path = set_dir + "/input_" + std::to_string(k++) + ".pb";
    if (!IsFile(path)) continue;
    if (!input.type().has_tensor_type()) {
      unloadable.push_back("graph input '" + input.name() + "' is not a tensor");
      continue;
    }
    caffe2::TensorProto value;
    try {
      value = Caffe2TensorFromOnnx(LoadOnnxTensor(path));
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::kBadArgument) throw;
      unloadable.push_back("graph input '" + input.name() + "': " + e.what());
      continue;
    }
    value.set_name(input.name());  // by position: the pytorch suites' files have no names
    options.input_dims[input.name()] = {value.dims().begin(), value.dims().end()};
    if (parameters.count(input.name())) {
      options.constant_inputs.push_back(value);
    } else {
      feeds.push_back(value);
    }
  }

  ImportResult imported = TranslateModel(model, options);
  result->notes = imported.notes;
  if (!imported.unsupported.empty() || !unloadable.empty()) {
    Unsupported unsupported;
    for (const auto& u : imported.unsupported) {
      unsupported.why += (unsupported.why.empty() ? "" : "; ") + u.ToString();
      unsupported.op_types.push_back(u.op_type);
    }
    if (imported.unsupported.empty()) {
      for (const auto& why : unloadable) {
        unsupported.why += (unsupported.why.empty() ? "" : "; ") + why;
      }
    }
    throw unsupported;
  }

  std::vector<caffe2::TensorProto> expected;
  for (int j = 0; j < graph.output_size(); ++j) {
    const std::string path = set_dir + "/output_" + std::to_string(j) + ".pb";
    PARITY_ENFORCE(IsFile(path), ErrorKind::kIo, "missing expected output '", path, "'");
    try {
      expected.push_back(Caffe2TensorFromOnnx(LoadOnnxTensor(path)));
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::kBadArgument) throw;
      throw Unsupported{"expected output '" + graph.output(j).name() + "': " + e.what()};
    }
  }

  Case c;
  *c.mutable_net() = imported.net;
  if (imported.init_net.op_size() > 0) *c.mutable_init_net() = imported.init_net;
  for (const auto& feed : feeds) *c.add_inputs() = feed;
  const oracles::BackendRun run = backend.Run(c);
  if (run.error) return std::string("engine error: ") + run.error->what();

  const bool cast = backend.info().precision == oracles::Precision::kF64;
  for (int j = 0; j < graph.output_size(); ++j) {
    const std::string& name = graph.output(j).name();
    auto it = run.blobs.find(name);
    if (it == run.blobs.end()) return "output '" + name + "' was not written";
    const std::string diff = CompareOutput(name, it->second, expected[j], cast, &result->max_error);
    if (!diff.empty()) return diff;
  }
  return "";
}

}  // namespace

const char* CaseStatusName(CaseStatus status) {
  switch (status) {
    case CaseStatus::kPassed:
      return "passed";
    case CaseStatus::kFailed:
      return "failed";
    case CaseStatus::kUnsupported:
      return "unsupported";
  }
  return "?";
}

std::string CompareOutput(const std::string& name, const caffe2::TensorProto& actual_proto,
                          const caffe2::TensorProto& expected_proto, bool cast_f64_to_expected,
                          double* max_error) {
  const Tensor expected = TensorFromProto(expected_proto);
  Tensor actual = TensorFromProto(actual_proto);
  if (cast_f64_to_expected && actual.dtype() == DataType::kDouble &&
      expected.dtype() == DataType::kFloat) {
    // The reference computes in f64; ONNX's runner would see the backend's f32.
    Tensor cast(DataType::kFloat, actual.dims());
    for (int64_t i = 0; i < actual.numel(); ++i) {
      cast.mutable_data<float>()[i] = static_cast<float>(actual.data<double>()[i]);
    }
    actual = cast;
  }
  std::ostringstream out;
  out << "output '" << name << "': ";
  if (actual.dtype() != expected.dtype()) {
    out << "dtype " << DataTypeName(actual.dtype()) << ", expected "
        << DataTypeName(expected.dtype());
    return out.str();
  }
  if (actual.dims() != expected.dims()) {
    out << "shape " << ShapeString(actual.dims()) << ", expected " << ShapeString(expected.dims());
    return out.str();
  }
  if (expected.dtype() == DataType::kFloat16) {
    // Bits compared exactly (parity computes in no float16 kernel; import refuses them anyway).
    if (actual.nbytes() == 0 ||
        std::equal(static_cast<const char*>(actual.raw_data()),
                   static_cast<const char*>(actual.raw_data()) + actual.nbytes(),
                   static_cast<const char*>(expected.raw_data()))) {
      return "";
    }
    return out.str() + "float16 bits differ";
  }
  int64_t mismatches = 0, worst = -1;
  double worst_error = 0;
  for (int64_t i = 0; i < expected.numel(); ++i) {
    const double a = ElementAsDouble(actual, i), r = ElementAsDouble(expected, i);
    if (std::isnan(a) && std::isnan(r)) continue;
    if (a == r) continue;  // equal infinities too
    const double error = std::fabs(a - r);
    // An infinity matches only itself (inf <= inf would pass otherwise); NaN matches nothing else.
    if (std::isfinite(a) && std::isfinite(r) &&
        error <= kConformanceAtol + kConformanceRtol * std::fabs(r)) {
      continue;
    }
    ++mismatches;
    if (worst < 0 || error > worst_error || std::isnan(error)) {
      worst = i;
      worst_error = error;
    }
  }
  if (mismatches == 0) return "";
  *max_error = std::max(*max_error, worst_error);
  out << mismatches << " of " << expected.numel() << " elements differ, max abs error "
      << worst_error << " at " << worst << " (got " << ElementAsDouble(actual, worst)
      << ", expected " << ElementAsDouble(expected, worst) << ")";
  return out.str();
}

std::vector<std::string> ListCases(const std::string& dir) {
  PARITY_ENFORCE(IsDirectory(dir), ErrorKind::kIo, "'", dir, "' is not a directory");
  std::vector<std::string> cases;
  for (const auto& name : SortedEntries(dir)) {
    if (IsFile(dir + "/" + name + "/model.onnx")) cases.push_back(name);
  }
  return cases;
}

std::string CaseName(const std::string& case_dir) {
  return case_dir.substr(case_dir.find_last_of('/') + 1);
}

CaseResult RunCase(const std::string& case_dir, const oracles::Backend& backend) {
  CaseResult result;
  result.name = CaseName(case_dir);
  const ::onnx::ModelProto model = LoadModel(case_dir + "/model.onnx");
  for (const auto& node : model.graph().node()) {
    if (std::find(result.op_types.begin(), result.op_types.end(), node.op_type()) ==
        result.op_types.end()) {
      result.op_types.push_back(node.op_type());
    }
  }
  std::vector<std::string> sets;
  for (const auto& name : SortedEntries(case_dir)) {
    if (name.rfind("test_data_set_", 0) == 0 && IsDirectory(case_dir + "/" + name)) {
      sets.push_back(name);
    }
  }
  PARITY_ENFORCE(!sets.empty(), ErrorKind::kIo, "case '", case_dir, "' has no test_data_set_*");
  try {
    for (const auto& set : sets) {
      std::string failure = RunDataSet(model, case_dir + "/" + set, backend, &result);
      if (!failure.empty()) {
        result.status = CaseStatus::kFailed;
        result.detail = sets.size() > 1 ? set + ": " + failure : failure;
        return result;
      }
    }
  } catch (const Unsupported& u) {
    result.status = CaseStatus::kUnsupported;
    result.detail = u.why;
    result.unsupported_ops = u.op_types;
    if (result.unsupported_ops.empty()) result.unsupported_ops.push_back("");
  }
  return result;
}

CaseResult RunCaseOrReport(const std::string& case_dir, const oracles::Backend& backend) {
  CaseResult result;
  try {
    result = RunCase(case_dir, backend);
  } catch (const Error& e) {
    // An unreadable case (a broken model or data file) is reported, not the end of the suite.
    result = CaseResult{};
    result.name = CaseName(case_dir);
    result.status = CaseStatus::kFailed;
    result.detail = std::string("cannot run the case: ") + e.what();
  } catch (const std::exception& e) {
    // Nor is anything else one case throws (bad_alloc, out_of_range): that case fails with its
    // reason and the suite goes on. (A case that crashes the process is isolated by running it
    // in a worker: onnx/conformance_isolated.h.)
    result = CaseResult{};
    result.name = CaseName(case_dir);
    result.status = CaseStatus::kFailed;
    result.detail = std::string("cannot run the case (") + typeid(e).name() + "): " + e.what();
  }
  return result;
}

SuiteResult RunSuite(const std::string& dir, const oracles::Backend& backend,
                     const CaseRunner& run_case) {
  SuiteResult suite;
  suite.dir = dir;
  suite.engine = backend.name();
  for (const auto& name : ListCases(dir)) {
    const std::string case_dir = dir + "/" + name;
    CaseResult result = run_case ? run_case(case_dir) : RunCaseOrReport(case_dir, backend);
    switch (result.status) {
      case CaseStatus::kPassed:
        ++suite.passed;
        break;
      case CaseStatus::kFailed:
        ++suite.failed;
        break;
      case CaseStatus::kUnsupported:
        ++suite.unsupported;
        break;
    }
    suite.cases.push_back(std::move(result));
  }
  return suite;
}

}  // namespace parity::onnx
