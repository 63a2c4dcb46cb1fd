#include "core/ops/conv/conv_dnnl.h"

#include <cstdint>
#include <dnnl.hpp>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <typeinfo>
#include <unordered_map>
#include <vector>

#include "core/process_caches.h"
#include "core/proto/error.h"
#include "core/threads.h"

namespace parity {
namespace {

using dnnl::memory;
using Tag = memory::format_tag;
constexpr memory::data_type kF32 = memory::data_type::f32;

dnnl::engine& CpuEngine() {
  static dnnl::engine* engine = new dnnl::engine(dnnl::engine::kind::cpu, 0);
  return *engine;
}

// User-managed scratchpad (owned by each op, so runs do not allocate and plans can be shared) and
// strict f32 math: an fpmath mode from the environment (ONEDNN_DEFAULT_FPMATH_MODE=BF16) must not
// silently trade the engine's precision.
dnnl::primitive_attr Attributes() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  attr.set_fpmath_mode(dnnl::fpmath_mode::strict);
  return attr;
}

// The oneDNN view of one conv instance: dims of the plain (NCHW / [g]oihw) tensors and the
// geometry in oneDNN's conventions (dilation 1 is oneDNN's 0).
struct Shapes {
  memory::dims src, weights, bias, dst, strides, dilates, pad_l, pad_r;
  Tag weights_tag = Tag::oihw;
  // A pointwise convolution (1x1, stride 1, no padding) keeps the plain layouts: oneDNN then runs
  // it as one GEMM per image, with no reorder; in blocked layouts the reorders of X and Y cost more
  // than the blocked kernel saves (1x256x56x56 -> 64, one thread: 0.9 ms plain, 1.5 ms blocked).
  bool plain = false;
  // A depthwise convolution (one input and one output channel per group) takes X and Y blocked by
  // 16 channels: left to choose, oneDNN 2.6 picks NHWC, and the transposes of X and Y to and from
  // it cost more than the convolution (1x256x28x28, 3x3, one thread: 77 + 45 us of reorders
  // around 67 us).
  bool depthwise = false;

  // What the primitives are asked for: `any` lets oneDNN choose the (blocked) layout.
  memory::desc Src() const { return Desc(src, Tag::nchw); }
  memory::desc Weights() const { return Desc(weights, weights_tag); }
  memory::desc Dst() const { return Desc(dst, Tag::nchw); }
  memory::desc Desc(const memory::dims& dims, Tag tag) const {
    if (plain) return memory::desc(dims, kF32, tag);
    if (depthwise && tag == Tag::nchw) return memory::desc(dims, kF32, Tag::nChw16c);
    return memory::desc(dims, kF32, Tag::any);
  }
};

// False for what the primitives do not take: dims of 0 (an empty batch) or beyond int range
// (oneDNN checks consistency in int; such tensors are far past the allocation cap anyway).
bool Describe(const ConvGeometry& g, int64_t group, const std::vector<int64_t>& x,
              const std::vector<int64_t>& w, const std::vector<int64_t>& y, Shapes* s) {
  // clang-format off
  const std::vector<int64_t> values = {x[0], x[1], x[2], x[3], w[0], w[2], w[3], y[2], y[3],
                                       g.stride_h, g.stride_w, g.dilation_h, g.dilation_w,
                                       g.pad_t, g.pad_l, g.pad_b, g.pad_r, group};
  // clang-format on
  for (int64_t v : values) {
    if (v < 0 || v > std::numeric_limits<int32_t>::max()) return false;
  }
  if (x[0] == 0 || x[1] == 0 || x[2] == 0 || x[3] == 0 || w[0] == 0 || y[2] == 0 || y[3] == 0) {
    return false;
  }
  s->src = {x[0], x[1], x[2], x[3]};
  s->dst = {y[0], y[1], y[2], y[3]};
  s->bias = {w[0]};
  if (group == 1) {
    s->weights = {w[0], w[1], w[2], w[3]};
    s->weights_tag = Tag::oihw;
  } else {
    // [M, C/G, kh, kw] in memory is [G, M/G, C/G, kh, kw]: groups own consecutive filters.
    s->weights = {group, w[0] / group, w[1], w[2], w[3]};
    s->weights_tag = Tag::goihw;
  }
  s->strides = {g.stride_h, g.stride_w};
  s->dilates = {g.dilation_h - 1, g.dilation_w - 1};
  s->pad_l = {g.pad_t, g.pad_l};
  s->pad_r = {g.pad_b, g.pad_r};
  s->plain = g.kernel_h == 1 && g.kernel_w == 1 && g.stride_h == 1 && g.stride_w == 1 &&
             g.pad_t == 0 && g.pad_l == 0 && g.pad_b == 0 && g.pad_r == 0;
  s->depthwise = group > 1 && x[1] == group && w[0] == group;
  return true;
}

// How one tensor travels between the caller's plain layout and the layout a primitive chose: the
// reorder (user -> inner for an input, inner -> user for an output) when they differ.
struct Layout {
  memory::desc user, inner;
  dnnl::reorder reorder;
  bool reordered = false;

  Layout() = default;
  Layout(const memory::desc& user_desc, const memory::desc& want, bool input)
      : user(user_desc), inner(want), reordered(!(want == user_desc)) {
    if (!reordered) return;
    reorder =
        input ? dnnl::reorder(dnnl::reorder::primitive_desc(CpuEngine(), user, CpuEngine(), inner))
              : dnnl::reorder(dnnl::reorder::primitive_desc(CpuEngine(), inner, CpuEngine(), user));
  }
};

// One op's buffers for a Layout: the caller's tensor (its handle set on every run) and the
// primitive's buffer (the same memory when no reorder is needed, else allocated once).
struct Operand {
  const Layout* layout = nullptr;
  memory user, inner;

  void Init(const Layout& l) {
    layout = &l;
    user = memory(l.user, CpuEngine(), DNNL_MEMORY_NONE);
    inner = l.reordered ? memory(l.inner, CpuEngine()) : user;
  }
  void Bind(const void* data) { user.set_data_handle(const_cast<void*>(data)); }
  void ToInner(dnnl::stream& s) {
    if (layout->reordered) layout->reorder.execute(s, user, inner);
  }
  void ToUser(dnnl::stream& s) {
    if (layout->reordered) layout->reorder.execute(s, inner, user);
  }
};

// Everything about a conv instance that does not hold data: primitive descriptors, primitives
// (JIT code) and reorders. Immutable once built, so ops of the same shapes share one (oneDNN
// primitives may run concurrently when each caller brings its own scratchpad). Building one costs
// ~0.1 ms even when oneDNN's primitive cache has the code (descriptor creation is not cached), and
// the oracles create the ops of a case many times over, hence this process-wide cache.
struct ForwardPlan {
  dnnl::convolution_forward conv;
  Layout src, weights, dst;
  memory::desc bias, scratchpad;
};

struct BackwardPlan {
  dnnl::convolution_backward_weights backward_weights;
  Layout src, diff_dst_w, diff_weights, diff_bias;
  memory::desc scratchpad_w;
  bool with_dx = false;
  dnnl::convolution_backward_data backward_data;
  Layout weights, diff_dst_d, diff_src;
  memory::desc scratchpad_d;
};

// The cache key: the geometry, group, dims, which optional tensors take part, and the thread
// count (oneDNN sizes its work split by it when it builds a primitive, as its own cache does).
std::string PlanKey(const ConvGeometry& g, int64_t group, const std::vector<int64_t>& x,
                    const std::vector<int64_t>& w, bool flag_a, bool flag_b) {
  std::string key;
  for (int64_t v : {g.kernel_h, g.kernel_w, g.stride_h, g.stride_w, g.dilation_h, g.dilation_w,
                    g.pad_t, g.pad_l, g.pad_b, g.pad_r, group, int64_t{flag_a}, int64_t{flag_b},
                    int64_t{ComputeThreads()}}) {
    key += std::to_string(v) + ",";
  }
  for (const auto* dims : {&x, &w}) {
    for (int64_t v : *dims) key += std::to_string(v) + ",";
    key += ";";
  }
  return key;
}

// A process-wide map of plans, null where oneDNN declined. Emptied when it reaches kCapacity
// entries (a long campaign draws new shapes forever); ops keep the plans they hold.
template <typename Plan>
std::shared_ptr<const Plan> FindOrBuild(const std::string& key,
                                        std::shared_ptr<const Plan> (*build)(const Shapes&, bool,
                                                                             bool),
                                        const Shapes* shapes, bool flag_a, bool flag_b) {
  constexpr size_t kCapacity = 512;
  static auto* mutex = new std::mutex();
  static auto* plans = new std::map<std::string, std::shared_ptr<const Plan>>();
  static const bool registered =
      RegisterProcessCache(std::string("conv_dnnl ") + typeid(Plan).name(), [] {
        std::lock_guard<std::mutex> lock(*mutex);
        plans->clear();
      });
  (void)registered;
  {
    std::lock_guard<std::mutex> lock(*mutex);
    auto it = plans->find(key);
    if (it != plans->end()) return it->second;
  }
  std::shared_ptr<const Plan> plan = shapes ? build(*shapes, flag_a, flag_b) : nullptr;
  std::lock_guard<std::mutex> lock(*mutex);
  if (plans->size() >= kCapacity) plans->clear();
  plans->emplace(key, plan);
  return plan;
}

std::shared_ptr<const ForwardPlan> BuildForward(const Shapes& s, bool with_bias, bool) {
  auto plan = std::make_shared<ForwardPlan>();
  try {
    const memory::desc bias_desc(s.bias, kF32, Tag::x);
    const auto algorithm = dnnl::algorithm::convolution_direct;
    const auto prop = dnnl::prop_kind::forward_inference;
    const dnnl::convolution_forward::desc desc =
        with_bias
            ? dnnl::convolution_forward::desc(prop, algorithm, s.Src(), s.Weights(), bias_desc,
                                              s.Dst(), s.strides, s.dilates, s.pad_l, s.pad_r)
            : dnnl::convolution_forward::desc(prop, algorithm, s.Src(), s.Weights(), s.Dst(),
                                              s.strides, s.dilates, s.pad_l, s.pad_r);
    const dnnl::convolution_forward::primitive_desc pd(desc, Attributes(), CpuEngine());
    plan->conv = dnnl::convolution_forward(pd);
    plan->src = Layout(memory::desc(s.src, kF32, Tag::nchw), pd.src_desc(), /*input=*/true);
    plan->weights = Layout(memory::desc(s.weights, kF32, s.weights_tag), pd.weights_desc(), true);
    plan->dst = Layout(memory::desc(s.dst, kF32, Tag::nchw), pd.dst_desc(), /*input=*/false);
    plan->bias = bias_desc;
    plan->scratchpad = pd.scratchpad_desc();
  } catch (const dnnl::error&) {
    // Typically dnnl_unimplemented: no implementation for this instance. im2col covers it.
    return nullptr;
  }
  return plan;
}

std::shared_ptr<const BackwardPlan> BuildBackward(const Shapes& s, bool with_db, bool with_dx) {
  auto plan = std::make_shared<BackwardPlan>();
  try {
    const auto algorithm = dnnl::algorithm::convolution_direct;
    const memory::desc bias_desc(s.bias, kF32, Tag::x);
    // The backward primitives take the forward primitive's description as a hint of the layouts.
    const dnnl::convolution_forward::primitive_desc hint(
        dnnl::convolution_forward::desc(dnnl::prop_kind::forward_training, algorithm, s.Src(),
                                        s.Weights(), bias_desc, s.Dst(), s.strides, s.dilates,
                                        s.pad_l, s.pad_r),
        Attributes(), CpuEngine());
    const dnnl::convolution_backward_weights::desc wdesc =
        with_db ? dnnl::convolution_backward_weights::desc(algorithm, s.Src(), s.Weights(),
                                                           bias_desc, s.Dst(), s.strides, s.dilates,
                                                           s.pad_l, s.pad_r)
                : dnnl::convolution_backward_weights::desc(algorithm, s.Src(), s.Weights(), s.Dst(),
                                                           s.strides, s.dilates, s.pad_l, s.pad_r);
    const dnnl::convolution_backward_weights::primitive_desc wpd(wdesc, Attributes(), CpuEngine(),
                                                                 hint);
    plan->backward_weights = dnnl::convolution_backward_weights(wpd);
    const memory::desc src_user(s.src, kF32, Tag::nchw), dst_user(s.dst, kF32, Tag::nchw);
    const memory::desc weights_user(s.weights, kF32, s.weights_tag);
    plan->src = Layout(src_user, wpd.src_desc(), /*input=*/true);
    plan->diff_dst_w = Layout(dst_user, wpd.diff_dst_desc(), true);
    plan->diff_weights = Layout(weights_user, wpd.diff_weights_desc(), /*input=*/false);
    if (with_db) plan->diff_bias = Layout(bias_desc, wpd.diff_bias_desc(), false);
    plan->scratchpad_w = wpd.scratchpad_desc();
    plan->with_dx = with_dx;
    if (with_dx) {
      const dnnl::convolution_backward_data::primitive_desc dpd(
          dnnl::convolution_backward_data::desc(algorithm, s.Src(), s.Weights(), s.Dst(), s.strides,
                                                s.dilates, s.pad_l, s.pad_r),
          Attributes(), CpuEngine(), hint);
      plan->backward_data = dnnl::convolution_backward_data(dpd);
      plan->weights = Layout(weights_user, dpd.weights_desc(), true);
      plan->diff_dst_d = Layout(dst_user, dpd.diff_dst_desc(), true);
      plan->diff_src = Layout(src_user, dpd.diff_src_desc(), false);
      plan->scratchpad_d = dpd.scratchpad_desc();
    }
  } catch (const dnnl::error&) {
    return nullptr;  // no implementation for this instance: im2col covers it
  }
  return plan;
}

}  // namespace

// ---- forward

// One op's state for its current shapes: the shared plan and the op's own buffers.
struct DnnlConvForward::Primitives {
  std::shared_ptr<const ForwardPlan> plan;
  Operand src, weights, dst;
  memory bias;  // the caller's b [M] (oneDNN takes it plain); unused without a bias
  memory scratchpad;
  dnnl::stream stream;
};

DnnlConvForward::DnnlConvForward(const ConvGeometry& geometry, int64_t group)
    : geometry_(geometry), group_(group) {}

DnnlConvForward::~DnnlConvForward() = default;

bool DnnlConvForward::Run(const std::vector<int64_t>& x_dims, const std::vector<int64_t>& w_dims,
                          const std::vector<int64_t>& y_dims, const float* x, const float* w,
                          const float* b, float* y) {
  const bool with_bias = b != nullptr;
  const int threads = ComputeThreads();
  if (!built_ || key_.x != x_dims || key_.w != w_dims || key_.bias != with_bias ||
      threads_ != threads) {
    key_ = DnnlConvKey{x_dims, w_dims, with_bias, false};
    threads_ = threads;
    built_ = true;
    cached_.reset();
    Shapes shapes;
    const bool described = Describe(geometry_, group_, x_dims, w_dims, y_dims, &shapes);
    std::shared_ptr<const ForwardPlan> plan =
        FindOrBuild<ForwardPlan>(PlanKey(geometry_, group_, x_dims, w_dims, with_bias, false),
                                 BuildForward, described ? &shapes : nullptr, with_bias, false);
    if (plan != nullptr) {
      try {
        auto p = std::make_unique<Primitives>();
        p->plan = plan;
        p->src.Init(plan->src);
        p->weights.Init(plan->weights);
        p->dst.Init(plan->dst);
        if (with_bias) p->bias = memory(plan->bias, CpuEngine(), DNNL_MEMORY_NONE);
        p->scratchpad = memory(plan->scratchpad, CpuEngine());
        p->stream = dnnl::stream(CpuEngine());
        cached_ = std::move(p);
      } catch (const dnnl::error& e) {
        throw MakeError(ErrorKind::kResourceLimit, "oneDNN convolution buffers: ", e.what());
      }
    }
  }
  if (cached_ == nullptr) return false;  // declined
  Primitives& p = *cached_;
  try {
    p.src.Bind(x);
    p.weights.Bind(w);
    p.dst.Bind(y);
    p.src.ToInner(p.stream);
    p.weights.ToInner(p.stream);
    std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, p.src.inner},
                                            {DNNL_ARG_WEIGHTS, p.weights.inner},
                                            {DNNL_ARG_DST, p.dst.inner},
                                            {DNNL_ARG_SCRATCHPAD, p.scratchpad}};
    if (with_bias) {
      p.bias.set_data_handle(const_cast<float*>(b));
      args[DNNL_ARG_BIAS] = p.bias;
    }
    p.plan->conv.execute(p.stream, args);
    p.dst.ToUser(p.stream);
    p.stream.wait();
  } catch (const dnnl::error& e) {
    throw MakeError(ErrorKind::kInternal, "oneDNN convolution failed: ", e.what());
  }
  return true;
}

// ---- backward

struct DnnlConvBackward::Primitives {
  std::shared_ptr<const BackwardPlan> plan;
  Operand src, diff_dst_w, diff_weights, diff_bias;
  Operand weights, diff_dst_d, diff_src;
  memory scratchpad_w, scratchpad_d;
  dnnl::stream stream;
};

DnnlConvBackward::DnnlConvBackward(const ConvGeometry& geometry, int64_t group)
    : geometry_(geometry), group_(group) {}

DnnlConvBackward::~DnnlConvBackward() = default;

bool DnnlConvBackward::Run(const std::vector<int64_t>& x_dims, const std::vector<int64_t>& w_dims,
                           const std::vector<int64_t>& y_dims, const float* x, const float* w,
                           const float* dy, float* dw, float* db, float* dx) {
  const bool with_db = db != nullptr, with_dx = dx != nullptr;
  const int threads = ComputeThreads();
  if (!built_ || key_.x != x_dims || key_.w != w_dims || key_.bias != with_db ||
      key_.dx != with_dx || threads_ != threads) {
    key_ = DnnlConvKey{x_dims, w_dims, with_db, with_dx};
    threads_ = threads;
    built_ = true;
    cached_.reset();
    Shapes shapes;
    const bool described = Describe(geometry_, group_, x_dims, w_dims, y_dims, &shapes);
    std::shared_ptr<const BackwardPlan> plan =
        FindOrBuild<BackwardPlan>(PlanKey(geometry_, group_, x_dims, w_dims, with_db, with_dx),
                                  BuildBackward, described ? &shapes : nullptr, with_db, with_dx);
    if (plan != nullptr) {
      try {
        auto p = std::make_unique<Primitives>();
        p->plan = plan;
        p->src.Init(plan->src);
        p->diff_dst_w.Init(plan->diff_dst_w);
        p->diff_weights.Init(plan->diff_weights);
        if (with_db) p->diff_bias.Init(plan->diff_bias);
        p->scratchpad_w = memory(plan->scratchpad_w, CpuEngine());
        if (with_dx) {
          p->weights.Init(plan->weights);
          p->diff_dst_d.Init(plan->diff_dst_d);
          p->diff_src.Init(plan->diff_src);
          p->scratchpad_d = memory(plan->scratchpad_d, CpuEngine());
        }
        p->stream = dnnl::stream(CpuEngine());
        cached_ = std::move(p);
      } catch (const dnnl::error& e) {
        throw MakeError(ErrorKind::kResourceLimit, "oneDNN convolution buffers: ", e.what());
      }
    }
  }
  if (cached_ == nullptr) return false;  // declined
  Primitives& p = *cached_;
  try {
    p.src.Bind(x);
    p.diff_dst_w.Bind(dy);
    p.diff_weights.Bind(dw);
    p.src.ToInner(p.stream);
    p.diff_dst_w.ToInner(p.stream);
    std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, p.src.inner},
                                            {DNNL_ARG_DIFF_DST, p.diff_dst_w.inner},
                                            {DNNL_ARG_DIFF_WEIGHTS, p.diff_weights.inner},
                                            {DNNL_ARG_SCRATCHPAD, p.scratchpad_w}};
    if (with_db) {
      p.diff_bias.Bind(db);
      args[DNNL_ARG_DIFF_BIAS] = p.diff_bias.inner;
    }
    p.plan->backward_weights.execute(p.stream, args);
    p.diff_weights.ToUser(p.stream);
    if (with_db) p.diff_bias.ToUser(p.stream);
    if (with_dx) {
      p.weights.Bind(w);
      p.diff_dst_d.Bind(dy);
      p.diff_src.Bind(dx);
      p.weights.ToInner(p.stream);
      p.diff_dst_d.ToInner(p.stream);
      p.plan->backward_data.execute(p.stream, {{DNNL_ARG_DIFF_DST, p.diff_dst_d.inner},
                                               {DNNL_ARG_WEIGHTS, p.weights.inner},
                                               {DNNL_ARG_DIFF_SRC, p.diff_src.inner},
                                               {DNNL_ARG_SCRATCHPAD, p.scratchpad_d}});
      p.diff_src.ToUser(p.stream);
    }
    p.stream.wait();
  } catch (const dnnl::error& e) {
    throw MakeError(ErrorKind::kInternal, "oneDNN convolution gradient failed: ", e.what());
  }
  return true;
}

}  // namespace parity
