#include "oracles/tolerance.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <sstream>

#include "core/proto/error.h"
#include "core/tensor.h"
#include "core/tensor_proto.h"

namespace parity::oracles {

const ToleranceClass& GetToleranceClass(const std::string& name) {
  static const auto* classes = new std::map<std::string, ToleranceClass>{
      {"exact", {"exact", 0.0, 0.0, 0.0}},
      {"default", {"default", 4.0, 1e-6, 1e-5}},
      {"transcendental", {"transcendental", 8.0, 1e-6, 2e-5}},
      {"accumulation", {"accumulation", 8.0, 1e-5, 5e-5}},
      {"loose", {"loose", 16.0, 1e-4, 2e-4}},
  };
  auto it = classes->find(name);
  PARITY_ENFORCE(it != classes->end(), ErrorKind::kBadArgument, "unknown tolerance class '", name,
                 "' (exact, default, transcendental, accumulation, loose)");
  return it->second;
}

ToleranceClass Loosest(const std::vector<std::string>& names) {
  ToleranceClass out = GetToleranceClass("exact");
  for (const auto& name : names) {
    const ToleranceClass& c = GetToleranceClass(name);
    if (c.k > out.k || c.abs_floor > out.abs_floor || c.rel_floor > out.rel_floor) {
      out.name = c.name;
      out.k = std::max(out.k, c.k);
      out.abs_floor = std::max(out.abs_floor, c.abs_floor);
      out.rel_floor = std::max(out.rel_floor, c.rel_floor);
    }
  }
  if (names.empty()) out = GetToleranceClass("default");
  return out;
}

std::vector<double> ProtoValues(const caffe2::TensorProto& proto) {
  Tensor tensor = TensorFromProto(proto);
  std::vector<double> values(tensor.numel());
  if (tensor.dtype() == DataType::kFloat16) {
    throw MakeError(ErrorKind::kShapeMismatch, "float16 values cannot be compared numerically");
  }
  DispatchNumeric(tensor.dtype(), "ProtoValues", [&](auto zero) {
    using T = decltype(zero);
    const T* data = static_cast<const T*>(tensor.raw_data());
    for (int64_t i = 0; i < tensor.numel(); ++i) values[i] = static_cast<double>(data[i]);
  });
  return values;
}

bool IsFloatingProto(const caffe2::TensorProto& tensor) {
  return tensor.data_type() == caffe2::TensorProto::FLOAT ||
         tensor.data_type() == caffe2::TensorProto::DOUBLE ||
         tensor.data_type() == caffe2::TensorProto::FLOAT16;
}

caffe2::TensorProto AsCaseInput(const caffe2::TensorProto& value, const std::string& name) {
  caffe2::TensorProto input;
  if (IsFloatingProto(value)) {
    input.set_data_type(caffe2::TensorProto::FLOAT);
    *input.mutable_dims() = value.dims();
    for (double v : ProtoValues(value)) input.add_float_data(static_cast<float>(v));
  } else {
    input = value;
  }
  input.set_name(name);
  return input;
}

namespace {

bool SameNonFinite(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (std::isinf(a) || std::isinf(b)) return a == b;
  return true;
}

}  // namespace

Comparison CompareWithTruth(const caffe2::TensorProto& expected,
                            const caffe2::TensorProto& reference_f32,
                            const caffe2::TensorProto& actual, const ToleranceClass& tolerance) {
  Comparison out;
  std::vector<int64_t> expected_dims(expected.dims().begin(), expected.dims().end());
  std::vector<int64_t> actual_dims(actual.dims().begin(), actual.dims().end());
  if (expected_dims != actual_dims) {
    out.ok = false;
    out.error_class = "shape mismatch";
    out.detail =
        "expected dims " + ShapeString(expected_dims) + ", got " + ShapeString(actual_dims);
    return out;
  }
  bool expected_float = IsFloatingProto(expected);
  if (expected_float != IsFloatingProto(actual) ||
      (!expected_float && expected.data_type() != actual.data_type())) {
    out.ok = false;
    out.error_class = "dtype mismatch";
    out.detail = "expected data_type " + std::to_string(expected.data_type()) + ", got " +
                 std::to_string(actual.data_type());
    return out;
  }
  std::vector<double> t = ProtoValues(expected);
  std::vector<double> p = ProtoValues(actual);
  std::vector<double> r = expected_float ? ProtoValues(reference_f32) : t;
  if (r.size() != t.size()) r = t;  // the f32 run failed to produce it: no rounding information
  if (actual.data_type() == caffe2::TensorProto::FLOAT) {
    // A truth past f32's range is infinite in f32 (round to nearest takes everything above
    // FLT_MAX + half an ulp to ±inf): an f32 output of inf there is the right answer, not a
    // mismatch. A loop that squares its state overflows f32 after a few passes and f64 only later.
    for (double& v : t) {
      if (std::isfinite(v) && std::abs(v) > std::numeric_limits<float>::max()) {
        v = static_cast<double>(static_cast<float>(v));
      }
    }
  }
  const int64_t n = static_cast<int64_t>(t.size());
  const bool exact = !expected_float || tolerance.k == 0;

  double e32_sq = 0, diff_sq = 0, truth_sq = 0;
  int64_t finite = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (!std::isfinite(t[i]) || !std::isfinite(p[i])) continue;
    double e32 = std::isfinite(r[i]) ? std::abs(r[i] - t[i]) : 0.0;
    e32_sq += e32 * e32;
    diff_sq += (p[i] - t[i]) * (p[i] - t[i]);
    truth_sq += t[i] * t[i];
    ++finite;
  }
  double rms_e32 = finite ? std::sqrt(e32_sq / finite) : 0.0;

  Metrics& m = *&out.metrics;
  m.set_element_count(n);
  std::vector<WorstElement> bad;
  int64_t mismatches = 0;
  bool nonfinite_mismatch = false;
  double max_abs = 0, max_rel = 0;
  int64_t worst_index = -1;
  double worst_ratio = 0;
  for (int64_t i = 0; i < n; ++i) {
    // Where the f32 reference (the naive loops in f32) ends in the same inf or NaN as the output,
    // f32 cannot follow the truth there (an intermediate overflowed: Exp(Exp(x)) is inf in f32,
    // and a Softmax over it NaN): the limit of the dtype, not a fault of the op under test.
    const bool f32_limit =
        !std::isfinite(p[i]) && !std::isfinite(r[i]) && SameNonFinite(r[i], p[i]);
    if (!SameNonFinite(t[i], p[i]) && !f32_limit) {
      ++mismatches;
      nonfinite_mismatch = true;
      bad.push_back({i, t[i], p[i], r[i], 0.0});
      if (worst_index < 0 || worst_ratio < INFINITY) {
        worst_index = i;
        worst_ratio = INFINITY;
      }
      continue;
    }
    if (!std::isfinite(t[i]) || f32_limit) continue;
    double err = std::abs(p[i] - t[i]);
    double e32 = std::isfinite(r[i]) ? std::abs(r[i] - t[i]) : 0.0;
    double allowed = exact ? 0.0
                           : tolerance.k * std::max(e32, rms_e32) + tolerance.abs_floor +
                                 tolerance.rel_floor * std::abs(t[i]);
    max_abs = std::max(max_abs, err);
    if (t[i] != 0) max_rel = std::max(max_rel, err / std::abs(t[i]));
    if (err > allowed) {
      ++mismatches;
      double ratio = allowed > 0 ? err / allowed : INFINITY;
      bad.push_back({i, t[i], p[i], r[i], allowed});
      if (ratio > worst_ratio || worst_index < 0) {
        worst_ratio = ratio;
        worst_index = i;
      }
    }
  }
  double norm_err = std::sqrt(diff_sq);
  double norm_allowed = exact ? 0.0
                              : tolerance.k * std::sqrt(e32_sq) +
                                    tolerance.abs_floor * std::sqrt(static_cast<double>(finite)) +
                                    tolerance.rel_floor * std::sqrt(truth_sq);
  m.set_max_abs_error(max_abs);
  m.set_max_rel_error(max_rel);
  m.set_mismatch_count(mismatches);
  m.set_worst_index(worst_index);
  m.set_norm_error(norm_err);
  m.set_norm_tolerance(norm_allowed);
  m.set_tolerance_abs(tolerance.abs_floor);
  m.set_tolerance_rel(tolerance.rel_floor);
  bool norm_bad = norm_err > norm_allowed && !(exact && norm_err == 0);
  if (mismatches == 0 && !norm_bad) return out;

  out.ok = false;
  out.error_class = nonfinite_mismatch ? "nan/inf mismatch" : "value mismatch";
  std::sort(bad.begin(), bad.end(), [](const WorstElement& a, const WorstElement& b) {
    auto ratio = [](const WorstElement& e) {
      double err = std::abs(e.actual - e.expected);
      return e.allowed > 0 && std::isfinite(err) ? err / e.allowed : INFINITY;
    };
    return ratio(a) > ratio(b);
  });
  if (bad.size() > 5) bad.resize(5);
  out.worst = bad;
  std::ostringstream detail;
  detail.precision(9);
  detail << mismatches << " of " << n << " elements out of tolerance (" << tolerance.name
         << ": k=" << tolerance.k << ")";
  if (norm_bad) detail << "; norm error " << norm_err << " > allowed " << norm_allowed;
  if (!bad.empty()) {
    detail << "; worst at " << bad[0].index << ": expected " << bad[0].expected << ", got "
           << bad[0].actual << " (allowed error " << bad[0].allowed << ")";
  }
  out.detail = detail.str();
  return out;
}

bool BitwiseEqual(const caffe2::TensorProto& a, const caffe2::TensorProto& b) {
  if (a.data_type() != b.data_type()) return false;
  if (!std::equal(a.dims().begin(), a.dims().end(), b.dims().begin(), b.dims().end())) {
    return false;
  }
  Tensor ta = TensorFromProto(a), tb = TensorFromProto(b);
  return ta.nbytes() == tb.nbytes() &&
         (ta.nbytes() == 0 || std::memcmp(ta.raw_data(), tb.raw_data(), ta.nbytes()) == 0);
}

}  // namespace parity::oracles
