#include "reports/comparison_view.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <vector>

#include "core/proto/error.h"
#include "core/tensor.h"
#include "core/tensor_proto.h"
#include "reports/html.h"

namespace parity::reports {
namespace {

// ---------------------------------------------------------------------------------------------
// Reading values

// Converts `count` elements starting at `begin` to double. Values are converted a block at a time
// through one of these, so a pass over 10M elements makes thousands of indirect calls, not
// millions, and never holds a second copy of the tensor.
using FillFn = void (*)(const void* data, int64_t begin, int64_t count, double* out);

template <typename T>
void FillAs(const void* data, int64_t begin, int64_t count, double* out) {
  const T* in = static_cast<const T*>(data) + begin;
  for (int64_t i = 0; i < count; ++i) out[i] = static_cast<double>(in[i]);
}

// IEEE binary16 bits to double (parity stores fp16 but has no arithmetic for it).
double HalfToDouble(uint16_t bits) {
  const int exponent = (bits >> 10) & 0x1f;
  const int mantissa = bits & 0x3ff;
  double value;
  if (exponent == 0) {
    value = std::ldexp(mantissa, -24);  // zero and subnormals
  } else if (exponent == 31) {
    value = mantissa ? NAN : INFINITY;
  } else {
    value = std::ldexp(mantissa + 1024, exponent - 25);
  }
  return (bits & 0x8000) ? -value : value;
}

void FillHalf(const void* data, int64_t begin, int64_t count, double* out) {
  const Half* in = static_cast<const Half*>(data) + begin;
  for (int64_t i = 0; i < count; ++i) out[i] = HalfToDouble(in[i].bits);
}

// One side of the comparison (expected or actual) as far as it could be read.
struct Side {
  bool present = false;
  std::string dtype_name;
  DataType dtype = DataType::kUndefined;
  std::vector<int64_t> dims;
  // Why the values cannot be compared ("missing", "not numeric", ...); empty when `fill` is set.
  std::string problem;
  Tensor tensor;
  FillFn fill = nullptr;

  int64_t numel() const { return tensor.numel(); }
};

Side ReadSide(bool has, const caffe2::TensorProto& proto) {
  Side side;
  // A default message (no dtype, no dims, no data) is how "no value" is written as often as an
  // absent field.
  side.present = has && proto.ByteSizeLong() > 0;
  if (!side.present) {
    side.problem = "missing";
    return side;
  }
  side.dims.assign(proto.dims().begin(), proto.dims().end());
  if (!DataTypeFromProtoValue(proto.data_type(), &side.dtype)) {
    side.dtype_name = "data_type " + std::to_string(proto.data_type());
    side.problem = "unknown data_type";
    return side;
  }
  side.dtype_name = DataTypeName(side.dtype);
  if (side.dtype == DataType::kString || side.dtype == DataType::kUndefined) {
    side.problem = "not numeric";
    return side;
  }
  try {
    side.tensor = TensorFromProto(proto);
  } catch (const std::exception& e) {  // parity::Error for bad protos, bad_alloc for huge ones
    side.problem = std::string("unreadable: ") + e.what();
    return side;
  }
  switch (side.tensor.dtype()) {
    case DataType::kFloat16:
      side.fill = FillHalf;
      break;
    case DataType::kByte:
      side.fill = FillAs<uint8_t>;
      break;
    default:
      DispatchNumeric(side.tensor.dtype(), "comparison view",
                      [&](auto zero) { side.fill = FillAs<decltype(zero)>; });
  }
  return side;
}

constexpr int64_t kBlock = 1024;

// Calls fn(flat_index, expected, actual) for every index in [begin, end).
template <typename Fn>
void ForEachPair(const Side& expected, const Side& actual, int64_t begin, int64_t end, Fn&& fn) {
  double e[kBlock], a[kBlock];
  const void* e_data = expected.tensor.raw_data();
  const void* a_data = actual.tensor.raw_data();
  for (int64_t start = begin; start < end; start += kBlock) {
    const int64_t count = std::min(kBlock, end - start);
    expected.fill(e_data, start, count, e);
    actual.fill(a_data, start, count, a);
    for (int64_t i = 0; i < count; ++i) fn(start + i, e[i], a[i]);
  }
}

// |actual - expected|, with NaN = NaN and equal infinities counting as agreement (0), as the
// oracles judge them; any other NaN or inf disagreement gives NaN or inf.
double AbsError(double expected, double actual) {
  if (std::isnan(expected) && std::isnan(actual)) return 0;
  if (expected == actual) return 0;
  return std::fabs(actual - expected);
}

// ---------------------------------------------------------------------------------------------
// Analysis: one pass for the worst elements and the histogram

// Buckets: 0 = exact, 1 = (0, 1e-9], 2..13 = one decade each up to (100, 1000], 14 = > 1000,
// 15 = NaN or inf.
constexpr std::array<double, 13> kDecadeBounds = {1e-9, 1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3,
                                                  1e-2, 1e-1, 1e0,  1e1,  1e2,  1e3};
constexpr std::array<const char*, 13> kDecadeLabels = {"1e-9", "1e-8", "1e-7", "1e-6", "1e-5",
                                                       "1e-4", "1e-3", "0.01", "0.1",  "1",
                                                       "10",   "100",  "1000"};
constexpr int kBucketCount = 16;
constexpr int kNonFiniteBucket = 15;
// NaN and inf get a colour of their own, outside the white-yellow-red scale of finite errors.
constexpr const char* kNonFiniteColour = "#6a0dad";

int Bucket(double error) {
  if (error == 0) return 0;
  if (!std::isfinite(error)) return kNonFiniteBucket;
  return 1 + static_cast<int>(std::lower_bound(kDecadeBounds.begin(), kDecadeBounds.end(), error) -
                              kDecadeBounds.begin());
}

std::string BucketLabel(int bucket) {
  if (bucket == 0) return "0 (equal)";
  if (bucket == kNonFiniteBucket) return "NaN / inf";
  if (bucket == 14) return std::string("> ") + kDecadeLabels[12];
  const int bound = bucket - 1;
  return std::string("(") + (bound == 0 ? "0" : kDecadeLabels[bound - 1]) + ", " +
         kDecadeLabels[bound] + "]";
}

struct Ranked {
  int64_t index = 0;
  double expected = 0;
  double actual = 0;
  double abs_error = 0;
  double rel_error = 0;
  // 3: NaN where expected held a number; 2: any other NaN/inf disagreement; 1: finite error.
  int severity = 0;
};

Ranked MakeRanked(int64_t index, double expected, double actual, double error) {
  Ranked out{index, expected, actual, error, 0, 1};
  if (std::isnan(actual) && !std::isnan(expected)) {
    out.severity = 3;
  } else if (!std::isfinite(error)) {
    out.severity = 2;
  }
  if (!std::isfinite(error)) {
    out.rel_error = error;
  } else if (std::isfinite(expected) && expected != 0) {
    out.rel_error = error / std::fabs(expected);
  } else {
    out.rel_error = INFINITY;  // a nonzero error against an expected 0
  }
  return out;
}

// Strict "a is worse than b"; equal keys keep index order (earlier first).
bool Worse(const Ranked& a, const Ranked& b) {
  if (a.severity != b.severity) return a.severity > b.severity;
  if (a.severity == 1) {
    if (a.abs_error != b.abs_error) return a.abs_error > b.abs_error;
    if (a.rel_error != b.rel_error) return a.rel_error > b.rel_error;
  }
  return a.index < b.index;
}

struct Analysis {
  int64_t differing = 0;
  std::array<int64_t, kBucketCount> histogram{};
  std::vector<Ranked> worst;  // worst first, at most kWorstElementCount
  double max_finite_error = 0;
};

Analysis Analyze(const Side& expected, const Side& actual) {
  Analysis out;
  out.worst.reserve(kWorstElementCount + 1);
  ForEachPair(expected, actual, 0, expected.numel(), [&](int64_t i, double e, double a) {
    const double error = AbsError(e, a);
    ++out.histogram[Bucket(error)];
    if (error == 0) return;
    ++out.differing;
    if (std::isfinite(error)) out.max_finite_error = std::max(out.max_finite_error, error);
    // Most elements lose against the current tenth: decide that before building anything.
    if (out.worst.size() == kWorstElementCount && std::isfinite(error) &&
        out.worst.back().severity == 1 && error < out.worst.back().abs_error) {
      return;
    }
    const Ranked element = MakeRanked(i, e, a, error);
    if (out.worst.size() == kWorstElementCount && !Worse(element, out.worst.back())) return;
    out.worst.insert(std::upper_bound(out.worst.begin(), out.worst.end(), element, Worse), element);
    if (out.worst.size() > kWorstElementCount) out.worst.pop_back();
  });
  return out;
}

// ---------------------------------------------------------------------------------------------
// Text

// "[2, 1]" for flat index 9 of [3, 4].
std::vector<int64_t> Unflatten(int64_t flat, const std::vector<int64_t>& dims) {
  std::vector<int64_t> index(dims.size());
  for (size_t k = dims.size(); k-- > 0;) {
    index[k] = dims[k] > 0 ? flat % dims[k] : 0;
    flat = dims[k] > 0 ? flat / dims[k] : 0;
  }
  return index;
}

std::string IndexText(int64_t flat, const std::vector<int64_t>& dims) {
  return ShapeString(Unflatten(flat, dims));
}

std::string Percent(int64_t part, int64_t whole) {
  if (whole <= 0) return "n/a";
  if (part == 0) return "0%";
  if (part == whole) return "100%";
  const double percent = 100.0 * static_cast<double>(part) / static_cast<double>(whole);
  // Never round a nonzero share to 0% or a partial one to 100%.
  if (percent < 0.01) return "&lt; 0.01%";
  if (percent > 99.99) return "&gt; 99.99%";
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.2f%%", percent);
  return buffer;
}

// A value as its dtype holds it: the shortest text that reads back to the same float or double
// (so 1.0000001f and 1.0000002f do not both print as "1"), integers in full.
std::string ValueText(double value, DataType dtype) {
  if (!std::isfinite(value)) return Number(value);
  if (dtype == DataType::kBool) return value != 0 ? "true" : "false";
  char buffer[40];
  if (!IsFloatingDataType(dtype)) {
    std::snprintf(buffer, sizeof(buffer), "%.0f", value);
    return buffer;
  }
  if (dtype == DataType::kFloat16) return Number(value);
  const int max_digits = dtype == DataType::kFloat ? 9 : 17;
  for (int digits = 6; digits <= max_digits; ++digits) {
    std::snprintf(buffer, sizeof(buffer), "%.*g", digits, value);
    const double back = std::strtod(buffer, nullptr);
    if (dtype == DataType::kFloat ? static_cast<float>(back) == static_cast<float>(value)
                                  : back == value) {
      break;
    }
  }
  return buffer;
}

std::string SideText(const Side& side) {
  if (!side.present) return "missing (no value recorded)";
  std::string text = side.dtype_name + " " + ShapeString(side.dims);
  if (side.fill != nullptr) {
    text += " (" + std::to_string(side.numel()) + (side.numel() == 1 ? " element)" : " elements)");
  } else {
    text += ": " + side.problem;
  }
  return text;
}

std::string Row(const std::string& header, const std::string& escaped_value) {
  return "<tr><th>" + Escape(header) + "</th><td>" + escaped_value + "</td></tr>\n";
}

std::string MetricsRows(const BlobComparison& comparison, const std::vector<int64_t>& dims) {
  if (!comparison.has_metrics()) return Row("metrics", "not recorded");
  const Metrics& m = comparison.metrics();
  const auto optional = [](bool has, double value) { return has ? Number(value) : "&#8212;"; };
  std::string tolerance = "abs " + optional(m.has_tolerance_abs(), m.tolerance_abs()) + ", rel " +
                          optional(m.has_tolerance_rel(), m.tolerance_rel());
  if (m.has_norm_tolerance()) {
    tolerance += "; L2 norm of the error " + optional(m.has_norm_error(), m.norm_error()) +
                 " against a norm tolerance of " + Number(m.norm_tolerance());
  }
  std::string worst = "&#8212;";
  if (m.has_worst_index() && m.worst_index() < 0) {
    worst = "none (no element out of tolerance)";
  } else if (m.has_worst_index()) {
    double count = 1;  // in double: dims of an unreadable proto may be anything
    for (int64_t d : dims) count *= static_cast<double>(std::max<int64_t>(d, 0));
    worst = static_cast<double>(m.worst_index()) < count
                ? Escape(IndexText(m.worst_index(), dims)) + " (flat index " +
                      std::to_string(m.worst_index()) + ")"
                : "flat index " + std::to_string(m.worst_index()) + " (outside the shape)";
  }
  std::string mismatches = "&#8212;";
  if (m.has_mismatch_count()) {
    mismatches = std::to_string(m.mismatch_count()) + " of " +
                 (m.has_element_count() ? std::to_string(m.element_count()) : "?") + " (" +
                 Percent(m.mismatch_count(), m.element_count()) + ")";
  }
  return Row("tolerance", tolerance) +
         Row("max abs error", optional(m.has_max_abs_error(), m.max_abs_error())) +
         Row("max rel error", optional(m.has_max_rel_error(), m.max_rel_error())) +
         Row("worst element", worst) + Row("mismatches", mismatches);
}

// ---------------------------------------------------------------------------------------------
// Tables

std::string WorstTable(const Analysis& analysis, const Side& expected, const Side& actual) {
  std::string html = "<h4>Worst elements</h4>\n";
  if (analysis.worst.empty()) return html + "<p class=\"note\">No element differs.</p>\n";
  html +=
      "<table class=\"worst\">\n<tr><th>index</th><th>expected</th><th>actual</th>"
      "<th>abs error</th><th>rel error</th></tr>\n";
  for (const Ranked& element : analysis.worst) {
    html += "<tr>" + Element("td", IndexText(element.index, expected.dims)) +
            Element("td", ValueText(element.expected, expected.tensor.dtype())) +
            Element("td", ValueText(element.actual, actual.tensor.dtype())) +
            Element("td", Number(element.abs_error)) + Element("td", Number(element.rel_error)) +
            "</tr>\n";
  }
  return html + "</table>\n";
}

std::string HistogramTable(const Analysis& analysis, int64_t element_count) {
  int64_t largest = 1;
  for (int64_t count : analysis.histogram) largest = std::max(largest, count);
  std::string html =
      "<h4>Histogram of |actual &#8722; expected|</h4>\n<table class=\"histogram\">\n"
      "<tr><th>|error|</th><th>elements</th><th>share</th><th></th></tr>\n";
  for (int bucket = 0; bucket < kBucketCount; ++bucket) {
    const int64_t count = analysis.histogram[bucket];
    // Linear bars; a nonzero count always gets a visible one.
    char bar[160] = "";
    if (count > 0) {
      std::snprintf(bar, sizeof(bar),
                    "<div style=\"width:%.0fpx;height:10px;background:%s\"></div>",
                    std::max(1.0, 200.0 * count / largest),
                    bucket == kNonFiniteBucket ? kNonFiniteColour : "#d9534f");
    }
    html += "<tr>" + Element("td", BucketLabel(bucket)) + "<td class=\"count\">" +
            std::to_string(count) + "</td><td>" + Percent(count, element_count) + "</td><td>" +
            bar + "</td></tr>\n";
  }
  return html + "</table>\n";
}

// ---------------------------------------------------------------------------------------------
// Heatmap

// Log colour scale: the largest finite |error| is red, anything this many decades or more below it
// is the palest yellow; exact zero is white.
constexpr double kDecades = 6;

std::string CellColour(double error, double max_finite) {
  if (!std::isfinite(error)) return kNonFiniteColour;
  if (error == 0 || max_finite == 0) return HeatColor(0);
  const double position = std::clamp(1 + std::log10(error / max_finite) / kDecades, 0.0, 1.0);
  return HeatColor(0.1 + 0.9 * position);
}

// "3" for a block of one, "0:16" for [0, 16).
std::string RangeText(int64_t begin, int64_t end) {
  return end - begin == 1 ? std::to_string(begin)
                          : std::to_string(begin) + ":" + std::to_string(end);
}

// One 2-D slice (rows x cols elements starting at flat index `base`) as an SVG grid of at most
// kHeatmapMaxCells per side, each cell the largest |error| of its block (NaN beats inf beats any
// number). `prefix` is the leading index ("1, " for slice 1 of a 3-D tensor).
std::string SliceSvg(const Side& expected, const Side& actual, int64_t base, int64_t rows,
                     int64_t cols, bool one_d, const std::string& prefix, double max_finite) {
  const int64_t out_rows = std::min<int64_t>(rows, kHeatmapMaxCells);
  const int64_t out_cols = std::min<int64_t>(cols, kHeatmapMaxCells);
  std::vector<int64_t> row_begin(out_rows + 1), col_begin(out_cols + 1);
  for (int64_t k = 0; k <= out_rows; ++k) row_begin[k] = k * rows / out_rows;
  for (int64_t k = 0; k <= out_cols; ++k) col_begin[k] = k * cols / out_cols;
  std::vector<double> cells(out_rows * out_cols, 0.0);
  for (int64_t cr = 0; cr < out_rows; ++cr) {
    // The rows of one cell row are contiguous: one pass over them, following the column with a
    // counter rather than a division per element.
    double* cell_row = &cells[cr * out_cols];
    int64_t col = 0, cc = 0;
    ForEachPair(expected, actual, base + row_begin[cr] * cols, base + row_begin[cr + 1] * cols,
                [&](int64_t, double e, double a) {
                  const double error = AbsError(e, a);
                  double& cell = cell_row[cc];
                  if (std::isnan(error) || std::isnan(cell)) {
                    cell = NAN;  // NaN is the worst an element can be
                  } else {
                    cell = std::max(cell, error);
                  }
                  if (++col == cols) {
                    col = 0;
                    cc = 0;
                  } else if (col == col_begin[cc + 1]) {
                    ++cc;
                  }
                });
  }
  const int64_t size = std::clamp<int64_t>(512 / std::max(out_rows, out_cols), 6, 24);
  std::string svg = "<svg class=\"heatmap\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
                    std::to_string(out_cols * size) + "\" height=\"" +
                    std::to_string(out_rows * size) + "\">\n";
  for (int64_t cr = 0; cr < out_rows; ++cr) {
    for (int64_t cc = 0; cc < out_cols; ++cc) {
      const double cell = cells[cr * out_cols + cc];
      const std::string range = "[" + prefix +
                                (one_d ? "" : RangeText(row_begin[cr], row_begin[cr + 1]) + ", ") +
                                RangeText(col_begin[cc], col_begin[cc + 1]) + "]";
      svg += "<rect x=\"" + std::to_string(cc * size) + "\" y=\"" + std::to_string(cr * size) +
             "\" width=\"" + std::to_string(size) + "\" height=\"" + std::to_string(size) +
             "\" fill=\"" + CellColour(cell, max_finite) + "\">" +
             Element("title", range + " max |error| " + Number(cell)) + "</rect>\n";
    }
  }
  return svg + "</svg>\n";
}

std::string Legend(double max_finite) {
  const auto swatch = [](const std::string& colour, const std::string& label) {
    return "<span style=\"display:inline-block;width:12px;height:12px;border:1px solid #999;"
           "background:" +
           colour + "\"></span> " + Escape(label) + " &#160;";
  };
  return "<p class=\"legend\">Colour: log scale of |error| over " + Number(kDecades) +
         " decades below the largest finite |error|. " + swatch(HeatColor(0), "0") +
         swatch(HeatColor(0.1), "\xE2\x89\xA4 " + Number(max_finite * std::pow(10, -kDecades))) +
         swatch(HeatColor(0.55), Number(max_finite * std::pow(10, -kDecades / 2))) +
         swatch(HeatColor(1), Number(max_finite) + " (max)") +
         swatch(kNonFiniteColour, "NaN / inf") + "</p>\n";
}

std::string Heatmap(const Analysis& analysis, const Side& expected, const Side& actual) {
  std::string html = "<h4>Heatmap of |error|</h4>\n";
  if (analysis.differing == 0) return html + "<p class=\"note\">No element differs.</p>\n";
  const std::vector<int64_t>& dims = expected.dims;
  const int rank = static_cast<int>(dims.size());
  if (rank == 0) return html + "<p class=\"note\">A scalar: see the table above.</p>\n";
  // A vector is one row; larger ranks are slices over the last two dims.
  const int64_t rows = rank >= 2 ? dims[rank - 2] : 1;
  const int64_t cols = dims[rank - 1];
  const int64_t slice_count = expected.numel() / (rows * cols);
  std::vector<int64_t> slices;
  for (int64_t s = 0; s < std::min<int64_t>(slice_count, kHeatmapMaxSlices); ++s) {
    slices.push_back(s);
  }
  // The slice holding the worst element is always shown: it is the one the engineer looks for.
  const int64_t worst_slice = analysis.worst.front().index / (rows * cols);
  if (worst_slice >= static_cast<int64_t>(slices.size())) slices.back() = worst_slice;

  const std::vector<int64_t> leading(dims.begin(), dims.end() - std::min(rank, 2));
  html += "<p class=\"note\">" + std::to_string(rows) + " &#215; " + std::to_string(cols) +
          (rank >= 3 ? " elements per slice" : " elements") +
          (rows > kHeatmapMaxCells || cols > kHeatmapMaxCells
               ? ", downsampled: each cell shows the largest |error| of its block."
               : ".");
  if (slice_count > 1) {
    html += " Slices over the last two dims: showing " + std::to_string(slices.size()) + " of " +
            std::to_string(slice_count);
    if (worst_slice >= kHeatmapMaxSlices) html += " (the last one holds the worst element)";
    html += ".";
  }
  html += "</p>\n" + Legend(analysis.max_finite_error);
  for (int64_t s : slices) {
    std::string prefix;
    for (int64_t i : Unflatten(s, leading)) prefix += std::to_string(i) + ", ";
    html += "<figure class=\"slice\">";
    if (rank >= 3) html += Element("figcaption", "[" + prefix + ":, :]");
    html += SliceSvg(expected, actual, s * rows * cols, rows, cols, rank < 2, prefix,
                     analysis.max_finite_error) +
            "</figure>\n";
  }
  return html;
}

}  // namespace

std::string ComparisonHtml(const BlobComparison& comparison) {
  const Side expected = ReadSide(comparison.has_expected(), comparison.expected());
  const Side actual = ReadSide(comparison.has_actual(), comparison.actual());
  const std::string& blob = comparison.blob();

  std::string html = "<div class=\"comparison\">\n<h3>Blob " +
                     (blob.empty() ? std::string("(unnamed)") : Element("code", blob)) + "</h3>\n";
  html += "<table class=\"summary\">\n" + Row("expected", Escape(SideText(expected))) +
          Row("actual", Escape(SideText(actual))) +
          MetricsRows(comparison, expected.present ? expected.dims : actual.dims);

  // Element-wise views need both sides' values, in the same shape.
  std::string why_not;
  if (expected.fill == nullptr || actual.fill == nullptr) {
    why_not = "No element-wise comparison: ";
    if (expected.fill == nullptr) why_not += "expected is " + expected.problem;
    if (expected.fill == nullptr && actual.fill == nullptr) why_not += "; ";
    if (actual.fill == nullptr) why_not += "actual is " + actual.problem;
    why_not += ".";
  } else if (expected.dims != actual.dims) {
    why_not = "Shapes differ (expected " + ShapeString(expected.dims) + ", actual " +
              ShapeString(actual.dims) + "): no element-wise comparison.";
  } else if (expected.numel() == 0) {
    why_not = "Both are empty (0 elements): nothing to compare element-wise.";
  }
  if (!why_not.empty()) {
    html += "</table>\n" + Element("p", why_not, "class=\"note\"") + "</div>\n";
    return html;
  }

  const Analysis analysis = Analyze(expected, actual);
  const int64_t n = expected.numel();
  html += Row("differing elements (recomputed)",
              std::to_string(analysis.differing) + " of " + std::to_string(n) + " (" +
                  Percent(analysis.differing, n) + "), " +
                  std::to_string(analysis.histogram[kNonFiniteBucket]) + " by NaN or inf") +
          "</table>\n";
  // The truth is usually f64 and production f32: only a change of kind is worth a remark.
  if (expected.dtype != actual.dtype &&
      !(IsFloatingDataType(expected.dtype) && IsFloatingDataType(actual.dtype))) {
    html += Element("p",
                    "Dtypes differ (expected " + expected.dtype_name + ", actual " +
                        actual.dtype_name + "): values compared as numbers.",
                    "class=\"note\"");
  }
  html += WorstTable(analysis, expected, actual) + HistogramTable(analysis, n) +
          Heatmap(analysis, expected, actual);
  return html + "</div>\n";
}

}  // namespace parity::reports
