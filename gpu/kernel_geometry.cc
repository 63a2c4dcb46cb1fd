#include "gpu/kernel_geometry.h"

#include <utility>

#include "core/proto/error.h"

namespace parity::gpu {

kernels::BroadcastGeometry BroadcastGeometryOf(const std::string& label,
                                               const std::vector<int64_t>& out,
                                               const std::vector<int64_t>& a,
                                               const std::vector<int64_t>& b_plan) {
  kernels::BroadcastGeometry g;
  const int rank = static_cast<int>(out.size());
  PARITY_ENFORCE(rank <= kernels::kMaxRank, ErrorKind::kUnknownOp, label,
                 ": the CUDA kernel broadcasts up to rank ", kernels::kMaxRank, ", the output is ",
                 ShapeString(out));
  g.rank = rank;
  int64_t a_stride = 1, b_stride = 1;
  for (int d = rank - 1; d >= 0; --d) {
    g.out_dims[d] = out[d];
    const int ad = d - (rank - static_cast<int>(a.size()));
    const int bd = d - (rank - static_cast<int>(b_plan.size()));
    const int64_t a_dim = ad >= 0 ? a[ad] : 1;
    const int64_t b_dim = bd >= 0 ? b_plan[bd] : 1;
    g.a_strides[d] = a_dim == 1 ? 0 : a_stride;
    g.b_strides[d] = b_dim == 1 ? 0 : b_stride;
    a_stride *= a_dim;
    b_stride *= b_dim;
  }
  return g;
}

kernels::ReduceGeometry ReduceGeometryOf(const std::string& label,
                                         const std::vector<int64_t>& dims,
                                         const std::vector<bool>& reduced) {
  std::vector<int64_t> sizes;
  std::vector<bool> kinds;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == 1) continue;  // a size-1 dim changes no offset
    if (!sizes.empty() && kinds.back() == reduced[i]) {
      sizes.back() *= dims[i];
    } else {
      sizes.push_back(dims[i]);
      kinds.push_back(reduced[i]);
    }
  }
  kernels::ReduceGeometry g;
  int64_t stride = 1;
  std::vector<std::pair<int64_t, int64_t>> kept, folded;  // (size, stride), innermost first
  for (size_t i = sizes.size(); i-- > 0;) {
    (kinds[i] ? folded : kept).push_back({sizes[i], stride});
    stride *= sizes[i];
  }
  PARITY_ENFORCE(kept.size() <= kernels::kMaxRank && folded.size() <= kernels::kMaxRank,
                 ErrorKind::kUnknownOp, label, ": the CUDA kernel reduces up to ",
                 kernels::kMaxRank, " alternating runs of axes, input ", ShapeString(dims));
  g.kept_rank = static_cast<int>(kept.size());
  for (int d = 0; d < g.kept_rank; ++d) {
    g.kept_dims[g.kept_rank - 1 - d] = kept[d].first;
    g.kept_strides[g.kept_rank - 1 - d] = kept[d].second;
  }
  g.reduced_rank = static_cast<int>(folded.size());
  for (int d = 0; d < g.reduced_rank; ++d) {
    g.reduced_dims[g.reduced_rank - 1 - d] = folded[d].first;
    g.reduced_strides[g.reduced_rank - 1 - d] = folded[d].second;
  }
  return g;
}

kernels::ReduceGeometry BroadcastReduceGeometryOf(const std::string& label,
                                                  const std::vector<int64_t>& out,
                                                  const std::vector<int64_t>& operand,
                                                  int64_t* count) {
  PARITY_ENFORCE(operand.size() <= out.size(), ErrorKind::kInternal, label, ": operand ",
                 ShapeString(operand), " has more dims than the broadcast output ",
                 ShapeString(out));
  const size_t pad = out.size() - operand.size();
  std::vector<bool> reduced(out.size(), false);
  *count = 1;
  for (size_t d = 0; d < out.size(); ++d) {
    const int64_t dim = d < pad ? 1 : operand[d - pad];
    reduced[d] = dim == 1 && out[d] != 1;
    if (reduced[d]) *count *= out[d];
  }
  return ReduceGeometryOf(label, out, reduced);
}

kernels::ConvPoolGeometry ConvPoolGeometryOf(const ConvGeometry& g, int64_t planes, int64_t H,
                                             int64_t W, int64_t out_h, int64_t out_w) {
  kernels::ConvPoolGeometry k;
  k.planes = planes;
  k.H = H;
  k.W = W;
  k.out_h = out_h;
  k.out_w = out_w;
  k.kernel_h = g.kernel_h;
  k.kernel_w = g.kernel_w;
  k.stride_h = g.stride_h;
  k.stride_w = g.stride_w;
  k.dilation_h = g.dilation_h;
  k.dilation_w = g.dilation_w;
  k.pad_t = g.pad_t;
  k.pad_l = g.pad_l;
  return k;
}

ConvGemms ConvGemmsOf(const std::vector<int64_t>& x, const std::vector<int64_t>& y,
                      const ConvGeometry& g, int64_t group) {
  const int64_t out_hw = y[2] * y[3];
  const int64_t mg = y[1] / group;                           // output channels per group
  const int64_t k = x[1] / group * g.kernel_h * g.kernel_w;  // inner size per group
  ConvGemms gemms;
  gemms.forward = {false, false, mg, out_hw, k, mg * k, k * out_hw, mg * out_hw, group};
  gemms.weight_grad = {false, true, mg, k, out_hw, mg * out_hw, k * out_hw, mg * k, group};
  gemms.data_grad = {true, false, k, out_hw, mg, mg * k, mg * out_hw, k * out_hw, group};
  return gemms;
}

}  // namespace parity::gpu
