"""Best-play tables: exact optimal advice for every game (numpy; opt-in at the table).

Importing the package is cheap; numpy is loaded by the modules that compute:

* ``companion.coach.api.advice_json(game_id, dice=..., filled=..., roll=..., ...)``: every
  choice with its value, best first, as a JSON-ready dict (the command and the web app).
* ``companion.coach.advice``: ``advise`` (keeps and boxes with their expected final score) and
  ``expected_final_score`` for the score-sheet games.
* ``companion.coach.boxsolver``: the backward induction (``build_table``).
* ``companion.coach.tendice``: ten-dice, ``turn_policy`` (expected points of the turn) and
  ``win_table`` / ``win_choice`` (chance to win against one opponent).
* ``companion.coach.cache``: tables on disk under a hash of the rules.
* ``companion.coach.command.register``: the ``dice-companion coach`` sub-command.
"""
