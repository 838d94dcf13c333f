"""Draw a run of the real-program suite: soac's device-resident time over the fastest peer, per program.

    python bench/real/plot.py RESULTS.json [--before OLDER.json] [--out suite.png]

Bars on a log scale (below 1: soac is faster); with `--before`, an earlier run's ratio beside each bar. Needs
matplotlib (not a dependency of soac).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any


def ratios(report: dict[str, Any]) -> dict[str, float]:
    """soac's resident time over the fastest peer that gave a right answer, by program."""
    found = {}
    for row in report["rows"]:
        peers = [t for t in row["peers"].values() if t]
        if row["resident_ms"] and peers:
            found[row["program"]] = row["resident_ms"] / min(peers)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results")
    parser.add_argument("--before", default=None, help="an earlier run's results.json, drawn beside")
    parser.add_argument("--out", default="real_suite.png")
    options = parser.parse_args()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    report = json.loads(Path(options.results).read_text())
    now = ratios(report)
    before = ratios(json.loads(Path(options.before).read_text())) if options.before else {}
    names = list(now)
    fig, ax = plt.subplots(figsize=(8, 5))
    height = 0.4 if before else 0.8
    ax.barh([k + (height / 2 if before else 0) for k in range(len(names))], [now[n] for n in names], height, label="now")
    if before:
        ax.barh([k - height / 2 for k in range(len(names))], [before.get(n, 0) for n in names], height, label="before")
        ax.legend()
    ax.set_yticks(range(len(names)), names)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.axvline(1.0, color="grey", linewidth=0.8)
    ax.set_xlabel("soac resident time / fastest peer (JAX, CuPy); below 1: soac is faster")
    ax.set_title(f"{report['device']}, {report['date'][:10]}")
    fig.tight_layout()
    fig.savefig(options.out, dpi=110)
    print(f"wrote {options.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
