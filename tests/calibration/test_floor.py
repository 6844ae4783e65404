"""Finding the tray floor in drawn photos."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
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


def test_a_corner_crowded_with_dice_does_not_slant_a_side() -> None:
    quad = np.array([[150, 120], [650, 120], [650, 480], [150, 480]], np.float64)
    img = rect_tray(quad)
    # Dice (and their dark shadows) fill the top-left corner of the floor.
    for x, y in ((168, 138), (200, 138), (232, 138), (168, 170), (200, 170), (168, 202)):
        draw_die(img, (x, y), 30)
    fit = find_floor(img, seeds_xy=[(400, 300)], seed_radius_px=30)
    assert fit is not None and fit.shape == "rect"
    for corner in quad:
        assert np.min(np.linalg.norm(fit.polygon - corner, axis=1)) < 10


def test_a_floor_cut_by_the_frame_keeps_its_sides() -> None:
    # The floor's bottom corners lie below the photo; its sides go on out of sight.
    quad = np.array([[200, 150], [600, 150], [640, 700], [160, 700]], np.float64)
    img = rect_tray(quad)
    fit = find_floor(img)
    assert fit is not None and fit.shape == "rect"
    top = sorted(fit.polygon.tolist(), key=lambda p: p[1])[:2]
    assert all(np.min(np.linalg.norm(quad[:2] - np.array(p), axis=1)) < 10 for p in top)
    # The left side's line still passes where the drawn one does inside the photo.
    left = sorted(fit.polygon.tolist(), key=lambda p: p[0])[:2]
    (x0, y0), (x1, y1) = sorted(left, key=lambda p: p[1])
    x_at_500 = x0 + (500 - y0) * (x1 - x0) / (y1 - y0)
    assert abs(x_at_500 - (200 - 40 * 350 / 550)) < 6


def test_a_noisy_floor_joined_to_a_near_coloured_table_is_found_at_a_tighter_threshold() -> None:
    # Grey-violet felt, a brown wall face on three sides and the wall's lit grey top between
    # it and a grey table: at the felt's own (wide) colour threshold the floor runs over the
    # wall top into the table and out of the photo.
    img = np.empty((H, W, 3), np.uint8)
    img[:] = (175, 170, 175)
    cv2.rectangle(img, (170, 100), (630, 500), (165, 165, 165), -1)
    cv2.rectangle(img, (200, 130), (600, 470), (30, 45, 90), -1)
    cv2.rectangle(img, (220, 150), (580, 470), (150, 140, 155), -1)
    img = noisy(img, 0, sigma=14.0)
    fit = find_floor(img, seeds_xy=[(400, 300), (700, 300)], seed_radius_px=40)
    assert fit is not None
    floor = np.array([[220, 150], [580, 150], [580, 470], [220, 470]], np.float64)
    assert poly_iou(fit.polygon, floor) > 0.9


def _two_surfaces(table_l: float) -> tuple[np.ndarray, np.ndarray]:
    """A work copy's Lab (240, 320, 3) float32: a pale disc of floor (L 215) in a dark ring
    broken at the bottom, on a table of lightness ``table_l``; and the region grown over
    both (the disc, the table's lower half and the bridge between), reaching the frame."""
    rng = np.random.default_rng(7)
    lab = np.full((240, 320, 3), 128.0, np.float32)
    lab[..., 0] = table_l
    cv2.circle(lab, (160, 110), 80, (60.0, 128.0, 128.0), -1)
    cv2.ellipse(lab, (160, 110), (80, 80), 0, 60, 120, (table_l, 128.0, 128.0), -1)
    cv2.circle(lab, (160, 110), 68, (215.0, 128.0, 128.0), -1)
    lab[..., 0] += rng.normal(0, 4, lab.shape[:2]).astype(np.float32)
    region = np.zeros((240, 320), np.uint8)
    region[150:, :] = 255
    cv2.circle(region, (160, 110), 80, 0, -1)
    cv2.ellipse(region, (160, 110), (80, 80), 0, 60, 120, 255, -1)
    cv2.circle(region, (160, 110), 68, 255, -1)
    return lab, region


def test_a_floor_joined_to_a_darker_table_of_its_hue_is_split_off_by_lightness() -> None:
    from calibration.floor import _lightness_split, colour_distance

    lab, region = _two_surfaces(185.0)
    dist = colour_distance(lab, np.array([205.0, 128.0, 128.0], np.float32))
    split = _lightness_split(lab, dist, region, 18.0, [(160.0, 110.0)])
    assert split is not None
    disc = np.zeros_like(region)
    cv2.circle(disc, (160, 110), 68, 255, -1)
    found = split[1] > 0
    assert (found & (disc > 0)).sum() / (found | (disc > 0)).sum() > 0.9


def test_one_surface_is_not_split_by_lightness() -> None:
    from calibration.floor import _lightness_split, colour_distance

    lab, region = _two_surfaces(215.0)
    dist = colour_distance(lab, np.array([205.0, 128.0, 128.0], np.float32))
    assert _lightness_split(lab, dist, region, 18.0, [(160.0, 110.0)]) is None


@pytest.mark.parametrize("k", [2, 3, 4, 5, 7])
def test_whole_factor_reduction_is_opencvs_area_reduction_for_every_block_sum(k: int) -> None:
    # The box filter stands in for cv2.resize(INTER_AREA) at some factors: the floor's
    # work copy, and so the floor found, must stay the same pixel for pixel.
    from calibration.floor import _whole_factor_area

    sums = np.arange(k * k * 255 + 1)
    blocks = np.repeat((sums // (k * k))[:, None], k * k, axis=1)
    blocks[np.arange(k * k)[None, :] < (sums % (k * k))[:, None]] += 1
    rng = np.random.default_rng(k)
    blocks = blocks[:, rng.permutation(k * k)]
    cols = 64
    rows = -(-len(sums) // cols)
    padded = np.zeros((rows * cols, k * k), np.int64)
    padded[: len(sums)] = blocks
    grey = padded.reshape(rows, cols, k, k).transpose(0, 2, 1, 3).reshape(rows * k, cols * k)
    img = np.dstack([grey, grey[::-1], np.roll(grey, k, axis=1)]).astype(np.uint8)
    want = cv2.resize(img, (cols, rows), interpolation=cv2.INTER_AREA)
    assert np.array_equal(_whole_factor_area(img, k), want)


def test_work_copy_is_the_two_step_area_reduction() -> None:
    from calibration.floor import work_copy

    rng = np.random.default_rng(9)
    for h, w in ((540, 960), (756, 1008), (480, 640), (1080, 1920), (300, 1700)):
        img = cv2.GaussianBlur(rng.integers(0, 256, (h, w, 3)).astype(np.uint8), (5, 5), 0)
        k = int(max(h, w) / 320)
        whole = img[: h - h % k, : w - w % k]
        src = cv2.resize(whole, (w // k, h // k), interpolation=cv2.INTER_AREA)
        scale = 320 / max(h, w)
        size = (max(1, round(w * scale)), max(1, round(h * scale)))
        want = cv2.resize(src, size, interpolation=cv2.INTER_AREA)
        got, got_scale = work_copy(img)
        assert np.array_equal(got, want) and got_scale == want.shape[1] / w


@pytest.mark.parametrize(("h", "w"), [(240, 320), (180, 320), (320, 320), (400, 400)])
def test_component_areas_are_opencvs_statistics(h: int, w: int) -> None:
    # The floor's candidate regions are ordered by these areas: the same labels and the
    # same int32 areas as cv2.connectedComponentsWithStats, whether the labels are counted
    # in 16 bits (work copies) or in 32 (larger masks).
    from calibration.floor import _components

    rng = np.random.default_rng(h + w)
    for density in (0.5, 0.8):
        noise = cv2.GaussianBlur(rng.random((h, w)).astype(np.float32), (0, 0), 1.5)
        mask = (noise > np.quantile(noise, 1.0 - density)).astype(np.uint8) * 255
        n, labels, areas = _components(mask)
        want_n, want_labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=4)
        assert n == want_n and np.array_equal(labels, want_labels)
        assert areas.dtype == np.int32 and np.array_equal(areas, stats[:, cv2.CC_STAT_AREA])


def test_pixels_at_is_boolean_indexing() -> None:
    # The floor's and the dice's pixels are gathered so: the same array as image[mask],
    # for any pixel type and channel count, and for strided views (every other pixel).
    from calibration.floor import pixels_at

    rng = np.random.default_rng(3)
    for dtype in (np.uint8, np.float32, np.float64):
        for channels in (1, 2, 3, 4):
            img = (rng.random((37, 53, channels)) * 255).astype(dtype)
            for view in (img, img[::2, ::2], img[1::3, 2::2], img[:, ::-1], img[5:20, 3:40]):
                mask = rng.random(view.shape[:2]) > 0.4
                got, want = pixels_at(view, mask), view[mask]
                assert got.dtype == want.dtype and np.array_equal(got, want)
