// Mutants of the tensor-file loader (issue 37): inputs that come from files (`parity run --input`,
// `parity check --inputs`) are read by code no net reaches, so only the round-trip oracle, which
// writes every case's inputs in each form parity reads and loads them back, can see its bugs. Each
// is planted through the ReplaceTensorLoadEdit seam (core/io.h) as an edit of what the loader
// returns, leaving it exactly as the bug would have read the file.
#include <cstdint>
#include <string>

#include "core/io.h"
#include "tests/mutants/mutant_wrap.h"

namespace parity::mutants {
namespace {

bool EndsWith(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

Mutant LoaderMutant(const std::string& name, const std::string& form,
                    const std::string& description, TensorLoadEdit edit) {
  Mutant m = M(name, "tensor file " + form, "roundtrip", "files", description);
  m.install = ThroughSeam(&ReplaceTensorLoadEdit, std::move(edit));
  return m;
}

}  // namespace

void AddFileMutants(std::vector<Entry>* out) {
  Mutant narrowed = LoaderMutant(
      "NPY_INT64_READ_AS_INT32", ".npy",
      "the .npy reader maps the descriptor '<i8' to int32, so int64 arrays (indices, shapes) load "
      "as int32 tensors",
      [](const std::string& path, std::vector<caffe2::TensorProto>* tensors) {
        if (!EndsWith(path, ".npy")) return;
        for (caffe2::TensorProto& t : *tensors) {
          if (t.data_type() != caffe2::TensorProto::INT64) continue;
          t.set_data_type(caffe2::TensorProto::INT32);
          for (int64_t v : t.int64_data()) t.add_int32_data(static_cast<int32_t>(v));
          t.clear_int64_data();
        }
      });
  narrowed.spec_type = "Gather";  // its indices are int64 in half the cases
  out->push_back({narrowed, Wrap{}});
}

}  // namespace parity::mutants
