"""The timing loop of every PyTorch peer (bench/torch_*.py): bench/torch_peer.h reads one line per
timed iteration, the seconds it took."""
import time


def print_timings(step, warmup, iterations):
    """Runs step() `warmup` times untimed, then `iterations` times, printing each one's seconds."""
    for _ in range(warmup):
        step()
    for _ in range(iterations):
        start = time.perf_counter()
        step()
        print(time.perf_counter() - start, flush=True)
