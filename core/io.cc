#include "core/io.h"

#include <fcntl.h>
#include <google/protobuf/descriptor.h>
#include <google/protobuf/reflection.h>
#include <google/protobuf/stubs/logging.h>
#include <google/protobuf/text_format.h>
#include <google/protobuf/unknown_field_set.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/proto/nesting.h"
#include "core/tensor.h"
#include "core/tensor_proto.h"

namespace parity {
namespace {

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The path of the first `string` field (not `bytes`) of `message` that is not UTF-8, or "".
// proto2 parsers only log such fields; a binary of another message type read as this one (a
// TensorProtos given as a NetDef) typically shows up here first.
std::string FirstNonUtf8Field(const google::protobuf::Message& message, const std::string& path) {
  using google::protobuf::FieldDescriptor;
  const google::protobuf::Reflection* reflection = message.GetReflection();
  std::vector<const FieldDescriptor*> fields;
  reflection->ListFields(message, &fields);
  for (const FieldDescriptor* field : fields) {
    const std::string here = path.empty() ? field->name() : path + "." + field->name();
    if (field->type() == FieldDescriptor::TYPE_STRING) {
      if (field->is_repeated()) {
        for (int k = 0; k < reflection->FieldSize(message, field); ++k) {
          if (!IsValidUtf8(reflection->GetRepeatedString(message, field, k))) {
            return here + "[" + std::to_string(k) + "]";
          }
        }
      } else if (!IsValidUtf8(reflection->GetString(message, field))) {
        return here;
      }
    } else if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      if (field->is_repeated()) {
        for (int k = 0; k < reflection->FieldSize(message, field); ++k) {
          std::string bad = FirstNonUtf8Field(reflection->GetRepeatedMessage(message, field, k),
                                              here + "[" + std::to_string(k) + "]");
          if (!bad.empty()) return bad;
        }
      } else {
        std::string bad = FirstNonUtf8Field(reflection->GetMessage(message, field), here);
        if (!bad.empty()) return bad;
      }
    }
  }
  return "";
}

// The path of the first field of `message` (at any depth) that arrived with a wire type its
// declaration does not have, or "". proto2 keeps such a field as an unknown field and parses on,
// so a NetDef whose `name` came as a varint would be taken as a net without a name; a field number
// the schema does not declare is left alone (a newer caffe2.proto may have written it).
std::string FirstMistypedField(const google::protobuf::Message& message, const std::string& path) {
  using google::protobuf::FieldDescriptor;
  const google::protobuf::Reflection* reflection = message.GetReflection();
  const google::protobuf::UnknownFieldSet& unknown = reflection->GetUnknownFields(message);
  for (int k = 0; k < unknown.field_count(); ++k) {
    const FieldDescriptor* declared =
        message.GetDescriptor()->FindFieldByNumber(unknown.field(k).number());
    if (declared != nullptr) {
      return (path.empty() ? "" : path + ".") + declared->name() + " (field " +
             std::to_string(declared->number()) + ")";
    }
  }
  std::vector<const FieldDescriptor*> fields;
  reflection->ListFields(message, &fields);
  for (const FieldDescriptor* field : fields) {
    if (field->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) continue;
    const std::string here = path.empty() ? field->name() : path + "." + field->name();
    const int count = field->is_repeated() ? reflection->FieldSize(message, field) : 1;
    for (int k = 0; k < count; ++k) {
      const google::protobuf::Message& sub = field->is_repeated()
                                                 ? reflection->GetRepeatedMessage(message, field, k)
                                                 : reflection->GetMessage(message, field);
      std::string bad = FirstMistypedField(
          sub, field->is_repeated() ? here + "[" + std::to_string(k) + "]" : here);
      if (!bad.empty()) return bad;
    }
  }
  return "";
}

// Checks every NetDef held by `message` (the message itself, a fuzz case's nets, a finding's)
// against the one nesting limit, before any recursive walk over it.
void CheckNestingOfNets(const google::protobuf::Message& message, const std::string& what) {
  using google::protobuf::FieldDescriptor;
  if (const auto* net = dynamic_cast<const caffe2::NetDef*>(&message)) {
    CheckNetNesting(*net, what);
    return;
  }
  const google::protobuf::Reflection* reflection = message.GetReflection();
  std::vector<const FieldDescriptor*> fields;
  reflection->ListFields(message, &fields);
  for (const FieldDescriptor* field : fields) {
    if (field->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) continue;
    const int count = field->is_repeated() ? reflection->FieldSize(message, field) : 1;
    for (int k = 0; k < count; ++k) {
      CheckNestingOfNets(field->is_repeated() ? reflection->GetRepeatedMessage(message, field, k)
                                              : reflection->GetMessage(message, field),
                         what);
    }
  }
}

// The write(2) every file goes through; tests swap it to inject faults (ENOSPC, EIO, short writes).
WriteFunction& CurrentWrite() {
  static WriteFunction write = [](int fd, const void* data, size_t size) {
    return ::write(fd, data, size);
  };
  return write;
}

void WriteAll(int fd, const std::string& bytes, const std::string& path) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = CurrentWrite()(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    PARITY_ENFORCE(n > 0, ErrorKind::kIo, "cannot write ", path, ": ", std::strerror(errno));
    done += static_cast<size_t>(n);
  }
}

const char* FileKind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// Where an atomic write of `path` really goes: `path` itself, or — for a symlink — the file it
// points to (the link stays a link). Anything but a regular file (or a new name) is refused: a
// rename would replace a directory entry that is not ours to replace.
std::string AtomicWriteTarget(const std::string& path) {
  PARITY_ENFORCE(!path.empty(), ErrorKind::kIo, "cannot write a file with an empty name");
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) return path;  // a new file
  std::string target = path;
  if (S_ISLNK(st.st_mode)) {
    char* resolved = ::realpath(path.c_str(), nullptr);
    if (resolved == nullptr) {
      // A dangling link: its target does not exist yet; write where it points.
      std::vector<char> link(4096);
      ssize_t n = ::readlink(path.c_str(), link.data(), link.size() - 1);
      PARITY_ENFORCE(n > 0, ErrorKind::kIo, "cannot read the symlink ", path, ": ",
                     std::strerror(errno));
      std::string to(link.data(), static_cast<size_t>(n));
      if (to[0] != '/') {
        size_t slash = path.rfind('/');
        to = (slash == std::string::npos ? "" : path.substr(0, slash + 1)) + to;
      }
      return to;
    }
    target = resolved;
    std::free(resolved);
    PARITY_ENFORCE(::stat(target.c_str(), &st) == 0, ErrorKind::kIo, "cannot stat ", target, ": ",
                   std::strerror(errno));
  }
  PARITY_ENFORCE(S_ISREG(st.st_mode), ErrorKind::kIo, "refusing to write ", path, ": it is ",
                 FileKind(st.st_mode), ", not a regular file");
  return target;
}

// npy dtype descriptors parity reads and writes.
struct NpyType {
  const char* descr;
  caffe2::TensorProto::DataType dtype;
  size_t size;
};
constexpr NpyType kNpyTypes[] = {
    {"<f4", caffe2::TensorProto::FLOAT, 4},  {"<f8", caffe2::TensorProto::DOUBLE, 8},
    {"<i4", caffe2::TensorProto::INT32, 4},  {"<i8", caffe2::TensorProto::INT64, 8},
    {"|b1", caffe2::TensorProto::BOOL, 1},   {"|u1", caffe2::TensorProto::UINT8, 1},
    {"|i1", caffe2::TensorProto::INT8, 1},   {"<i2", caffe2::TensorProto::INT16, 2},
    {"<u2", caffe2::TensorProto::UINT16, 2},
};

// Value of `key` in the npy header dict, e.g. 'descr': '<f4' -> <f4.
std::string NpyHeaderField(const std::string& header, const std::string& key,
                           const std::string& what) {
  size_t at = header.find("'" + key + "'");
  PARITY_ENFORCE(at != std::string::npos, ErrorKind::kInvalidNet, what, ": npy header lacks '", key,
                 "'");
  size_t colon = header.find(':', at);
  PARITY_ENFORCE(colon != std::string::npos, ErrorKind::kInvalidNet, what, ": bad npy header");
  size_t start = header.find_first_not_of(' ', colon + 1);
  PARITY_ENFORCE(start != std::string::npos, ErrorKind::kInvalidNet, what, ": bad npy header");
  size_t end;
  if (header[start] == '\'') {
    end = header.find('\'', start + 1);
    PARITY_ENFORCE(end != std::string::npos, ErrorKind::kInvalidNet, what, ": bad npy header");
    return header.substr(start + 1, end - start - 1);
  }
  if (header[start] == '(') {
    end = header.find(')', start);
    PARITY_ENFORCE(end != std::string::npos, ErrorKind::kInvalidNet, what, ": bad npy header");
    return header.substr(start + 1, end - start - 1);
  }
  end = header.find_first_of(",}", start);
  return header.substr(start, end - start);
}

}  // namespace

std::string ReadFileBytes(const std::string& path) {
  struct stat st;
  PARITY_ENFORCE(::stat(path.c_str(), &st) == 0, ErrorKind::kIo, "cannot read ", path, ": ",
                 std::strerror(errno));
  PARITY_ENFORCE(!S_ISDIR(st.st_mode), ErrorKind::kIo, "cannot read ", path,
                 ": it is a directory, not a file");
  std::ifstream in(path, std::ios::binary);
  PARITY_ENFORCE(in.good(), ErrorKind::kIo, "cannot read ", path, ": ", std::strerror(errno));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  PARITY_ENFORCE(!in.bad(), ErrorKind::kIo, "error while reading ", path);
  return buffer.str();
}

WriteFunction SetWriteFunctionForTesting(WriteFunction write) {
  WriteFunction previous = CurrentWrite();
  CurrentWrite() = std::move(write);
  return previous;
}

namespace {

// A written, fsynced temporary beside `requested_path`'s target, ready to be renamed over it.
struct StagedFile {
  std::string target;
  std::string tmp;
};

StagedFile StageFile(const std::string& requested_path, const std::string& bytes) {
  const std::string path = AtomicWriteTarget(requested_path);
  // A temporary beside the target (same file system, so the rename is atomic), unique per process
  // and per call: campaign threads may write at once.
  static std::atomic<uint64_t> counter{0};
  std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  PARITY_ENFORCE(fd >= 0, ErrorKind::kIo, "cannot write ", path, " (creating ", tmp,
                 " beside it): ", std::strerror(errno));
  try {
    WriteAll(fd, bytes, tmp);
    PARITY_ENFORCE(::fsync(fd) == 0, ErrorKind::kIo, "cannot fsync ", tmp, ": ",
                   std::strerror(errno));
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  ::close(fd);
  return {path, tmp};
}

void CommitStagedFile(const StagedFile& staged) {
  if (::rename(staged.tmp.c_str(), staged.target.c_str()) != 0) {
    int saved = errno;
    ::unlink(staged.tmp.c_str());
    throw MakeError(ErrorKind::kIo, "cannot rename ", staged.tmp, " to ", staged.target, ": ",
                    std::strerror(saved));
  }
  // Make the rename itself durable.
  const std::string& path = staged.target;
  size_t slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    ::fsync(dir_fd);
    ::close(dir_fd);
  }
}

}  // namespace

void WriteFileAtomic(const std::string& requested_path, const std::string& bytes) {
  CommitStagedFile(StageFile(requested_path, bytes));
}

void WriteFilesAtomic(const std::vector<std::pair<std::string, std::string>>& files) {
  // Every temporary is written before any target is replaced, so a file that cannot be written
  // (a directory, a full disk, a missing folder) leaves all the old files as they were.
  std::vector<StagedFile> staged;
  try {
    for (const auto& [path, bytes] : files) staged.push_back(StageFile(path, bytes));
  } catch (...) {
    for (const auto& s : staged) ::unlink(s.tmp.c_str());
    throw;
  }
  // Renames only fail on a race (the folder removed meanwhile); what is left is then removed.
  for (size_t i = 0; i < staged.size(); ++i) {
    try {
      CommitStagedFile(staged[i]);
    } catch (...) {
      for (size_t j = i + 1; j < staged.size(); ++j) ::unlink(staged[j].tmp.c_str());
      throw;
    }
  }
}

bool IsTextProtoPath(const std::string& path) {
  return EndsWith(path, ".pbtxt") || EndsWith(path, ".prototxt") || EndsWith(path, ".txt") ||
         EndsWith(path, ".textproto");
}

void ParseProto(const std::string& bytes, bool text, const std::string& what,
                google::protobuf::Message* message) {
  if (text) {
    std::string error;
    const bool ok = ParseTextProto(bytes, message, &error);
    PARITY_ENFORCE(ok || error.find("too deep") == std::string::npos, ErrorKind::kInvalidNet, what,
                   " is not a valid text ", message->GetTypeName(),
                   ": messages nested deeper than ", kProtoRecursionLimit,
                   " levels (nets may nest at most ", kMaxNetNesting, " deep)");
    PARITY_ENFORCE(ok, ErrorKind::kInvalidNet, what, " is not a valid text ",
                   message->GetTypeName(), ": ", error);
  } else {
    bool ok;
    {
      // The parser logs non-UTF-8 strings to stderr; they are reported below as an error instead.
      google::protobuf::LogSilencer quiet;
      ok = ParseBinaryProto(bytes, message);
    }
    PARITY_ENFORCE(ok || WireNestingDepth(bytes, message->GetDescriptor(), kProtoRecursionLimit) <=
                             kProtoRecursionLimit,
                   ErrorKind::kInvalidNet, what, " is not a valid binary ", message->GetTypeName(),
                   ": messages nested deeper than ", kProtoRecursionLimit,
                   " levels (nets may nest at most ", kMaxNetNesting, " deep)");
    PARITY_ENFORCE(ok, ErrorKind::kInvalidNet, what, " is not a valid binary ",
                   message->GetTypeName(), " (malformed protobuf bytes",
                   message->IsInitialized() ? "" : " or missing required fields", ")");
    const std::string bad = FirstNonUtf8Field(*message, "");
    PARITY_ENFORCE(bad.empty(), ErrorKind::kInvalidNet, what, " is not a valid binary ",
                   message->GetTypeName(), ": string field '", bad,
                   "' is not UTF-8 (is it another kind of file?)");
    const std::string mistyped = FirstMistypedField(*message, "");
    PARITY_ENFORCE(mistyped.empty(), ErrorKind::kInvalidNet, what, " is not a valid binary ",
                   message->GetTypeName(), ": field ", mistyped,
                   " has the wrong wire type (is it another kind of file?)");
  }
  CheckNestingOfNets(*message, what);
}

void LoadProtoFile(const std::string& path, google::protobuf::Message* message) {
  const std::string bytes = ReadFileBytes(path);
  // An empty file parses as an empty message; it is never what a user meant to give.
  PARITY_ENFORCE(!bytes.empty(), ErrorKind::kInvalidNet, path, " is empty (expected a ",
                 message->GetTypeName(), ")");
  ParseProto(bytes, IsTextProtoPath(path), path, message);
}

std::string ProtoFileBytes(const std::string& path, const google::protobuf::Message& message) {
  // What parity writes, parity must read back: the same limit as at load.
  CheckNestingOfNets(message, path);
  std::string bytes;
  if (IsTextProtoPath(path)) {
    PARITY_ENFORCE(google::protobuf::TextFormat::PrintToString(message, &bytes),
                   ErrorKind::kInternal, "cannot print ", message.GetTypeName());
  } else {
    PARITY_ENFORCE(message.SerializeToString(&bytes), ErrorKind::kInternal, "cannot serialize ",
                   message.GetTypeName(), " (missing required fields?)");
  }
  return bytes;
}

void SaveProtoFile(const std::string& path, const google::protobuf::Message& message) {
  WriteFileAtomic(path, ProtoFileBytes(path, message));
}

caffe2::NetDef LoadNetDef(const std::string& path) {
  caffe2::NetDef net;
  LoadProtoFile(path, &net);
  return net;
}

void SaveNetDef(const std::string& path, const caffe2::NetDef& net) { SaveProtoFile(path, net); }

namespace {

// Whether the first field of protobuf text `text` (after spaces and # comments) is `field`.
bool StartsWithTextField(const std::string& text, const std::string& field) {
  size_t at = 0;
  while (at < text.size()) {
    if (std::isspace(static_cast<unsigned char>(text[at]))) {
      ++at;
    } else if (text[at] == '#') {
      at = text.find('\n', at);
      if (at == std::string::npos) return false;
    } else {
      break;
    }
  }
  if (text.compare(at, field.size(), field) != 0) return false;
  const size_t next = at + field.size();
  return next == text.size() ||
         !(std::isalnum(static_cast<unsigned char>(text[next])) || text[next] == '_');
}

}  // namespace

namespace {

TensorLoadEdit& InstalledLoadEdit() {
  static auto* edit = new TensorLoadEdit();
  return *edit;
}

std::vector<caffe2::TensorProto> LoadTensorsUnedited(const std::string& path) {
  std::string bytes = ReadFileBytes(path);
  if (EndsWith(path, ".npy")) return {ParseNpy(bytes, path)};
  bool text = IsTextProtoPath(path);
  if (text) {
    // Text tells the two messages apart by parsing: TensorProtos has no field but `protos`, so
    // text that parses as one with a tensor in it is one; else it must be one TensorProto. (The
    // word "protos" alone tells nothing: a TensorProto's name or strings may hold it.)
    caffe2::TensorProtos protos;
    std::string error;
    if (ParseTextProto(bytes, &protos, &error) && protos.protos_size() > 0) {
      return {protos.protos().begin(), protos.protos().end()};
    }
    caffe2::TensorProto proto;
    if (ParseTextProto(bytes, &proto, &error)) return {proto};
    // Neither: the error of the message the text starts as.
    if (StartsWithTextField(bytes, "protos")) ParseProto(bytes, true, path, &protos);
    ParseProto(bytes, true, path, &proto);
    return {proto};
  }
  caffe2::TensorProtos protos;
  if (ParseBinaryProto(bytes, &protos) && protos.protos_size() > 0 &&
      FirstMistypedField(protos, "").empty()) {
    return {protos.protos().begin(), protos.protos().end()};
  }
  // A net given where tensors belong parses as a TensorProto of nonsense dims (its name's bytes
  // read as packed integers); say what the file is instead.
  caffe2::NetDef net;
  {
    google::protobuf::LogSilencer quiet;
    PARITY_ENFORCE(!(ParseBinaryProto(bytes, &net) && net.op_size() > 0 &&
                     FirstNonUtf8Field(net, "").empty() && FirstMistypedField(net, "").empty()),
                   ErrorKind::kInvalidNet, path, " holds a NetDef ('", net.name(), "', ",
                   net.op_size(), " ops), not tensors (a TensorProtos or one TensorProto)");
  }
  caffe2::TensorProto proto;
  ParseProto(bytes, false, path, &proto);
  return {proto};
}

}  // namespace

TensorLoadEdit ReplaceTensorLoadEdit(TensorLoadEdit edit) {
  TensorLoadEdit previous = std::move(InstalledLoadEdit());
  InstalledLoadEdit() = std::move(edit);
  return previous;
}

std::vector<caffe2::TensorProto> LoadTensors(const std::string& path) {
  std::vector<caffe2::TensorProto> tensors = LoadTensorsUnedited(path);
  if (InstalledLoadEdit()) InstalledLoadEdit()(path, &tensors);
  return tensors;
}

std::string TensorFileBytes(const std::string& path,
                            const std::vector<caffe2::TensorProto>& tensors) {
  if (EndsWith(path, ".npy")) {
    PARITY_ENFORCE(tensors.size() == 1, ErrorKind::kBadArgument, path, ": an .npy file holds ",
                   "one tensor, got ", tensors.size(), " (use .pb or .pbtxt)");
    return SerializeNpy(tensors[0]);
  }
  caffe2::TensorProtos protos;
  for (const auto& t : tensors) *protos.add_protos() = t;
  return ProtoFileBytes(path, protos);
}

void SaveTensors(const std::string& path, const std::vector<caffe2::TensorProto>& tensors) {
  WriteFileAtomic(path, TensorFileBytes(path, tensors));
}

caffe2::TensorProto ParseNpy(const std::string& bytes, const std::string& what) {
  PARITY_ENFORCE(bytes.size() >= 10 && bytes.compare(0, 6, "\x93NUMPY") == 0,
                 ErrorKind::kInvalidNet, what, " is not an .npy file (bad magic)");
  int major = static_cast<unsigned char>(bytes[6]);
  size_t header_len;
  size_t header_start;
  if (major == 1) {
    header_len = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
    header_start = 10;
  } else {
    PARITY_ENFORCE(bytes.size() >= 12 && (major == 2 || major == 3), ErrorKind::kInvalidNet, what,
                   ": unsupported .npy version ", major);
    header_len = 0;
    for (int i = 3; i >= 0; --i)
      header_len = (header_len << 8) | static_cast<unsigned char>(bytes[8 + i]);
    header_start = 12;
  }
  PARITY_ENFORCE(header_start + header_len <= bytes.size(), ErrorKind::kInvalidNet, what,
                 ": truncated .npy header");
  std::string header = bytes.substr(header_start, header_len);
  std::string descr = NpyHeaderField(header, "descr", what);
  std::string fortran = NpyHeaderField(header, "fortran_order", what);
  PARITY_ENFORCE(fortran.rfind("False", 0) == 0, ErrorKind::kInvalidNet, what,
                 ": Fortran-order .npy arrays are not supported; save with C order");
  if (descr == "<b1") descr = "|b1";
  if (descr == "<u1") descr = "|u1";
  if (descr == "<i1") descr = "|i1";
  const NpyType* type = nullptr;
  for (const NpyType& candidate : kNpyTypes) {
    if (descr == candidate.descr) type = &candidate;
  }
  PARITY_ENFORCE(type != nullptr, ErrorKind::kInvalidNet, what, ": unsupported .npy dtype '", descr,
                 "' (use little-endian f4, f8, i4, i8, b1, u1, i1, i2 or u2)");
  std::vector<int64_t> dims;
  std::stringstream shape(NpyHeaderField(header, "shape", what));
  std::string item;
  while (std::getline(shape, item, ',')) {
    size_t first = item.find_first_not_of(' ');
    if (first == std::string::npos) continue;
    char* end = nullptr;
    errno = 0;
    long long d = std::strtoll(item.c_str() + first, &end, 10);
    // The whole entry is the integer (up to trailing spaces): "2.5" is not read as 2.
    const bool integral = end != item.c_str() + first && errno == 0 &&
                          std::string(end).find_first_not_of(' ') == std::string::npos;
    PARITY_ENFORCE(integral, ErrorKind::kInvalidNet, what, ": bad .npy shape entry '", item,
                   "' (not a whole number)");
    dims.push_back(d);
  }
  int64_t count = CheckedNumElements(dims);
  size_t data_start = header_start + header_len;
  PARITY_ENFORCE(bytes.size() - data_start == static_cast<size_t>(count) * type->size,
                 ErrorKind::kInvalidNet, what, ": .npy data has ", bytes.size() - data_start,
                 " bytes, shape ", ShapeString(dims), " of ", descr, " needs ",
                 static_cast<size_t>(count) * type->size);
  caffe2::TensorProto proto;
  for (int64_t d : dims) proto.add_dims(d);
  proto.set_data_type(type->dtype);
  proto.set_raw_data(bytes.substr(data_start));
  // Normalize to typed fields so the rest of parity sees one representation.
  Tensor tensor = TensorFromProto(proto);
  return TensorToProto(tensor);
}

std::string SerializeNpy(const caffe2::TensorProto& proto) {
  Tensor tensor = TensorFromProto(proto);
  const NpyType* type = nullptr;
  for (const NpyType& candidate : kNpyTypes) {
    if (candidate.dtype == proto.data_type()) type = &candidate;
  }
  PARITY_ENFORCE(type != nullptr, ErrorKind::kBadArgument, "cannot write dtype ",
                 DataTypeName(tensor.dtype()), " to .npy");
  std::string shape = "(";
  for (int64_t d : tensor.dims()) shape += std::to_string(d) + ", ";
  if (tensor.ndim() > 1) shape.resize(shape.size() - 2);
  if (tensor.ndim() == 1) shape.resize(shape.size() - 1);
  shape += ")";
  std::string header = std::string("{'descr': '") + type->descr +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad so the data starts on a 64-byte boundary, ending the header with '\n'.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(1);
  out += static_cast<char>(0);
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>((header.size() >> 8) & 0xff);
  out += header;
  out.append(static_cast<const char*>(tensor.raw_data()), tensor.nbytes());
  return out;
}

}  // namespace parity
