"""``B M B^T`` for a sparse constraint matrix ``M``, updated stroke by stroke.

Two methods project their constraint matrix with a dense matrix the strokes do not change:
csp's dense solve forms ``U_1^T Q_bar U_1`` (``U_1`` of ``L_bar``'s spectrum, eq. 15) and
e2cp's closed form ``(I - a L~)^-1 Z (I - a L~)^-1`` (eq. 3). Formed afresh, either costs
``|T| n^2`` (``T`` the constrained nodes: 558 of 707 after 100 strokes on 100075.jpg,
~20 ms). A stroke changes ``M`` on the rows ``R`` of its two ends' nodes only (about 30),
so with the last call's ``M`` and product kept the new product is the old one plus
``B[:, R] (M - M_old)[R, R] B[:, R]^T``, ``|R| n^2``: exact algebra, equal to the fresh
product up to rounding (about 1e-14; tested over long sessions), as gp-propagation's kernel
is updated with a stroke's links (:func:`core.methods.gp_propagation.posterior`).
"""

from __future__ import annotations

import threading

import numpy as np

MAX_CHANGED = 0.25  # update where at most this share of the nodes changed rows; else afresh
REFRESH = 64  # updates in a row before the product is formed afresh (rounding does not build up)


def new_holder() -> dict:
    """A mutable holder for :func:`sandwich`'s last call (kept in a graph's cache)."""
    return {"lock": threading.Lock()}


def sandwich(B: np.ndarray, M, last: dict | None = None) -> np.ndarray:
    """``B M B^T``, reading only the columns of ``B`` at ``M``'s non-zero rows.

    Parameters
    ----------
    B : ndarray, shape (m, n)
        A cached array (or the same view of one) from call to call while it holds; a view
        of another array means another basis and the product is formed afresh.
    M : sparse matrix, shape (n, n)
        Symmetric.
    last : dict, optional
        :func:`new_holder`'s holder. With it the product is updated from the last call's
        where at most :data:`MAX_CHANGED` of the nodes changed rows, fewer than ``M`` has
        (an undo down to a few links is formed afresh, cheaper), and fewer than
        :data:`REFRESH` updates ran in a row; the call's ``M`` and product are kept
        (``last['was'][2]`` counts the updates in a row, 0 for a fresh product), and so is
        the array ``B`` views, to know it again (it stays alive while the holder does).
        ``None``: formed afresh.

    Returns
    -------
    ndarray, shape (m, m)
        Read-only when ``last`` is given (copy before changing it). Not exactly symmetric
        (rounding); callers use one triangle or symmetrise.
    """
    M = M.tocsr()

    def fresh():
        T = np.unique(M.nonzero()[0])
        BT = B[:, T]
        return BT @ (M[T][:, T] @ BT.T)

    if last is None:
        return fresh()
    with last["lock"]:
        was = last.get("was")
    P, updates = None, 0
    if was is not None and _same(was[3], _signature(B)) and was[0].shape == M.shape and was[2] < REFRESH:
        D = (M - was[0]).tocsr()
        D.eliminate_zeros()
        R = np.unique(D.nonzero()[0])
        if len(R) <= MAX_CHANGED * M.shape[0] and len(R) < np.count_nonzero(np.diff(M.indptr)):
            BR = B[:, R]
            P, updates = was[1] + BR @ (D[R][:, R] @ BR.T), was[2] + 1
    if P is None:
        P = fresh()
    P.flags.writeable = False
    with last["lock"]:
        last["was"] = (M.copy(), P, updates, _signature(B))
    return P


def _signature(B: np.ndarray) -> tuple:
    """The array ``B`` views (kept alive, so its identity is not reused), and the view."""
    owner = B if B.base is None else B.base
    return owner, B.shape, B.strides, B.__array_interface__["data"][0]


def _same(a: tuple, b: tuple) -> bool:
    return a[0] is b[0] and a[1:] == b[1:]
