#!/usr/bin/python3
"""The PyTorch peer of bench/net_bench.cc: the same models, sizes and threads, timed by its own
loop (one line per timed iteration: the seconds it took).

  mlp forward|forward_backward N      Linear(784, 1024), ReLU, Linear(1024, 1024), ReLU,
                                      Linear(1024, 10); forward_backward backpropagates ones
  resnet_block forward N C H          ResNet's basic block in inference: conv 3x3 (no bias), BN
                                      (eval), ReLU, conv 3x3, BN, + x, ReLU

  /usr/bin/python3 bench/torch_nets.py --threads 2 --iterations 20 mlp forward 64
"""
import argparse
import torch

from torch_timing import print_timings


def mlp_step(mode, n):
    model = torch.nn.Sequential(torch.nn.Linear(784, 1024), torch.nn.ReLU(),
                                torch.nn.Linear(1024, 1024), torch.nn.ReLU(),
                                torch.nn.Linear(1024, 10))
    x = torch.rand(n, 784) * 2 - 1
    ones = torch.ones(n, 10)
    if mode == "forward":
        def step():
            with torch.no_grad():
                model(x)
        return step

    def train_step():
        model.zero_grad(set_to_none=True)
        model(x).backward(ones)
    return train_step


class BasicBlock(torch.nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn1 = torch.nn.BatchNorm2d(c)
        self.conv2 = torch.nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn2 = torch.nn.BatchNorm2d(c)

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(self.bn2(self.conv2(y)) + x)


def resnet_block_step(mode, n, c, h):
    assert mode == "forward"
    block = BasicBlock(c).eval()
    x = torch.rand(n, c, h, h) * 2 - 1

    def step():
        with torch.no_grad():
            block(x)
    return step


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, required=True)
    parser.add_argument("--iterations", type=int, required=True)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("model", choices=("mlp", "resnet_block"))
    parser.add_argument("mode", choices=("forward", "forward_backward"))
    parser.add_argument("sizes", type=int, nargs="+")
    args = parser.parse_args()

    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    make = {"mlp": mlp_step, "resnet_block": resnet_block_step}[args.model]
    step = make(args.mode, *args.sizes)
    print_timings(step, args.warmup, args.iterations)


if __name__ == "__main__":
    main()
