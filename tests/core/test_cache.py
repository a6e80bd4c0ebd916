"""What does not change between strokes is computed once, and a cached result is the cold one."""

import warnings

import numpy as np
import pytest

from segapp import core
from segapp.core.graph import representation


def _image(seed=0, h=72, w=96):
    """Four colour regions with noise: a graph of a few hundred nodes."""
    rng = np.random.RandomState(seed)
    img = np.zeros((h, w, 3))
    img[:, w // 2:, 0] = 0.8
    img[h // 2:, :, 1] = 0.7
    img[h // 3: 2 * h // 3, w // 3: 2 * w // 3, 2] = 0.9
    return np.clip(img + 0.05 * rng.randn(h, w, 3), 0, 1)


STROKES = [
    core.Constraints(must_link=[(5, 5, 60, 10)]),
    core.Constraints(must_link=[(5, 5, 60, 10)], cannot_link=[(5, 5, 10, 90)]),
    core.Constraints(must_link=[(5, 5, 60, 10), (30, 40, 35, 60)], cannot_link=[(5, 5, 10, 90), (60, 80, 10, 80)]),
]
SMALL = {"max_nodes": 120, "ap_nodes": 120}


def _params(method):
    return {p: v for p, v in SMALL.items() if p != "ap_nodes" or method == "ssap"}


def _segment(image, cons, method, k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return core.segment(image, cons, method=method, n_segments=k, **_params(method))


@pytest.mark.parametrize("method", list(core.METHODS))
@pytest.mark.parametrize("k", [2, 3])
def test_a_cached_result_is_the_cold_one(method, k):
    img = _image()
    if method in ("gp-propagation", "e2cp"):
        # its K_bar is the last one updated with each stroke's links (gp_propagation.posterior),
        # e2cp's F* the last one updated with the rows a stroke changed (spectral.sandwich),
        # the cold one to rounding (1e-14): on a graph of regions with no affinity between
        # them (this image at full contrast) the spectrum is 0 several times over, any basis
        # of that space is the eigenvectors and rounding picks one; at half contrast the
        # eigenvalues stand apart and the cache is what is tested
        img = 0.5 + 0.5 * (img - 0.5)
    prep = core.prepare(img, method=method, **_params(method))
    for cons in STROKES:  # stroke after stroke on one prepared image, caches warm
        warm = _segment(prep, cons, method, k)
    representation._CACHE.clear()  # nothing kept: every part computed afresh
    cold = _segment(img.copy(), STROKES[-1], method, k)
    assert cold.representation is not warm.representation
    np.testing.assert_array_equal(warm.node_labels, cold.node_labels)
    np.testing.assert_allclose(warm.node_embedding, cold.node_embedding, atol=1e-6)


@pytest.mark.parametrize("method, built_once", [("ncut", "spectrum"), ("csp", "csp-spectrum"),
                                                ("e2cp", "e2cp-graph"), ("rom", "rom-eigh"),
                                                ("ssap", "ssap-similarity")])
def test_strokes_reuse_the_affinity_and_the_factorisations(method, built_once):
    prep = core.prepare(_image(1), method=method, **_params(method))
    rep = prep.representations()[0]
    assert rep.cache.builds["affinity"] == 1
    for cons in STROKES:
        seg = _segment(prep, cons, method, 2)
    assert (seg.representation if seg.refinement is None else seg.refinement.base) is rep
    assert rep.cache.builds["affinity"] == 1
    assert rep.cache.builds[built_once] == 1


def test_a_new_setting_builds_a_new_affinity_and_cached_arrays_are_read_only():
    prep = core.prepare(_image(2), **_params("csp"))
    rep = prep.representations()[0]
    _segment(prep, STROKES[0], "csp", 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        core.segment(prep, STROKES[0], method="csp", **{**_params("csp"), "sigma_position": 0.12})
    assert rep.cache.builds["affinity"] == 2
    K = next(v for k, v in rep.cache._store.items() if k[0] == "affinity")
    with pytest.raises(ValueError):
        K[0, 0] = 0.0


def test_prepare_checks_the_image():
    with pytest.raises(core.InvalidImageError):
        core.prepare(np.zeros((0, 4)))


def test_rom_keeps_eq8_mean_distance_per_features():
    """rom's eq. 8 denominator is computed once per features: with the boundary graph the
    affinity does not depend on sigma_position but the features do, and alpha follows them."""
    params = {**_params("rom"), "affinity": "boundary"}
    prep = core.prepare(_image(3), method="rom", **params)
    rep = prep.representations()[0]

    def seg(image, **extra):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return core.segment(image, STROKES[-1], method="rom", **{**params, **extra})

    for cons in STROKES:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            core.segment(prep, cons, method="rom", **params)
    assert rep.cache.builds["rom-mean-distance"] == 1
    warm = seg(prep, sigma_position=0.3)
    assert rep.cache.builds["rom-mean-distance"] == 2
    representation._CACHE.clear()
    cold = seg(_image(3), sigma_position=0.3)
    assert warm.info["alpha"] == cold.info["alpha"] != seg(prep).info["alpha"]
