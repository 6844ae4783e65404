"""Procedural bitmaps (linear RGB float32, shape (H, W, 3)) for felt, wood and plain surfaces."""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

F32 = NDArray[np.float32]


def smooth_noise(rng: np.random.Generator, size: int, cells: int) -> F32:
    """Band-limited noise in [-1, 1] of shape (size, size): random cells upsampled bicubically."""
    small = rng.uniform(-1, 1, (cells + 3, cells + 3)).astype(np.float32)
    big = cv2.resize(
        small, (size + size * 3 // cells, size + size * 3 // cells), interpolation=cv2.INTER_CUBIC
    )
    off = size // cells
    out = big[off : off + size, off : off + size]
    result: F32 = np.clip(out / (np.abs(out).max() + 1e-6), -1, 1).astype(np.float32)
    return result


def felt(rng: np.random.Generator, rgb: tuple[float, float, float], size: int = 1024) -> F32:
    """Felt: fine fibre speckle plus slow blotches around a base colour."""
    fine = cv2.GaussianBlur(rng.normal(0, 1, (size, size)).astype(np.float32), (0, 0), 1.2)
    fine = fine / (fine.std() + 1e-6)
    slow = smooth_noise(rng, size, 6)
    shade = 1 + 0.035 * fine + 0.07 * slow
    out: F32 = (np.array(rgb, dtype=np.float32) * shade[..., None]).astype(np.float32)
    return out


def wood(
    rng: np.random.Generator,
    rgb: tuple[float, float, float],
    size: int = 1024,
    planks: int = 0,
    cycles: float = 120.0,
) -> F32:
    """Wood: warped sinusoidal grain along x (`cycles` rings across), optional plank seams."""
    yy, _xx = np.mgrid[0:size, 0:size].astype(np.float32) / size
    freq = cycles * float(rng.uniform(0.7, 1.3))
    # Warp by about one ring spacing so the grain meanders without turning into ripples.
    warp = (0.8 * smooth_noise(rng, size, 3) + 0.15 * smooth_noise(rng, size, 25)) / freq
    grain = np.sin((yy + warp) * freq * 2 * np.pi)
    grain = 0.5 + 0.5 * np.sign(grain) * np.abs(grain) ** 0.6
    fibre = cv2.GaussianBlur(rng.normal(0, 1, (size, size)).astype(np.float32), (0, 0), 1.0)
    fibre = cv2.resize(fibre[:, : size // 8], (size, size)) / (fibre.std() + 1e-6)
    shade = 0.8 + 0.25 * grain + 0.05 * fibre + 0.1 * smooth_noise(rng, size, 4)
    if planks:
        plank_id = np.floor(yy * planks)
        tone = rng.uniform(0.85, 1.15, planks + 1).astype(np.float32)
        shade = shade * tone[plank_id.astype(int)]
        seam = np.abs(yy * planks - np.round(yy * planks)) < 0.0007 * planks
        shade = np.where(seam, shade * 0.35, shade)
    out: F32 = np.clip(np.array(rgb, dtype=np.float32) * shade[..., None], 0, 1).astype(np.float32)
    return out


def plain(rng: np.random.Generator, rgb: tuple[float, float, float], size: int = 512) -> F32:
    """A painted or laminate surface: nearly uniform with faint blotches and grain."""
    shade = 1 + 0.04 * smooth_noise(rng, size, 5) + 0.015 * rng.normal(0, 1, (size, size))
    out: F32 = (np.array(rgb, dtype=np.float32) * shade[..., None]).astype(np.float32)
    return out


def environment(
    rng: np.random.Generator,
    level: float,
    rgb: tuple[float, float, float],
    window_dir: tuple[float, float, float],
    window_level: float,
    width: int = 128,
) -> F32:
    """Equirectangular room environment (height width/2): bright ceiling, dim floor, a window."""
    h = width // 2
    theta = (np.arange(h, dtype=np.float32) + 0.5) / h * np.pi  # 0 = up (Mitsuba: +y is up)
    phi = (np.arange(width, dtype=np.float32) + 0.5) / width * 2 * np.pi
    th, ph = np.meshgrid(theta, phi, indexing="ij")
    up = np.cos(th)
    base = level * (0.35 + 0.65 * np.clip(up, 0, 1) ** 0.7 + 0.1 * smooth_noise(rng, h, 4)[:, :1])
    env = np.repeat(base[..., None], 3, axis=2) * np.array(rgb, dtype=np.float32)
    if window_level > 0:
        # World z-up direction mapped into Mitsuba's y-up envmap frame (see render.py).
        wx, wy, wz = window_dir
        d = np.stack([np.sin(th) * np.cos(ph), np.cos(th), np.sin(th) * np.sin(ph)], axis=-1)
        cosang = d[..., 0] * wx + d[..., 1] * wz + d[..., 2] * wy
        env += (window_level * np.clip((cosang - 0.93) / 0.07, 0, 1) ** 0.5)[..., None]
    return np.maximum(env, 0).astype(np.float32)
