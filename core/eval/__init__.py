"""Measuring segmentations: agreement metrics (:mod:`.metrics`), the BSDS500 layout
(:mod:`.bsds`), the simulated user (:mod:`.simulate`) and the baselines it is read against
(:mod:`.baselines`)."""
