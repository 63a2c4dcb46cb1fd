// Tolerances derived from the computation itself (architecture §5).
//
// The reference in f64 is the truth t. The reference run in f32 shows how much rounding a plain
// f32 computation of the same net picks up: e32 = |r32 - t|. Production's value p passes element i
// when
//     |p_i - t_i| <= k * max(e32_i, rms(e32)) + abs_floor + rel_floor * |t_i|
// and, over the whole tensor,
//     ||p - t||_2 <= k * ||r32 - t||_2 + abs_floor * sqrt(n) + rel_floor * ||t||_2.
// Using max(e32_i, rms(e32)) keeps an element whose f32 reference happened to round exactly from
// demanding exactness of production (whose summation order legitimately differs). Per-op classes
// only set k and the floors. NaN and ±Inf must match by position (and sign); integers and bools
// must match exactly.
#ifndef PARITY_ORACLES_TOLERANCE_H_
#define PARITY_ORACLES_TOLERANCE_H_

#include <string>
#include <vector>

#include "core/proto/caffe2.pb.h"
#include "core/proto/parity.pb.h"

namespace parity::oracles {

struct ToleranceClass {
  std::string name;
  double k = 4.0;
  double abs_floor = 1e-6;
  double rel_floor = 1e-5;
};

// Named classes used by op specs: "exact", "default", "transcendental", "accumulation" (long sums,
// GEMM, conv, reductions), "loose" (chains of transcendental ops).
const ToleranceClass& GetToleranceClass(const std::string& name);
// The loosest of several classes (a net takes the loosest class of its ops).
ToleranceClass Loosest(const std::vector<std::string>& names);

// One element where production is furthest out of tolerance.
struct WorstElement {
  int64_t index = 0;
  double expected = 0;
  double actual = 0;
  double reference_f32 = 0;
  double allowed = 0;
};

struct Comparison {
  bool ok = true;
  // "value mismatch", "nan/inf mismatch", "shape mismatch", "dtype mismatch" (when !ok).
  std::string error_class;
  std::string detail;
  Metrics metrics;
  std::vector<WorstElement> worst;  // up to 5, worst first
};

// Every value of a TensorProto as double (any numeric dtype, typed fields or raw_data).
std::vector<double> ProtoValues(const caffe2::TensorProto& tensor);
bool IsFloatingProto(const caffe2::TensorProto& tensor);
// `value` as a case input named `name`: floating values (the reference's f64) as float, as the
// case's own blobs held them; other dtypes unchanged.
caffe2::TensorProto AsCaseInput(const caffe2::TensorProto& value, const std::string& name);

// Compares production's `actual` with the truth (`expected`, reference f64) using the f32
// reference `reference_f32` to size the tolerance.
Comparison CompareWithTruth(const caffe2::TensorProto& expected,
                            const caffe2::TensorProto& reference_f32,
                            const caffe2::TensorProto& actual, const ToleranceClass& tolerance);

// Bitwise equality of two TensorProtos' dims, dtype and values (determinism, round-trip).
bool BitwiseEqual(const caffe2::TensorProto& a, const caffe2::TensorProto& b);

}  // namespace parity::oracles

#endif  // PARITY_ORACLES_TOLERANCE_H_
