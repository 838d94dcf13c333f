"""Do two OpenCL devices run soac programs at once when two Python threads drive them? (issue 29: soac.lang.dask's
nbody did not scale on two GPUs where CuPy's did.) No dask: one thread per device, each computing the nbody potential
of its half of the bodies (`dask_scaling.potential`) on device-resident arrays, against one thread doing both halves
on one device.

    python bench/two_devices.py [--bodies 131072] [--reps 3]
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import soac.lang as sl
from dask_scaling import potential  # pyright: ignore[reportMissingImports]
from soac.lang.dask.workers import all_gpus


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bodies", type=int, default=1 << 17)
    parser.add_argument("--reps", type=int, default=3)
    options = parser.parse_args()
    gpus = all_gpus() or ("",)
    rng = np.random.default_rng(0)
    n = options.bodies
    bodies = [rng.random(n, dtype=np.float32) for _ in range(4)]
    halves = [[b[: n // 2] for b in bodies], [b[n // 2 :] for b in bodies]]
    eps = np.float32(1e-3)
    jitted = {gpu: sl.jit(potential, device=gpu or None) for gpu in gpus}
    placed = {
        gpu: [[sl.device_put(a, gpu or None) for a in half] + [sl.device_put(b, gpu or None) for b in bodies] for half in halves]
        for gpu in gpus
    }

    def run(gpu: str, half: int, out: list[float]) -> None:
        out.append(float(jitted[gpu](*placed[gpu][half], eps)))

    for gpu in gpus:  # compile and warm up
        run(gpu, 0, [])
    print(f"devices: {', '.join(gpus)}; bodies {n}")
    for label, plan in [("one device, one thread, both halves", [(gpus[0], 0), (gpus[0], 1)])]:
        times = []
        for _ in range(options.reps):
            start, out = time.perf_counter(), []
            for gpu, half in plan:
                run(gpu, half, out)
            times.append(time.perf_counter() - start)
        print(f"{label:45} {min(times):.3f} s")
    if len(gpus) > 1:
        times = []
        for _ in range(options.reps):
            out: list[float] = []
            threads = [threading.Thread(target=run, args=(gpus[k], k, out)) for k in range(2)]
            start = time.perf_counter()
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            times.append(time.perf_counter() - start)
        print(f"{'two devices, a thread each, a half each':45} {min(times):.3f} s")


if __name__ == "__main__":
    main()
