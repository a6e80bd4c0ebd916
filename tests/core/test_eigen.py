"""core.spectral.eigen.top_eigh: LAPACK below the threshold, ARPACK above, and LAPACK again
with a ConvergenceWarning when ARPACK does not converge (forced here by maxiter=1)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg as sl
import scipy.sparse as sp
import scipy.sparse.linalg as sla

from segapp.core.errors import ConvergenceWarning
from segapp.core.spectral import n_components
from segapp.core.spectral.eigen import top_eigh


def _sym(n, rng):
    a = rng.rand(n, n)
    return (a + a.T) / 2


def _same_subspace(V, W):
    """Columns of V and W span the same space (eigenvectors are defined up to sign)."""
    return np.allclose(np.abs(V.T @ W), np.eye(V.shape[1]), atol=1e-6)


@pytest.mark.parametrize("which", ["LA", "SA"])
def test_arpack_non_convergence_falls_back_to_lapack(which, rng):
    S = _sym(80, rng)
    with pytest.warns(ConvergenceWarning, match="ARPACK failed"):
        w, V = top_eigh(sp.csr_matrix(S), 3, which=which, dense_below=0, maxiter=1, tol=1e-15)
    ref = np.linalg.eigvalsh(S)
    expected = ref[::-1][:3] if which == "LA" else ref[:3]
    assert np.allclose(w, expected)
    assert np.allclose(S @ V, V * w, atol=1e-8)


def test_generalised_operator_fallback(rng):
    """The csp path: S a LinearOperator, M positive definite with its inverse as an operator."""
    n = 60
    S = _sym(n, rng)
    B = rng.rand(n, n)
    M = B @ B.T + n * np.eye(n)
    op = sla.LinearOperator((n, n), matvec=lambda x: S @ x, matmat=lambda X: S @ X, dtype=float)
    Minv = sla.LinearOperator((n, n), matvec=lambda x: np.linalg.solve(M, x), dtype=float)
    with pytest.warns(ConvergenceWarning):
        w, V = top_eigh(op, 2, M=M, Minv=Minv, dense_below=0, maxiter=1, tol=1e-15, fix=False)
    ref_w, ref_V = sl.eigh(S, M)
    assert np.allclose(w, ref_w[::-1][:2])
    assert np.allclose(S @ V, (M @ V) * w, atol=1e-8)


def test_arpack_and_lapack_agree_when_arpack_converges(rng):
    S = _sym(120, rng)
    w1, V1 = top_eigh(sp.csr_matrix(S), 4, dense_below=0)
    w2, V2 = top_eigh(S, 4, dense_below=1000)
    assert np.allclose(w1, w2) and _same_subspace(V1, V2)
    # signs fixed the same way on both paths
    assert np.allclose(V1, V2, atol=1e-6)



def test_an_arpack_error_falls_back_to_lapack(monkeypatch):
    """ARPACK's error -9999 (no Arnoldi factorisation, seen on a graph whose components made
    the start vector invariant) is not a non-convergence: it too falls back to LAPACK."""
    from segapp.core.spectral import eigen

    def broken(*args, **kwargs):
        raise sla.ArpackError(-9999)

    rng = np.random.RandomState(0)
    A = rng.rand(60, 60)
    S = A + A.T
    monkeypatch.setattr(eigen.sla, "eigsh", broken)
    with pytest.warns(ConvergenceWarning, match="ARPACK failed"):
        w, V = eigen.top_eigh(S, 3, dense_below=10)
    assert np.allclose(w, np.linalg.eigvalsh(S)[::-1][:3])


@pytest.mark.parametrize("seed", range(5))
def test_n_components_matches_scipy_on_dense_and_sparse(seed):
    """The dense fast path (a node joined to all others) gives scipy's component count."""
    from scipy.sparse.csgraph import connected_components


    rng = np.random.RandomState(seed)
    for _ in range(300):
        n = rng.randint(1, 10)
        A = (rng.rand(n, n) < rng.rand()).astype(float)
        A = np.maximum(A, A.T)
        if rng.rand() < 0.5:
            np.fill_diagonal(A, 0.0)
        want = connected_components(sp.csr_matrix(A > 0), directed=False)[0]
        assert n_components(A) == want
        assert n_components(sp.csr_matrix(A)) == want


def test_n_components_two_blocks_and_a_hub():
    A = np.kron(np.eye(2), np.ones((3, 3)))  # two triangles with self-loops: 2 parts
    assert n_components(A) == 2
    A[0, :] = A[:, 0] = 1.0  # node 0 joined to every node: 1 part
    assert n_components(A) == 1


def test_arpack_runs_with_one_blas_thread(monkeypatch, rng):
    """ARPACK's small products run on one BLAS thread (core._threads), whatever the default."""
    from threadpoolctl import threadpool_info

    seen = []
    real = sla.eigsh

    def spy(*a, **k):
        seen.append([i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"])
        return real(*a, **k)

    monkeypatch.setattr(sla, "eigsh", spy)
    S = _sym(500, rng)
    w, V = top_eigh(S, 3, dense_below=100)
    assert seen and all(n == 1 for n in seen[0])
    assert np.allclose(S @ V, V * w, atol=1e-6)
