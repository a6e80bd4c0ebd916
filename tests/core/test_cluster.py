"""`segapp evaluate --scheduler`: the images on a dask.distributed cluster give the same CSV as
local processes (timing columns aside)."""

import csv

import pytest

from ..helpers import make_bsds

distributed = pytest.importorskip("distributed")  # installed with the test extras


def _rows(path):
    return [{k: v for k, v in r.items() if k != "seconds"} for r in csv.DictReader(open(path))]


@pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::ResourceWarning")
def test_a_local_two_worker_cluster_gives_the_same_csv(tmp_path):
    from segapp.cli import main

    root = make_bsds(tmp_path / "bsds", n=3, h=40, w=60)
    args = ["evaluate", "--bsds", str(root), "--segments", "2", "--rounds", "2", "--methods", "e2cp,random-walker"]
    assert main(args + ["--out", str(tmp_path / "local.csv")]) == 0
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cl:
        assert main(args + ["--out", str(tmp_path / "cluster.csv"), "--scheduler", cl.scheduler_address]) == 0
    local, cluster = _rows(tmp_path / "local.csv"), _rows(tmp_path / "cluster.csv")
    assert len(local) == 3 * 2 * 3 and local == cluster


def test_an_unreachable_scheduler_is_one_clear_error(tmp_path, capsys):
    from segapp.cli import main

    root = make_bsds(tmp_path / "bsds", n=1, h=40, w=60)
    rc = main(["evaluate", "--bsds", str(root), "--rounds", "1", "--methods", "e2cp", "--out",
               str(tmp_path / "x.csv"), "--scheduler", "tcp://127.0.0.1:9"])
    assert rc == 2
    err = capsys.readouterr().err
    assert "cannot reach the dask scheduler at tcp://127.0.0.1:9" in err and "Traceback" not in err
