"""Finding the tray floor in drawn photos."""

from __future__ import annotations

import numpy as np
from tray_drawing import (
    TABLE,
    H,
    W,
    draw_die,
    noisy,
    poly_iou,
    rect_tray,
    round_tray,
)

from calibration.floor import ellipse_polygon, find_floor


def test_rectangular_floor_is_found_within_tolerance(tilted_quad: np.ndarray) -> None:
    img = rect_tray(tilted_quad)
    fit = find_floor(img)
    assert fit is not None
    assert fit.shape == "rect"
    assert poly_iou(fit.polygon, tilted_quad) > 0.93
    # Each found corner lies near a drawn one.
    for corner in tilted_quad:
        assert np.min(np.linalg.norm(fit.polygon - corner, axis=1)) < 10


def test_round_floor_is_found_as_an_ellipse() -> None:
    img = round_tray((400, 300), (200, 170))
    fit = find_floor(img)
    assert fit is not None
    assert fit.shape == "round"
    truth = ellipse_polygon((400, 300), (400, 340), 0.0)
    assert poly_iou(fit.polygon, truth) > 0.93


def test_dice_on_the_floor_do_not_break_the_outline(tilted_quad: np.ndarray) -> None:
    img = rect_tray(tilted_quad)
    centre = tilted_quad.mean(axis=0)
    for dx in (-60, 0, 60):
        draw_die(img, (centre[0] + dx, centre[1]), 28)
    fit = find_floor(img, seeds_xy=[(centre[0], centre[1])], seed_radius_px=28)
    assert fit is not None
    assert poly_iou(fit.polygon, tilted_quad) > 0.93


def test_a_bare_table_has_no_tray() -> None:
    img = np.empty((H, W, 3), np.uint8)
    img[:] = TABLE
    img = noisy(img)
    draw_die(img, (300, 300), 30)
    draw_die(img, (450, 280), 30)
    assert find_floor(img, seeds_xy=[(300, 300), (450, 280)], seed_radius_px=30) is None
