"""The four solvers of csp's pencil (Wang & Davidson 2010, eq. 15), chosen by
:func:`core.methods.csp.solve_csp` by the form of ``Q_bar`` and the graph's size; none
approximates."""

from __future__ import annotations

import numpy as np
import scipy.linalg as sl
import scipy.sparse.linalg as sla
from scipy.optimize import brentq

from .._threads import one_blas_thread
from ..errors import ConvergenceError
from ..graph.cache import memo
from ..spectral import top_eigh
from ..spectral.sandwich import new_holder, sandwich

def _cholesky(M: np.ndarray):
    try:
        return sl.cho_factor(M)
    except sl.LinAlgError:
        raise ConvergenceError("csp: the Laplacian is singular beyond its trivial vector "
                               "(disconnected graph); widen the affinity (sigma_position / gamma)") from None


ROOTS_MAX_RANK = 64  # Q_bar of at most this rank: the secular solver (_by_roots)
# Q_bar of higher rank on a graph of at most this many nodes: the pencil made standard by
# L_bar's cached spectrum (_by_congruence); larger graphs: ARPACK (_by_arpack). At 707 nodes
# and 100 strokes 43 ms against ARPACK's 79 (median of 15 strokes, one BLAS thread); the dense
# solve grows as n^3 and ARPACK's as n^2 per iteration.
CONGRUENCE_MAX_NODES = 1000


def spectrum(g: dict) -> tuple[np.ndarray, np.ndarray]:
    """Eigendecomposition of ``L_bar`` with the trivial vector ``z`` exact and last.

    ``L_bar + 4 z z^T`` moves ``z``'s eigenvalue to 4, above every other (``L_bar``'s
    spectrum lies in [0, 2]), so LAPACK returns the rest orthogonal to ``z``; ``z`` is then
    put in exactly, with eigenvalue 0. The others get the 1e-10 ridge of ``Mmat``.

    Returns
    -------
    lam : ndarray, shape (n,)
    U : ndarray, shape (n, n)
        Orthonormal; ``U[:, -1] = z``.
    """
    z = g["z"]
    with one_blas_thread():
        lam, U = sl.eigh(g["Lbar"] + 4.0 * np.outer(z, z))
    lam = np.maximum(lam, 0.0) + 1e-10
    lam[-1], U[:, -1] = 0.0, z
    return lam, U


def _by_spectrum(g, cache, c, k):
    """``Q_bar = I``: ``B = (1 - c) I``, so eq. 15's vectors are ``L_bar``'s own, ``mu = (1 - c) / lambda``."""
    lam, U = memo(cache, ("csp-spectrum",), lambda: spectrum(g))
    return (1.0 - c) / lam[:k], U[:, :k], None


def _by_roots(g, cache, Qbar, T, c, zBz, k):
    """The ``k`` largest ``mu`` of ``B w = mu L_bar w`` by a secular equation of Q_bar's rank.

    With ``Q_bar = F S F^T`` (``F`` orthonormal, ``r`` columns, ``S`` the non-zero
    eigenvalues), eq. 15 reads ``Q_bar v = H(mu) v``, ``H(mu) = c I + mu L_bar``
    (positive definite for ``mu >= 0``). Then ``p = S F^T v`` satisfies
    ``T(mu) p = 0``, ``T(mu) = F^T H(mu)^-1 F - S^-1`` (r x r), and ``v = H(mu)^-1 F p``;
    with ``L_bar = U diag(lambda) U^T`` (cached per graph) ``F^T H^-1 F`` costs ``O(r^2 n)``.
    Every eigenvalue of ``T`` is non-increasing in ``mu`` (``H^-1`` decreases), and by
    Sylvester's law of inertia the number of eigenvalues of ``T(mu)`` above zero, less the
    negative ones of ``S``, counts the eq. 15 eigenvalues above ``mu``. So the j-th largest
    feasible ``mu`` is where one known eigenvalue of ``T`` crosses zero: bracketed on a
    grid of steps e^2 and found by Brent's method to machine precision. Roots that coincide
    share the null space of ``T`` there. Exact (no approximation), like the ARPACK path.
    """
    lam, U = memo(cache, ("csp-spectrum",), lambda: spectrum(g))
    s, R = np.linalg.eigh(Qbar[T][:, T].toarray())
    keep = np.abs(s) > 1e-12 * np.abs(s).max()
    s, R = s[keep], R[:, keep]
    W = R.T @ U[T]  # F^T U, (r, n)
    inv_s = np.diag(1.0 / s)
    r_neg = int(np.sum(s < 0))
    n_top = r_neg + (1 if zBz > 0 else 0)  # eigenvalues of T above zero as mu -> infinity
    n_roots = int(np.sum(s > c)) - (1 if zBz > 0 else 0)
    k = min(k, max(n_roots, 0))
    if k == 0:
        return np.zeros(0), np.zeros((U.shape[0], 0)), max(n_roots, 0)

    def Tm(x):
        return (W / (c + np.exp(x) * lam)) @ W.T - inv_s

    def taus(x):
        return np.linalg.eigvalsh(Tm(x))[::-1]  # descending

    seen = {0.0: taus(0.0)}  # log mu -> descending eigenvalues of T
    hi = 0.0
    while np.sum(seen[hi] > 0) > n_top:  # mu up by e^2 until only n_top stay above zero
        if hi >= 120.0:
            raise ConvergenceError("csp: eq. 15's largest eigenvalue could not be bracketed")
        hi += 2.0
        seen[hi] = taus(hi)
    lo = 0.0
    while np.sum(seen[lo] > 0) < n_top + k:  # mu down until the k wanted ones are above zero
        if lo <= -120.0:  # the rest have mu < e^-120 (lambda > e^120): not computable, left out
            k = int(np.sum(seen[lo] > 0)) - n_top
            if k <= 0:
                return np.zeros(0), np.zeros((U.shape[0], 0)), max(n_roots, 0)
            break
        lo -= 2.0
        seen[lo] = taus(lo)
    grid = np.array(sorted(seen))
    tau = np.array([seen[x] for x in grid])
    xs = []
    for m in range(n_top, n_top + k):
        i = max(int(np.argmax(tau[:, m] <= 0)), 1)  # tau[0, m] > 0 by the bracket
        xs.append(grid[i] if tau[i, m] == 0 else
                  brentq(lambda x: taus(x)[m], grid[i - 1], grid[i], xtol=1e-13, rtol=4 * np.finfo(float).eps))
    xs = np.asarray(xs)
    V = np.empty((U.shape[0], k))
    j = 0
    while j < k:  # groups of coinciding roots share T's null space
        g_end = j + 1
        while g_end < k and abs(xs[g_end] - xs[j]) < 1e-8:
            g_end += 1
        x = xs[j:g_end].mean()
        w, P = np.linalg.eigh(Tm(x))
        P = P[:, ::-1][:, n_top + j:n_top + g_end]
        V[:, j:g_end] = U @ ((W.T @ P) / (c + np.exp(x) * lam)[:, None])
        xs[j:g_end] = x
        j = g_end
    return np.exp(xs), V, n_roots


def _by_congruence(g, cache, Qbar, T, Bz, zBz, c, k):
    """The ``k`` largest ``mu`` of the definite pencil ``B_s w = mu (L_bar + z z^T) w`` by a
    congruence with ``L_bar``'s cached spectrum and one dense LAPACK solve (Q_bar of high
    rank on a graph of at most :data:`CONGRUENCE_MAX_NODES` nodes).

    With ``L_bar = U diag(lambda) U^T`` (:func:`spectrum`; ``z`` its last column) write
    ``w = U_1 diag(lambda_1)^-1/2 y``, ``U_1`` the columns other than ``z`` (``w`` is
    orthogonal to ``z``). Then ``w^T (L_bar + z z^T) w = y^T y`` and the pencil becomes the
    standard symmetric problem ``C y = mu y`` of order ``n - 1``,

        C = diag(lambda_1)^-1/2 (U_1^T Q_bar U_1 - c I - b b^T / z^T B z) diag(lambda_1)^-1/2,
        b = U_1^T B z,

    since ``U_1^T P = U_1^T`` (``P = I - z z^T``) turns ``B_s`` into
    ``U_1^T B U_1 - b b^T / z^T B z``. ``U_1^T Q_bar U_1`` reads only the rows ``T`` that
    ``Q_bar`` touches, and in a session only those the stroke changed
    (:func:`core.spectral.sandwich.sandwich`, kept per graph under ``csp-projected``). Exact like the other solvers; the returned ``w`` are
    ``(L_bar + z z^T)``-orthonormal, as ARPACK's.
    """
    lam, U = memo(cache, ("csp-spectrum",), lambda: spectrum(g))
    U1, lam1 = U[:, :-1], lam[:-1]
    s = 1.0 / np.sqrt(lam1)
    b = U1.T @ Bz
    C = sandwich(U.T[:-1], Qbar, memo(cache, ("csp-projected",), new_holder) if cache is not None else None).copy()
    C -= np.outer(b, b / zBz)
    C[np.diag_indices_from(C)] -= c
    C *= s[:, None]
    C *= s[None, :]
    m = C.shape[0]
    with one_blas_thread():
        mu, Y = sl.eigh(C, subset_by_index=(m - k, m - 1), overwrite_a=True, check_finite=False)
    return mu[::-1], U1 @ (Y[:, ::-1] * s[:, None]), None


def _by_arpack(g, cache, Bs, n, k, z):
    """ARPACK in mode 2 on ``B_s w = mu (L_bar + z z^T) w`` with a Cholesky factor (Q_bar of high rank)."""
    Mmat = g["Mmat"]
    cho = memo(cache, ("csp-cholesky",), lambda: _cholesky(Mmat))
    op = sla.LinearOperator((n, n), matvec=lambda x: Bs(x).ravel(), matmat=Bs, dtype=float)
    Minv = sla.LinearOperator((n, n), matvec=lambda x: sl.cho_solve(cho, x, check_finite=False),
                              dtype=float)
    mu, W = top_eigh(op, k, M=Mmat, Minv=Minv, v0=np.ones(n) - z * z.sum(), tol=1e-9, maxiter=300,
                     fix=False)
    return mu, W, None
