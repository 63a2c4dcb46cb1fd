#include "core/ops/common/size_paths.h"

namespace parity {
namespace {

std::vector<SizePath>& Paths() {
  static auto* paths = new std::vector<SizePath>();
  return *paths;
}

}  // namespace

bool RegisterSizePath(SizePath path) {
  Paths().push_back(std::move(path));
  return true;
}

const std::vector<SizePath>& SizePaths() { return Paths(); }

}  // namespace parity
