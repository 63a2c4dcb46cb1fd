// reports/comparison_view.h: what a triaging engineer reads about one compared blob. Every
// expected number below is worked out by hand from the values the test builds.
#include "reports/comparison_view.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace parity::reports {
namespace {

using Dims = std::vector<int64_t>;

caffe2::TensorProto FloatProto(const Dims& dims, const std::vector<float>& values) {
  caffe2::TensorProto proto;
  proto.set_data_type(caffe2::TensorProto::FLOAT);
  for (int64_t d : dims) proto.add_dims(d);
  for (float v : values) proto.add_float_data(v);
  return proto;
}

caffe2::TensorProto DoubleProto(const Dims& dims, const std::vector<double>& values) {
  caffe2::TensorProto proto;
  proto.set_data_type(caffe2::TensorProto::DOUBLE);
  for (int64_t d : dims) proto.add_dims(d);
  for (double v : values) proto.add_double_data(v);
  return proto;
}

// int32, bool and float16 (as bits) all live in int32_data.
caffe2::TensorProto Int32DataProto(caffe2::TensorProto::DataType type, const Dims& dims,
                                   const std::vector<int32_t>& values) {
  caffe2::TensorProto proto;
  proto.set_data_type(type);
  for (int64_t d : dims) proto.add_dims(d);
  for (int32_t v : values) proto.add_int32_data(v);
  return proto;
}

BlobComparison Compare(const std::string& blob, const caffe2::TensorProto& expected,
                       const caffe2::TensorProto& actual) {
  BlobComparison comparison;
  comparison.set_blob(blob);
  *comparison.mutable_expected() = expected;
  *comparison.mutable_actual() = actual;
  return comparison;
}

// The text between the first `begin` and the next `end` (empty when absent).
std::string Between(const std::string& html, const std::string& begin, const std::string& end) {
  const size_t from = html.find(begin);
  if (from == std::string::npos) return "";
  const size_t to = html.find(end, from);
  return html.substr(from, to == std::string::npos ? std::string::npos : to - from);
}

int Count(const std::string& html, const std::string& needle) {
  int count = 0;
  for (size_t at = html.find(needle); at != std::string::npos; at = html.find(needle, at + 1)) {
    ++count;
  }
  return count;
}

std::string WorstRow(const std::string& index, const std::string& expected,
                     const std::string& actual, const std::string& abs_error,
                     const std::string& rel_error) {
  return "<tr><td>" + index + "</td><td>" + expected + "</td><td>" + actual + "</td><td>" +
         abs_error + "</td><td>" + rel_error + "</td></tr>";
}

std::string HistogramRow(const std::string& bucket, int64_t count) {
  return "<td>" + bucket + "</td><td class=\"count\">" + std::to_string(count) + "</td>";
}

// A 3x4 float matrix with four differing elements, the worst at [2, 1] (flat 9).
BlobComparison Matrix3x4() {
  // 8 + 2^-20 is the float right after 8.
  const float eight_plus = 8.0f + std::ldexp(1.0f, -20);
  BlobComparison comparison =
      Compare("fc_out", FloatProto({3, 4}, {1, 2, 3, 2, 5, 6, 7, 8, 9, 4, 11, 12}),
              FloatProto({3, 4}, {1.03125f, 2, 3, 2.25f, 5, 6, 7, eight_plus, 9, 4.5f, 11, 12}));
  Metrics* m = comparison.mutable_metrics();
  m->set_tolerance_abs(0.1);
  m->set_tolerance_rel(0);
  m->set_max_abs_error(0.5);
  m->set_max_rel_error(0.125);
  m->set_worst_index(9);
  m->set_mismatch_count(2);  // 0.5 and 0.25 exceed 0.1
  m->set_element_count(12);
  return comparison;
}

TEST(ComparisonView, SummaryOfAFloatMatrix) {
  const std::string html = ComparisonHtml(Matrix3x4());
  EXPECT_EQ(html.rfind("<div class=\"comparison\">", 0), 0u);
  EXPECT_EQ(html.find("<html"), std::string::npos);
  EXPECT_NE(html.find("<code>fc_out</code>"), std::string::npos);
  EXPECT_NE(html.find("<tr><th>expected</th><td>float [3, 4] (12 elements)</td></tr>"),
            std::string::npos);
  EXPECT_NE(html.find("<tr><th>actual</th><td>float [3, 4] (12 elements)</td></tr>"),
            std::string::npos);
  EXPECT_NE(html.find("<td>abs 0.1, rel 0</td>"), std::string::npos);
  EXPECT_EQ(html.find("norm tolerance"), std::string::npos);  // not set: not shown
  EXPECT_NE(html.find("<th>max abs error</th><td>0.5</td>"), std::string::npos);
  EXPECT_NE(html.find("<th>max rel error</th><td>0.125</td>"), std::string::npos);
  // Flat 9 in [3, 4]: row 9 / 4 = 2, column 9 % 4 = 1.
  EXPECT_NE(html.find("<th>worst element</th><td>[2, 1] (flat index 9)</td>"), std::string::npos);
  // 2 / 12 = 16.666...%.
  EXPECT_NE(html.find("<th>mismatches</th><td>2 of 12 (16.67%)</td>"), std::string::npos);
  // Recomputed: 4 of 12 differ at all = 33.33%.
  EXPECT_NE(html.find("<td>4 of 12 (33.33%), 0 by NaN or inf</td>"), std::string::npos);
  EXPECT_EQ(html.find("Dtypes differ"), std::string::npos);
}

TEST(ComparisonView, NormToleranceShownWhenSet) {
  BlobComparison comparison = Matrix3x4();
  comparison.mutable_metrics()->set_norm_error(0.5625);
  comparison.mutable_metrics()->set_norm_tolerance(0.01);
  const std::string html = ComparisonHtml(comparison);
  EXPECT_NE(html.find("L2 norm of the error 0.5625 against a norm tolerance of 0.01"),
            std::string::npos);
}

TEST(ComparisonView, WorstElementsInOrderWithValues) {
  const std::string worst =
      Between(ComparisonHtml(Matrix3x4()), "<table class=\"worst\">", "</table>");
  ASSERT_FALSE(worst.empty());
  // |4.5 - 4| = 0.5 (rel 0.5 / 4), |2.25 - 2| = 0.25 (rel 0.25 / 2), |1.03125 - 1| = 0.03125,
  // |2^-20| = 9.53674e-07 (rel 2^-20 / 8 = 2^-23 = 1.19209e-07); the float after 8 prints as the
  // shortest text that reads back to it.
  const std::vector<std::string> rows = {
      WorstRow("[2, 1]", "4", "4.5", "0.5", "0.125"),
      WorstRow("[0, 3]", "2", "2.25", "0.25", "0.125"),
      WorstRow("[0, 0]", "1", "1.03125", "0.03125", "0.03125"),
      WorstRow("[1, 3]", "8", "8.000001", "9.53674e-07", "1.19209e-07"),
  };
  size_t at = 0;
  for (const std::string& row : rows) {
    const size_t found = worst.find(row);
    ASSERT_NE(found, std::string::npos) << row << "\nin\n" << worst;
    EXPECT_GT(found, at) << "out of order: " << row;
    at = found;
  }
  EXPECT_EQ(Count(worst, "<tr><td>"), 4);  // equal elements are not listed
}

TEST(ComparisonView, HistogramCountsPerDecade) {
  const std::string histogram =
      Between(ComparisonHtml(Matrix3x4()), "<table class=\"histogram\">", "</table>");
  EXPECT_NE(histogram.find(HistogramRow("0 (equal)", 8)), std::string::npos);
  EXPECT_NE(histogram.find(HistogramRow("(0.1, 1]", 2)), std::string::npos);      // 0.5, 0.25
  EXPECT_NE(histogram.find(HistogramRow("(0.01, 0.1]", 1)), std::string::npos);   // 0.03125
  EXPECT_NE(histogram.find(HistogramRow("(1e-7, 1e-6]", 1)), std::string::npos);  // 9.5e-07
  EXPECT_NE(histogram.find(HistogramRow("(0, 1e-9]", 0)), std::string::npos);
  EXPECT_NE(histogram.find(HistogramRow("(100, 1000]", 0)), std::string::npos);
  EXPECT_NE(histogram.find(HistogramRow("&gt; 1000", 0)), std::string::npos);
  EXPECT_NE(histogram.find(HistogramRow("NaN / inf", 0)), std::string::npos);
  // 0, (0, 1e-9], twelve decades up to 1000, > 1000, NaN/inf.
  EXPECT_EQ(Count(histogram, "class=\"count\""), 16);
}

TEST(ComparisonView, MatrixHeatmapHasOneCellPerElement) {
  const std::string html = ComparisonHtml(Matrix3x4());
  EXPECT_EQ(Count(html, "<svg"), 1);
  EXPECT_EQ(Count(html, "<rect"), 12);
  // The largest error is full red; an equal element white.
  EXPECT_NE(html.find("fill=\"#ff0000\"><title>[2, 1] max |error| 0.5</title>"), std::string::npos);
  EXPECT_NE(html.find("fill=\"#ffffff\"><title>[0, 1] max |error| 0</title>"), std::string::npos);
  EXPECT_NE(html.find("log scale"), std::string::npos);
}

TEST(ComparisonView, NanWhereANumberWasExpectedIsWorst) {
  // [1] inf for 2, [2] NaN for 3, [3] 104 for 4, [4] NaN for NaN (agreement), [6] 7 for NaN.
  const std::string html =
      ComparisonHtml(Compare("y", DoubleProto({7}, {1, 2, 3, 4, NAN, 5, NAN}),
                             DoubleProto({7}, {1, INFINITY, NAN, 104, NAN, 5, 7})));
  const std::string worst = Between(html, "<table class=\"worst\">", "</table>");
  const std::vector<std::string> rows = {
      WorstRow("[2]", "3", "nan", "nan", "nan"),  // NaN for a number: first, though later
      WorstRow("[1]", "2", "inf", "inf", "inf"), WorstRow("[6]", "nan", "7", "nan", "nan"),
      WorstRow("[3]", "4", "104", "100", "25"),  // the largest finite error, after every NaN/inf
  };
  size_t at = 0;
  for (const std::string& row : rows) {
    const size_t found = worst.find(row);
    ASSERT_NE(found, std::string::npos) << row << "\nin\n" << worst;
    EXPECT_GT(found, at) << "out of order: " << row;
    at = found;
  }
  EXPECT_EQ(Count(worst, "<tr><td>"), 4);  // [4] NaN = NaN agrees
  const std::string histogram = Between(html, "<table class=\"histogram\">", "</table>");
  EXPECT_NE(histogram.find(HistogramRow("0 (equal)", 3)), std::string::npos);
  EXPECT_NE(histogram.find(HistogramRow("(10, 100]", 1)), std::string::npos);  // 100 is in
  EXPECT_NE(histogram.find(HistogramRow("NaN / inf", 3)), std::string::npos);
  EXPECT_NE(html.find("<td>4 of 7 (57.14%), 3 by NaN or inf</td>"), std::string::npos);
  // 1-D: one row of 7 cells, indexed [i]; non-finite cells have their own colour.
  EXPECT_EQ(Count(html, "<rect"), 7);
  EXPECT_NE(html.find("fill=\"#6a0dad\"><title>[2] max |error| nan</title>"), std::string::npos);
  EXPECT_NE(html.find("fill=\"#6a0dad\"><title>[1] max |error| inf</title>"), std::string::npos);
  EXPECT_NE(html.find("fill=\"#ff0000\"><title>[3] max |error| 100</title>"), std::string::npos);
}

TEST(ComparisonView, ThreeDimensionalTensorAsSlicesIncludingTheWorst) {
  // [6, 2, 3]: differences at [0, 0, 1] (flat 1) and [5, 1, 2] (flat 5*6 + 1*3 + 2 = 35).
  std::vector<double> actual(36, 0.0);
  actual[1] = 0.001;
  actual[35] = 3;
  BlobComparison comparison = Compare("h", DoubleProto({6, 2, 3}, std::vector<double>(36, 0.0)),
                                      DoubleProto({6, 2, 3}, actual));
  comparison.mutable_metrics()->set_worst_index(35);
  const std::string html = ComparisonHtml(comparison);
  EXPECT_NE(html.find("<td>[5, 1, 2] (flat index 35)</td>"), std::string::npos);
  const std::string worst = Between(html, "<table class=\"worst\">", "</table>");
  EXPECT_NE(worst.find(WorstRow("[5, 1, 2]", "0", "3", "3", "inf")), std::string::npos);
  EXPECT_NE(worst.find(WorstRow("[0, 0, 1]", "0", "0.001", "0.001", "inf")), std::string::npos);
  // The first three slices, then the one with the worst element in place of the fourth.
  EXPECT_EQ(Count(html, "<svg"), 4);
  EXPECT_EQ(Count(html, "<rect"), 4 * 6);
  for (const char* caption : {"[0, :, :]", "[1, :, :]", "[2, :, :]", "[5, :, :]"}) {
    EXPECT_NE(html.find(std::string("<figcaption>") + caption + "</figcaption>"), std::string::npos)
        << caption;
  }
  EXPECT_EQ(html.find("<figcaption>[3, :, :]"), std::string::npos);
  EXPECT_EQ(html.find("<figcaption>[4, :, :]"), std::string::npos);
  EXPECT_NE(html.find("showing 4 of 6"), std::string::npos);
  EXPECT_NE(html.find("<title>[5, 1, 2] max |error| 3</title>"), std::string::npos);
  EXPECT_NE(html.find("<title>[0, 0, 1] max |error| 0.001</title>"), std::string::npos);
}

TEST(ComparisonView, ShapeMismatchIsSaidNotCompared) {
  const std::string html =
      ComparisonHtml(Compare("z", FloatProto({3, 4}, std::vector<float>(12, 1.0f)),
                             FloatProto({4, 3}, std::vector<float>(12, 1.0f))));
  EXPECT_NE(html.find("<td>float [3, 4] (12 elements)</td>"), std::string::npos);
  EXPECT_NE(html.find("<td>float [4, 3] (12 elements)</td>"), std::string::npos);
  EXPECT_NE(html.find("Shapes differ (expected [3, 4], actual [4, 3])"), std::string::npos);
  EXPECT_EQ(html.find("<table class=\"worst\">"), std::string::npos);
  EXPECT_EQ(html.find("<svg"), std::string::npos);
}

TEST(ComparisonView, MissingActual) {
  BlobComparison comparison;
  comparison.set_blob("out");
  *comparison.mutable_expected() = FloatProto({2}, {1, 2});
  std::string html = ComparisonHtml(comparison);
  EXPECT_NE(html.find("<th>actual</th><td>missing (no value recorded)</td>"), std::string::npos);
  EXPECT_NE(html.find("actual is missing"), std::string::npos);
  EXPECT_NE(html.find("<th>metrics</th><td>not recorded</td>"), std::string::npos);
  EXPECT_EQ(html.find("<svg"), std::string::npos);
  // A present but empty message reads the same.
  comparison.mutable_actual();
  EXPECT_TRUE(comparison.has_actual());
  html = ComparisonHtml(comparison);
  EXPECT_NE(html.find("<th>actual</th><td>missing (no value recorded)</td>"), std::string::npos);
}

TEST(ComparisonView, EmptyAndNonNumeric) {
  std::string html = ComparisonHtml(Compare("e", FloatProto({0, 3}, {}), FloatProto({0, 3}, {})));
  EXPECT_NE(html.find("float [0, 3] (0 elements)"), std::string::npos);
  EXPECT_NE(html.find("Both are empty"), std::string::npos);
  EXPECT_EQ(html.find("<svg"), std::string::npos);

  caffe2::TensorProto strings;
  strings.set_data_type(caffe2::TensorProto::STRING);
  strings.add_dims(2);
  strings.add_string_data("a");
  strings.add_string_data("b");
  html = ComparisonHtml(Compare("s", strings, strings));
  EXPECT_NE(html.find("<td>string [2]: not numeric</td>"), std::string::npos);
  EXPECT_NE(html.find("expected is not numeric; actual is not numeric"), std::string::npos);
  EXPECT_EQ(html.find("<table class=\"worst\">"), std::string::npos);
}

TEST(ComparisonView, BlobNameAndProtoTextAreEscaped) {
  const std::string name = "<script>alert(1)</script>";
  caffe2::TensorProto unreadable = FloatProto({2}, {});  // two values promised, none given
  unreadable.set_name(name);
  const std::string html = ComparisonHtml(Compare(name, FloatProto({2}, {1, 2}), unreadable));
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_NE(html.find("<code>&lt;script&gt;alert(1)&lt;/script&gt;</code>"), std::string::npos);
  // The reader's message names the proto: escaped too.
  EXPECT_NE(html.find("unreadable: tensor &#39;&lt;script&gt;alert(1)&lt;/script&gt;&#39;"),
            std::string::npos);
}

TEST(ComparisonView, OtherDtypesReadAsNumbers) {
  // float16 bits: 0x3C00 = 1.0, 0x4000 = 2.0, 0x4100 = 2.5.
  std::string html = ComparisonHtml(
      Compare("h", Int32DataProto(caffe2::TensorProto::FLOAT16, {2}, {0x3C00, 0x4000}),
              Int32DataProto(caffe2::TensorProto::FLOAT16, {2}, {0x3C00, 0x4100})));
  EXPECT_NE(html.find(WorstRow("[1]", "2", "2.5", "0.5", "0.25")), std::string::npos) << html;

  html = ComparisonHtml(Compare("i", Int32DataProto(caffe2::TensorProto::INT32, {3}, {1, 5, -3}),
                                Int32DataProto(caffe2::TensorProto::INT32, {3}, {1, 7, -3})));
  EXPECT_NE(html.find(WorstRow("[1]", "5", "7", "2", "0.4")), std::string::npos);
  EXPECT_EQ(html.find("Dtypes differ"), std::string::npos);

  caffe2::TensorProto int64s;
  int64s.set_data_type(caffe2::TensorProto::INT64);
  int64s.add_dims(3);
  for (int64_t v : {1, 5, -4}) int64s.add_int64_data(v);
  html = ComparisonHtml(
      Compare("j", Int32DataProto(caffe2::TensorProto::INT32, {3}, {1, 5, -3}), int64s));
  EXPECT_NE(html.find("Dtypes differ (expected int32, actual int64)"), std::string::npos);
  EXPECT_NE(html.find(WorstRow("[2]", "-3", "-4", "1", "0.333333")), std::string::npos);

  html = ComparisonHtml(Compare("b", Int32DataProto(caffe2::TensorProto::BOOL, {2}, {1, 0}),
                                Int32DataProto(caffe2::TensorProto::BOOL, {2}, {1, 1})));
  EXPECT_NE(html.find(WorstRow("[1]", "false", "true", "1", "inf")), std::string::npos);

  caffe2::TensorProto bytes_e, bytes_a;
  for (caffe2::TensorProto* p : {&bytes_e, &bytes_a}) {
    p->set_data_type(caffe2::TensorProto::UINT8);
    p->add_dims(2);
  }
  bytes_e.set_byte_data(std::string("\x0a\x14", 2));  // 10, 20
  bytes_a.set_byte_data(std::string("\x0a\x1e", 2));  // 10, 30
  html = ComparisonHtml(Compare("u", bytes_e, bytes_a));
  EXPECT_NE(html.find(WorstRow("[1]", "20", "30", "10", "0.5")), std::string::npos);

  // The usual finding: the truth in double, production in float. Not worth a remark.
  html = ComparisonHtml(Compare("f", DoubleProto({1}, {0.1}), FloatProto({1}, {0.1f})));
  EXPECT_EQ(html.find("Dtypes differ"), std::string::npos);
  EXPECT_NE(html.find("<td>double [1] (1 element)</td>"), std::string::npos);
}

TEST(ComparisonView, LargeMatrixIsDownsampledTo64x64) {
  std::vector<float> actual(1000 * 1000, 0.0f);
  actual[999 * 1000 + 999] = 1;
  const std::string html =
      ComparisonHtml(Compare("big", FloatProto({1000, 1000}, std::vector<float>(1000 * 1000, 0.0f)),
                             FloatProto({1000, 1000}, actual)));
  EXPECT_EQ(Count(html, "<rect"), 64 * 64);
  // 1000 / 64 = 15.6: the first block is [0, 15); the last starts at 63 * 1000 / 64 = 984.
  EXPECT_NE(html.find("<title>[0:15, 0:15] max |error| 0</title>"), std::string::npos);
  EXPECT_NE(html.find("fill=\"#ff0000\"><title>[984:1000, 984:1000] max |error| 1</title>"),
            std::string::npos);
  EXPECT_NE(html.find("downsampled"), std::string::npos);
}

TEST(ComparisonView, TenMillionElementsAreFastAndBounded) {
  // [2500, 4000] floats, all 0 but flat 5,000,000 = [1250, 0], which is 0.5 off.
  const int64_t n = 10'000'000;
  caffe2::TensorProto expected;
  expected.set_data_type(caffe2::TensorProto::FLOAT);
  expected.add_dims(2500);
  expected.add_dims(4000);
  expected.set_raw_data(std::string(n * sizeof(float), '\0'));
  caffe2::TensorProto actual = expected;
  const float half = 0.5f;
  std::memcpy(&(*actual.mutable_raw_data())[5'000'000 * sizeof(float)], &half, sizeof(half));

  const BlobComparison comparison = Compare("huge", expected, actual);
  const auto start = std::chrono::steady_clock::now();
  const std::string html = ComparisonHtml(comparison);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("10M elements: %.3f s, %zu bytes of HTML\n", seconds, html.size());
  // Generous for a loaded CI machine; an idle one takes a small fraction of this.
  EXPECT_LT(seconds, 3.0);
  EXPECT_LT(html.size(), 1'000'000u);
  EXPECT_EQ(Count(html, "<rect"), 64 * 64);
  EXPECT_NE(html.find(WorstRow("[1250, 0]", "0", "0.5", "0.5", "inf")), std::string::npos);
  EXPECT_NE(html.find("<td>1 of 10000000 (&lt; 0.01%), 0 by NaN or inf</td>"), std::string::npos);
  const std::string histogram = Between(html, "<table class=\"histogram\">", "</table>");
  EXPECT_NE(histogram.find(HistogramRow("0 (equal)", 9'999'999)), std::string::npos);
  EXPECT_NE(histogram.find(HistogramRow("(0.1, 1]", 1)), std::string::npos);
}

}  // namespace
}  // namespace parity::reports
