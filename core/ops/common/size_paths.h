// Where a kernel's code path depends on size (blocked, vectorized, a switch of algorithm), the
// kernel declares it here, next to the kernel, with the measure that decides it:
//
//   PARITY_SIZE_PATH(Sigmoid, "AVX2 loop over 8 floats, padded tail", /*threshold=*/8,
//                    /*block=*/8, [](const caffe2::OperatorDef&, const InputDims& in) {
//                      return Numel(in[0]);
//                    });
//
// The path is taken when measure >= threshold; with a block, the remainders measure % block == 1
// and == block - 1 are the edges of its tail. The workbench reads the declarations: a coverage
// test asserts that the op's fuzz spec draws cases on both sides of each threshold and on both
// remainders (tests/coverage/size_paths_test.cc), so a path the generators never reach is a
// failing test, not a silent gap.
#ifndef PARITY_CORE_OPS_COMMON_SIZE_PATHS_H_
#define PARITY_CORE_OPS_COMMON_SIZE_PATHS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/proto/caffe2.pb.h"

namespace parity {

using InputDims = std::vector<std::vector<int64_t>>;

struct SizePath {
  std::string op_type;
  std::string description;  // what the kernel does differently at and above the threshold
  int64_t threshold = 0;
  int64_t block = 0;  // >= 2: the kernel works in blocks of this many
  // The measure for an op and its inputs' dims (-1: not applicable to this instance).
  std::function<int64_t(const caffe2::OperatorDef&, const InputDims&)> measure;
  std::string file;
  int line = 0;
};

bool RegisterSizePath(SizePath path);
const std::vector<SizePath>& SizePaths();

}  // namespace parity

#define PARITY_SIZE_PATH_CONCAT_INNER(a, b) a##b
#define PARITY_SIZE_PATH_CONCAT(a, b) PARITY_SIZE_PATH_CONCAT_INNER(a, b)
#define PARITY_SIZE_PATH(type, description, threshold, block, ...)                        \
  static const bool PARITY_SIZE_PATH_CONCAT(parity_size_path_, __COUNTER__) =             \
      ::parity::RegisterSizePath(::parity::SizePath{#type, description, threshold, block, \
                                                    __VA_ARGS__, __FILE__, __LINE__})

#endif  // PARITY_CORE_OPS_COMMON_SIZE_PATHS_H_
