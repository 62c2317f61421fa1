"""density(): numpy's histogram(..., density=True) of a Histogram's counts."""

from __future__ import annotations

import numpy as np


def density_of(counts: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """counts (..., bins) as a probability density over `edges`, as numpy's density=True: each
    count divided by the bins' total and by its bin's width, so that each histogram integrates
    to 1 over its bins. Samples outside the bins (below, above, NaN) are not in the total, as
    numpy leaves out values outside its range. NaN where a histogram has no sample in its bins."""
    counts = np.asarray(counts, dtype=np.float64)
    totals = counts.sum(axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        return counts / totals / np.diff(np.asarray(edges, dtype=np.float64))


def histogram_density(self) -> np.ndarray:
    """numpy's density=True: counts / (the channel's samples in the bins x the bin's width), shape
    (channels, bins) for a Histogram and (bins,) for one channel, each channel integrating to 1
    over the edges; NaN for a channel with no sample in its bins. The counts stay exact."""
    return density_of(self.counts, self.edges)


def batch_density(self) -> np.ndarray:
    """numpy's density=True of every image, shape (N, channels, bins) (see Histogram.density)."""
    counts = self.counts
    if len(self) == 0:
        return counts.astype(np.float64)
    return density_of(counts, self[0].edges)
