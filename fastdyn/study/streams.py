"""The random streams of a study: sample s is drawn from the stream of its block of BLOCK
samples, ``np.random.default_rng([seed, s // BLOCK])``, so every sample depends on (seed, s)
alone, whichever process or Dask task computes it (fastdyn/study/__init__.py says more)."""

BLOCK = 1024  # samples per random stream
