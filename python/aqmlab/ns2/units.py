"""The unit readers of :mod:`aqmlab.units`, under the name the ns-2 translator's users import."""

from aqmlab.units import duration_ns, duration_s, rate_bps, size_bytes

__all__ = ["duration_ns", "duration_s", "rate_bps", "size_bytes"]
