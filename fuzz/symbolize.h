// Names for code addresses of this process, for crash reports. A forked worker's code lies where
// its parent's does, so the parent names the addresses a dead worker sent: dladdr(3) finds the
// module, addr2line (binutils, there wherever the build's compiler is) the function, from the
// symbol table when there is no debug information.
#ifndef PARITY_FUZZ_SYMBOLIZE_H_
#define PARITY_FUZZ_SYMBOLIZE_H_

#include <cstdint>
#include <string>
#include <vector>

namespace parity::fuzz {

struct CodeFrame {
  uintptr_t pc = 0;
  std::string function;  // demangled; "" when unknown
  std::string module;    // the file it was loaded from
  uintptr_t offset = 0;  // pc - the module's load address
  bool own = false;      // parity's code (the executable, a library of the build), not the system's

  // "Foo::Bar(int) (parity+0x1234)", or "libc.so.6+0x2a" without a name.
  std::string ToString() const;
};

std::vector<CodeFrame> Symbolize(const std::vector<uintptr_t>& pcs);

// A C++ symbol or type name made readable (abi::__cxa_demangle); the name itself when it is not
// mangled.
std::string Demangle(const char* name);

}  // namespace parity::fuzz

#endif  // PARITY_FUZZ_SYMBOLIZE_H_
