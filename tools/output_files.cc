#include "tools/output_files.h"

#include <cstdlib>

#include "core/proto/error.h"

namespace parity::tools {
namespace {

std::string Resolved(const std::string& path) {
  char* resolved = ::realpath(path.c_str(), nullptr);
  if (resolved == nullptr) return "";
  std::string out = resolved;
  std::free(resolved);
  return out;
}

}  // namespace

std::string RealTarget(const std::string& path) {
  const std::string whole = Resolved(path);
  if (!whole.empty()) return whole;
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash + 1);
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  const std::string folder = Resolved(dir);
  return folder.empty() ? path : folder + "/" + base;
}

void RefuseSharedFiles(const std::vector<std::pair<std::string, std::string>>& outputs,
                       const std::vector<std::pair<std::string, std::string>>& inputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const auto& [flag, path] = outputs[i];
    if (path.empty()) continue;
    const std::string target = RealTarget(path);
    std::vector<std::pair<std::string, std::string>> others(outputs.begin() + i + 1, outputs.end());
    others.insert(others.end(), inputs.begin(), inputs.end());
    for (const auto& [other_flag, other_path] : others) {
      if (other_path.empty() || RealTarget(other_path) != target) continue;
      throw MakeError(ErrorKind::kBadArgument, flag, " '", Printable(path), "' and ", other_flag,
                      " '", Printable(other_path), "' name the same file (", Printable(target),
                      "): one would silently replace the other");
    }
  }
}

}  // namespace parity::tools
