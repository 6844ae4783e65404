"""Errors of the tray calibration.

Exception tree::

    CalibrationError (ValueError)
"""

from __future__ import annotations


class CalibrationError(ValueError):
    """A calibration photo without a findable tray, or a file that is not a tray profile."""
