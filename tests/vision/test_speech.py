"""The sentence a player hears, and espeak-ng speaking or writing it."""

from __future__ import annotations

import shutil
import subprocess
import wave
from dataclasses import replace
from pathlib import Path

import pytest

from vision import _doubts as doubts
from vision.result import DieReading, TrayReading
from vision.speech import (
    NOT_INSTALLED,
    espeak_available,
    position_words,
    speak,
    speech_text,
)

W, H = 900, 600


def die(value: int | None, x: float, y: float, *flags: str) -> DieReading:
    return DieReading(value=value, center=(x, y), size_px=60.0, confidence=0.9, flags=flags)


def tray(*dice: DieReading) -> TrayReading:
    return TrayReading(width=W, height=H, elapsed_ms=12.0, dice=dice)


@pytest.mark.parametrize(
    ("x", "y", "words"),
    [
        (10, 10, "top left"),
        (450, 10, "top centre"),
        (890, 10, "top right"),
        (10, 300, "middle left"),
        (450, 300, "middle"),
        (890, 300, "middle right"),
        (10, 590, "bottom left"),
        (450, 590, "bottom centre"),
        (899.9, 599.9, "bottom right"),
        (-5, 700, "bottom left"),  # outside the frame counts in the nearest third
        (300, 200, "middle"),  # exactly on a border: the later third
    ],
)
def test_position_words_name_the_third_of_the_image(x: float, y: float, words: str) -> None:
    assert position_words((x, y), W, H) == words


def test_no_dice_found() -> None:
    assert speech_text(tray()) == "No dice found."


def test_faces_are_read_in_order() -> None:
    reading = tray(die(4, 100, 100), die(4, 400, 100), die(2, 700, 500))
    assert speech_text(reading) == "Four, four, two."


def test_a_single_face() -> None:
    assert speech_text(tray(die(6, 450, 300))) == "Six."


def test_a_leaning_die_is_named_with_its_place() -> None:
    reading = tray(die(4, 400, 300), die(4, 500, 300), die(3, 50, 50, "leaning"))
    assert speech_text(reading) == "Four, four. Reroll the leaning die, top left."


def test_a_die_off_the_tray_is_named_with_its_place() -> None:
    reading = tray(die(5, 450, 300), die(1, 880, 580, "off_tray"))
    assert speech_text(reading) == "Five. Reroll the die off the tray, bottom right."


def test_a_die_both_leaning_and_off_the_tray() -> None:
    reading = tray(die(None, 20, 300, "leaning", "off_tray", "uncertain"))
    assert speech_text(reading) == "Reroll the leaning die off the tray, middle left."


def test_an_uncertain_die_is_said_with_its_place() -> None:
    reading = tray(die(2, 100, 100), die(None, 450, 300, "uncertain"))
    assert speech_text(reading) == "Two. One die could not be read, middle."


def test_glare_and_the_photo_edge_are_said_with_what_to_do() -> None:
    glared = replace(die(None, 450, 300, "uncertain"), evidence=(doubts.GLARE,))
    cut = replace(die(None, 890, 10, "uncertain"), evidence=(doubts.PAST_FRAME,))
    assert speech_text(tray(die(2, 100, 100), glared)) == (
        "Two. One die could not be read, middle. Glare hides pips: move the light or the phone."
    )
    washed = replace(die(None, 10, 590, "uncertain"), evidence=(doubts.WASHED_OUT,))
    assert speech_text(tray(cut, glared, washed)) == (
        "Three dice could not be read: top right, middle and bottom left. Glare hides pips: "
        "move the light or the phone. The photo's edge cuts a die: take the whole tray."
    )
    # Other reasons are for the screen (the table shows every die's): nothing more is said.
    body = replace(die(None, 450, 300, "uncertain"), evidence=(doubts.BODY_ONLY,))
    assert speech_text(tray(body)) == "One die could not be read, middle."


def test_several_uncertain_dice_are_said_together() -> None:
    reading = tray(
        die(None, 100, 100, "uncertain"),
        die(None, 450, 100, "uncertain"),
        die(None, 800, 550, "uncertain"),
    )
    assert speech_text(reading) == (
        "Three dice could not be read: top left, top centre and bottom right."
    )


def test_rerolls_come_before_unread_dice_and_faces_first() -> None:
    reading = tray(
        die(6, 100, 100),
        die(None, 450, 300, "uncertain"),
        die(1, 800, 100, "leaning"),
        die(3, 100, 550),
    )
    assert speech_text(reading) == (
        "Six, three. Reroll the leaning die, top right. One die could not be read, middle."
    )


def test_speaking_without_espeak_says_so_plainly(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    assert not espeak_available()
    result = speak("Four, four, two.")
    assert not result.ok
    assert not result.spoken
    assert result.message == NOT_INSTALLED
    assert "not installed" in result.message


def test_writing_a_wav_without_espeak_writes_nothing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    result = speak("Six.", wav_path=tmp_path / "six.wav")
    assert not result.ok
    assert result.wav_path is None
    assert not (tmp_path / "six.wav").exists()


needs_espeak = pytest.mark.skipif(not espeak_available(), reason="espeak-ng is not installed")


def wav_seconds(path: Path) -> float:
    sox = shutil.which("sox")
    if sox is not None:
        out = subprocess.run([sox, "--i", "-D", str(path)], capture_output=True, text=True)
        if out.returncode == 0:
            return float(out.stdout.strip())
    # no sox: read the WAV header with the standard library
    with wave.open(str(path), "rb") as w:
        return float(w.getnframes()) / float(w.getframerate())


@needs_espeak
def test_speech_is_written_to_a_wav_file(tmp_path: Path) -> None:
    path = tmp_path / "faces.wav"
    text = speech_text(tray(die(4, 100, 100), die(4, 400, 100), die(2, 700, 500)))
    result = speak(text, wav_path=path)
    assert result.ok, result.message
    assert result.wav_path == path
    assert wav_seconds(path) > 0.3


@needs_espeak
def test_text_that_looks_like_an_option_is_spoken_as_text(tmp_path: Path) -> None:
    path = tmp_path / "dash.wav"
    result = speak("--help me", wav_path=path)
    assert result.ok, result.message
    assert wav_seconds(path) > 0.3
