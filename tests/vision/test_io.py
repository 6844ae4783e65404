"""Decoding uploaded photos: formats, EXIF orientation, odd pixel types, bad input, sizes."""

from __future__ import annotations

import io
import math
import struct
import zlib
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image, ImageOps, features

from vision.errors import ImageDecodeError, ImageTooLargeError
from vision.io import MAX_PIXELS, decode, load_path, probe, reduction_factor

Bgr = npt.NDArray[Any]

RED = (0, 0, 255)
GREEN = (0, 255, 0)
BLUE = (255, 0, 0)


def upright_scene() -> Bgr:
    """A 96x64 (w x h) BGR picture that looks different under every flip and rotation."""
    img = np.full((64, 96, 3), 128, np.uint8)
    img[:16, :32] = RED  # top left
    img[48:, 64:] = BLUE  # bottom right
    img[:16, 80:] = GREEN  # top right, smaller than the red block
    return img


def encode_pil(bgr: Bgr, fmt: str, **params: object) -> bytes:
    buf = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(bgr[:, :, ::-1])).save(buf, fmt, **params)
    return buf.getvalue()


def exif_with_orientation(orientation: int) -> bytes:
    exif = Image.Exif()
    exif[0x0112] = orientation
    return exif.tobytes()


def stored_for(display: Bgr, orientation: int) -> Bgr:
    """The stored pixels that a viewer shows as ``display`` under this EXIF orientation."""
    transposed = np.transpose(display, (1, 0, 2))
    stored = {
        1: display,
        2: display[:, ::-1],
        3: display[::-1, ::-1],
        4: display[::-1],
        5: transposed,
        6: np.rot90(display, 1),  # shown turned 90 degrees clockwise
        7: transposed[::-1, ::-1],
        8: np.rot90(display, -1),  # shown turned 90 degrees counter-clockwise
    }[orientation]
    return np.ascontiguousarray(stored)


def assert_close(a: Bgr, b: Bgr, tol: float = 6.0) -> None:
    assert a.shape == b.shape
    assert float(np.abs(a.astype(np.int16) - b.astype(np.int16)).mean()) < tol


def assert_bgr_image(img: Bgr) -> None:
    assert img.dtype == np.uint8
    assert img.ndim == 3 and img.shape[2] == 3
    assert img.flags["C_CONTIGUOUS"]


def png_header_only(width: int, height: int) -> bytes:
    """A PNG signature and IHDR claiming the given size, with a token IDAT: no big allocation."""

    def chunk(kind: bytes, payload: bytes) -> bytes:
        body = kind + payload
        return struct.pack(">I", len(payload)) + body + struct.pack(">I", zlib.crc32(body))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(b"\x00" * 16))
        + chunk(b"IEND", b"")
    )


# --- formats ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fmt", "params"),
    [
        ("JPEG", {"quality": 95}),
        ("PNG", {}),
        ("WEBP", {"lossless": True}),
        ("HEIF", {"quality": 95}),
    ],
)
def test_each_upload_format_round_trips(fmt: str, params: dict[str, object]) -> None:
    scene = upright_scene()
    decoded = decode(encode_pil(scene, fmt, **params))
    assert_bgr_image(decoded.image_bgr)
    assert (decoded.width, decoded.height, decoded.scale) == (96, 64, 1.0)
    assert_close(decoded.image_bgr, scene)


@pytest.mark.skipif(not features.check("avif"), reason="this Pillow has no AVIF support")
def test_avif_round_trips() -> None:
    scene = upright_scene()
    assert_close(decode(encode_pil(scene, "AVIF", quality=95)).image_bgr, scene)


def test_opencv_written_files_decode(tmp_path: Path) -> None:
    scene = upright_scene()
    for ext in (".jpg", ".png", ".webp"):
        path = tmp_path / f"scene{ext}"
        assert cv2.imwrite(str(path), scene)
        assert_close(load_path(path).image_bgr, scene)


def test_phone_multi_picture_jpeg_decodes() -> None:
    scene = upright_scene()
    data = encode_pil(scene, "MPO", save_all=True, append_images=[Image.new("RGB", (8, 8))])
    assert probe(data).format == "MPO"
    assert_close(decode(data).image_bgr, scene)


def test_data_appended_after_the_jpeg_end_is_ignored() -> None:
    # Motion photos carry a video after the JPEG's end marker.
    scene = upright_scene()
    data = encode_pil(scene, "JPEG", quality=95) + b"\x00\x00ftypmp42" + bytes(range(256)) * 8
    assert_close(decode(data).image_bgr, scene)


# --- EXIF orientation --------------------------------------------------------------------------


@pytest.mark.parametrize("orientation", range(1, 9))
def test_every_exif_orientation_is_applied_to_a_jpeg(orientation: int) -> None:
    scene = upright_scene()
    stored = stored_for(scene, orientation)
    data = encode_pil(stored, "JPEG", quality=95, exif=exif_with_orientation(orientation))

    info = probe(data)
    decoded = decode(data)

    assert info.orientation == orientation
    assert (info.width, info.height) == (96, 64)
    assert (decoded.width, decoded.height) == (96, 64)
    assert_close(decoded.image_bgr, scene)
    # the top-left block is red whatever the tag
    assert tuple(decoded.image_bgr[4, 4]) == pytest.approx(RED, abs=12)
    # and Pillow's own reading of the tag agrees
    reference = np.asarray(ImageOps.exif_transpose(Image.open(io.BytesIO(data))))[:, :, ::-1]
    assert_close(decoded.image_bgr, np.ascontiguousarray(reference), tol=2.0)


@pytest.mark.parametrize("orientation", range(1, 9))
def test_orientation_is_applied_to_a_reduced_jpeg(orientation: int) -> None:
    scene = cv2.resize(upright_scene(), (384, 256), interpolation=cv2.INTER_NEAREST)
    stored = stored_for(scene, orientation)
    data = encode_pil(stored, "JPEG", quality=95, exif=exif_with_orientation(orientation))

    decoded = decode(data, max_side=96)

    assert decoded.scale == 0.25
    assert (decoded.width, decoded.height) == (384, 256)
    expected = cv2.resize(scene, (96, 64), interpolation=cv2.INTER_AREA)
    assert_close(decoded.image_bgr, expected, tol=8.0)
    # OpenCV's own orientation handling (without IGNORE_ORIENTATION) gives the same picture
    auto = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_REDUCED_COLOR_4)
    assert auto is not None
    assert_close(decoded.image_bgr, auto, tol=1.0)


@pytest.mark.parametrize(("fmt", "params"), [("PNG", {}), ("WEBP", {"lossless": True})])
@pytest.mark.parametrize("orientation", [3, 6, 7])
def test_orientation_is_applied_to_png_and_webp(
    fmt: str, params: dict[str, object], orientation: int
) -> None:
    scene = upright_scene()
    stored = stored_for(scene, orientation)
    data = encode_pil(stored, fmt, exif=exif_with_orientation(orientation), **params)
    decoded = decode(data)
    assert (decoded.width, decoded.height) == (96, 64)
    assert_close(decoded.image_bgr, scene, tol=1.0)


@pytest.mark.parametrize("orientation", [3, 6, 8])
def test_heic_orientation_is_applied_once(orientation: int) -> None:
    # pillow-heif stores the turn as a HEIF transform and decodes upright; it must not be
    # turned a second time by the EXIF tag.
    scene = upright_scene()
    stored = stored_for(scene, orientation)
    data = encode_pil(stored, "HEIF", quality=95, exif=exif_with_orientation(orientation))
    info = probe(data)
    decoded = decode(data)
    assert (info.width, info.height) == (96, 64)
    assert_close(decoded.image_bgr, scene)


def test_an_invalid_orientation_tag_is_ignored() -> None:
    scene = upright_scene()
    data = encode_pil(scene, "JPEG", quality=95, exif=exif_with_orientation(42))
    assert probe(data).orientation == 1
    assert_close(decode(data).image_bgr, scene)


# --- pixel types --------------------------------------------------------------------------------


def test_grayscale_png_and_jpeg_become_three_equal_channels() -> None:
    gray = np.tile(np.arange(0, 256, 4, dtype=np.uint8), (32, 1))
    for fmt in ("PNG", "JPEG"):
        buf = io.BytesIO()
        Image.fromarray(gray).save(buf, fmt)
        img = decode(buf.getvalue()).image_bgr
        assert_bgr_image(img)
        assert np.array_equal(img[:, :, 0], img[:, :, 1])
        assert np.array_equal(img[:, :, 1], img[:, :, 2])
        assert_close(img[:, :, 0:1], gray[:, :, None], tol=2.0)


def test_one_bit_png_is_black_and_white() -> None:
    bits = np.zeros((16, 16), bool)
    bits[:, 8:] = True
    buf = io.BytesIO()
    Image.fromarray(bits).save(buf, "PNG")
    img = decode(buf.getvalue()).image_bgr
    assert img[0, 0].tolist() == [0, 0, 0]
    assert img[0, 15].tolist() == [255, 255, 255]


def test_sixteen_bit_gray_png_is_scaled_to_eight_bits() -> None:
    levels = np.array([[0, 257 * 128, 65535, 1000]], np.uint16)
    buf = io.BytesIO()
    Image.fromarray(levels).save(buf, "PNG")
    assert probe(buf.getvalue()).mode.startswith("I")
    img = decode(buf.getvalue()).image_bgr
    assert img[0, :, 1].tolist() == [0, 128, 255, 4]


def test_sixteen_bit_colour_png_is_scaled_to_eight_bits(tmp_path: Path) -> None:
    deep = np.zeros((8, 8, 3), np.uint16)
    deep[..., 2] = 65535
    deep[..., 1] = 257 * 100
    path = tmp_path / "deep.png"
    assert cv2.imwrite(str(path), deep)
    img = load_path(path).image_bgr
    assert img[0, 0].tolist() == [0, 100, 255]


def test_transparent_pixels_are_composited_onto_white() -> None:
    rgba = np.zeros((8, 8, 4), np.uint8)
    rgba[:, :4] = (255, 0, 0, 255)  # opaque red on the left
    rgba[:, 4:6] = (0, 0, 0, 0)  # fully transparent
    rgba[:, 6:] = (0, 0, 0, 128)  # half-transparent black
    buf = io.BytesIO()
    Image.fromarray(rgba).save(buf, "PNG")
    img = decode(buf.getvalue()).image_bgr
    assert img[0, 0].tolist() == [0, 0, 255]
    assert img[0, 4].tolist() == [255, 255, 255]
    assert img[0, 7].tolist() == pytest.approx([127, 127, 127], abs=1)


def test_opaque_alpha_channel_is_dropped() -> None:
    scene = upright_scene()
    rgba = np.dstack([scene[:, :, ::-1], np.full(scene.shape[:2], 255, np.uint8)])
    buf = io.BytesIO()
    Image.fromarray(rgba).save(buf, "PNG")
    assert np.array_equal(decode(buf.getvalue()).image_bgr, scene)


def test_gray_with_alpha_and_webp_alpha_are_composited() -> None:
    la = Image.new("LA", (4, 4), (0, 0))
    buf = io.BytesIO()
    la.save(buf, "PNG")
    assert decode(buf.getvalue()).image_bgr[0, 0].tolist() == [255, 255, 255]
    buf = io.BytesIO()
    Image.new("RGBA", (4, 4), (0, 0, 255, 0)).save(buf, "WEBP", lossless=True)
    assert decode(buf.getvalue()).image_bgr[0, 0].tolist() == [255, 255, 255]


def test_palette_png_with_and_without_transparency() -> None:
    scene = upright_scene()
    pal = Image.fromarray(scene[:, :, ::-1]).convert("P", palette=Image.Palette.ADAPTIVE)
    buf = io.BytesIO()
    pal.save(buf, "PNG")
    assert probe(buf.getvalue()).mode == "P"
    assert_close(decode(buf.getvalue()).image_bgr, scene, tol=2.0)

    buf = io.BytesIO()
    index_of_red = pal.getpixel((0, 0))
    pal.save(buf, "PNG", transparency=index_of_red)
    img = decode(buf.getvalue()).image_bgr
    assert img[4, 4].tolist() == [255, 255, 255]  # the red corner was made transparent
    assert img[60, 90].tolist() == pytest.approx(list(BLUE), abs=8)


def test_cmyk_jpeg_is_converted_to_bgr() -> None:
    scene = upright_scene()
    buf = io.BytesIO()
    Image.fromarray(scene[:, :, ::-1]).convert("CMYK").save(buf, "JPEG", quality=95)
    assert probe(buf.getvalue()).mode == "CMYK"
    assert_close(decode(buf.getvalue()).image_bgr, scene)


def test_heic_with_alpha_is_composited() -> None:
    buf = io.BytesIO()
    Image.new("RGBA", (16, 16), (0, 0, 255, 0)).save(buf, "HEIF", quality=95)
    img = decode(buf.getvalue()).image_bgr
    assert img[8, 8].tolist() == pytest.approx([255, 255, 255], abs=6)


# --- bad input --------------------------------------------------------------------------------


def test_empty_bytes_are_refused_by_name() -> None:
    with pytest.raises(ImageDecodeError, match="empty"):
        decode(b"")


def test_random_bytes_are_not_an_image() -> None:
    noise = np.random.default_rng(3).bytes(4096)
    with pytest.raises(ImageDecodeError, match="not an image"):
        decode(noise)


def test_a_text_file_is_not_an_image(tmp_path: Path) -> None:
    path = tmp_path / "notes.jpg"
    path.write_text("Four, four, two.\nThis is a score sheet, not a photo.\n")
    with pytest.raises(ImageDecodeError, match=r"not an image \(it contains text\)") as err:
        load_path(path)
    assert "notes.jpg" in str(err.value)


@pytest.mark.parametrize("keep", [0.999, 0.9, 0.5, 0.1])
def test_a_truncated_jpeg_is_an_error_not_half_a_photo(keep: float) -> None:
    rng = np.random.default_rng(0)
    photo = cv2.resize(rng.integers(0, 255, (30, 40, 3), dtype=np.uint8), (320, 240))
    data = encode_pil(photo, "JPEG", quality=92)
    cut = data[: int(len(data) * keep)]
    for max_side in (None, 80):
        with pytest.raises(ImageDecodeError, match="truncated"):
            decode(cut, max_side=max_side)


def test_a_jpeg_missing_only_its_end_marker_is_truncated() -> None:
    data = encode_pil(upright_scene(), "JPEG", quality=92)
    with pytest.raises(ImageDecodeError, match="truncated"):
        decode(data[:-2])


def test_a_jpeg_cut_inside_its_header_is_an_error() -> None:
    data = encode_pil(upright_scene(), "JPEG", quality=92, exif=exif_with_orientation(6))
    with pytest.raises(ImageDecodeError):
        decode(data[:40])


@pytest.mark.parametrize(
    ("fmt", "params"), [("PNG", {}), ("WEBP", {"quality": 90}), ("HEIF", {"quality": 90})]
)
def test_truncated_png_webp_and_heic_are_errors(fmt: str, params: dict[str, object]) -> None:
    rng = np.random.default_rng(1)
    photo = cv2.resize(rng.integers(0, 255, (30, 40, 3), dtype=np.uint8), (320, 240))
    data = encode_pil(photo, fmt, **params)
    with pytest.raises(ImageDecodeError):
        decode(data[: len(data) // 2])


def test_a_damaged_jpeg_header_is_named() -> None:
    data = bytearray(encode_pil(upright_scene(), "JPEG", quality=92))
    data[20:400] = b"\x00" * 380
    with pytest.raises(ImageDecodeError, match="starts like a JPEG image but its header is"):
        decode(bytes(data))


def test_a_corrupted_jpeg_body_is_an_error_or_a_full_image() -> None:
    rng = np.random.default_rng(2)
    photo = cv2.resize(rng.integers(0, 255, (30, 40, 3), dtype=np.uint8), (320, 240))
    data = bytearray(encode_pil(photo, "JPEG", quality=92))
    data[len(data) // 2 : len(data) // 2 + 64] = b"\xff" * 64
    try:
        img = decode(bytes(data)).image_bgr
    except ImageDecodeError as exc:
        assert "damaged" in str(exc) or "truncated" in str(exc)
    else:
        assert img.shape == (240, 320, 3)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    cut=st.integers(min_value=0, max_value=2000),
    flips=st.lists(st.tuples(st.integers(0, 2000), st.integers(0, 255)), max_size=4),
    fmt=st.sampled_from(["JPEG", "PNG", "WEBP"]),
)
def test_mangled_files_raise_only_our_error(
    cut: int, flips: list[tuple[int, int]], fmt: str
) -> None:
    data = bytearray(_SMALL_FILES[fmt])
    for pos, value in flips:
        data[pos % len(data)] = value
    data = data[: max(0, len(data) - cut)]
    try:
        decoded = decode(bytes(data), max_side=16)
    except ImageDecodeError:
        return
    assert_bgr_image(decoded.image_bgr)


_SMALL_FILES = {fmt: encode_pil(upright_scene(), fmt) for fmt in ("JPEG", "PNG", "WEBP")}


def test_a_missing_file_and_a_folder_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(ImageDecodeError, match="no such file"):
        load_path(tmp_path / "nope.jpg")
    with pytest.raises(ImageDecodeError, match="folder"):
        load_path(tmp_path)


def test_bad_max_side_is_a_value_error() -> None:
    data = encode_pil(upright_scene(), "PNG")
    for bad in (0, -5):
        with pytest.raises(ValueError, match="max_side"):
            decode(data, max_side=bad)


# --- too large ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("width", "height"),
    [
        (10_000, 5_001),  # just over our limit, under Pillow's own
        (10_000, 10_000),  # over Pillow's warning limit
        (30_000, 30_000),  # over Pillow's error limit
    ],
)
def test_a_huge_png_header_is_refused_before_decoding(width: int, height: int) -> None:
    data = png_header_only(width, height)
    assert width * height > MAX_PIXELS
    with pytest.raises(ImageTooLargeError, match="too large"):
        probe(data)
    with pytest.raises(ImageTooLargeError):
        decode(data)


def test_a_png_header_at_the_limit_is_accepted_by_probe() -> None:
    info = probe(png_header_only(10_000, 5_000))
    assert (info.format, info.width, info.height) == ("PNG", 10_000, 5_000)


def test_a_huge_jpeg_header_is_refused_before_decoding() -> None:
    data = bytearray(encode_pil(upright_scene(), "JPEG", quality=80))
    sof = data.find(b"\xff\xc0")
    assert sof > 0
    # SOF0: marker, length (2), precision (1), height (2), width (2)
    data[sof + 5 : sof + 9] = struct.pack(">HH", 9_000, 9_000)
    with pytest.raises(ImageTooLargeError, match="81 megapixels"):
        decode(bytes(data))


def test_too_large_is_also_a_decode_error_and_a_value_error() -> None:
    with pytest.raises(ValueError):
        probe(png_header_only(20_000, 20_000))


# --- reduced decoding ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("long_side", "max_side", "factor"),
    [
        (4032, None, 1),
        (4032, 5000, 1),
        (4032, 4032, 1),
        (4032, 2016, 2),
        (4032, 2017, 1),
        (4032, 1008, 4),
        (4032, 1000, 4),
        (4032, 504, 8),
        (4032, 100, 8),
        (1920, 960, 2),
        (1920, 961, 1),
        (1601, 201, 8),  # ceil(1601 / 8) = 201
        (640, 640, 1),
    ],
)
def test_reduction_factor_keeps_the_long_side_at_least_max_side(
    long_side: int, max_side: int | None, factor: int
) -> None:
    assert reduction_factor(long_side, max_side) == factor


@pytest.mark.parametrize(
    ("max_side", "factor"), [(None, 1), (1600, 1), (800, 2), (799, 2), (400, 4), (200, 8), (201, 4)]
)
@pytest.mark.parametrize("fmt", ["JPEG", "PNG"])
def test_reduced_decode_sizes_and_scale(max_side: int | None, factor: int, fmt: str) -> None:
    scene = cv2.resize(upright_scene(), (1600, 1068), interpolation=cv2.INTER_NEAREST)
    decoded = decode(encode_pil(scene, fmt), max_side=max_side)
    assert decoded.scale == 1 / factor
    assert (decoded.width, decoded.height) == (1600, 1068)
    assert decoded.image_bgr.shape == (math.ceil(1068 / factor), math.ceil(1600 / factor), 3)
    assert_bgr_image(decoded.image_bgr)
    assert max(decoded.image_bgr.shape[:2]) >= (max_side or 0)


def test_reduced_decode_of_a_portrait_photo_uses_the_displayed_long_side() -> None:
    scene = cv2.resize(upright_scene(), (800, 532), interpolation=cv2.INTER_NEAREST)
    data = encode_pil(stored_for(scene, 6), "JPEG", exif=exif_with_orientation(6))
    decoded = decode(data, max_side=200)
    assert decoded.scale == 0.25
    assert decoded.image_bgr.shape == (133, 200, 3)
    assert (decoded.width, decoded.height) == (800, 532)


# --- the rarer formats, through Pillow ---------------------------------------------------------


@pytest.mark.parametrize("fmt", ["BMP", "TIFF", "GIF"])
def test_rarer_formats_decode_through_pillow(fmt: str) -> None:
    scene = upright_scene()
    decoded = decode(encode_pil(scene, fmt))
    assert_bgr_image(decoded.image_bgr)
    assert_close(decoded.image_bgr, scene, tol=3.0)


def test_sixteen_bit_tiff_is_scaled_to_eight_bits() -> None:
    buf = io.BytesIO()
    Image.fromarray(np.array([[0, 257 * 200, 65535]], np.uint16)).save(buf, "TIFF")
    assert decode(buf.getvalue()).image_bgr[0, :, 0].tolist() == [0, 200, 255]


def test_gif_transparency_is_composited_onto_white() -> None:
    pal = Image.fromarray(upright_scene()[:, :, ::-1]).convert("P", palette=Image.Palette.ADAPTIVE)
    buf = io.BytesIO()
    pal.save(buf, "GIF", transparency=pal.getpixel((0, 0)))
    assert decode(buf.getvalue()).image_bgr[4, 4].tolist() == [255, 255, 255]


def test_decoding_in_threads_leaves_the_warning_filters_alone() -> None:
    import warnings
    from concurrent.futures import ThreadPoolExecutor

    before = list(warnings.filters)
    data = [encode_pil(upright_scene(), fmt) for fmt in ("JPEG", "PNG", "WEBP", "HEIF")]
    with ThreadPoolExecutor(max_workers=4) as pool:
        shapes = list(pool.map(lambda d: decode(d).image_bgr.shape, data * 10))
    assert set(shapes) == {(64, 96, 3)}
    assert warnings.filters == before


def test_probe_reads_only_the_header() -> None:
    # The first kilobyte of a JPEG holds its header: probe needs nothing else, decode does.
    scene = cv2.resize(upright_scene(), (960, 640), interpolation=cv2.INTER_NEAREST)
    data = encode_pil(stored_for(scene, 8), "JPEG", quality=90, exif=exif_with_orientation(8))
    head = data[:1024]
    info = probe(head)
    assert (info.format, info.width, info.height, info.orientation) == ("JPEG", 960, 640, 8)
    with pytest.raises(ImageDecodeError, match="truncated"):
        decode(head)
