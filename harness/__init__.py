"""harness: benchmark GPU compute kernels on many backends from one description."""

__version__ = "0.1.0"
