#!/usr/bin/python3
"""The PyTorch peer of bench/gpu_bench.cc's LSTM rows: torch.nn.LSTM on the CUDA device (cuDNN).

Like bench/torch_lstm.py, but everything lives on the device and every iteration ends with
torch.cuda.synchronize(), so the seconds it prints (one line per timed iteration) are the device's
work, as gpu_bench synchronizes its stream after each parity iteration. Self-contained (no
torch_timing import), so it runs from a bundle folder holding only this file (PARITY_BENCH_DIR).
The forward+backward mode backpropagates ones from the whole output sequence, as gpu_bench seeds
every h_t's gradient with ones. Without a CUDA device the last line says why and it exits 1
(gpu_bench then skips the row with that line).

  python3 bench/torch_lstm_cuda.py --T 50 --N 32 --D 256 --H 256 --mode forward \\
      --threads 1 --iterations 20
"""
import argparse
import sys
import time


def main():
    parser = argparse.ArgumentParser()
    for flag in ("--T", "--N", "--D", "--H", "--threads", "--iterations"):
        parser.add_argument(flag, type=int, required=True)
    parser.add_argument("--mode", choices=("forward", "forward_backward"), required=True)
    parser.add_argument("--warmup", type=int, default=3)
    args = parser.parse_args()

    import torch

    if not torch.cuda.is_available():
        print("torch " + torch.__version__ + " has no CUDA device", flush=True)
        sys.exit(1)
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    device = torch.device("cuda", 0)
    # Full f32 as parity's cuBLAS (CUBLAS_PEDANTIC_MATH): no TF32 in cuDNN or cuBLAS.
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    lstm = torch.nn.LSTM(args.D, args.H).to(device)  # input [T, N, D], as Caffe2's layout
    x = torch.randn(args.T, args.N, args.D, device=device,
                    requires_grad=args.mode == "forward_backward")
    h0 = torch.zeros(1, args.N, args.H, device=device)
    c0 = torch.zeros(1, args.N, args.H, device=device)
    ones = torch.ones(args.T, args.N, args.H, device=device)

    def step():
        if args.mode == "forward":
            with torch.no_grad():
                lstm(x, (h0, c0))
        else:
            lstm.zero_grad(set_to_none=True)
            x.grad = None
            out, _ = lstm(x, (h0, c0))
            out.backward(ones)
        torch.cuda.synchronize()

    for _ in range(args.warmup):
        step()
    for _ in range(args.iterations):
        start = time.perf_counter()
        step()
        print(time.perf_counter() - start, flush=True)


if __name__ == "__main__":
    main()
