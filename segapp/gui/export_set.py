"""Export every mask of a set at once ("Export all masks…" in the Berkeley browser).

Each image of the set that has constraints in this session is segmented with them (the
current method, number of segments and parameters) and its label mask written as
``<stem>_labels.png`` in the chosen folder; images without constraints are skipped and named.
The work runs in a process of its own (never on the GUI thread, never in the window's worker,
which keeps serving strokes); a thread waits for it and the summary comes back as a signal.
"""

from __future__ import annotations

import multiprocessing
import threading
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from segapp.core.constraints import Kind


def export_one(image_path: str, items: dict, method: str, k: int, params: dict, out_path: str) -> str:
    """Segment one image with its constraints and write its label mask (in the pool's process)."""
    import warnings

    from segapp import core
    from segapp.core import render

    img = core.load_image(image_path)
    cons = core.Constraints(items[Kind.MUST_LINK], items[Kind.CANNOT_LINK], items[Kind.BLOCK], order=items["order"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        seg = core.segment(img, cons, method=method, n_segments=k, **params)
    render.save_labels(out_path, seg.labels)
    return out_path


class SetExporter(QObject):
    """Signals

    done(summary) : what was written, skipped and failed, in one line
    """

    done = Signal(str)

    def __init__(self, model):
        super().__init__()
        self.model = model
        self.busy = False

    def export(self, image_paths, folder) -> None:
        """Write the mask of every image in ``image_paths`` that has constraints into ``folder``."""
        m = self.model
        folder = Path(folder)
        jobs, skipped = [], []
        paths = list(map(Path, image_paths))
        stems = [p.stem for p in paths]
        for p in paths:
            items = m.items_of(p)
            # a.png and a.jpg in one folder: each mask named by the whole file name
            name = p.stem if stems.count(p.stem) == 1 else p.name
            if items and any(items[k] for k in (Kind.MUST_LINK, Kind.CANNOT_LINK, Kind.BLOCK)):
                jobs.append((str(p), items, str(folder / f"{name}_labels.png")))
            else:
                skipped.append(p.stem)
        self.busy = True
        args = (m.method, m.n_segments, dict(m.params))
        threading.Thread(target=self._run, args=(jobs, skipped, args, folder), daemon=True,
                         name="segapp-export-set").start()

    def _run(self, jobs, skipped, args, folder) -> None:
        written, failed = [], []
        if jobs:
            with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
                futures = [(Path(path).stem, pool.submit(export_one, path, items, *args, out)) for path, items, out in jobs]
                for stem, fut in futures:
                    try:
                        fut.result()
                        written.append(stem)
                    except Exception as e:  # noqa: BLE001 - one line per image in the summary
                        failed.append(f"{stem} ({' '.join(str(e).split())[:120]})")
        self.busy = False
        self.done.emit(summary(written, skipped, failed, folder))


def summary(written, skipped, failed, folder) -> str:
    """``wrote 2 masks to F; skipped 1 without constraints: a; failed: …``."""
    parts = [f"wrote {len(written)} mask{'s' if len(written) != 1 else ''} to {folder}"]
    if skipped:
        parts.append(f"skipped {len(skipped)} without constraints: {', '.join(skipped[:8])}"
                     + (" …" if len(skipped) > 8 else ""))
    if failed:
        parts.append(f"failed {len(failed)}: {'; '.join(failed[:3])}")
    return "; ".join(parts)
