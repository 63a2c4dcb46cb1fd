// The campaign feeds one single-op case in 16 doubles (fuzz/generators.cc FeedDoubles): every
// float input as a double of the same value. That draws each kernel's double path only if both
// halves take doubles wherever they take floats, and compute in double: checked here for every
// spec but those that declare their kernel float only (OpSpec::FloatOnly, which must refuse
// them), on the cases its generator draws.
#include <gtest/gtest.h>

#include <string>

#include "fuzz/generators.h"
#include "fuzz/spec.h"
#include "oracles/backend.h"

namespace parity {
namespace {

constexpr int kCasesPerOp = 20;

TEST(Dtypes, EveryOpTakesDoublesWhereItTakesFloatsAndComputesInDouble) {
  int double_cases = 0;
  for (const std::string& type : fuzz::SpecRegistry::Types()) {
    const fuzz::OpSpec& spec = *fuzz::SpecRegistry::Find(type);
    for (int seed = 1; seed <= kCasesPerOp; ++seed) {
      const Case floats = fuzz::SampleCase(fuzz::OpCaseGen(spec), seed);
      Case doubles = floats;
      if (fuzz::FeedDoubles(&doubles) == 0) continue;
      SCOPED_TRACE(type + " seed " + std::to_string(seed));
      const oracles::BackendRun on_floats = oracles::GetBackend("production").Run(floats);
      const oracles::BackendRun production = oracles::GetBackend("production").Run(doubles);
      const oracles::BackendRun reference = oracles::GetBackend(oracles::kReference).Run(doubles);
      if (on_floats.error) continue;  // bad input drawn on purpose (the validity oracle's)
      if (spec.float_only()) {
        EXPECT_TRUE(production.error) << "declared float only, yet it takes doubles";
        continue;
      }
      ++double_cases;
      ASSERT_FALSE(production.error) << production.error->what();
      ASSERT_FALSE(reference.error) << reference.error->what();
      // A floating output of an op fed only doubles is a double (Cast's `to` decides its own).
      if (type == "Cast") continue;
      for (const std::string& blob : oracles::ComparedBlobs(doubles)) {
        auto it = production.blobs.find(blob);
        if (it == production.blobs.end()) continue;
        EXPECT_NE(it->second.data_type(), caffe2::TensorProto::FLOAT) << "blob " << blob;
      }
    }
  }
  EXPECT_GT(double_cases, 1000);
}

}  // namespace
}  // namespace parity
