"""Photoreal dice-tray scene renderer (Mitsuba 3) with ground truth, for tests and evaluation.

Run `python -m tools.render_tray --help`. Public pieces: `sample_scene` (scene as data),
`render_scene` (Mitsuba render to an sRGB array), `build_truth` / `validate_truth` (JSON).
"""

from .camera import Camera
from .scene import CASES, SCHEMES, SceneSpec, sample_scene
from .truth import build_truth, validate_truth

__all__ = [
    "CASES",
    "SCHEMES",
    "Camera",
    "SceneSpec",
    "build_truth",
    "sample_scene",
    "validate_truth",
]
