#include "oracles/oracle.h"

#include <map>
#include <mutex>

#include "core/proto/error.h"

namespace parity::oracles {
namespace {

std::map<std::string, OracleFunction>& Oracles() {
  static auto* oracles = new std::map<std::string, OracleFunction>();
  return *oracles;
}

}  // namespace

bool RegisterOracle(const std::string& name, OracleFunction function) {
  Oracles()[name] = std::move(function);
  return true;
}

const OracleFunction* FindOracle(const std::string& name) {
  auto it = Oracles().find(name);
  return it == Oracles().end() ? nullptr : &it->second;
}

std::vector<std::string> OracleNames() {
  std::vector<std::string> names;
  for (const auto& [name, fn] : Oracles()) names.push_back(name);
  return names;
}

OracleResult RunOracle(const std::string& name, const Case& c, const OracleOptions& options) {
  const OracleFunction* oracle = FindOracle(name);
  if (oracle == nullptr) {
    std::string known;
    for (const auto& n : OracleNames()) known += (known.empty() ? "" : ", ") + n;
    throw MakeError(ErrorKind::kBadArgument, "unknown oracle '", name, "' (known: ", known, ")");
  }
  return (*oracle)(c, options);
}

}  // namespace parity::oracles
