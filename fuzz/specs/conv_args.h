// Argument spellings shared by the Conv and pool specs: Caffe2's ConvPoolOpBase accepts each 2-D
// parameter as one int for both dims, a list, or an h/w pair, and pads as one int, a list of four
// (t, l, b, r) or four sides. The specs draw every spelling, and sometimes leave a default out.
#ifndef PARITY_FUZZ_SPECS_CONV_ARGS_H_
#define PARITY_FUZZ_SPECS_CONV_ARGS_H_

#include <rapidcheck.h>

#include <algorithm>
#include <string>
#include <vector>

#include "fuzz/spec.h"

namespace parity::fuzz::conv_args {

// Geometry drawn for one conv or pool instance.
struct Geometry {
  int64_t kh = 1, kw = 1;
  int64_t sh = 1, sw = 1;
  int64_t dh = 1, dw = 1;
  int64_t pt = 0, pl = 0, pb = 0, pr = 0;
};

// Sets a 2-D parameter named `single` / `list` / `h` + `w`; `default_value` may be left out.
inline void PairArg(OpInstance& op, const std::string& single, const std::string& list,
                    const std::string& h, const std::string& w, int64_t vh, int64_t vw,
                    int64_t default_value, bool required) {
  const bool omittable = !required && vh == default_value && vw == default_value;
  // 0: omitted (when allowed), 1: single (when equal), 2: list, 3: h + w.
  int form = *rc::gen::inRange(omittable ? 0 : 1, 4);
  if (form == 1 && vh != vw) form = *rc::gen::inRange(2, 4);
  switch (form) {
    case 0: break;
    case 1: op.Arg(single, vh); break;
    case 2: op.Arg(list, std::vector<int64_t>{vh, vw}); break;
    default:
      op.Arg(h, vh);
      op.Arg(w, vw);
  }
}

inline void PadArgs(OpInstance& op, const Geometry& g) {
  const bool zero = g.pt == 0 && g.pl == 0 && g.pb == 0 && g.pr == 0;
  const bool same = g.pt == g.pl && g.pt == g.pb && g.pt == g.pr;
  int form = *rc::gen::inRange(zero ? 0 : 1, 4);
  if (form == 1 && !same) form = *rc::gen::inRange(2, 4);
  switch (form) {
    case 0: break;
    case 1: op.Arg("pad", g.pt); break;
    case 2: op.Arg("pads", std::vector<int64_t>{g.pt, g.pl, g.pb, g.pr}); break;
    default:
      op.Arg("pad_t", g.pt);
      op.Arg("pad_l", g.pl);
      op.Arg("pad_b", g.pb);
      op.Arg("pad_r", g.pr);
  }
}

// The whole geometry; `dilation`: always spell the dilation out (convs, dilated pools), else one
// time in 8 (as 1).
inline void GeometryArgs(OpInstance& op, const Geometry& g, bool dilation) {
  PairArg(op, "kernel", "kernels", "kernel_h", "kernel_w", g.kh, g.kw, 0, true);
  PairArg(op, "stride", "strides", "stride_h", "stride_w", g.sh, g.sw, 1, false);
  if (dilation || *rc::gen::inRange(0, 8) == 0) {
    PairArg(op, "dilation", "dilations", "dilation_h", "dilation_w", g.dh, g.dw, 1, false);
  }
  PadArgs(op, g);
  if (*rc::gen::inRange(0, 6) == 0) op.Arg("order", std::string("NCHW"));
}

// Draws kernel, dilation and pads for one spatial dim of size `in` so that the dilated kernel fits
// the padded input. `pool`: pads smaller than the dilated kernel, a dilation of 2 one time in 3
// (Caffe2's pools took none; ONNX's do), and every window covering an input element
// (WindowsCoverInput, checked by the caller once the stride is known).
inline void DrawDim(int64_t in, bool pool, int64_t* k, int64_t* d, int64_t* head, int64_t* tail) {
  *d = pool ? (*rc::gen::inRange(0, 3) == 0 ? 2 : 1) : *rc::gen::inRange<int64_t>(1, 3);
  const int64_t max_pad = 2;
  *k = *rc::gen::inRange<int64_t>(1, 4);
  const int64_t pad_limit = pool ? std::min(max_pad, *d * (*k - 1)) : max_pad;
  *head = *rc::gen::inRange<int64_t>(0, pad_limit + 1);
  *tail = *rc::gen::inRange<int64_t>(0, pad_limit + 1);
  // Shrink the kernel (then the dilation) until it fits the padded input.
  while (*d * (*k - 1) + 1 > in + *head + *tail) {
    if (*d > 1) {
      --*d;
    } else {
      --*k;
    }
  }
  if (pool) {
    *head = std::min(*head, *d * (*k - 1));
    *tail = std::min(*tail, *d * (*k - 1));
  }
}

// Whether every pooling window along a dim of size `in` (kernel k, dilation d, stride s, pads)
// holds an input element: the pool ops refuse a window of padding only.
inline bool WindowsCoverInput(int64_t in, int64_t k, int64_t d, int64_t s, int64_t head,
                              int64_t tail) {
  const int64_t out = (in + head + tail - (d * (k - 1) + 1)) / s + 1;
  for (int64_t o = 0; o < out; ++o) {
    bool covered = false;
    for (int64_t j = 0; j < k && !covered; ++j) {
      const int64_t at = o * s - head + j * d;
      covered = at >= 0 && at < in;
    }
    if (!covered) return false;
  }
  return true;
}

}  // namespace parity::fuzz::conv_args

#endif  // PARITY_FUZZ_SPECS_CONV_ARGS_H_
