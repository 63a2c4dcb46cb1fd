// The one error type of parity, shared by both halves (it carries no op semantics, so the
// reference may use it without depending on the production engine).
//
// Every failure caused by user input (malformed nets, unknown ops, wrong arity, bad arguments,
// shape mismatches, missing blobs, sizes over the cap, endless loops) is a parity::Error with a
// kind; the command line maps kinds to exit codes. Messages name the op, blob, argument and shapes.
#ifndef PARITY_CORE_PROTO_ERROR_H_
#define PARITY_CORE_PROTO_ERROR_H_

#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/proto/utf8.h"

namespace parity {

enum class ErrorKind {
  kInvalidNet,      // Malformed or inconsistent NetDef / protobuf / file.
  kUnknownOp,       // No schema or no kernel for (type, device, engine).
  kBadArgument,     // Wrong arity, wrong argument type, missing required argument, bad value.
  kShapeMismatch,   // Shapes or dtypes that the op cannot take.
  kMissingBlob,     // A blob that is read but does not exist.
  kResourceLimit,   // Allocation over the cap, overflowing sizes, iteration caps.
  kIo,              // Unreadable or unwritable files.
  kIllegalTransform,  // A graph transform whose preconditions the net does not meet.
  kInternal,        // A bug in parity itself.
};

inline const char* ErrorKindName(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kInvalidNet: return "invalid net";
    case ErrorKind::kUnknownOp: return "unknown op";
    case ErrorKind::kBadArgument: return "bad argument";
    case ErrorKind::kShapeMismatch: return "shape mismatch";
    case ErrorKind::kMissingBlob: return "missing blob";
    case ErrorKind::kResourceLimit: return "resource limit";
    case ErrorKind::kIo: return "i/o error";
    case ErrorKind::kIllegalTransform: return "illegal graph transform";
    case ErrorKind::kInternal: return "internal error";
  }
  return "error";
}

// Exit code of the command line for an error of this kind: 2 for bad input, 3 for our own bugs.
inline int ExitCodeFor(ErrorKind kind) { return kind == ErrorKind::kInternal ? 3 : 2; }

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, std::string message)
      : std::runtime_error(message), kind_(kind), detail_(std::move(message)) {}

  ErrorKind kind() const { return kind_; }
  // The message without the context prefix (e.g. "op #3 (Add 'sum1')").
  const std::string& detail() const { return detail_; }
  const std::string& context() const { return context_; }
  const char* what() const noexcept override { return full_.empty() ? detail_.c_str() : full_.c_str(); }

  // Prefixes where the error happened, outermost last: "net 'main': op #3 (Add): ...".
  // Only the first (innermost) op context is kept, so nested nets read naturally.
  Error& AddContext(const std::string& where) {
    context_ = context_.empty() ? where : where + ": " + context_;
    full_ = context_ + ": " + detail_;
    return *this;
  }

 private:
  ErrorKind kind_;
  std::string detail_;
  std::string context_;
  std::string full_;
};

namespace error_detail {
inline void Append(std::ostringstream&) {}
template <typename T, typename... Rest>
void Append(std::ostringstream& out, const T& first, const Rest&... rest) {
  out << first;
  Append(out, rest...);
}
}  // namespace error_detail

// Builds a message from streamable pieces: MakeError(kind, "dims ", ShapeString(d), " ...").
template <typename... Parts>
Error MakeError(ErrorKind kind, const Parts&... parts) {
  std::ostringstream out;
  error_detail::Append(out, parts...);
  return Error(kind, out.str());
}

// "[2, 3, 4]": how every message prints a shape.
// `text` safe to print on one line of a terminal or log, and valid UTF-8 wherever it is written
// next (JSON, JUnit, HTML): control characters (newline, NUL, ESC, ...) and bytes that are not
// part of a well-formed UTF-8 character become C escapes, so a blob named "a\nb" or holding ANSI
// codes cannot forge output lines. Well-formed UTF-8 is kept.
inline std::string Printable(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char ch = static_cast<unsigned char>(text[i]);
    if (ch >= 0x80) {
      const size_t length = Utf8SequenceLength(text, i);
      if (length > 0) {
        out.append(text, i, length);
        i += length - 1;
        continue;
      }
    }
    switch (ch) {
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\0': out += "\\0"; break;
      default:
        if (ch < 0x20 || ch >= 0x7f) {
          static const char kHex[] = "0123456789abcdef";
          out += "\\x";
          out += kHex[ch >> 4];
          out += kHex[ch & 15];
        } else {
          out += static_cast<char>(ch);
        }
    }
  }
  return out;
}

inline std::string ShapeString(const std::vector<int64_t>& dims) {
  std::string out = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(dims[i]);
  }
  return out + "]";
}

}  // namespace parity

// Throws a parity::Error of `kind` when `condition` is false; the message is built lazily.
#define PARITY_ENFORCE(condition, kind, ...)                          \
  do {                                                                \
    if (!(condition)) throw ::parity::MakeError((kind), __VA_ARGS__); \
  } while (0)

#endif  // PARITY_CORE_PROTO_ERROR_H_
