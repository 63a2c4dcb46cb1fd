// Test-only engines whose Relu kernel fails the way a real kernel can, for the campaign's crash
// isolation tests (tests/campaign/crash_isolation_test): each is the production engine with one
// Relu swapped in (oracles/backend.h), registered in the parity_with_faulty_engines binary only.
//
//   test-segfault  writes through a wild pointer when the first input element is negative
//   test-hang      loops forever when the first input element is negative
//   test-hog       allocates 1 GiB (untouched: only an address-space limit makes it fail)
// On other inputs they run the real kernel, so a campaign sees both passing and failing cases.
#include <cstdint>
#include <memory>

#include "core/operator.h"
#include "oracles/backend.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

bool FirstElementNegative(const Tensor& x) {
  return x.numel() > 0 && x.dtype() == DataType::kFloat && x.data<float>()[0] < 0;
}

class SegfaultingRelu final : public Operator {
 public:
  using Operator::Operator;
  void Run() override {
    if (FirstElementNegative(Input(0))) {
      // An address the compiler cannot prove invalid, so this is a real store and a real SIGSEGV.
      volatile uintptr_t wild = 16;
      *reinterpret_cast<volatile int*>(wild) = 1;
    }
    RunDefaultKernel(def(), workspace());
  }
};

class HangingRelu final : public Operator {
 public:
  using Operator::Operator;
  void Run() override {
    if (FirstElementNegative(Input(0))) {
      for (volatile bool forever = true; forever;) {
      }
    }
    RunDefaultKernel(def(), workspace());
  }
};

class HoggingRelu final : public Operator {
 public:
  using Operator::Operator;
  void Run() override {
    // new char[] leaves the bytes untouched (make_unique would zero a whole GiB).
    std::unique_ptr<char[]> hog(new char[size_t{1} << 30]);
    hog_ = hog.get();  // kept observable, so the allocation is not optimized away
    RunDefaultKernel(def(), workspace());
  }

 private:
  char* volatile hog_ = nullptr;
};

PARITY_REGISTER_CPU_OPERATOR_WITH_ENGINE(Relu, "TEST_SEGFAULT", SegfaultingRelu);
PARITY_REGISTER_CPU_OPERATOR_WITH_ENGINE(Relu, "TEST_HANG", HangingRelu);
PARITY_REGISTER_CPU_OPERATOR_WITH_ENGINE(Relu, "TEST_HOG", HoggingRelu);
PARITY_REGISTER_BACKEND(oracles::MakeProductionBackend(
    "test-segfault", "TEST_SEGFAULT", "Relu segfaults when its first input element is negative"));
PARITY_REGISTER_BACKEND(oracles::MakeProductionBackend(
    "test-hang", "TEST_HANG", "Relu loops forever when its first input element is negative"));
PARITY_REGISTER_BACKEND(oracles::MakeProductionBackend("test-hog", "TEST_HOG",
                                                       "Relu allocates 1 GiB on every run"));

}  // namespace
}  // namespace parity::testing
