#!/usr/bin/python3
"""The PyTorch peer of bench/lstm_bench.cc: torch.nn.LSTM with the same sizes, timed by its own loop.

Prints one line per timed iteration: the seconds it took. lstm_bench reads them and reports them as
the manual time of its BM_TorchLstm benchmarks, so both engines appear in one Google Benchmark
table. The forward+backward mode backpropagates ones from the whole output sequence (the gradient
of its sum), as lstm_bench seeds hidden_t_all's gradient with ones.

  /usr/bin/python3 bench/torch_lstm.py --T 50 --N 32 --D 256 --H 256 --mode forward \
      --threads 1 --iterations 20
"""
import argparse
import torch

from torch_timing import print_timings


def main():
    parser = argparse.ArgumentParser()
    for flag in ("--T", "--N", "--D", "--H", "--threads", "--iterations"):
        parser.add_argument(flag, type=int, required=True)
    parser.add_argument("--mode", choices=("forward", "forward_backward"), required=True)
    parser.add_argument("--warmup", type=int, default=3)
    args = parser.parse_args()

    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    lstm = torch.nn.LSTM(args.D, args.H)  # input [T, N, D], as Caffe2's layout
    x = torch.randn(args.T, args.N, args.D, requires_grad=args.mode == "forward_backward")
    h0 = torch.zeros(1, args.N, args.H)
    c0 = torch.zeros(1, args.N, args.H)
    ones = torch.ones(args.T, args.N, args.H)

    def step():
        if args.mode == "forward":
            with torch.no_grad():
                lstm(x, (h0, c0))
        else:
            lstm.zero_grad(set_to_none=True)
            x.grad = None
            out, _ = lstm(x, (h0, c0))
            out.backward(ones)

    print_timings(step, args.warmup, args.iterations)


if __name__ == "__main__":
    main()
