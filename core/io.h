// Files: NetDefs and tensors as binary (.pb) or text (.pbtxt) protobuf, chosen by extension, and
// single tensors as .npy. Every write is atomic (temporary file, fsync, rename), so an interrupted
// run never leaves a half-written file.
#ifndef PARITY_CORE_IO_H_
#define PARITY_CORE_IO_H_

#include <string>
#include <vector>

#include "core/proto/caffe2.pb.h"
#include "core/proto/error.h"

namespace parity {

// Reads a whole file (kIo naming the path and the reason on failure).
std::string ReadFileBytes(const std::string& path);
// Writes `bytes` to `path` atomically: `path.tmp.<pid>`, fsync, rename, fsync of the directory.
void WriteFileAtomic(const std::string& path, const std::string& bytes);

// Parses a protobuf message from `bytes`, binary or text; `what` names it in errors (kInvalidNet
// with the parser's line and column for text).
void ParseProto(const std::string& bytes, bool text, const std::string& what,
                google::protobuf::Message* message);
// Whether `path` names a text protobuf (.pbtxt, .prototxt, .txt) rather than binary.
bool IsTextProtoPath(const std::string& path);

caffe2::NetDef LoadNetDef(const std::string& path);
void SaveNetDef(const std::string& path, const caffe2::NetDef& net);
void LoadProtoFile(const std::string& path, google::protobuf::Message* message);
void SaveProtoFile(const std::string& path, const google::protobuf::Message& message);

// Tensors from a file: .npy (one tensor), or .pb/.pbtxt holding a TensorProtos or one TensorProto.
std::vector<caffe2::TensorProto> LoadTensors(const std::string& path);
// .npy takes exactly one tensor; .pb/.pbtxt write a TensorProtos.
void SaveTensors(const std::string& path, const std::vector<caffe2::TensorProto>& tensors);

// NumPy .npy (format 1.0-3.0 on read, 1.0 on write): little-endian f4, f8, i4, i8, b1, u1, i1,
// i2, u2; C order only (Fortran order is kInvalidNet).
caffe2::TensorProto ParseNpy(const std::string& bytes, const std::string& what);
std::string SerializeNpy(const caffe2::TensorProto& tensor);

}  // namespace parity

#endif  // PARITY_CORE_IO_H_
