"""Tunable parameters of the dice reader, as one typed named tuple with documented defaults."""

from __future__ import annotations

from typing import NamedTuple


class ReaderParams(NamedTuple):
    """Knobs of the reading pipeline.

    Sizes are relative (to the image, a pip or a die) wherever possible so that the same
    defaults work at any resolution; the few absolute values are grey levels (0-255).
    """

    #: The photo is reduced so that its longer side is at most this many pixels before
    #: searching for pips (faces are then read on the same reduced image).
    work_max_side: int = 960
    #: A smaller photo may be enlarged by up to this factor (towards ``work_max_side``). Off
    #: by default: enlarging small webcam frames did not help on the shared sets.
    max_upscale: float = 1.0
    #: When the median pip diameter of the dice found is below this many pixels (of the
    #: reduced image), the photo is read again enlarged (0 turns this off).
    small_pip_px: float = 7.5
    #: ... enlarged so that that median pip diameter becomes about this many pixels.
    small_pip_px_target: float = 12.0
    #: Least confidence of a die that only the enlarged reading finds.
    small_pip_min_confidence: float = 0.8
    #: Least pip diameter of a die that only the enlarged reading finds, as a share of the
    #: median pip diameter of the first reading.
    small_pip_min_ratio: float = 0.6
    #: No enlarged second reading when the first one left more than this many pip
    #: candidates per die found (a grainy photo or a textured table: enlarging it costs
    #: seconds and finds specks, not dice).
    small_pip_max_candidates_per_die: float = 40.0
    #: When the median pip diameter of the dice found is above this many pixels (of the
    #: reduced image), the photo is read again reduced further (0 turns this off): big pips
    #: show their dimples, dust and compression specks, which the pip search takes for pips
    #: inside pips. Pips up to about 22 px still fall in the middle of the search's scales
    #: (a half-size level looks for 8-27 px), so only bigger ones pay for a second reading.
    big_pip_px: float = 22.0
    #: ... reduced so that that median pip diameter becomes about this many pixels.
    big_pip_px_target: float = 11.0
    #: Look for dice the pip search missed by their bodies (blobs of the dice's size that
    #: stand out from the floor) and count their pips one die at a time.
    body_dice: bool = True
    #: Least confidence of a die found by its body for it to be reported at all; below
    #: ``min_confidence`` it is reported uncertain (its counted value about a coin toss).
    body_min_confidence: float = 0.5
    #: Smallest pip diameter searched for, in pixels of the reduced image.
    min_pip_px: float = 2.5
    #: Largest pip diameter searched for, as a fraction of the reduced image's shorter side.
    max_pip_frac: float = 0.25
    #: Also look for pips that differ from their face in colour more than in grey level.
    colour_pips: bool = True
    #: Least grey-level difference between a pip and the face around it.
    min_pip_contrast: float = 14.0
    #: Least share of the ring around a pip that must have the face's colour.
    min_ring_uniformity: float = 0.5
    #: Least mean roundness (shorter over longer width) of a face's pips: pips seen from
    #: above are near round; slots, ports and side faces seen aslant are not.
    min_face_roundness: float = 0.62
    #: Least roundness of a lone pip read as a one (a glare spot or a speck is rarely round;
    #: a camera looking at the tray aslant flattens a real pip to about the cosine of its
    #: angle of view).
    min_one_roundness: float = 0.68
    #: Largest pip-to-pip distance on one face, in pip diameters.
    max_link_diameters: float = 5.2
    #: Largest ratio between the diameters of two pips on one face.
    max_pip_size_ratio: float = 1.8
    #: Largest colour distance between the faces around two pips of one die.
    max_face_color_dist: float = 60.0
    #: Largest distance of a pip from its place in the face's grid, in grid steps.
    max_grid_residual: float = 0.38
    #: An empty grid place that looks this much like a pip (share of the face's pip
    #: contrast) makes the reading uncertain.
    max_ghost_pip_ratio: float = 0.55
    #: Least share of a two's or three's face (off its pips) that has the face's colour.
    min_face_uniformity: float = 0.7
    #: Least share of the sides of a two's or three's face along which what lies outside
    #: differs from the face: pips on a grained or speckled table have no face around them.
    min_face_distinct: float = 0.25
    #: Below this confidence a die is reported with value None and the flag ``uncertain``.
    min_confidence: float = 0.6
    #: Below this confidence the pips are not taken for a die at all (a pattern on a tray
    #: rim, specks on a table): too far from any face to be worth a flag.
    min_die_confidence: float = 0.45
    #: Share of blown-out pixels on a face above which the face counts as glare.
    max_glare_share: float = 0.12


#: The defaults used when no parameters are given.
DEFAULTS = ReaderParams()
