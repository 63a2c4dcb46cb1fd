#include "oracles/oracle.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <random>

#include "core/proto/error.h"
#include "core/schema.h"

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

void SampleMovedCopies(const Case& c, uint64_t salt,
                       const std::function<void(const BackendRun&, const BackendRun&)>& sample,
                       const TruthAndYardstick& references) {
  std::mt19937_64 rng(c.seed() ^ salt);
  for (int k = 1; k < kRoundingSamples; ++k) {
    const Case moved = MovedByOneUlp(c, &rng);
    const auto [run64, run32] =
        references ? references(moved)
                   : std::make_pair(GetBackend(kReference).Run(moved),
                                    GetBackend(kReferenceF32).Run(moved));
    if (!run64.error && !run32.error) sample(run64, run32);
  }
}


BackendRun SampledRounding(const Case& c, const std::vector<std::string>& blobs,
                           const BackendRun& truth, const BackendRun& f32,
                           const TruthAndYardstick& references) {
  std::map<std::string, std::vector<double>> largest;  // blob -> per-element largest error
  auto sample = [&](const BackendRun& run64, const BackendRun& run32) {
    for (const std::string& blob : blobs) {
      auto t = run64.blobs.find(blob);
      auto r = run32.blobs.find(blob);
      if (t == run64.blobs.end() || r == run32.blobs.end() || !IsFloatingProto(t->second) ||
          !IsFloatingProto(r->second)) {
        continue;
      }
      const std::vector<double> tv = ProtoValues(t->second), rv = ProtoValues(r->second);
      if (tv.size() != rv.size()) continue;
      std::vector<double>& out = largest[blob];
      out.resize(tv.size(), 0.0);
      for (size_t i = 0; i < tv.size(); ++i) {
        const double e = std::abs(rv[i] - tv[i]);
        if (std::isfinite(e)) out[i] = std::max(out[i], e);
      }
    }
  };
  sample(truth, f32);
  SampleMovedCopies(c, 0x9E3779B97F4A7C15ull, sample, references);
  BackendRun out = f32;
  for (const auto& [blob, errors] : largest) {
    auto r = out.blobs.find(blob);
    auto t_it = truth.blobs.find(blob);
    if (r == out.blobs.end() || t_it == truth.blobs.end()) continue;
    const caffe2::TensorProto& t = t_it->second;
    const std::vector<double> tv = ProtoValues(t), rv = ProtoValues(r->second);
    if (tv.size() != errors.size() || rv.size() != errors.size()) continue;
    caffe2::TensorProto envelope;
    envelope.set_data_type(caffe2::TensorProto::DOUBLE);
    *envelope.mutable_dims() = t.dims();
    for (size_t i = 0; i < tv.size(); ++i) {
      // Where the f32 run is not finite, it stays as it was (CompareWithTruth reads it as the
      // dtype's limit); elsewhere the truth moved by the largest sampled error.
      envelope.add_double_data(std::isfinite(rv[i]) ? tv[i] + errors[i] : rv[i]);
    }
    r->second = envelope;
  }
  return out;
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

std::set<std::string> BlobsWithoutGradient(const caffe2::NetDef& net) {
  std::set<std::string> without_gradient;
  for (const auto& op : net.op()) {
    const OpSchema* schema = OpSchemaRegistry::Find(op.type());
    for (int i = 0; i < op.output_size(); ++i) {
      if (schema != nullptr && !schema->IsOutputDifferentiable(i)) {
        without_gradient.insert(op.output(i));
      } else {
        without_gradient.erase(op.output(i));
      }
    }
  }
  return without_gradient;
}

}  // namespace parity::oracles
