#include "tools/tensor_print.h"

#include <iomanip>
#include <sstream>

#include "core/proto/error.h"
#include "core/tensor.h"
#include "core/tensor_proto.h"

namespace parity::tools {

std::string FormatTensor(const std::string& name, const caffe2::TensorProto& proto,
                         int max_values) {
  Tensor tensor = TensorFromProto(proto);
  std::ostringstream out;
  out << Printable(name) << ": " << tensor.DebugString() << " = [";
  out << std::setprecision(9);
  int64_t shown = std::min<int64_t>(tensor.numel(), max_values);
  for (int64_t i = 0; i < shown; ++i) {
    if (i) out << ", ";
    if (tensor.dtype() == DataType::kFloat16) {
      out << "0x" << std::hex << tensor.data<Half>()[i].bits << std::dec;
      continue;
    }
    DispatchNumeric(tensor.dtype(), name, [&](auto zero) {
      using T = decltype(zero);
      T value = static_cast<const T*>(tensor.raw_data())[i];
      if constexpr (std::is_same_v<T, bool>) {
        out << (value ? "true" : "false");
      } else if constexpr (sizeof(T) == 1) {
        out << static_cast<int>(value);
      } else {
        out << value;
      }
    });
  }
  if (tensor.numel() > shown) out << ", ... (" << tensor.numel() - shown << " more)";
  out << "]";
  return out.str();
}

}  // namespace parity::tools
