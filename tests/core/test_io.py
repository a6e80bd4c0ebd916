"""core/_io.py: atomic writes keep the user's umask (or the replaced file's mode), follow
symbolic links, sweep only stale temporary files of ours, and fsync where asked."""

from __future__ import annotations

import os
import time

import pytest

from segapp.core._io import STALE_SECONDS, TMP_SUFFIX, atomic_write_bytes, atomic_write_text, sweep_stale


@pytest.fixture
def umask_027():
    old = os.umask(0o027)
    yield
    os.umask(old)


def test_new_file_gets_the_umask_not_0600(tmp_path, umask_027):
    atomic_write_text(tmp_path / "a.csv", "x")
    assert (tmp_path / "a.csv").stat().st_mode & 0o777 == 0o640  # 0o666 & ~0o027


def test_replaced_file_keeps_its_mode(tmp_path, umask_027):
    p = tmp_path / "a.csv"
    p.write_text("old")
    p.chmod(0o604)
    atomic_write_text(p, "new")
    assert p.read_text() == "new" and p.stat().st_mode & 0o777 == 0o604


def test_symlink_target_is_replaced_and_the_link_kept(tmp_path):
    real = tmp_path / "real.json"
    real.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    atomic_write_text(link, "new")
    assert link.is_symlink() and real.read_text() == "new"


def _dead_pid():
    import subprocess
    import sys

    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def test_sweep_removes_only_stale_temporaries_of_ours(tmp_path):
    target = tmp_path / "res.csv"
    dead = tmp_path / f".res.csv.{_dead_pid()}.0a1b2c3d{TMP_SUFFIX}"
    live = tmp_path / f".res.csv.{os.getpid()}.0a1b2c3d{TMP_SUFFIX}"
    old = tmp_path / f".res.csv.{os.getpid()}.99999999{TMP_SUFFIX}"
    other_target = tmp_path / f".other.csv.{_dead_pid()}.0a1b2c3d{TMP_SUFFIX}"
    not_ours = tmp_path / ".res.csv.abc.tmp"
    for p in (dead, live, old, other_target, not_ours):
        p.write_text("partial")
    past = time.time() - STALE_SECONDS - 60
    os.utime(old, (past, past))
    assert sweep_stale(target) == 2
    assert not dead.exists() and not old.exists()
    assert live.exists() and other_target.exists() and not_ours.exists()


def test_durable_writes_fsync_file_and_folder(tmp_path, monkeypatch):
    calls = []
    real = os.fsync
    monkeypatch.setattr("segapp.core._io.os.fsync", lambda fd: calls.append(fd) or real(fd))
    atomic_write_bytes(tmp_path / "a", b"x")
    assert len(calls) == 2  # the file before the rename, the folder after it
    calls.clear()
    atomic_write_bytes(tmp_path / "a", b"y", durable=False)
    assert calls == [] and (tmp_path / "a").read_bytes() == b"y"


def test_no_temporary_file_is_left_after_a_write(tmp_path):
    atomic_write_bytes(tmp_path / "a.png", b"x" * 1000)
    assert [p.name for p in tmp_path.iterdir()] == ["a.png"]
