"""Corrupt or hand-edited autosave journals and bad persisted settings (issue 12): reading
never raises, a damaged session is never offered as something it is not, a bad entry is
dropped by name with a message and the default used."""

import json

import pytest

from segapp.gui import journal, persistence
from segapp.gui.session import SessionModel
from segapp.resources import DEMO_IMAGE

IMG = str(DEMO_IMAGE)
BASE = {"op": "base", "v": 1, "image": IMG, "owner": {"pid": 1, "start": "0"}, "time": 1.0, "dirty": True,
        "settings": {}, "items": {"must_link": [[1, 2, 3, 4, 1.0]], "cannot_link": [], "blocks": []}}


def _line(**change):
    return json.dumps({**BASE, **change})


INS = json.dumps({"op": "ins", "k": "cannot_link", "i": 0, "item": [5, 6, 7, 8, 1.0]})

# name -> (file bytes, what a relaunch offers: None, or the number of items restored)
JOURNALS = {
    "empty": (b"", None),
    "binary": (bytes(range(256)) * 8, None),
    "not-json": (b"hello\n", None),
    "a-list": (b"[]\n", None),
    "deep-nesting": (b"[" * 100_000 + b"]" * 100_000, None),
    "base-of-version-2": (_line(v=2).encode(), None),
    "base-without-items": (json.dumps({k: v for k, v in BASE.items() if k != "items"}).encode(), None),
    "base-items-a-string": (_line(items="abc").encode(), None),
    "base-image-a-number": (_line(image=5).encode(), None),
    "first-line-not-a-base": (INS.encode(), None),
    "base-half-written": (_line().encode()[:40], None),
    "base-only": (_line().encode(), 1),
    "base-then-edit": ((_line() + "\n" + INS).encode(), 2),
    "edit-half-written": ((_line() + "\n" + INS[:20]).encode(), 1),
    "edit-index-too-far": ((_line() + "\n" + INS.replace('"i": 0', '"i": 99')).encode(), 1),
    "remove-missing-item": ((_line() + '\n{"op": "rm", "k": "blocks", "i": 3}').encode(), 1),
    "unknown-op": ((_line() + '\n{"op": "explode"}').encode(), 1),
    "edit-a-list": ((_line() + "\n[1, 2]").encode(), 1),
    "reset-to-nothing": ((_line() + '\n{"op": "reset", "items": {}}').encode(), None),
    "clean-close": ((_line() + '\n{"op": "closed"}').encode(), None),
    "saved-then-nothing": ((_line() + '\n{"op": "saved"}').encode(), None),
    "zero-items": (_line(items={"must_link": [], "cannot_link": [], "blocks": []}).encode(), None),
    "not-dirty": (_line(dirty=False).encode(), None),
    "bad-utf8-edit": (_line().encode() + b"\n\xff\xfe\n", 1),
}


@pytest.mark.parametrize("case", list(JOURNALS))
def test_a_corrupt_or_hand_edited_journal(case, tmp_path):
    data, offered = JOURNALS[case]
    folder = tmp_path / "sessions" / "x"
    folder.mkdir(parents=True)
    (folder / "journal-1.jsonl").write_bytes(data)
    found = journal.unfinished_sessions(tmp_path / "sessions")
    if offered is None:
        assert found == []
    else:
        (s,) = found
        assert sum(len(v) for v in s["items"].values()) == offered


def test_the_newest_whole_generation_wins_over_a_half_written_one(tmp_path):
    folder = tmp_path / "s"
    folder.mkdir()
    (folder / "journal-1.jsonl").write_text(_line() + "\n" + INS)
    (folder / "journal-2.jsonl").write_bytes(_line().encode()[:30])  # killed while compacting
    assert sum(len(v) for v in journal.read_session(folder)["items"].values()) == 2


def test_a_stale_generation_is_never_offered(tmp_path):
    folder = tmp_path / "sessions" / "s"
    folder.mkdir(parents=True)
    (folder / "journal-1.stale").write_text(_line() + "\n" + INS)
    assert journal.unfinished_sessions(tmp_path / "sessions") == []


def test_a_session_of_a_running_instance_is_not_offered(tmp_path):
    import os
    import subprocess
    import sys

    p = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    try:
        folder = tmp_path / "sessions" / "s"
        folder.mkdir(parents=True)
        owner = {"pid": p.pid, "start": journal._start_time(p.pid)}
        (folder / "journal-1.jsonl").write_text(_line(owner=owner))
        assert journal.unfinished_sessions(tmp_path / "sessions") == []
        p.kill()
        p.wait()
        assert len(journal.unfinished_sessions(tmp_path / "sessions")) == 1  # its owner is gone
    finally:
        p.kill()
        p.wait()
    assert os.getpid() != p.pid


# name -> (settings dict as stored, what the note names)
SETTINGS = {
    "n-segments-word": ({"n_segments": "two"}, "n_segments 'two'"),
    "n-segments-one": ({"n_segments": 1}, "n_segments 1"),
    "n-segments-float": ({"n_segments": 2.5}, "n_segments 2.5"),
    "n-segments-true": ({"n_segments": True}, "n_segments True"),
    "n-segments-huge": ({"n_segments": 10**100}, "n_segments 1000"),
    "method-unknown": ({"method": "magic"}, "unknown method 'magic'"),
    "method-number": ({"method": 7}, "unknown method 7"),
    "beta-text": ({"method_params": {"csp": {"beta": "abc"}}}, "beta = 'abc' dropped"),
    "beta-a-list": ({"method_params": {"csp": {"beta": [1]}}}, "beta = \\[1\\] dropped"),
    "beta-nan": ({"method_params": {"csp": {"beta": float("nan")}}}, "beta = nan dropped"),
    "param-unknown": ({"method_params": {"csp": {"gamma2": 1}}}, "'gamma2' is unknown"),
    "params-of-unknown-method": ({"method_params": {"magic": {"x": 1}}}, "unknown method 'magic'"),
    "method-params-a-list": ({"method_params": [1, 2]}, "method_params is not a table"),
    "rep-params-a-string": ({"rep_params": "max_nodes=5"}, "rep_params is not a table"),
    "max-nodes-text": ({"rep_params": {"max_nodes": "lots"}}, "max_nodes = 'lots' dropped"),
    "max-nodes-zero": ({"rep_params": {"max_nodes": 0}}, "max_nodes = 0 dropped"),
    "representation-unknown": ({"rep_params": {"representation": "hexagons"}}, "representation = 'hexagons'"),
    "sigma-a-list": ({"rep_params": {"sigma_position": [1]}}, "sigma_position = \\[1\\] dropped"),
}


@pytest.mark.parametrize("case", list(SETTINGS))
def test_a_bad_saved_setting_is_dropped_by_name(qapp, case):
    import re

    data, named = SETTINGS[case]
    model = SessionModel()
    notes = persistence.restore_settings(model, data)
    assert any(re.search(named, n) for n in notes), notes
    assert model.n_segments == 2 and model.method == "csp" and model.params == {}  # the defaults


@pytest.mark.parametrize("stored", ["{not json", "[" * 100_000, "null", "5"])
def test_unreadable_persisted_parameters_fall_back(qapp, stored):
    st = persistence.settings()
    st.clear()
    st.setValue("method_params", stored)
    model = SessionModel()
    notes = persistence.load_settings(model)
    assert model.params == {} and (notes or stored == "null")
    st.clear()
