"""Labels from an embedding: k-means (NJW), Yu & Shi's discretisation, or the sign of a
vector. Every method's last step goes through :func:`assign_labels`."""

from __future__ import annotations

import warnings

import numpy as np

from .._threads import one_thread
from .discretize import yu_shi
from .linalg import row_normalize

RULES = ("kmeans", "yu-shi", "sign")


def kmeans_labels(E: np.ndarray, n_clusters: int, rng) -> np.ndarray:
    """k-means on the rows of ``E`` (scikit-learn, 10 restarts)."""
    from sklearn.cluster import KMeans

    if E.shape[0] <= n_clusters:
        return np.arange(E.shape[0]) % n_clusters
    with warnings.catch_warnings(), one_thread():
        warnings.simplefilter("ignore")  # sklearn's "fewer distinct points than clusters"
        km = KMeans(n_clusters=n_clusters, n_init=10, random_state=rng).fit(E)
    return km.labels_.astype(np.int64)


def assign_labels(embedding: np.ndarray, n_clusters: int, rng, rule: str = "kmeans", *,
                  normalize_rows: bool = True) -> tuple[np.ndarray, str]:
    """Discretise an embedding into ``n_clusters`` labels.

    Parameters
    ----------
    embedding : ndarray, shape (n, m)
        The vectors to cluster (NJW: the top ``K`` eigenvectors of ``D^-1/2 A D^-1/2``;
        Yu & Shi: eigenvectors of ``D^-1 A``; sign: ``u*`` in the first column).
    n_clusters : int
    rng : numpy.random.RandomState
    rule : {'kmeans', 'yu-shi', 'sign'}
        ``'kmeans'``: k-means on the rows (unit length first when ``normalize_rows``, Ng,
        Jordan & Weiss 2001). ``'yu-shi'``: Yu & Shi's (2003) optimal discretisation.
        ``'sign'``: the sign of the first column (two segments, Shi & Malik 2000 /
        Wang & Davidson 2010 sec. 5.2), and 1-D 2-means on it when it has one sign
        everywhere (the sign then gives no cut).

    Returns
    -------
    labels : ndarray, shape (n,), int64
    used : str
        The rule that produced the labels (``'2-means'`` when ``'sign'`` fell back).
    """
    if rule == "sign":
        labels = (embedding[:, 0] > 0).astype(np.int64)
        if labels.min() != labels.max():
            return labels, "sign"
        return kmeans_labels(embedding[:, :1], 2, rng), "2-means"
    if rule == "yu-shi":
        return yu_shi(embedding, rng), "yu-shi"
    if rule == "kmeans":
        E = row_normalize(embedding) if normalize_rows else embedding
        return kmeans_labels(E, n_clusters, rng), "kmeans"
    raise ValueError(f"unknown rule {rule!r}; valid: {', '.join(RULES)}")
