"""Fixtures of the calibration tests."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest
from tray_drawing import project_rect


@pytest.fixture
def tilted_quad() -> npt.NDArray[np.float64]:
    """Image corners of a 300 x 200 mm floor seen from 450 mm at a 15 degree tilt."""
    return project_rect(300, 200, 15.0)
