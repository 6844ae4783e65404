"""Saying a reading aloud: the sentence for a TrayReading, and espeak-ng to speak it.

:func:`speech_text` is pure. :func:`speak` runs the ``espeak-ng`` program when it is
installed and otherwise says so in its result; it never raises for a missing program.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from vision import _doubts as doubts
from vision.result import DieReading, TrayReading

__all__ = ["SpeechResult", "espeak_available", "position_words", "speak", "speech_text"]

_NUMBER_WORDS: Final = ("zero", "one", "two", "three", "four", "five", "six")
_ROWS: Final = ("top", "middle", "bottom")
_COLUMNS: Final = ("left", "centre", "right")
_COUNT_WORDS: Final = ("No", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight")

ESPEAK: Final = "espeak-ng"
NOT_INSTALLED: Final = "espeak-ng is not installed, so nothing was spoken (apt install espeak-ng)."
NO_SOUND_DEVICE: Final = "espeak-ng found no sound device to play on, so nothing was heard."


def position_words(center: tuple[float, float], width: int, height: int) -> str:
    """Where a point lies in the image, by thirds: "top left", "bottom centre", "middle", ...

    ``center`` is ``(x, y)`` in pixels of an image ``width`` x ``height`` pixels. Points on or
    beyond the border count in the nearest third. The centre cell is just "middle".
    """
    x, y = center
    col = _third(x, width)
    row = _third(y, height)
    if row == 1 and col == 1:
        return "middle"
    return f"{_ROWS[row]} {_COLUMNS[col]}"


def speech_text(reading: TrayReading) -> str:
    """The sentence a player hears for a reading.

    The faces that count come first in reading order ("Four, four, two."); then each die to
    roll again, with why and where ("Reroll the leaning die, top left."); then the dice that
    could not be read, with where ("One die could not be read, middle."), and what the player
    can do about it when the reader knows (glare, a die cut by the photo's edge: ``_RETAKE``).
    No dice at all is "No dice found."
    """
    if not reading.dice:
        return "No dice found."
    sentences: list[str] = []
    faces = reading.faces
    if faces:
        words = [_NUMBER_WORDS[v] if 0 <= v < len(_NUMBER_WORDS) else str(v) for v in faces]
        sentences.append(_capitalise(", ".join(words)) + ".")
    where = [position_words(d.center, reading.width, reading.height) for d in reading.dice]
    for die, place in zip(reading.dice, where, strict=True):
        if die.needs_reroll:
            sentences.append(f"Reroll the {_reroll_name(die)}, {place}.")
    unread_dice = [
        (die, place)
        for die, place in zip(reading.dice, where, strict=True)
        if not die.needs_reroll and _is_unread(die)
    ]
    unread = [place for _die, place in unread_dice]
    if len(unread) == 1:
        sentences.append(f"One die could not be read, {unread[0]}.")
    elif unread:
        count = _COUNT_WORDS[len(unread)] if len(unread) < len(_COUNT_WORDS) else str(len(unread))
        places = ", ".join(unread[:-1]) + " and " + unread[-1]
        sentences.append(f"{count} dice could not be read: {places}.")
    reasons = {why for die, _place in unread_dice for why in die.evidence}
    for whys, advice in _RETAKE:
        if reasons & whys:
            sentences.append(advice)
    return " ".join(sentences)


#: What a player can do about a die that could not be read, by the reader's reasons
#: (:mod:`vision._doubts`): said once after the dice that could not be read.
_RETAKE: Final = (
    (
        frozenset((doubts.GLARE, doubts.WASHED_OUT)),
        "Glare hides pips: move the light or the phone.",
    ),
    (frozenset((doubts.PAST_FRAME,)), "The photo's edge cuts a die: take the whole tray."),
)


@dataclass(frozen=True)
class SpeechResult:
    """What :func:`speak` did.

    ``ok`` is True when espeak-ng ran and succeeded. ``spoken`` is True when the text went to
    the speakers, ``wav_path`` is set when it was written to that WAV file instead.
    ``message`` says in plain words what happened (or why nothing did).
    """

    ok: bool
    message: str
    spoken: bool = False
    wav_path: Path | None = None


def espeak_available() -> bool:
    """True when the ``espeak-ng`` program is on the PATH."""
    return shutil.which(ESPEAK) is not None


def speak(
    text: str,
    *,
    wav_path: Path | None = None,
    voice: str = "en-gb",
    words_per_minute: int = 160,
    timeout_s: float = 30.0,
) -> SpeechResult:
    """Speak ``text`` through espeak-ng, or write it to ``wav_path`` (a WAV file) when given.

    A missing espeak-ng, a failing one or one that takes longer than ``timeout_s`` seconds is
    reported in the result, not raised. The text goes to espeak-ng on its standard input, so
    nothing in it can be mistaken for an option.
    """
    exe = shutil.which(ESPEAK)
    if exe is None:
        return SpeechResult(ok=False, message=NOT_INSTALLED)
    args = [exe, "-v", voice, "-s", str(words_per_minute), "--stdin"]
    if wav_path is not None:
        args[1:1] = ["-w", str(wav_path)]
    try:
        done = subprocess.run(
            args,
            input=text,
            text=True,
            capture_output=True,
            timeout=timeout_s,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return SpeechResult(ok=False, message=f"espeak-ng took longer than {timeout_s:g} s.")
    except OSError as exc:
        return SpeechResult(ok=False, message=f"espeak-ng could not be started: {exc}.")
    if done.returncode != 0:
        detail = done.stderr.strip().splitlines()
        why = detail[-1] if detail else f"exit status {done.returncode}"
        return SpeechResult(ok=False, message=f"espeak-ng failed: {why}")
    if wav_path is not None:
        return SpeechResult(ok=True, message=f"Speech written to {wav_path}.", wav_path=wav_path)
    if _no_sound_device(done.stderr):
        # espeak-ng exits 0 even when ALSA had nowhere to play the sound.
        return SpeechResult(ok=False, message=NO_SOUND_DEVICE)
    return SpeechResult(ok=True, message="Spoken aloud.", spoken=True)


def _no_sound_device(stderr: str) -> bool:
    text = stderr.lower()
    return "snd_pcm_open" in text or "cannot find card" in text or "unknown pcm" in text


def _third(value: float, size: int) -> int:
    if size <= 0:
        return 1
    return min(2, max(0, int(3.0 * value / size)))


def _capitalise(text: str) -> str:
    return text[:1].upper() + text[1:]


def _is_unread(die: DieReading) -> bool:
    return die.value is None or "uncertain" in die.flags


def _reroll_name(die: DieReading) -> str:
    leaning = "leaning" in die.flags
    off_tray = "off_tray" in die.flags
    if leaning and off_tray:
        return "leaning die off the tray"
    if off_tray:
        return "die off the tray"
    return "leaning die"
