#include "oracles/oracle.h"

#include <cmath>
#include <map>
#include <mutex>

#include "core/proto/error.h"

namespace parity::oracles {
namespace {

std::map<std::string, OracleFunction>& Oracles() {
  static auto* oracles = new std::map<std::string, OracleFunction>();
  return *oracles;
}

}  // namespace

bool RegisterOracle(const std::string& name, OracleFunction function) {
  Oracles()[name] = std::move(function);
  return true;
}

const OracleFunction* FindOracle(const std::string& name) {
  auto it = Oracles().find(name);
  return it == Oracles().end() ? nullptr : &it->second;
}

std::vector<std::string> OracleNames() {
  std::vector<std::string> names;
  for (const auto& [name, fn] : Oracles()) names.push_back(name);
  return names;
}

std::vector<TruthDisagreement> DisagreementsWithTruth(
    const std::vector<std::string>& blobs, const BackendRun& truth, const BackendRun& f32,
    const BackendRun& run, const ToleranceClass& tolerance,
    const std::function<std::string(const std::string&)>& name_in_run) {
  std::vector<TruthDisagreement> out;
  for (const std::string& blob : blobs) {
    TruthDisagreement d;
    d.blob = blob;
    d.name_in_run = name_in_run ? name_in_run(blob) : blob;
    auto expected = truth.blobs.find(blob);
    auto actual = run.blobs.find(d.name_in_run);
    if (expected != truth.blobs.end()) d.expected = &expected->second;
    if (actual != run.blobs.end()) d.actual = &actual->second;
    if (d.expected == nullptr && d.actual == nullptr) continue;
    if (d.expected != nullptr && d.actual != nullptr) {
      auto reference_f32 = f32.blobs.find(blob);
      d.comparison = CompareWithTruth(
          *d.expected, reference_f32 == f32.blobs.end() ? *d.expected : reference_f32->second,
          *d.actual, tolerance);
      if (d.comparison.ok) continue;
    }
    out.push_back(std::move(d));
  }
  return out;
}

Case MovedByOneUlp(const Case& c, std::mt19937_64* rng) {
  Case moved = c;
  for (auto& input : *moved.mutable_inputs()) {
    if (input.data_type() != caffe2::TensorProto::FLOAT) continue;
    for (int i = 0; i < input.float_data_size(); ++i) {
      const float v = input.float_data(i);
      const int step = static_cast<int>((*rng)() % 3) - 1;
      if (step != 0) input.set_float_data(i, std::nextafter(v, step > 0 ? INFINITY : -INFINITY));
    }
  }
  return moved;
}

OracleResult RunOracle(const std::string& name, const Case& c, const OracleOptions& options) {
  const OracleFunction* oracle = FindOracle(name);
  if (oracle == nullptr) {
    std::string known;
    for (const auto& n : OracleNames()) known += (known.empty() ? "" : ", ") + n;
    throw MakeError(ErrorKind::kBadArgument, "unknown oracle '", name, "' (known: ", known, ")");
  }
  return (*oracle)(c, options);
}

}  // namespace parity::oracles
