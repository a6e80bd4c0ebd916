"""Mean adjusted Rand index on scikit-learn's bundled iris, wine and breast-cancer data,
without constraints and with all pairs among 20% labelled samples (10 random draws).

Run: python bench/uci_quality.py   (prints the README's quality table; the data sets, kernel
widths and protocol are in core/eval/uci.py)
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from segapp.core.eval.uci import CONSTRAINED, DATASETS, evaluate, load  # noqa: E402


def main():
    print("| method | " + " | ".join(f"{d} none | {d} 20%" for d in DATASETS) + " |")
    print("|---|" + "---|---|" * len(DATASETS))
    rows = [(m, m) for m in CONSTRAINED] + [("csp", "csp (shared width)")]
    for m, name in rows:
        cells = []
        for d in DATASETS:
            X, y, g = load(d, None if name.endswith("(shared width)") else m)
            b, c = evaluate(m, X, y, g)
            cells += [f"{b:.3f}", f"{c:.3f}"]
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
