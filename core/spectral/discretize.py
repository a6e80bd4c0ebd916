"""Yu & Shi (2003) multiclass spectral clustering: optimal discretisation of eigenvectors."""

from __future__ import annotations

import numpy as np


def yu_shi(vectors: np.ndarray, rng, max_iter: int = 30) -> np.ndarray:
    """Discretise ``K`` continuous indicator vectors into ``K`` labels.

    Parameters
    ----------
    vectors : ndarray, shape (n, K)
        Eigenvectors of ``D^-1 A`` (the largest ``K``).
    rng : numpy.random.RandomState
        Picks the first row of the initial rotation.

    Returns
    -------
    labels : ndarray, shape (n,)

    Notes
    -----
    Rows are normalised to unit length (``X~``); an orthonormal ``R`` is initialised with
    ``K`` mutually most orthogonal rows; then alternate ``X = onehot(argmax(X~ R))`` and
    ``R = U V^T`` from the SVD of ``X^T X~`` until the objective ``tr(S)`` stops rising
    (Yu & Shi, "Multiclass spectral clustering", ICCV 2003).
    """
    n, k = vectors.shape
    Xt = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-300)
    if k == 1:
        return np.zeros(n, np.int64)
    R = np.zeros((k, k))
    R[:, 0] = Xt[rng.randint(n)]
    c = np.zeros(n)
    for j in range(1, k):
        c += np.abs(Xt @ R[:, j - 1])
        R[:, j] = Xt[np.argmin(c)]
    last = 0.0
    labels = np.zeros(n, np.int64)
    for _ in range(max_iter):
        labels = np.argmax(Xt @ R, axis=1)
        Xd = np.zeros((n, k))
        Xd[np.arange(n), labels] = 1.0
        U, s, Vt = np.linalg.svd(Xd.T @ Xt)
        ncut = float(s.sum())
        if abs(ncut - last) < 1e-12 * max(1.0, ncut):
            break
        last = ncut
        R = (U @ Vt).T
    return labels.astype(np.int64)
