"""Why a die is asked about: the evidence of its ``uncertain`` flag.

A die the reader cannot read with confidence is reported with ``value`` None and the flag
``uncertain``; the player types its value. The sentence here tells the player (and a judge
of a disputed roll) what the reader saw there, so the die is looked at where it matters. Each
names the kind of evidence first, as the tray flags' evidence does ("pips: ...", "glare:
...", "size: ...", "position: ..."). One sentence a die: the last rule that made it uncertain.
"""

from __future__ import annotations

from typing import Final

#: Said of an uncertain die no rule gave a reason for.
UNCOUNTED: Final = "pips: they could not be counted with confidence"
#: The glare share of the face is what left it uncertain (:func:`vision.reader._check_face`).
GLARE: Final = "glare: a bright spot covers part of its face, where a pip may hide"
#: A one with another pip like its own on its face.
ONE_BESIDE: Final = "pips: another pip like the one's lies on its face"
#: A four whose corners leave room for a six's middle row (:func:`vision.reader._six_corners`).
SIX_CORNERS: Final = "pips: four corner pips with room for a middle row between them: a 4 or a 6"
#: A two or three amid starker pips of its die (:func:`vision.reader._asked_amid`).
AMID: Final = "pips: they are fainter than other pips on the same die, which may show more"
#: A two or three the photo's edge cuts (:func:`vision.reader._past_frame`).
PAST_FRAME: Final = "position: the photo's edge cuts its face; more pips may lie beyond it"
#: A face far smaller than the photo's other dice (:func:`vision.reader._doubt_small`).
SMALL: Final = "size: its face is far smaller than the other dice's"
#: A two or three fitted across its body's edges (:func:`vision.reader._turned_against`).
TURNED: Final = (
    "pips: they run along the die's edges, not corner to corner as a 2's or a 3's do "
    "(a row of a bigger face?)"
)
#: A die found by its body alone (:func:`vision.reader._with_unsure_bodies`).
BODY_ONLY: Final = "pips: a die's body is there, but its pips could not be counted"
#: A two or three where the single-face counter sees more pips (:func:`vision.reader._recount`).
MORE_PIPS: Final = "pips: a second count sees more pips on it than its face showed"
#: A one with a face of more pips in the colour planes (:func:`vision.reader._one_against_colour`).
COLOUR_MORE: Final = "colour: the pips' colour shows more pips on it than one"
#: A die-sized body whose face is blown out (:func:`vision._bodies._washed_out`).
WASHED_OUT: Final = "glare: its face is washed out by a light mirrored in it, hiding its pips"
#: Two faces read nearer than a die's side (:func:`vision.reader._with_colour_faces`).
CROWDED: Final = "position: another face was read too close to it for both to be dice"


def ghost(value: int) -> str:
    """A face fitted as ``value`` with an empty pip place as marked as a pip."""
    return f"pips: they fit a {value}, but an empty pip place looks like a pip that may be missed"


def off_grid(value: int) -> str:
    """A face fitted as ``value`` whose pips lie off its grid."""
    return f"pips: they fit a {value} only loosely, off its grid"


def unlike(value: int) -> str:
    """A face fitted as ``value`` with a pip much fainter or flatter than its siblings."""
    return (
        f"pips: they fit a {value}, but one is much fainter or flatter than the others "
        "(a pip seen through the die, or on a side face)"
    )


def colour_only(value: int) -> str:
    """A face of ``value`` pips that differ from their face only in colour."""
    return f"colour: {value} pips seen only by their colour, too few to be sure"


def loose(value: int) -> str:
    """A face the single-face counter fitted as ``value`` with too little confidence."""
    return f"pips: they fit a {value}, too loosely to be sure"


def unsupported(value: int) -> str:
    """A two or three fitted as ``value`` whose face around the pips is hardly one colour."""
    return f"pips: they fit a {value}, but little of the face around them is one colour"


def against_wall(value: int) -> str:
    """A two or three counted on a die parted from a wall (:func:`vision._bodies._against_wall`)."""
    return (
        f"pips: they fit a {value}, but the die lies against a wall, whose shade may hide "
        "more of its pips"
    )
