#include "fuzz/symbolize.h"

#include <cxxabi.h>
#include <dlfcn.h>
#include <sys/auxv.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <sstream>

namespace parity::fuzz {
namespace {

std::string Basename(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string ShellQuote(const std::string& text) {
  std::string out = "'";
  for (char ch : text) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

// The executable's load address: where the module holding its program headers starts.
uintptr_t ExecutableBase() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(getauxval(AT_PHDR)), &info) == 0) return 0;
  return reinterpret_cast<uintptr_t>(info.dli_fbase);
}

// Whether a module is the system's (libc, libstdc++, ...) rather than parity's own code: the
// executable, or a library of the build (tests link parity's libraries as shared objects).
bool SystemModule(const std::string& path) {
  for (const char* prefix : {"/lib/", "/lib64/", "/usr/", "linux-vdso"}) {
    if (path.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

// Function names for offsets in `module`, by addr2line; "" where it has none.
std::vector<std::string> Addr2Line(const std::string& module,
                                   const std::vector<uintptr_t>& offsets) {
  std::vector<std::string> names(offsets.size());
  std::ostringstream command;
  command << "addr2line -f -C -e " << ShellQuote(module);
  for (uintptr_t offset : offsets) command << " 0x" << std::hex << offset;
  command << " 2>/dev/null";
  FILE* pipe = popen(command.str().c_str(), "r");
  if (pipe == nullptr) return names;
  char line[4096];
  for (size_t i = 0; i < offsets.size(); ++i) {
    if (std::fgets(line, sizeof(line), pipe) == nullptr) break;
    std::string function = line;
    while (!function.empty() && (function.back() == '\n' || function.back() == '\r')) {
      function.pop_back();
    }
    if (function != "??") names[i] = function;
    if (std::fgets(line, sizeof(line), pipe) == nullptr) break;  // file:line
  }
  pclose(pipe);
  return names;
}

// Whether the ELF file at `path` is position-independent (ET_DYN: addr2line wants offsets from
// its load address) rather than linked at a fixed address (ET_EXEC: it wants the address).
bool PositionIndependent(const std::string& path) {
  unsigned char header[18] = {};
  FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) return true;
  const size_t n = std::fread(header, 1, sizeof(header), file);
  std::fclose(file);
  constexpr int kElfTypeOffset = 16;  // e_type, little-endian on the machines we build for
  constexpr unsigned kElfTypeExecutable = 2;
  return n < sizeof(header) || header[kElfTypeOffset] != kElfTypeExecutable;
}

// The executable's path (addr2line is another process: /proc/self/exe would name addr2line).
std::string ExecutablePath() {
  char path[4096];
  const ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
  return n > 0 ? std::string(path, static_cast<size_t>(n)) : std::string();
}

std::vector<CodeFrame> SymbolizeUncached(const std::vector<uintptr_t>& pcs);

}  // namespace

std::string Demangle(const char* name) {
  int status = 0;
  char* readable = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string out = status == 0 && readable != nullptr ? readable : name;
  std::free(readable);
  return out;
}

std::string CodeFrame::ToString() const {
  std::ostringstream out;
  if (!function.empty()) out << function << " (";
  out << (module.empty() ? "?" : Basename(module)) << "+0x" << std::hex << offset;
  if (!function.empty()) out << ")";
  return out.str();
}

std::vector<CodeFrame> Symbolize(const std::vector<uintptr_t>& pcs) {
  // A campaign meets one crash many times: addr2line reads the binary's symbol table (a tenth of
  // a second) once per address, not once per crash.
  static std::mutex mutex;
  static std::map<uintptr_t, CodeFrame> known;
  std::lock_guard<std::mutex> lock(mutex);
  std::vector<uintptr_t> unknown;
  for (uintptr_t pc : pcs) {
    if (known.count(pc) == 0) unknown.push_back(pc);
  }
  for (CodeFrame& frame : SymbolizeUncached(unknown)) known[frame.pc] = frame;
  std::vector<CodeFrame> frames;
  for (uintptr_t pc : pcs) frames.push_back(known[pc]);
  return frames;
}

namespace {

std::vector<CodeFrame> SymbolizeUncached(const std::vector<uintptr_t>& pcs) {
  std::vector<CodeFrame> frames(pcs.size());
  const uintptr_t executable = ExecutableBase();
  const std::string executable_path = ExecutablePath();
  std::map<std::string, std::vector<size_t>> by_module;
  for (size_t i = 0; i < pcs.size(); ++i) {
    CodeFrame& frame = frames[i];
    frame.pc = pcs[i];
    Dl_info info{};
    // A return address points past its call: look up the byte before, inside the caller.
    if (pcs[i] == 0 || dladdr(reinterpret_cast<void*>(pcs[i] - 1), &info) == 0) continue;
    const uintptr_t base = reinterpret_cast<uintptr_t>(info.dli_fbase);
    frame.module = base == executable
                       ? executable_path
                       : std::string(info.dli_fname != nullptr ? info.dli_fname : "");
    frame.own = !frame.module.empty() && !SystemModule(frame.module);
    frame.offset = pcs[i] - base;
    if (info.dli_sname != nullptr) frame.function = Demangle(info.dli_sname);
    if (!frame.module.empty()) by_module[frame.module].push_back(i);
  }
  for (const auto& [module, indices] : by_module) {
    const bool relative = PositionIndependent(module);
    std::vector<uintptr_t> offsets;
    for (size_t i : indices) offsets.push_back((relative ? frames[i].offset : frames[i].pc) - 1);
    const std::vector<std::string> names = Addr2Line(module, offsets);
    for (size_t k = 0; k < indices.size(); ++k) {
      if (!names[k].empty()) frames[indices[k]].function = names[k];
    }
  }
  return frames;
}

}  // namespace
}  // namespace parity::fuzz
