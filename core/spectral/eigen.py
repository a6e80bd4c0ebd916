"""The one eigensolver entry: LAPACK for small problems, ARPACK above, LAPACK again when
ARPACK does not converge (with a :class:`~core.errors.ConvergenceWarning`)."""

from __future__ import annotations

import warnings

import numpy as np
import scipy.linalg as sl
import scipy.sparse as sp
import scipy.sparse.linalg as sla

from .._threads import one_blas_thread
from ..errors import ConvergenceWarning
from .linalg import fix_signs

DENSE_BELOW = 400  # below this many nodes LAPACK is faster than ARPACK and always converges


def _dense(S, M, k, which):
    n = S.shape[0]
    if isinstance(S, sla.LinearOperator):
        S = S @ np.eye(n)
    elif sp.issparse(S):
        S = S.toarray()
    S = (S + S.T) / 2.0
    if M is not None and sp.issparse(M):
        M = M.toarray()
    idx = (n - k, n - 1) if which == "LA" else (0, k - 1)
    return sl.eigh(S, M, subset_by_index=idx)


def top_eigh(S, k: int, *, which: str = "LA", M=None, Minv=None, v0=None, tol: float = 1e-8,
             maxiter: int | None = None, dense_below: int = DENSE_BELOW, fix: bool = True):
    """Largest (``which='LA'``) or smallest (``'SA'``) ``k`` eigenpairs of ``S v = w M v``.

    Parameters
    ----------
    S : ndarray, sparse matrix or LinearOperator, shape (n, n)
        Symmetric.
    k : int
    which : {'LA', 'SA'}
    M : ndarray or sparse matrix, optional
        Symmetric positive definite right-hand side (a generalised problem); ARPACK then
        also needs ``Minv`` (a LinearOperator applying ``M^-1``).
    v0 : ndarray, shape (n,), optional
        ARPACK's start vector (default: a fixed pseudo-random vector, for reproducibility; the
        constant vector can lie in an invariant subspace, e.g. of a graph with several
        components, where ARPACK cannot build its Arnoldi factorisation).
    dense_below : int
        Problems with at most this many rows go to LAPACK directly.
    fix : bool
        Fix eigenvector signs (:func:`~core.spectral.linalg.fix_signs`).

    Returns
    -------
    w : ndarray, shape (k,)
        Descending for ``'LA'``, ascending for ``'SA'``.
    V : ndarray, shape (n, k)
    """
    n = S.shape[0]
    k = int(min(k, n))
    if n <= dense_below or k >= n - 1:
        with one_blas_thread():  # at most dense_below rows: small (core._threads)
            w, v = _dense(S, M, k, which)
    else:
        try:
            start = np.random.RandomState(0).uniform(0.5, 1.5, n) if v0 is None else v0
            with one_blas_thread():  # small products: a second thread only contends (core._threads)
                w, v = sla.eigsh(S, k=k, M=M, Minv=Minv, which=which, v0=start, tol=tol,
                                 maxiter=maxiter or max(1000, 20 * n))
        except (sla.ArpackNoConvergence, sla.ArpackError) as e:
            warnings.warn(f"ARPACK failed ({' '.join(str(e).split()[:6])}…); the eigenvectors were "
                          "computed densely instead", ConvergenceWarning, stacklevel=3)
            w, v = _dense(S, M, k, which)
    order = np.argsort(-w) if which == "LA" else np.argsort(w)
    w, v = w[order], v[:, order]
    return w, (fix_signs(v) if fix else v)
