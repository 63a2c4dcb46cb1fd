// A campaign directory for the report tests: one forward finding on an FC whose output blob has
// a hostile name, seen twice, and a summary.json.
#ifndef PARITY_TESTS_REPORTS_REPORT_FIXTURE_H_
#define PARITY_TESTS_REPORTS_REPORT_FIXTURE_H_

#include <filesystem>
#include <string>

#include "core/io.h"
#include "core/tensor_proto.h"
#include "fuzz/corpus.h"
#include "oracles/finding.h"
#include "tests/cli/cli_util.h"
#include "tests/test_util.h"

namespace parity::testing {

inline constexpr char kHostile[] = "<script>alert(1)</script>";

// A forward finding on an FC whose output blob has a hostile name: expected [1, 2, 3], actual
// [1, 2, 7] (the worst element at index 2).
inline Finding FcFinding() {
  Case c;
  *c.mutable_net()->add_op() = MakeOp("FC", {"x", "w", "b"}, {kHostile});
  c.mutable_net()->add_external_output(kHostile);
  c.set_seed(42);
  Finding f = oracles::MakeFinding("forward", c, "value mismatch", "FC differs from the truth");
  f.set_blamed_op_index(0);
  f.set_blamed_op_type("FC");
  f.set_blamed_op_path("op #0 (FC)");
  f.mutable_signature()->set_blamed_op_type("FC");
  f.mutable_signature()->set_dtype("FLOAT");
  BlobComparison* comparison = f.add_comparisons();
  comparison->set_blob(kHostile);
  *comparison->mutable_expected() = TensorToProto(MakeTensor<float>({3}, {1, 2, 3}));
  *comparison->mutable_actual() = TensorToProto(MakeTensor<float>({3}, {1, 2, 7}));
  Metrics* m = comparison->mutable_metrics();
  m->set_max_abs_error(4);
  m->set_max_rel_error(4.0 / 3);
  m->set_worst_index(2);
  m->set_mismatch_count(1);
  m->set_element_count(3);
  m->set_tolerance_abs(1e-5);
  m->set_tolerance_rel(1e-4);
  return f;
}

// A campaign directory with one finding seen twice.
inline std::string Campaign(const std::string& name) {
  const std::string dir = TestTmp() + "/" + name;
  std::filesystem::create_directories(dir);
  fuzz::Corpus corpus(dir + "/findings");
  corpus.Add(FcFinding(), 7);
  corpus.Add(FcFinding(), 9);
  WriteFileAtomic(dir + "/summary.json",
                  R"({"seed": 3, "backend": "MUTANT_FC", "cases": 100, "seconds": 2.0,
                      "cases_per_second": 50.0, "findings": 2, "jobs": 2,
                      "oracles_run": {"forward": {"checked": 90, "not_applicable": 10}},
                      "cases_per_op": {"FC": 40},
                      "cases_per_op_oracle": {"FC": {"forward": 37}}})");
  return dir;
}

inline size_t Count(const std::string& text, const std::string& needle) {
  size_t count = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    ++count;
  }
  return count;
}

}  // namespace parity::testing

#endif  // PARITY_TESTS_REPORTS_REPORT_FIXTURE_H_
