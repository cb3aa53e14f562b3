"""``smsim advise``: every legal move of one decision of a game, valued by playouts.

A game is replayed from (seed, game, policies, rules) up to its decision number N (the numbers
of docs/trace.md); every legal candidate there is forced in turn and the game played on to the
end by each seat's base policy (``search.evaluate_nb``). Playout k of every candidate draws its
dice from the same stream (common random numbers), keyed by (seed, game, N, k) and never by the
real game's future dice.

The playouts are spent as ``rollout`` spends them (``search.race_nb``): every move first gets
``min_playouts``; moves whose playouts all ended identically (every seat's score, counters and
city) are the same move here and become one row, listing its moves ("wall at (0, 1), (0, 2),
(0, 3)"), played once from then on; then
sequential halving, the worse half of the moves dropped after each round, until the last two
have ``playouts`` each. A move dropped early has fewer playouts and a wider interval: each row
says how many it has. ``min_playouts`` equal to ``playouts`` values every move alike. Each row
gets:

- ``win``: the deciding seat's mean win share over its playouts (a shared win split), with the
  95% Wilson score interval. A win share lies in [0, 1], so its variance is at most p(1 - p): the
  binomial interval is exact in form for unshared wins and slightly wide otherwise.
- ``vp``: the seat's mean final VP, with the 95% Student-t interval of the mean.

Moves are ranked in the halving by win share plus a tenth of the VP margin (``rollout``'s
outcome: the margin breaks the ties a win share alone leaves), and printed best first by win.

Keep decisions: masks that roll again the same faces are the same move (dice are
interchangeable), so they are one candidate, played with one of its masks (the policy's own,
where it is among them); ``rows`` lists every mask of the group.

>>> advice = advise(3, seed=1, game=0, decision=4, playouts=8)  # doctest: +SKIP
>>> print(advice.text())  # doctest: +SKIP
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from smsim import layout as L
from smsim.checks import whole
from smsim.engine import events as E
from smsim.engine.dice import seed_key
from smsim.errors import AdviseError, PolicyError, RulesError, SimulationError, TraceError
from smsim.intervals import Z_95, wilson_interval
from smsim.layout import PolicyKind
from smsim.play.api import EVENTS_PER_TURN, check_errors, verify_game_index, verify_players
from smsim.play.loop import MAX_PLAYOUTS, MEMO_SIZE, Seats, continue_game_nb, new_work
from smsim.play.narrate import Cities
from smsim.play.search import evaluate_nb, new_search, play_one_search_nb
from smsim.play.trace import FACE_NAMES, PERSON_NAMES, end_record, events_to_records, turn_records
from smsim.play.tracefile import iter_jsonl
from smsim.policies import heuristic_layout as HL
from smsim.policies.exact_keep import ERROR_VP, keep_regret_nb
from smsim.policies.learned import learned_pick_nb
from smsim.policies.registry import (
    PolicySpec,
    base_arrays,
    line_up_marks,
    policy_arrays,
    resolve_policies,
    resolve_policy,
)
from smsim.policies.rollout import ROLLOUT_DEFAULTS
from smsim.rules import SIDE_NAMES, Rules

# The leading moves' playouts, and every move's first: with sequential halving a 4-player
# placement of 41 cells costs some 2,000 playouts, not 41 x 200 (docs/advise.md gives the times).
DEFAULT_PLAYOUTS = 200
DEFAULT_MIN_PLAYOUTS = 32
MAX_DECISION = 2**63 - 1  # the engine counts decisions in an int64
RANK_MARGIN = ROLLOUT_DEFAULTS["margin"]
# ``smsim play --advise`` evaluates every use of the dice of a game by default (about 90 in a
# 4-player game; about 6 s of one core at 128 playouts), keep decisions on request (about 180
# more, 12 s at 64 playouts): docs/advise.md
ANNOTATE_PLAYOUTS = 128
ANNOTATE_KINDS = ("USE",)
DECISION_NAMES = tuple(d.name for d in L.Decision)


@dataclass
class Candidate:
    """One legal move and what its playouts gave."""

    move: str  # the moves of the row, in words ("wall at (0, 1), (0, 2)")
    rows: list[int]  # the candidate rows this row stands for (a keep decision's row is its mask)
    row: int  # the row played in the playouts
    win: float
    win_lo: float
    win_hi: float
    vp: float
    vp_lo: float
    vp_hi: float
    pick: bool  # the policy's own pick
    playouts: int = 0  # the playouts behind the figures
    moves: list[str] = field(default_factory=list)  # each move of the row (identical here), in words

    def to_dict(self) -> dict[str, Any]:
        return {
            "move": self.move,
            "moves": self.moves,
            "win": self.win,
            "win_lo": self.win_lo,
            "win_hi": self.win_hi,
            "vp": self.vp,
            "vp_lo": self.vp_lo,
            "vp_hi": self.vp_hi,
            "playouts": self.playouts,
            "pick": self.pick,
            "rows": self.rows,
        }


@dataclass
class Advice:
    """The candidates of one decision, best first (by win, then VP), and its position."""

    seed: int
    game: int
    policies: list[str]
    decision: int
    decisions: int  # how many decisions the game asked
    seat: int
    kind: str  # a layout.Decision name
    round: int
    playouts: int  # the leading moves'
    position: str  # the position in words and drawings (``text`` prints it)
    candidates: list[Candidate] = field(default_factory=list)
    min_playouts: int = DEFAULT_MIN_PLAYOUTS

    @property
    def pick(self) -> Candidate:
        return next(c for c in self.candidates if c.pick)

    @property
    def best(self) -> Candidate:
        return self.candidates[0]

    def to_dict(self) -> dict[str, Any]:
        return {
            "decision": self.decision,
            "seat": self.seat,
            "kind": self.kind,
            "round": self.round,
            "policy": self.policies[self.seat],
            "seed": self.seed,
            "game": self.game,
            "playouts": self.playouts,
            "min_playouts": self.min_playouts,
            "decisions": self.decisions,
            "candidates": [c.to_dict() for c in self.candidates],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    def text(self) -> str:
        width = max(len("move"), *(len(c.move) for c in self.candidates))
        moves = sum(len(c.moves) for c in self.candidates)
        grouped = f" ({moves} moves: those in one row gave identical results)" if moves > len(self.candidates) else ""
        spread = (
            "each"
            if self.min_playouts >= self.playouts
            else f"for the leading moves, at least {self.min_playouts} for the others (sequential halving)"
        )
        lines = [
            self.position,
            "",
            f"{len(self.candidates)} candidates{grouped}, {self.playouts} playouts {spread}; common dice, "
            f"continuations played by each seat's base policy; 95% intervals",
            f"  {'move':<{width}}   win   [95% interval]     VP  [95% interval]  playouts",
        ]
        for c in self.candidates:
            mark = "  <- the policy's pick" if c.pick else ""
            lines.append(
                f"{'*' if c.pick else ' '} {c.move:<{width}}  {c.win:.3f} [{c.win_lo:.3f}, {c.win_hi:.3f}]"
                f"  {c.vp:5.1f} [{c.vp_lo:5.1f}, {c.vp_hi:5.1f}]  {c.playouts:>8}{mark}"
            )
        return "\n".join(lines)


# -- intervals --------------------------------------------------------------------------------
def t_quantile_975(df: int) -> float:
    """The 0.975 quantile of Student's t with ``df`` degrees of freedom (Cornish-Fisher expansion
    about the normal quantile; within 0.2% of the exact value from df = 3 on)."""
    if df <= 0:
        return math.inf
    if df == 1:
        return 12.706204736
    if df == 2:
        return 4.302652730
    z = Z_95
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    g4 = (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160
    return z + g1 / df + g2 / df**2 + g3 / df**3 + g4 / df**4


def vp_interval(values: np.ndarray) -> tuple[float, float, float]:
    """Mean of ``values`` and its 95% t interval (infinite from one value)."""
    n = len(values)
    mean = float(values.mean())
    if n < 2:
        return mean, -math.inf, math.inf
    half = t_quantile_975(n - 1) * float(values.std(ddof=1)) / math.sqrt(n)
    return mean, mean - half, mean + half


# -- the game up to the decision --------------------------------------------------------------
@dataclass
class _Game:
    """One game set up for capture: its policies as the engine takes them."""

    players: int
    seed: int
    game: int
    specs: list[PolicySpec]
    rules: Rules
    arrays: tuple = ()

    def __post_init__(self) -> None:
        kind, params, fns = policy_arrays(self.specs)
        self.arrays = (kind, params, fns, *base_arrays(self.specs))
        self.marks = line_up_marks(self.specs)
        self.rules_nb = self.rules.to_nb()
        self.crates = self.rules.start_crate_cells()

    def capture(self, decision: int):
        """Play the game alone, keeping decision ``decision`` (-1: none); returns the engine's
        (score, player, city, game_out, trace rows, work) and the trace buffer."""

        kind, params, fns, base_kind, base_params, playout_kind, playout_params = self.arrays
        trace = np.zeros((self.rules.max_rounds * self.players * EVENTS_PER_TURN + 16, E.EVENT_WIDTH), dtype=np.int64)
        w = new_work(self.players, trace)
        score, game_out, n_rows = play_one_search_nb(
            seed_key(self.seed),
            self.game,
            self.rules_nb,
            self.crates,
            kind,
            params,
            fns,
            base_kind,
            base_params,
            playout_kind,
            playout_params,
            self.marks,
            w,
            new_search(self.players),
            decision,
        )
        out = (score, w.player, w.city, game_out, n_rows, w)
        try:
            check_errors(game_out[None, :], self.specs, self.game)
        except SimulationError as exc:
            raise AdviseError(str(exc)) from None
        return out, trace

    def records(self, out, trace) -> list[dict[str, Any]]:
        score, _, city, game_out, n_rows, _ = out
        return events_to_records(
            trace[:n_rows],
            seed=self.seed,
            game=self.game,
            policies=[s.name for s in self.specs],
            rules=self.rules,
            score=score,
            city=city,
            game_out=game_out,
        )

    def evaluate(self, w, rows: np.ndarray, playouts: int, min_playouts: int, first_playout: int = 0):
        """The candidate ``rows`` raced (``search.evaluate_nb``): the search scratch, whose
        ``played``, ``same``, ``win`` and ``vp`` say what each row's playouts gave."""

        _, _, fns, _, _, playout_kind, playout_params = self.arrays
        search = new_search(self.players, playouts, len(rows))
        search.rows[: len(rows)] = rows
        evaluate_nb(
            w,
            self.rules_nb,
            fns,
            playout_kind,
            playout_params,
            self.marks,
            len(rows),
            first_playout,
            playouts,
            min(min_playouts, playouts),
            True,
            RANK_MARGIN,
            search,
        )
        return search


def _setup(players: int, seed: int, game: int, policies: list | None, rules: Rules | None) -> _Game:
    try:
        players = verify_players(players)
        game = verify_game_index(game)
        specs = resolve_policies(policies, players)
    except (SimulationError, PolicyError) as exc:
        raise AdviseError(str(exc)) from None
    return _Game(players, whole(seed, "seed", error=AdviseError), game, specs, rules or Rules())


def _check_counts(decision: int, playouts: int, min_playouts: int = DEFAULT_MIN_PLAYOUTS) -> None:
    whole(decision, "decision", low=0, high=MAX_DECISION, error=AdviseError)
    whole(playouts, "playouts", low=1, high=MAX_PLAYOUTS, error=AdviseError)
    whole(min_playouts, "min_playouts", low=1, error=AdviseError)


# -- candidates in words ----------------------------------------------------------------------
def _plural(n: int, word: str) -> str:
    if n == 1:
        return f"1 {word}"
    return f"{n} {word}es" if word.endswith("s") else f"{n} {word}s"


def _rc(cell: int) -> str:
    r, c = L.cell_rc(int(cell))
    return f"({r}, {c})"


def _cell_name(code: int) -> str:
    cell = L.Cell(int(code))
    if cell in L.CHURCH_CELLS:
        return f"church of size {L.CHURCH_CELLS.index(cell) + 1}"
    if code >= L.PERSON_0:
        return PERSON_NAMES[code - L.PERSON_0]
    return cell.name.lower()


def move_words(kind: int, cand: np.ndarray, ctx: np.ndarray, dice: list[int]) -> str:
    """One candidate row of a decision, in the game's words."""
    if kind == L.Decision.KEEP:
        mask = int(cand[0])
        if mask == 0:
            return "stop rolling"
        chosen = [d for d in range(L.N_DICE) if (mask >> d) & 1]
        faces = ", ".join(FACE_NAMES[dice[d]] for d in chosen) if dice else ""
        return f"roll again dice {', '.join(map(str, chosen))}" + (f" ({faces})" if faces else "")
    if kind == L.Decision.USE:
        symbol, k, rotated, person = (int(x) for x in cand[: L.CAND_WIDTH])
        if symbol < 0:
            return "use no die"
        face = FACE_NAMES[symbol]
        text = f"use {_plural(k, face)}"
        if rotated:
            text += f" ({rotated} turned)"
        if face == "head":
            text += f": {PERSON_NAMES[person]}"
        elif face == "cross":
            text += f": church of size {k}"
        return text
    if kind == L.Decision.PLACE:
        return f"{_cell_name(int(ctx[L.CTX_WHAT]))} at {_rc(cand[0])}"
    if kind == L.Decision.HOUSES:
        h = int(cand[0])
        return "build no house" if h == 0 else f"build {_plural(h, 'house')}"
    if kind == L.Decision.BONUS_SIDE:
        return f"take the {SIDE_NAMES[int(cand[0])]} side's bonus first"
    return f"bonus person: {PERSON_NAMES[int(cand[0])]}"


def _candidate_groups(kind: int, cands: np.ndarray, dice: list[int], pick: int) -> list[list[int]]:
    """Rows that are the same move: keep masks rolling again the same faces; else each row."""
    n = len(cands)
    if kind != L.Decision.KEEP or not dice:
        return [[i] for i in range(n)]
    groups: dict[tuple[int, ...], list[int]] = {}
    for i in range(n):
        mask = int(cands[i, 0])
        faces = tuple(sorted(dice[d] for d in range(L.N_DICE) if (mask >> d) & 1))
        groups.setdefault(faces, []).append(i)
    # the policy's own mask first in its group: it is the one played
    return [sorted(rows, key=lambda r: (r != pick, r)) for rows in groups.values()]


# -- the position -----------------------------------------------------------------------------
def _position(g: _Game, w, trace: np.ndarray, decision: int, decisions: int) -> tuple[str, list[int]]:
    """The position at the decision in words, and the dice in hand (faces, die 0..4)."""
    cap = w.cap
    ctx, snap = cap.ctx, cap.snap
    seat, rnd = int(ctx[L.CTX_SEAT]), int(ctx[L.CTX_ROUND])
    turns, _ = turn_records(trace[: int(cap.at[4])], g.players)
    cities = Cities(g.players, g.rules.to_dict()["start_crates"])
    for rec in turns:
        cities.place_turn(rec)
    current = turns[-1] if turns else None
    names = [s.name for s in g.specs]
    kind = DECISION_NAMES[int(ctx[L.CTX_DECISION])]
    lines = [
        f"Saint Malo, {g.players} players, seed {g.seed}, game {g.game}: "
        + ", ".join(f"seat {s} {p}" for s, p in enumerate(names)),
        f"Decision {decision} of {decisions}: seat {seat} ({names[seat]}) decides {kind} in round {rnd + 1}",
        "",
        cities.draw(),
        "",
        "at the start of this turn:",
        "seat  coins  logs  VP  cannons lost  defence",
    ]
    rules = g.rules
    for s in range(g.players):
        p = snap.player[s]
        sides = int(p[L.SIDES_DONE]).bit_count()
        defence = int(p[L.SOLDIERS]) * rules.soldier_defence + sides * rules.side_defence
        lines.append(
            f"{s:>4}  {int(p[L.COINS]):>5}  {int(p[L.LOGS]):>4}  {int(p[L.VP]):>2}  "
            f"{int(p[L.CANNONS_LOST]):>12}  {defence:>7}"
        )
    row_len = rules.pirate_row_boxes(g.players)
    strengths = rules.pirate_strengths
    boxes, attacks = int(snap.pirates[L.PIRATE_BOXES]), int(snap.pirates[L.PIRATE_ATTACKS])
    text = f"pirates: {boxes} of {row_len * len(strengths)} boxes crossed, {attacks} attacks made"
    if attacks < len(strengths):
        text += f"; the next (strength {strengths[attacks]}) after {row_len * (attacks + 1) - boxes} more swords"
    lines.append(text)
    dice: list[int] = []
    if current is not None and current["rolls"]:
        dice = [FACE_NAMES.index(f) for f in current["rolls"][-1]]
        so_far = [f"rolled {' '.join(current['rolls'][0])}"]
        for mask, faces in zip(current["rerolled"], current["rolls"][1:]):
            so_far.append(f"rolled again dice {[d for d in range(L.N_DICE) if (mask >> d) & 1]}: {' '.join(faces)}")
        use = current["use"]
        if use is not None:
            so_far.append(
                f"used {_plural(use['dice'], use['symbol'])}"
                + (f" ({use['rotated']} turned)" if use["rotated"] else "")
                + (f": {use['person']}" if use["person"] else "")
            )
        if current["cells"] or current["houses"]:
            so_far.append("placed " + " ".join(f"({r}, {c})" for r, c in current["cells"] + current["houses"]))
        lines.append("this turn so far: " + "; ".join(so_far))
        lines.append("dice in hand: " + ", ".join(f"{d}:{FACE_NAMES[f]}" for d, f in enumerate(dice)))
    return "\n".join(lines), dice


# -- advise -----------------------------------------------------------------------------------
def merge_moves(words: list[str]) -> str:
    """Moves of one row in words: placements of one piece as "wall at (0, 1), (0, 2)"."""
    if len(words) == 1:
        return words[0]
    heads = {w.rpartition(" at ")[0] for w in words}
    if len(heads) == 1 and all(" at " in w for w in words):
        return f"{heads.pop()} at " + ", ".join(w.rpartition(" at ")[2] for w in words)
    return " | ".join(words)


def _advise(
    g: _Game,
    decision: int,
    playouts: int,
    min_playouts: int = DEFAULT_MIN_PLAYOUTS,
    first_playout: int = 0,
    captured=None,
) -> Advice:
    (*_, w), trace = captured or g.capture(decision)
    cap = w.cap
    decisions = int(w.ctx[L.CTX_INDEX])
    if cap.at[1] == 0:
        raise AdviseError(
            f"decision {decision} is past the end of the game: it had {decisions} decisions (0 to {decisions - 1})"
        )
    kind = int(cap.ctx[L.CTX_DECISION])
    n = int(cap.ctx[L.CTX_N])
    cands = np.array(cap.cands[:n])
    pick = int(cap.at[3])
    position, dice = _position(g, w, trace, decision, decisions)
    groups = _candidate_groups(kind, cands, dice, pick)
    search = g.evaluate(w, np.array([grp[0] for grp in groups], dtype=np.int64), playouts, min_playouts, first_playout)
    members: dict[int, list[int]] = {}  # the row standing for each set of identical moves, and its groups
    for i in range(len(groups)):
        members.setdefault(int(search.same[i]), []).append(i)
    out = []
    for lead, indices in members.items():
        t = int(search.played[lead])
        win, vp = search.win[lead, :t], search.vp[lead, :t]
        lo, hi = wilson_interval(float(win.sum()), t)
        lo, hi = min(lo, float(win.mean())), max(hi, float(win.mean()))  # rounding at 0 and 1
        mean, vp_lo, vp_hi = vp_interval(vp)
        rows = [int(r) for i in indices for r in groups[i]]
        words = [move_words(kind, cands[groups[i][0]], cap.ctx, dice) for i in indices]
        out.append(
            Candidate(
                merge_moves(words),
                rows,
                int(groups[lead][0]),
                float(win.mean()),
                lo,
                hi,
                mean,
                vp_lo,
                vp_hi,
                pick in rows,
                t,
                words,
            )
        )
    out.sort(key=lambda c: (-c.win, -c.vp, c.row))
    return Advice(
        g.seed,
        g.game,
        [s.name for s in g.specs],
        decision,
        decisions,
        int(cap.ctx[L.CTX_SEAT]),
        DECISION_NAMES[kind],
        int(cap.ctx[L.CTX_ROUND]),
        playouts,
        position,
        out,
        min(min_playouts, playouts),
    )


def advise(
    players: int,
    seed: int,
    game: int,
    decision: int,
    policies: list | None = None,
    playouts: int = DEFAULT_PLAYOUTS,
    rules: Rules | None = None,
    first_playout: int = 0,
    min_playouts: int = DEFAULT_MIN_PLAYOUTS,
) -> Advice:
    """Every legal move at decision ``decision`` of game ``game`` of the run keyed by ``seed``
    (policies and rules as for ``play.api.play_game``), valued by continuations: at least
    ``min_playouts`` each, ``playouts`` for the leading moves (module docstring), playout streams
    ``first_playout`` onwards. Raises AdviseError for bad input."""
    _check_counts(decision, playouts, min_playouts)
    whole(first_playout, "first_playout", low=0, high=MAX_PLAYOUTS - playouts, error=AdviseError)
    return _advise(
        _setup(players, seed, game, policies, rules),
        int(decision),
        int(playouts),
        int(min_playouts),
        int(first_playout),
    )


def read_trace_game(path: str | Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The first game of a trace file: its ``game`` record and the records after it (to its
    ``end``). Raises AdviseError, one line, for a file that is not a trace."""
    records: list[dict[str, Any]] = []
    try:
        for _, rec in iter_jsonl(path):
            if not records and rec.get("type") != "game":
                raise AdviseError(f"{str(path)!r} is not a trace (docs/trace.md): it does not start with a game line")
            if records and rec.get("type") == "game":
                break  # the next game: advise looks at the first
            records.append(rec)
    except TraceError as exc:
        raise AdviseError(str(exc)) from None
    header = records[0]
    for key, kind in (("seed", int), ("game", int), ("players", int), ("policies", list), ("rules", dict)):
        if not isinstance(header.get(key), kind) or isinstance(header.get(key), bool):
            raise AdviseError(f"{str(path)!r} is not a trace (docs/trace.md): its game line has no valid {key!r}")
    return header, records[1:]


def _trace_game(path: str | Path) -> tuple[_Game, list[dict[str, Any]]]:
    header, rest = read_trace_game(path)
    try:
        rules = Rules.from_dict(header["rules"])
    except (RulesError, TypeError, ValueError) as exc:
        raise AdviseError(f"{str(path)!r}: its rules cannot be read: {exc}") from None
    try:
        g = _setup(header["players"], header["seed"], header["game"], header["policies"], rules)
    except AdviseError as exc:
        raise AdviseError(f"{str(path)!r}: {exc}") from None
    return g, rest


def _check_replay(path: str | Path, recorded: list[dict[str, Any]], replayed: list[dict[str, Any]]) -> None:
    """The replay must be the recorded game, or the advice would be about another game."""
    turns = [r for r in recorded if isinstance(r, dict) and r.get("type") == "turn"]
    mine = [r for r in replayed if r["type"] == "turn"]
    for i, (a, b) in enumerate(zip(turns, mine)):
        a = {k: v for k, v in a.items() if k != "decisions"}  # traces older than the field lack it
        b = {k: v for k, v in b.items() if k != "decisions"}
        if a != b:
            raise AdviseError(
                f"{str(path)!r}: the game does not replay as recorded (turn {i} differs): were its "
                f"policies or smsim's version different?"
            )


def advise_trace(
    path: str | Path,
    decision: int,
    playouts: int = DEFAULT_PLAYOUTS,
    first_playout: int = 0,
    min_playouts: int = DEFAULT_MIN_PLAYOUTS,
) -> Advice:
    """``advise`` for the game of a trace file (its seed, game, players, policies by name and
    rules); the game is replayed and checked against the file's turns."""
    _check_counts(decision, playouts, min_playouts)
    g, recorded = _trace_game(path)
    captured = g.capture(int(decision))
    _check_replay(path, recorded, g.records(*captured))
    return _advise(g, int(decision), int(playouts), int(min_playouts), first_playout, captured)


# -- smsim play --advise ----------------------------------------------------------------------
def annotate_game(
    players: int,
    seed: int,
    game: int,
    policies: list | None,
    rules: Rules | None,
    kinds: tuple[str, ...] = ANNOTATE_KINDS,
    playouts: int = ANNOTATE_PLAYOUTS,
    on_decision: Callable[[int, int], None] | None = None,
) -> tuple[list[dict[str, Any]], dict[int, list[str]], int]:
    """Play one game and advise at each of its decisions of ``kinds``: the game's records, the
    lines to print after each turn (by index in the records) where the policy's pick is
    significantly worse than the best move (their 95% win intervals do not overlap), and how
    many decisions were evaluated."""
    _check_counts(0, playouts)
    g = _setup(players, seed, game, policies, rules)
    out, trace = g.capture(-1)
    records = g.records(out, trace)
    notes: dict[int, list[str]] = {}
    evaluated = 0
    for index, advice in _advise_each(g, records, kinds, playouts, on_decision):
        evaluated += 1
        if len(advice.candidates) < 2:
            continue
        best, pick = advice.best, advice.pick
        if significantly_worse(advice):
            notes.setdefault(index, []).append(
                f"    advise, decision {advice.decision} ({advice.kind}): better {best.move!r}, win {best.win:.2f} "
                f"[{best.win_lo:.2f}, {best.win_hi:.2f}], than the pick {pick.move!r}, win {pick.win:.2f} "
                f"[{pick.win_lo:.2f}, {pick.win_hi:.2f}]: costs about {best.win - pick.win:.2f} win probability"
            )
    return records, notes, evaluated


def significantly_worse(advice: Advice) -> bool:
    """Whether the policy's pick is significantly worse than the best move: their 95% win
    intervals do not overlap."""
    return len(advice.candidates) > 1 and advice.pick.win_hi < advice.best.win_lo


def _advise_each(
    g: _Game,
    records: list[dict[str, Any]],
    kinds: tuple[str, ...],
    playouts: int,
    on_decision: Callable[[int, int], None] | None,
):
    """Each decision of ``kinds`` with two candidates or more of the game ``records`` tell, advised:
    (the index of its turn in the records, its Advice)."""
    wanted = {L.Decision[k].value for k in kinds}
    total = records[-1]["decisions"]
    for index, rec in enumerate(records):
        if rec["type"] != "turn":
            continue
        first, end = rec["decisions"]
        for d in range(first, end):
            if on_decision is not None:
                on_decision(d, total)
            captured = g.capture(d)
            cap = captured[0][5].cap
            if int(cap.ctx[L.CTX_DECISION]) not in wanted or int(cap.ctx[L.CTX_N]) < 2:
                continue
            yield index, _advise(g, d, playouts, DEFAULT_MIN_PLAYOUTS, 0, captured)


def _header_game(header: dict[str, Any], recorded: list[dict[str, Any]] | None) -> tuple[_Game, list[dict[str, Any]]]:
    """The game a trace's ``header`` names (its seed, game, players, policies and rules) set up, and
    its records as played here; with ``recorded`` (the trace's records after the header), they must
    be those (``AdviseError`` otherwise)."""
    try:
        rules = Rules.from_dict(header["rules"])
    except (RulesError, TypeError, ValueError, KeyError) as exc:
        raise AdviseError(f"the trace's rules cannot be read: {exc}") from None
    g = _setup(header["players"], header["seed"], header["game"], header["policies"], rules)
    records = g.records(*g.capture(-1))
    if recorded is not None:
        _check_replay("the trace", recorded, records)
    return g, records


def game_values(
    header: dict[str, Any],
    recorded: list[dict[str, Any]] | None = None,
    kinds: tuple[str, ...] = ("USE", "PLACE"),
    playouts: int = ANNOTATE_PLAYOUTS,
    on_decision: Callable[[int, int], None] | None = None,
) -> dict[int, dict[str, Any]]:
    """Every decision of ``kinds`` of the game a trace's ``header`` names (its seed, game, players,
    policies and rules), valued as ``advise`` values one (at most ``playouts`` playouts a move):
    ``Advice.to_dict()`` with ``worse`` (``significantly_worse``), by decision number. With
    ``recorded`` (the trace's records after the header), the game replayed must be the one recorded
    (``AdviseError`` otherwise)."""
    _check_counts(0, playouts)
    g, records = _header_game(header, recorded)
    return {
        advice.decision: {**advice.to_dict(), "worse": significantly_worse(advice)}
        for _, advice in _advise_each(g, records, kinds, playouts, on_decision)
    }


# -- the same dice, a different choice (smsim replay --from N --move M) --------------------------
@dataclass
class Branch:
    """A game played again from one of its decisions with another move forced there: the same
    dice (the game's own stream, turn for turn), the same policies (a searching seat plays its
    base policy in the rest: a continuation does not search)."""

    decision: int
    row: int  # the candidate row forced (smsim advise --json lists each move's rows)
    move: str  # the move forced, in words
    pick: str  # the move the game played there, in words
    pick_row: int  # its candidate row
    records: list[dict[str, Any]]  # the game so played, as a trace: the referee replays it


def branch_game(header: dict[str, Any], recorded: list[dict[str, Any]], decision: int, row: int) -> Branch:
    """The game a trace's ``header`` names (its records after the header ``recorded``, which it must
    replay as) played again from decision ``decision`` with candidate ``row`` forced there, on the
    same dice. ``AdviseError`` in one line for a decision past the game or a row out of range."""
    whole(decision, "--from", low=0, high=MAX_DECISION, error=AdviseError)
    whole(row, "--move", low=0, high=L.MAX_CANDS, error=AdviseError)
    g, records = _header_game(header, recorded)
    out, trace = g.capture(decision)
    w = out[5]
    cap = w.cap
    if cap.at[1] == 0:
        raise AdviseError(
            f"decision {decision} is past the end of the game: it had {records[-1]['decisions']} decisions"
        )
    kind_of, n = int(cap.ctx[L.CTX_DECISION]), int(cap.ctx[L.CTX_N])
    if row >= n:
        raise AdviseError(
            f"--move {row}: decision {decision} ({DECISION_NAMES[kind_of]}) has {n} moves, rows 0 to "
            f"{n - 1} (smsim advise --json lists each move's rows)"
        )
    _, dice = _position(g, w, trace, decision, records[-1]["decisions"])
    cands = np.array(cap.cands[:n])
    kind, params, fns, base_kind, base_params, playout_kind, playout_params = g.arrays
    seats = Seats(kind, params, fns, base_kind, base_params, playout_kind, playout_params, g.marks)
    cw = new_work(
        g.players, np.zeros((g.rules.max_rounds * g.players * EVENTS_PER_TURN + 16, E.EVENT_WIDTH), dtype=np.int64)
    )
    score = np.zeros((g.players, L.N_SCORE_FIELDS), dtype=np.int64)
    game_out = np.zeros(L.N_GAME_FIELDS, dtype=np.int64)
    # the game's own key for the dice seen and for every later die: the same dice, turn for turn
    continue_game_nb(
        cap.snap, cap.tape, int(cap.at[2]), np.int64(row), w.keys[0], w.keys[0], cw, seats, g.rules_nb, score, game_out
    )
    turns, _ = turn_records(cw.trace[: cw.trace_n[0]], g.players)
    turns[-1]["decisions"][1] = int(cw.ctx[L.CTX_INDEX])
    end = {**end_record(score, cw.city, game_out), "decisions": int(cw.ctx[L.CTX_INDEX])}
    start = (int(cap.snap.meta[0]), int(cap.snap.meta[1]))
    before = [r for r in records if r["type"] == "turn" and (r["round"], r["seat"]) < start]
    return Branch(
        decision,
        row,
        move_words(kind_of, cands[row], cap.ctx, dice),
        move_words(kind_of, cands[int(cap.at[3])], cap.ctx, dice),
        int(cap.at[3]),
        [records[0], *before, *turns, end],
    )


# -- every decision valued by the learned policy's model (smsim replay --values learned) ---------
LEARNED_MARGIN = 0.01
"""A pick at least this far below the model's best move (its units: win share plus a tenth of the
VP margin) counts among the costliest: one point of win share, the report's smallest change that
matters (``intervals.MARGINS["share"]``)."""


def learned_values(
    header: dict[str, Any],
    recorded: list[dict[str, Any]] | None = None,
    kinds: tuple[str, ...] = ("USE", "PLACE"),
    model: str = "learned",
    on_decision: Callable[[int, int], None] | None = None,
) -> dict[int, dict[str, Any]]:
    """Every decision of ``kinds`` of the game a trace's ``header`` names, its legal moves valued by
    the learned policy ``model`` at once (no playouts): the model's score of each move it weighs
    (win share plus a tenth of the VP margin, as it was fitted to the search's outcomes), None for
    the moves its base heuristic leaves out; by decision number, best first, with ``worse`` where
    the pick is ``LEARNED_MARGIN`` or more below the best."""
    spec = resolve_policy(model)
    if spec.kind != PolicyKind.LEARNED:
        raise AdviseError(f"{model!r} is no learned policy: --values learned values moves by a learned model")
    g, records = _header_game(header, recorded)
    wanted = {L.Decision[k].value for k in kinds}
    total = records[-1]["decisions"]
    out: dict[int, dict[str, Any]] = {}
    memo, values = np.zeros(MEMO_SIZE), np.zeros(L.MAX_CANDS)
    for d in range(total):
        if on_decision is not None:
            on_decision(d, total)
        (found, trace) = g.capture(d)
        cap = found[5].cap
        kind, n = int(cap.ctx[L.CTX_DECISION]), int(cap.ctx[L.CTX_N])
        if kind not in wanted or n < 2:
            continue
        now, s = cap.now, int(cap.ctx[L.CTX_SEAT])
        memo[:] = 0.0
        memo[HL.M_KEY] = memo[HL.M_KEEP_KEY] = -1.0
        learned_pick_nb(
            spec.params,
            s,
            now.ctx.copy(),
            cap.dice,
            cap.cands,
            now.occ,
            now.player,
            now.pirates,
            memo,
            values,
            now.rng.copy(),
            g.rules_nb,
        )
        _, dice = _position(g, found[5], trace, d, total)
        pick = int(cap.at[3])
        rows = [
            {
                "move": move_words(kind, cap.cands[i], cap.ctx, dice),
                "rows": [i],
                "value": float(values[i]) if values[i] > HL.NEG * 0.5 else None,
                "pick": i == pick,
            }
            for i in range(n)
        ]
        rows.sort(key=lambda r: (r["value"] is None, -(r["value"] or 0.0), r["rows"][0]))
        best, mine = rows[0]["value"], next(r["value"] for r in rows if r["pick"])
        out[d] = {
            "decision": d,
            "seat": s,
            "kind": DECISION_NAMES[kind],
            "round": int(cap.ctx[L.CTX_ROUND]),
            "policy": g.specs[s].name,
            "method": "learned",
            "model": spec.name,
            "candidates": rows,
            "worse": best is not None and (mine is None or best - mine >= LEARNED_MARGIN),
        }
    return out


def keep_values(
    header: dict[str, Any],
    recorded: list[dict[str, Any]] | None = None,
    oracle: str = "balanced",
    on_decision: Callable[[int, int], None] | None = None,
) -> dict[int, dict[str, Any]]:
    """Every keep-or-roll-again decision of the game a trace's ``header`` names, judged by the exact
    keep (``policies.exact_keep``: the turn's dice solved by dynamic programming over face counts,
    each final roll valued by ``oracle``'s values of the uses, as ``smsim regret`` judges keeps):
    the best keep and the pick in words with their expected values and the pick's regret, in VP
    of that value; ``worse`` where the regret exceeds ``exact_keep.ERROR_VP`` (an error)."""
    spec = resolve_policy(oracle)
    if spec.kind not in (PolicyKind.HEURISTIC, PolicyKind.LEARNED):
        raise AdviseError(f"{oracle!r} has no values of the uses to judge keeps by (a heuristic or learned policy)")
    g, records = _header_game(header, recorded)
    total = records[-1]["decisions"]
    memo = np.zeros(MEMO_SIZE)
    out: dict[int, dict[str, Any]] = {}
    for d in range(total):
        if on_decision is not None:
            on_decision(d, total)
        (found, trace) = g.capture(d)
        cap = found[5].cap
        if int(cap.ctx[L.CTX_DECISION]) != L.DECISION_KEEP:
            continue
        now, s, pick = cap.now, int(cap.ctx[L.CTX_SEAT]), int(cap.at[3])
        memo[:] = 0.0
        memo[HL.M_KEY] = memo[HL.M_KEEP_KEY] = -1.0
        regret = float(
            keep_regret_nb(
                spec.params,
                now.ctx.copy(),
                cap.dice,
                now.occ,
                now.player,
                now.pirates,
                memo,
                s,
                g.rules_nb,
                np.int64(pick),
            )
        )
        values = memo[HL.M_KEEP_VALUES : HL.M_KEEP_VALUES + L.N_KEEP_MASKS]
        best = int(np.argmax(values))
        _, dice = _position(g, found[5], trace, d, total)
        out[d] = {
            "decision": d,
            "seat": s,
            "kind": "KEEP",
            "round": int(cap.ctx[L.CTX_ROUND]),
            "method": "exact",
            "model": spec.name,
            "best": move_words(L.DECISION_KEEP, cap.cands[best], cap.ctx, dice),
            "best_value": float(values[best]),
            "pick": move_words(L.DECISION_KEEP, cap.cands[pick], cap.ctx, dice),
            "pick_value": float(values[pick]),
            "regret": regret,
            "worse": regret > ERROR_VP,
        }
    return out
