// Geometry shared by Conv, MaxPool and AveragePool (2-D, NCHW): Caffe2's ConvPoolOpBase argument
// forms, their validation, and the output size.
//
// Each of kernel, stride and dilation may be given as one int for both dims (`kernel`), a list of
// two (`kernels`), or a pair (`kernel_h` + `kernel_w`); pads as one int (`pad`), a list of four in
// the order top, left, bottom, right (`pads`), or `pad_t` `pad_l` `pad_b` `pad_r`. Defaults: stride
// 1, dilation 1, pad 0; the kernel has none and must be given (except with global_pooling, where it
// is the input's H and W). Divergences from Caffe2, which silently lets one form override another
// or ignores a half-given pair: giving two forms of one parameter, or only part of a pair, is
// kBadArgument here. Caffe2's `legacy_pad` (VALID / SAME / CAFFE_LEGACY_POOLING) is out of scope:
// a non-zero value is kBadArgument. Only `order` = "NCHW" is supported.
//
// Output size per spatial dim: floor((in + pad_head + pad_tail - (dilation * (kernel - 1) + 1)) /
// stride) + 1, an error when the dilated kernel is larger than the padded input.
#ifndef PARITY_CORE_OPS_COMMON_CONV_GEOMETRY_H_
#define PARITY_CORE_OPS_COMMON_CONV_GEOMETRY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/argument.h"
#include "core/schema.h"

namespace parity {

struct ConvGeometry {
  int64_t kernel_h = 0, kernel_w = 0;
  int64_t stride_h = 1, stride_w = 1;
  int64_t dilation_h = 1, dilation_w = 1;
  int64_t pad_t = 0, pad_l = 0, pad_b = 0, pad_r = 0;
  bool global_pooling = false;
};

enum class ConvKind { kConv, kPool };

// Reads and validates the geometry arguments (kBadArgument naming the op and the argument): kernel
// > 0, stride > 0, dilation > 0, pads >= 0, order NCHW, no legacy_pad; for pools also Caffe2's
// dilation == 1, pads smaller than the kernel, and with global_pooling no pads, stride or dilation.
ConvGeometry ParseConvGeometry(const ArgumentHelper& args, ConvKind kind);

// Output [N, channels, out_h, out_w] of an input [N, C, H, W] (x must be 4-D: kShapeMismatch
// otherwise, as for C, H or W of 0 and for a kernel larger than the padded input). With global
// pooling the geometry's kernel becomes the input's H and W. Writes into *y_dims (reusing it).
void ConvOutputDims(const std::string& label, const std::vector<int64_t>& x, int64_t channels,
                    ConvGeometry* geometry, std::vector<int64_t>* y_dims);

// The geometry arguments every conv/pool schema declares (.Apply(ConvGeometryArgs)); `group`,
// `global_pooling` and `count_include_pad` are declared by the ops that take them.
OpSchema& ConvGeometryArgs(OpSchema& schema);

}  // namespace parity

#endif  // PARITY_CORE_OPS_COMMON_CONV_GEOMETRY_H_
