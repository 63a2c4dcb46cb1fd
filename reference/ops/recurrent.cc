// RecurrentNetwork by plain unrolling.
//
// The op's arguments describe views (links, offset aliases) into per-state tensors of shape
// (T + L) x N x D; production implements them with shared storage and step workspaces. The
// reference gives them their plain meaning instead:
//   1. state[i] = zeros(T + L, N, D) with rows [0, L) from input initial_recurrent_state_ids[i]
//      ([D] broadcast over the batch, [N, D], or [L, N, D]); T = dims[0], N = dims[1] of input 0.
//   2. for t in 0..T-1, in a fresh child workspace of the op's workspace (reads fall through):
//      timestep = int32 [t]; every link's internal blob = a copy of rows
//      [t + offset, t + offset + window) of its external blob; run step_net; then copy every
//      link's internal blob back into those rows (this is how outputs reach the states).
//   3. write the states under their recurrent_states names, and every alias_dst = rows
//      [offset, end) of alias_src (a negative offset counts from the end: -1 is the last row).
// Links to blobs that are not states (the input sequence) read from a private copy, so a step net
// that writes an input-linked blob does not modify the op's input. Link externals and aliases
// follow `<blob>.rename` arguments (memonger renames the op's inputs and outputs). The last output is the
// (opaque) step-workspaces blob. RecurrentNetworkGradient is finite-differences only.
#include "reference/ops/util.h"

namespace parity::reference {
namespace {

struct Link {
  std::string internal, external;
  int64_t offset = 0, window = 1;
};

// t + offset for a link's first row; the offset is the user's integer, so the sum is checked
// instead of wrapping past INT64_MAX.
int64_t LinkRow(int64_t t, int64_t offset, const std::string& what) {
  int64_t row = 0;
  PARITY_ENFORCE(!__builtin_add_overflow(t, offset, &row), ErrorKind::kShapeMismatch, what,
                 ": timestep ", t, " + offset ", offset, " is not a row of any tensor");
  return row;
}

template <typename T>
Value<T> Rows(const OpContext<T>& c, const Value<T>& src, int64_t begin, int64_t count,
              const std::string& what) {
  PARITY_ENFORCE(!src.dims.empty() && begin >= 0 && count >= 0 && begin <= src.dims[0] &&
                     count <= src.dims[0] - begin,
                 ErrorKind::kShapeMismatch, what, ": ", count, " rows from row ", begin,
                 " out of range of ", ShapeString(src.dims));  // begin + count may overflow
  Dims dims = src.dims;
  dims[0] = count;
  Value<T> out = c.NewTensor(src.dtype, dims);
  const int64_t row = SizeFromDim(src.dims, 1);
  for (int64_t k = 0; k < count * row; ++k) out.CopyElem(k, src, begin * row + k);
  return out;
}

template <typename T>
void RecurrentNetwork(OpContext<T>& c) {
  const Value<T>& x = c.Input(0);
  PARITY_ENFORCE(x.dims.size() >= 2, ErrorKind::kShapeMismatch, "input 0 must be T x N x ..., got ",
                 Describe(c, 0));
  const int64_t steps = x.dims[0], batch = x.dims[1];
  const caffe2::NetDef step_net = c.args.Net("step_net");
  const std::string timestep = c.args.Str("timestep");

  // 1. States.
  const std::vector<std::string> states = c.args.Strs("recurrent_states");
  const std::vector<int64_t> init_ids = c.args.Ints("initial_recurrent_state_ids");
  PARITY_ENFORCE(states.size() == init_ids.size(), ErrorKind::kBadArgument,
                 "recurrent_states and initial_recurrent_state_ids differ in length");
  std::map<std::string, Value<T>> ext;  // states and private copies of other linked blobs
  for (size_t i = 0; i < states.size(); ++i) {
    PARITY_ENFORCE(init_ids[i] >= 0 && init_ids[i] < c.InputSize(), ErrorKind::kBadArgument,
                   "initial_recurrent_state_ids entry ", init_ids[i], " is not an input index");
    const Value<T>& init = c.RealInput(static_cast<int>(init_ids[i]));
    const int64_t rank = init.dims.size();
    PARITY_ENFORCE(rank >= 1 && rank <= 3, ErrorKind::kShapeMismatch, "initial state ",
                   Describe(c, static_cast<int>(init_ids[i])), " must be [D], [N, D] or [L, N, D]");
    if (rank >= 2) {
      PARITY_ENFORCE(init.dims[rank - 2] == batch, ErrorKind::kShapeMismatch, "initial state ",
                     Describe(c, static_cast<int>(init_ids[i])), " has batch ", init.dims[rank - 2],
                     ", input 0 has ", batch);
    }
    const int64_t d = init.dims.back(), len = rank == 3 ? init.dims[0] : 1;
    Value<T> s = c.NewReal({steps + len, batch, d});
    for (int64_t k = 0; k < len * batch * d; ++k) s.r()[k] = init.r()[rank == 1 ? k % d : k];
    ext[states[i]] = std::move(s);
  }

  // Links.
  const std::vector<std::string> li = c.args.Strs("link_internal");
  std::vector<std::string> le = c.args.Strs("link_external");
  for (std::string& external : le) external = c.args.Renamed(external);
  const std::vector<int64_t> lo = c.args.Ints("link_offset");
  std::vector<int64_t> lw = c.args.Ints("link_window");
  if (lw.empty()) lw.assign(li.size(), 1);
  PARITY_ENFORCE(li.size() == le.size() && li.size() == lo.size() && li.size() == lw.size(),
                 ErrorKind::kBadArgument,
                 "link_internal/external/offset/window must have equal lengths");
  std::vector<Link> links;
  for (size_t k = 0; k < li.size(); ++k) {
    links.push_back({li[k], le[k], lo[k], lw[k]});
    if (!ext.count(le[k])) {
      const Value<T>* v = c.ws->Find(le[k]);
      PARITY_ENFORCE(v != nullptr && IsTensorType(v->dtype), ErrorKind::kMissingBlob,
                     "linked external blob '", le[k], "' does not exist");
      ext[le[k]] = v->Clone();
    }
  }

  // 2. Unroll.
  for (int64_t t = 0; t < steps; ++t) {
    Workspace<T> step(c.ws);
    Value<T> ts = c.NewTensor(DType::kInt32, {1});
    ts.i()[0] = t;
    step.local_blobs()[timestep] = std::move(ts);
    for (const Link& l : links) {
      step.local_blobs()[l.internal] =
          Rows(c, ext.at(l.external), LinkRow(t, l.offset, "link '" + l.internal + "'"), l.window,
               "link '" + l.internal + "'");
    }
    try {
      c.runner->RunNet(&step, step_net, false);
    } catch (Error& e) {
      e.AddContext("step " + std::to_string(t));
      throw;
    }
    for (const Link& l : links) {
      const Value<T>* v = step.Find(l.internal);
      Value<T>& dst = ext.at(l.external);
      const Dims want = Rows(c, dst, LinkRow(t, l.offset, "link"), l.window, "link").dims;
      PARITY_ENFORCE(v != nullptr && v->dtype == dst.dtype && v->dims == want,
                     ErrorKind::kShapeMismatch, "step ", t, ": linked blob '", l.internal,
                     "' must stay ", ShapeString(want), " ", DTypeName(dst.dtype));
      const int64_t row = SizeFromDim(dst.dims, 1);
      for (int64_t k = 0; k < v->size(); ++k) dst.CopyElem((t + l.offset) * row + k, *v, k);
    }
  }

  // 3. States and aliases.
  std::vector<std::string> asrc = c.args.Strs("alias_src");
  std::vector<std::string> adst = c.args.Strs("alias_dst");
  for (std::string& src : asrc) src = c.args.Renamed(src);
  for (std::string& dst : adst) dst = c.args.Renamed(dst);
  const std::vector<int64_t> aoff = c.args.Ints("alias_offset");
  PARITY_ENFORCE(asrc.size() == adst.size() && asrc.size() == aoff.size(), ErrorKind::kBadArgument,
                 "alias_src/dst/offset must have equal lengths");
  std::map<std::string, Value<T>> results;
  for (const std::string& s : states) results[s] = ext.at(s);
  for (size_t k = 0; k < asrc.size(); ++k) {
    PARITY_ENFORCE(ext.count(asrc[k]), ErrorKind::kBadArgument, "alias_src '", asrc[k],
                   "' is not a recurrent state or linked blob");
    const Value<T>& src = ext.at(asrc[k]);
    const int64_t begin = aoff[k] >= 0 ? aoff[k] : src.dims[0] + aoff[k];
    results[adst[k]] = Rows(c, src, begin, src.dims[0] - begin, "alias '" + adst[k] + "'");
  }
  for (auto& [name, v] : results) {
    bool is_output = false;
    for (int o = 0; o + 1 < c.OutputSize(); ++o) {
      if (c.OutputName(o) == name) {
        c.SetOutput(o, v.Clone());
        is_output = true;
      }
    }
    if (!is_output) c.ws->Write(name, std::move(v));
  }
  Value<T> scratch;
  scratch.dtype = DType::kScratch;
  scratch.ints = std::make_shared<std::vector<int64_t>>();
  c.SetOutputShared(c.OutputSize() - 1, std::move(scratch));
}

// rnn_internal_apply_link(timestep, external) -> (internal, external): internal = rows
// [t + offset, t + offset + window) of external (production makes it a view; here, a copy).
template <typename T>
void ApplyLink(OpContext<T>& c) {
  const int64_t t = c.Input(0).i()[0];
  const int64_t offset = c.args.Int("offset"), window = c.args.Int("window");
  PARITY_ENFORCE(offset >= 0 && window >= 0, ErrorKind::kBadArgument,
                 "offset and window must be set and >= 0");
  c.SetOutput(0, Rows(c, c.Input(1), LinkRow(t, offset, "link '" + c.OutputName(0) + "'"), window,
                      "link '" + c.OutputName(0) + "'"));
  c.SetOutput(1, c.Input(1).Clone());
}

// rnn_internal_accumulate_gradient_input(timestep, og, g) -> g: row t + offset of g += row t of og.
template <typename T>
void AccumulateGradientInput(OpContext<T>& c) {
  const Value<T>& timestep = c.Input(0);
  PARITY_ENFORCE(timestep.dtype == DType::kInt32 && timestep.size() == 1, ErrorKind::kShapeMismatch,
                 "the timestep must be one int32, got ", Describe(c, 0));
  const int64_t t = timestep.i()[0];
  const int64_t offset = c.args.Int("offset");
  PARITY_ENFORCE(offset >= 0, ErrorKind::kBadArgument, "offset must be set and >= 0");
  const Value<T>& og = c.RealInput(1);
  Value<T> g = c.RealInput(2).Clone();
  PARITY_ENFORCE(!g.dims.empty() && g.dims[0] > 0, ErrorKind::kShapeMismatch,
                 "the gradient must have a time axis, got ", Describe(c, 2));
  const int64_t row = SizeFromDim(g.dims, 1);
  // Compared without forming t + offset + 1 or (t + 1) * row, which a huge offset wraps.
  const int64_t rows = g.dims[0];
  PARITY_ENFORCE(t >= 0 && offset < rows && t < rows - offset && (row == 0 || t < og.size() / row),
                 ErrorKind::kShapeMismatch, "step ", t, " with offset ", offset, ": row ", t,
                 " of ", Describe(c, 1), " added to row ", t, " + ", offset, " of ", Describe(c, 2),
                 " is out of bounds");
  for (int64_t k = 0; k < row; ++k) g.r()[(t + offset) * row + k] += og.r()[t * row + k];
  c.SetOutput(0, std::move(g));
}

}  // namespace

void RegisterRecurrentOps(Registry* r) {
  const ArgTable args = {{"step_net", ""},
                         {"backward_step_net", ""},
                         {"recurrent_states", "[]"},
                         {"initial_recurrent_state_ids", "[]"},
                         {"link_internal", "[]"},
                         {"link_external", "[]"},
                         {"link_offset", "[]"},
                         {"link_window", "[]"},
                         {"alias_src", "[]"},
                         {"alias_dst", "[]"},
                         {"alias_offset", "[]"},
                         {"timestep", "timestep"},
                         {"enable_rnn_executor", "0"},
                         {"param", "[]"},
                         {"param_grads", "[]"},
                         {"outputs_with_grads", "[0]"},
                         {"backward_link_internal", "[]"},
                         {"backward_link_external", "[]"},
                         {"backward_link_offset", "[]"},
                         {"recompute_blobs_on_backward", "[]"},
                         {"num_workspaces", "2"}};
  r->Add({"RecurrentNetwork", 1, -1, 1, -1, args, PARITY_REF_KERNEL(RecurrentNetwork)});
  r->Add({"rnn_internal_apply_link",
          2,
          2,
          2,
          2,
          {{"offset", "-1"}, {"window", "-1"}},
          PARITY_REF_KERNEL(ApplyLink)})
      .enforce_inplace = {{1, 1}};
  r->Add({"rnn_internal_accumulate_gradient_input",
          3,
          3,
          1,
          1,
          {{"offset", "-1"}},
          PARITY_REF_KERNEL(AccumulateGradientInput)})
      .enforce_inplace = {{2, 0}};
}

PARITY_REFERENCE_FAMILY(RegisterRecurrentOps);

}  // namespace parity::reference
