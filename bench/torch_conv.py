#!/usr/bin/python3
"""The PyTorch peer of bench/conv_bench.cc: conv2d on the same shapes, timed by its own loop.

Prints one line per timed iteration: the seconds it took. conv_bench reads them and reports them as
the manual time of its BM_Torch benchmarks, so the engines and the peer appear in one Google
Benchmark table. Forward: torch.nn.functional.conv2d with a bias under no_grad. Backward:
aten::convolution_backward alone (dX, dW and db from X, W and dY), so no forward is timed.

  /usr/bin/python3 bench/torch_conv.py --mode forward --threads 2 --iterations 50 1 64 56 64 3 1 1
"""
import argparse
import torch

from torch_timing import print_timings


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", choices=("forward", "backward"), required=True)
    parser.add_argument("--threads", type=int, required=True)
    parser.add_argument("--iterations", type=int, required=True)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("shape", type=int, nargs=7, help="N C H M k stride group")
    args = parser.parse_args()
    n, c, h, m, k, stride, group = args.shape
    pad = (k - 1) // 2

    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    x = torch.rand(n, c, h, h) * 2 - 1
    w = torch.rand(m, c // group, k, k) * 2 - 1
    b = torch.rand(m) * 2 - 1
    with torch.no_grad():
        y = torch.nn.functional.conv2d(x, w, b, stride, pad, 1, group)
    dy = torch.rand(y.shape) * 2 - 1

    def step():
        with torch.no_grad():
            if args.mode == "forward":
                torch.nn.functional.conv2d(x, w, b, stride, pad, 1, group)
            else:
                torch.ops.aten.convolution_backward(dy, x, w, [m], [stride, stride], [pad, pad],
                                                    [1, 1], False, [0, 0], group,
                                                    [True, True, True])

    print_timings(step, args.warmup, args.iterations)


if __name__ == "__main__":
    main()
