"""Fitting the standard pip layouts (vision._faces)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from vision._faces import fit_layout
from vision.params import DEFAULTS


def _placed(grid: list[tuple[float, float]], step: float, angle_deg: float) -> np.ndarray:
    a = np.deg2rad(angle_deg)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    return (np.array(grid, np.float64) * step @ rot.T + 100.0).astype(np.float32)


@pytest.mark.parametrize("columns", [0.65, 0.8, 1.0, 1.2])
@pytest.mark.parametrize("angle", [0.0, 17.0, 45.0, 71.0])
def test_a_six_is_a_six_whatever_its_column_spacing(columns: float, angle: float) -> None:
    grid = [(sx * columns, gy) for sx in (-1.0, 1.0) for gy in (-1.0, 0.0, 1.0)]
    fit = fit_layout(_placed(grid, 10.0, angle), tuple(range(6)), 5.0)
    assert fit is not None
    assert fit.value == 6
    assert fit.step == pytest.approx(10.0, rel=0.02)
    assert fit.squash > 0.9
    # The empty places are the middle column, where a seventh pip would show a misread.
    mid = _placed([(0.0, -1.0), (0.0, 0.0), (0.0, 1.0)], 10.0, angle)
    dist = np.linalg.norm(fit.empty_places[:, None, :] - mid[None, :, :], axis=2).min(axis=1)
    assert np.all(dist < 0.5)


def test_a_five_with_a_stray_blob_is_not_a_six() -> None:
    # Four corners, a centre pip and a blob beside one edge (a side face's pip): not two
    # columns of three.
    grid = [(-1.0, -1.0), (1.0, -1.0), (0.0, 0.0), (-1.0, 1.0), (1.0, 1.0), (1.6, 0.1)]
    fit = fit_layout(_placed(grid, 10.0, 8.0), tuple(range(6)), 5.0)
    assert fit is None or fit.residual > DEFAULTS.max_grid_residual


def test_uneven_rows_are_not_a_six() -> None:
    grid = [(-0.7, -1.0), (-0.7, 0.0), (-0.7, 1.0), (0.7, -1.0), (0.7, 0.45), (0.7, 1.0)]
    fit = fit_layout(_placed(grid, 10.0, 0.0), tuple(range(6)), 5.0)
    assert fit is None or fit.residual > DEFAULTS.max_grid_residual


def test_a_faint_speck_nearer_than_a_pips_sibling_does_not_break_the_pair(
    art: SimpleNamespace,
) -> None:
    from vision._faces import fit_cluster

    # A two's stark pips 21 px apart, and a faint speck (a fifth of their contrast) 11 px
    # from one and 18 px from the other: nearer to each than they are to each other. The
    # two is the stark pair; the speck is left over.
    cands = art.candidates(
        [(608.2, 578.8), (623.1, 593.6), (612.3, 597.0)],
        diam=[5.6, 5.7, 4.8],
        contrast=[151, 151, 33],
    )
    fits = fit_cluster(cands, np.array([0, 1, 2], np.intp), DEFAULTS)
    assert sorted((f.value, tuple(sorted(f.members))) for f in fits) == [(1, (2,)), (2, (0, 1))]


def _seen_aslant(step: float, squash: float, short_deg: float, turn_deg: float) -> np.ndarray:
    """A four's pips on a square face turned by ``turn_deg``, seen flattened to ``squash``
    across the direction ``short_deg`` (as a camera looking aslant sees it)."""
    along = np.deg2rad(short_deg - 90.0)
    rot = np.array([[np.cos(along), -np.sin(along)], [np.sin(along), np.cos(along)]])
    flatten = rot @ np.diag([1.0, squash]) @ rot.T
    square = _placed([(-1, -1), (-1, 1), (1, -1), (1, 1)], step, turn_deg) - 100.0
    return (square @ flatten.T + 100.0).astype(np.float32)


@pytest.mark.parametrize("turn", [0.0, 20.0])
def test_a_face_seen_aslant_fits_its_grid_as_seen(turn: float) -> None:
    # Flattened to 0.65 a square grid fits the four pips loosely; the grid as the camera
    # sees it (a parallelogram) fits them exactly, its short axis across the flattening.
    fit = fit_layout(_seen_aslant(9.0, 0.65, 120.0, turn), (0, 1, 2, 3), 5.0)
    assert fit is not None and fit.value == 4
    assert fit.residual > 0.25
    assert fit.affine_residual < 0.01
    assert fit.squash == pytest.approx(0.65, abs=0.01)
    assert np.rad2deg(fit.short_axis) == pytest.approx(120.0, abs=0.5)


def test_a_face_is_judged_as_seen_only_when_its_pips_are_flattened_alike(
    art: SimpleNamespace,
) -> None:
    from vision.reader import _foreshortened_as_pips

    xy = _seen_aslant(9.0, 0.65, 120.0, 10.0)
    fit = fit_layout(xy, (0, 1, 2, 3), 5.0)
    assert fit is not None
    across = np.deg2rad(120.0)
    # Pips flattened as much as the grid, across the same direction: a face seen aslant.
    pips = art.candidates(xy.tolist(), roundness=0.66, minor=across)
    assert _foreshortened_as_pips(fit, pips)
    # Round pips on a flattened grid, or pips flattened every which way: no camera's view
    # explains them (four blobs of a six, say), so the grid must be square.
    assert not _foreshortened_as_pips(fit, art.candidates(xy.tolist(), roundness=0.95))
    scattered = [across, across + 1.2, across - 1.0, across + 0.4]
    assert not _foreshortened_as_pips(
        fit, art.candidates(xy.tolist(), roundness=0.66, minor=scattered)
    )


def test_a_pip_measured_bigger_than_its_siblings_stays_in_its_face(art: SimpleNamespace) -> None:
    from vision._faces import fit_cluster

    # Candidates measured on a render (sample_images/mixed10_000211): a two's pips (the
    # first two) beside a three whose last pip measured 1.6 times its siblings' size. Tried
    # only with pips within 1.45 times its size, that pip was paired with the two's, across
    # the two dice, and the three was never tried.
    cands = art.candidates(
        [(504.3, 557.9), (511.5, 581.1), (531.5, 581.4), (534.6, 592.6), (538.8, 604.8)],
        diam=[6.4, 8.2, 6.5, 6.1, 9.9],
        contrast=[163, 162, 149, 158, 167],
        roundness=[0.84, 0.79, 0.75, 0.79, 0.71],
    )
    fits = fit_cluster(cands, np.arange(5, dtype=np.intp), DEFAULTS)
    assert sorted((f.value, tuple(sorted(f.members))) for f in fits) == [
        (2, (0, 1)),
        (3, (2, 3, 4)),
    ]


def _speckled(art: SimpleNamespace, n: int, contrast: tuple[float, float], seed: int) -> object:
    """``n`` candidates scattered over 400 x 300 px, their contrast drawn from ``contrast``."""
    rng = np.random.default_rng(seed)
    xy = [(float(x), float(y)) for x, y in rng.uniform((0, 0), (400, 300), (n, 2))]
    return art.candidates(xy, diam=3.0, contrast=list(rng.uniform(*contrast, n)))


def test_a_textures_specks_are_left_out_and_the_stark_pips_on_it_kept(
    art: SimpleNamespace,
) -> None:
    from vision._faces import texture_level, without_texture
    from vision._pips import PipCandidates

    specks = _speckled(art, 300, (14.0, 28.0), 1)
    pips = art.candidates([(200.0 + 8 * k, 150.0) for k in range(4)], diam=3.0, contrast=90.0)
    cands = PipCandidates(*(np.concatenate([a, b]) for a, b in zip(specks, pips, strict=True)))
    felt = np.arange(300)
    level = texture_level(cands, [felt, np.arange(300, 304)], DEFAULTS)
    assert 19.0 < level < 23.0  # the specks' median contrast
    # The four pips stand out from the felt's level, in their own cluster or in the felt's;
    # a speck here and there as stark may too.
    assert without_texture(cands, np.arange(300, 304), level).tolist() == [300, 301, 302, 303]
    kept = without_texture(cands, np.arange(len(cands)), level)
    assert set(range(300, 304)) <= set(kept.tolist())
    assert len(kept) < 20


def test_a_clump_of_real_pips_or_a_small_cluster_is_no_texture(art: SimpleNamespace) -> None:
    from vision._faces import texture_level, without_texture

    # Eight dice of one colour touching, 48 pips of a pip's contrast: no texture.
    clump = _speckled(art, 48, (50.0, 120.0), 2)
    assert texture_level(clump, [np.arange(48)], DEFAULTS) == 0.0
    # Faint, but no more than six dice showing six could hold.
    few = _speckled(art, 30, (14.0, 28.0), 3)
    assert texture_level(few, [np.arange(30)], DEFAULTS) == 0.0
    # Without a texture every member stays.
    assert len(without_texture(clump, np.arange(48), 0.0)) == 48
