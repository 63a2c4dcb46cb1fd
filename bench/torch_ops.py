#!/usr/bin/python3
"""The PyTorch peer of bench/pool_bench.cc and bench/elementwise_bench.cc: the same op on the same
shape and threads, timed by its own loop (one line per timed iteration: the seconds it took).

  pool FORWARD|BACKWARD max|avg N C H k stride pad   max_pool2d / avg_pool2d (count_include_pad
        False, Caffe2's default). BACKWARD: avg times aten's avg_pool2d_backward alone; max times
        what takes torch from X and dY to dX, max_pool2d_with_indices then its backward, because
        parity's MaxPoolGradient (X, Y, dY) finds each window's maximum in X itself, as Caffe2's
        did, where torch's training forward saves the indices (so a training step's pool costs
        forward + this row on both sides, torch's forward being the one with indices)
  unary add|mul|sigmoid|tanh|relu|exp N          on N floats uniform in [-5, 5] (add, mul: two)
  rowadd ROWS COLS                               [ROWS, COLS] + [COLS]
  reduce sum|mean AXIS                           torch.sum / torch.mean of [1024, 1024] over AXIS
  softmax | layernorm                            over the rows of [1024, 1024] (layernorm: affine
                                                 off, eps 1e-5, as parity's LayerNorm default)
  gather                                         16384 random rows of a [16384, 64] table

  /usr/bin/python3 bench/torch_ops.py --threads 2 --iterations 50 pool forward max 1 64 112 3 2 1
"""
import argparse
import torch

from torch_timing import print_timings


def pool_step(args):
    mode, kind, n, c, h, k, stride, pad = args.rest
    n, c, h, k, stride, pad = (int(v) for v in (n, c, h, k, stride, pad))
    x = torch.rand(n, c, h, h) * 2 - 1
    if kind == "max":
        y = torch.nn.functional.max_pool2d(x, k, stride, pad)
        dy = torch.rand(y.shape) * 2 - 1
        if mode == "forward":
            return lambda: torch.nn.functional.max_pool2d(x, k, stride, pad)

        def backward():
            _, found = torch.ops.aten.max_pool2d_with_indices(x, [k, k], [stride, stride],
                                                              [pad, pad], [1, 1], False)
            torch.ops.aten.max_pool2d_with_indices_backward(
                dy, x, [k, k], [stride, stride], [pad, pad], [1, 1], False, found)
        return backward
    y = torch.nn.functional.avg_pool2d(x, k, stride, pad, count_include_pad=False)
    dy = torch.rand(y.shape) * 2 - 1
    if mode == "forward":
        return lambda: torch.nn.functional.avg_pool2d(x, k, stride, pad, count_include_pad=False)
    return lambda: torch.ops.aten.avg_pool2d_backward(dy, x, [k, k], [stride, stride],
                                                      [pad, pad], False, False, None)


def unary_step(args):
    op, n = args.rest[0], int(args.rest[1])
    x = torch.rand(n) * 10 - 5
    y = torch.rand(n) * 10 - 5
    out = torch.empty(n)  # as parity's op writes an output it already holds
    table = {
        "add": lambda: torch.add(x, y, out=out),
        "mul": lambda: torch.mul(x, y, out=out),
        "sigmoid": lambda: torch.sigmoid(x, out=out),
        "tanh": lambda: torch.tanh(x, out=out),
        "relu": lambda: torch.clamp_min(x, 0, out=out),
        "exp": lambda: torch.exp(x, out=out),
    }
    return table[op]


def rowadd_step(args):
    rows, cols = int(args.rest[0]), int(args.rest[1])
    x = torch.rand(rows, cols) * 10 - 5
    b = torch.full((cols,), 0.5)
    out = torch.empty(rows, cols)
    return lambda: torch.add(x, b, out=out)


def reduce_step(args):
    kind, axis = args.rest[0], int(args.rest[1])
    x = torch.rand(1024, 1024) * 10 - 5
    out = torch.empty(1024)
    if kind == "sum":
        return lambda: torch.sum(x, axis, out=out)
    return lambda: torch.mean(x, axis, out=out)


def rows_step(kind):
    x = torch.rand(1024, 1024) * 10 - 5
    if kind == "softmax":
        return lambda: torch.softmax(x, 1)
    return lambda: torch.nn.functional.layer_norm(x, (1024,), eps=1e-5)


def gather_step():
    table = torch.rand(16384, 64) * 10 - 5
    indices = torch.randint(0, 16384, (16384,))
    out = torch.empty(16384, 64)
    return lambda: torch.index_select(table, 0, indices, out=out)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, required=True)
    parser.add_argument("--iterations", type=int, required=True)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("what",
                        choices=("pool", "unary", "rowadd", "reduce", "softmax", "layernorm",
                                 "gather"))
    parser.add_argument("rest", nargs="*")
    args = parser.parse_args()

    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    step = {"pool": pool_step, "unary": unary_step, "rowadd": rowadd_step,
            "reduce": reduce_step, "softmax": lambda _: rows_step("softmax"),
            "layernorm": lambda _: rows_step("layernorm"),
            "gather": lambda _: gather_step()}[args.what](args)
    with torch.no_grad():
        print_timings(step, args.warmup, args.iterations)


if __name__ == "__main__":
    main()
