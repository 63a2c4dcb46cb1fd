// Files: NetDefs and tensors as binary (.pb) or text (.pbtxt) protobuf, chosen by extension, and
// single tensors as .npy. Every write is atomic (temporary file, fsync, rename), so an interrupted
// run never leaves a half-written file.
#ifndef PARITY_CORE_IO_H_
#define PARITY_CORE_IO_H_

#include <sys/types.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/proto/caffe2.pb.h"
#include "core/proto/error.h"

namespace parity {

// Reads a whole file (kIo naming the path and the reason on failure; a directory is refused).
std::string ReadFileBytes(const std::string& path);
// Writes `bytes` to `path` atomically: a temporary beside it, fsync, rename, fsync of the
// directory. Nothing is lost: on any failure the old file is left as it was and the temporary is
// removed. A symlink is written through (it stays a link to the new file); a directory, FIFO,
// device or socket at `path` is refused (kIo).
void WriteFileAtomic(const std::string& path, const std::string& bytes);
// All or nothing for several files (path, bytes): every temporary is written and fsynced before
// the first rename, so a file that cannot be written leaves every target as it was (kIo naming
// it). Callers refuse two paths naming one file themselves (they know the flags' names).
void WriteFilesAtomic(const std::vector<std::pair<std::string, std::string>>& files);

// The write(2) every file write goes through, swappable by tests to inject faults; returns the
// previous one.
using WriteFunction = std::function<ssize_t(int fd, const void* data, size_t size)>;
WriteFunction SetWriteFunctionForTesting(WriteFunction write);

// Parses a protobuf message from `bytes`, binary or text; `what` names it in errors (kInvalidNet
// with the parser's line and column for text).
void ParseProto(const std::string& bytes, bool text, const std::string& what,
                google::protobuf::Message* message);
// Whether `path` names a text protobuf (.pbtxt, .prototxt, .txt) rather than binary.
bool IsTextProtoPath(const std::string& path);

caffe2::NetDef LoadNetDef(const std::string& path);
void SaveNetDef(const std::string& path, const caffe2::NetDef& net);
// An empty file is kInvalidNet (it would parse as an empty message).
void LoadProtoFile(const std::string& path, google::protobuf::Message* message);
void SaveProtoFile(const std::string& path, const google::protobuf::Message& message);
// The bytes SaveProtoFile writes to `path` (text or binary by its extension), for
// WriteFilesAtomic.
std::string ProtoFileBytes(const std::string& path, const google::protobuf::Message& message);

// Tensors from a file: .npy (one tensor), or .pb/.pbtxt holding a TensorProtos or one TensorProto.
std::vector<caffe2::TensorProto> LoadTensors(const std::string& path);
// A fault-injection seam for the workbench's mutants of the loader (tests/mutants, as
// ReplaceBackwardPassEdit is for the backward pass): when set, it edits what every LoadTensors
// call returns for `path`. Returns the edit it replaces; an empty function removes it.
using TensorLoadEdit =
    std::function<void(const std::string& path, std::vector<caffe2::TensorProto>* tensors)>;
TensorLoadEdit ReplaceTensorLoadEdit(TensorLoadEdit edit);
// .npy takes exactly one tensor; .pb/.pbtxt write a TensorProtos.
void SaveTensors(const std::string& path, const std::vector<caffe2::TensorProto>& tensors);
// The bytes SaveTensors writes to `path`, for WriteFilesAtomic.
std::string TensorFileBytes(const std::string& path,
                            const std::vector<caffe2::TensorProto>& tensors);

// NumPy .npy (format 1.0-3.0 on read, 1.0 on write): little-endian f4, f8, i4, i8, b1, u1, i1,
// i2, u2; C order only (Fortran order is kInvalidNet).
caffe2::TensorProto ParseNpy(const std::string& bytes, const std::string& what);
std::string SerializeNpy(const caffe2::TensorProto& tensor);

}  // namespace parity

#endif  // PARITY_CORE_IO_H_
