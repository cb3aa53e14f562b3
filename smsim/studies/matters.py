"""What matters: how much each part of the game is worth to a player, measured by forbidding it
(restricted play; docs/feel.md, "What matters").

For each part a player may forgo (``layout.FORGO_PARTS``: churches, walls, crates, logs, turning
dice, each person type; soldiers are the defence a player buys, merchants the coins from crates),
the policy forbidden from it (``POLICY-without-PART``: its moves masked in the loop, its keeps
valuing those uses at nothing) plays one seat against the unrestricted policy in the others, every
seat rotation on the same dice (a block). The part's worth is the restricted seat's **loss**: the
fair share 1/P minus its win share, in points, and its VP behind the other seats, each with a 95%
interval over blocks. The parts are ranked by loss at each strength and player count, and the
ranking is compared across strengths (Spearman's rank correlation): does what matters depend on
how well the game is played?

A part whose loss is within ``MARGINS["share"]`` (1 point) is one a player could ignore at that
level without losing; the verdicts are the ladder's (``ladder.step_verdict``) read as a loss.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from smsim.checks import threads as checks_threads
from smsim.checks import whole
from smsim.errors import MattersError, PolicyError
from smsim.files import write_file, writing
from smsim.intervals import mean_and_interval
from smsim.layout import FORGO_PARTS, PolicyKind
from smsim.policies.registry import forgoing, resolve_policy
from smsim.rules import Rules
from smsim.runs.dataset import policy_identity
from smsim.runs.folder import check_out, read_manifest, write_manifest
from smsim.runs.spec import MAX_GAMES, default_threads
from smsim.studies.compare import play_round
from smsim.studies.ladder import (
    HEAD,
    LEVEL,
    NO_DATA,
    NOT_SETTLED,
    ORDERED,
    REVERSED,
    SMALL,
    UNSIZED,
    Cell,
    arrangements_of,
    block_figures,
    step_verdict,
)

DEFAULT_POLICIES = ("balanced", "learned")
"""The strengths measured by default: L1 and L2 of the report."""

CHUNK_BLOCKS = 500
"""Blocks played at a time (a progress step)."""

VERDICTS = {
    ORDERED: "matters",
    SMALL: "matters, little",
    UNSIZED: "matters, size not settled",
    LEVEL: "can be ignored",
    NOT_SETTLED: "not settled",
    REVERSED: "better forgone",
    NO_DATA: NO_DATA,
}
"""A loss's verdict (``ladder.step_verdict`` on the loss, judged against the margin): beyond 1
point (*matters*), above 0 and below 1 point (*matters, little*), above 0 but reaching past 1 point
(*matters, size not settled*: never called little), within 1 point of none (*can be ignored*), or
a gain from forgoing the part."""

COLUMNS = [
    "policy",
    "players",
    "part",
    "games",
    "blocks",
    "share",
    "share_lo",
    "share_hi",
    "loss",
    "loss_lo",
    "loss_hi",
    "vp_loss",
    "vp_lo",
    "vp_hi",
    "verdict",
    "rank",
]


@dataclass(frozen=True)
class MattersPlan:
    """Each of ``parts`` forbidden to one seat of each of ``policies`` against the same policy
    unrestricted, at each of ``players``, ``games`` games a cell (whole blocks), from ``seed``."""

    policies: tuple[str, ...] = DEFAULT_POLICIES
    parts: tuple[str, ...] = FORGO_PARTS
    players: tuple[int, ...] = (2, 4)
    games: int = 2_000
    seed: int = 0

    def cells(self) -> list[tuple[str, int, str]]:
        return [(policy, p, part) for policy in self.policies for p in self.players for part in self.parts]


def plan_matters(
    policies=DEFAULT_POLICIES, parts=FORGO_PARTS, players=(2, 4), games: int = 2_000, seed: int = 0
) -> MattersPlan:
    """A plan checked before anything is played: ``MattersError`` names what is wrong, in one line.
    ``parts`` None: every part."""
    parts = FORGO_PARTS if parts is None else parts
    policies = tuple(dict.fromkeys([policies] if isinstance(policies, str) else policies))
    if not policies:
        raise MattersError("name at least one policy")
    for name in policies:
        try:
            spec = resolve_policy(name)
        except PolicyError as exc:
            raise MattersError(str(exc)) from None
        if spec.kind not in (PolicyKind.HEURISTIC, PolicyKind.LEARNED):
            raise MattersError(
                f"{name!r} is a {spec.kind.name.lower()} policy: only a heuristic or learned policy "
                "can be forbidden parts of the game (its moves masked, its keeps told)"
            )
    parts = tuple(dict.fromkeys([parts] if isinstance(parts, str) else parts))
    if not parts:
        raise MattersError(f"name at least one part ({', '.join(FORGO_PARTS)})")
    for part in parts:
        if part not in FORGO_PARTS:
            raise MattersError(f"unknown part {part!r}; the parts a player may forgo: {', '.join(FORGO_PARTS)}")
    players = [players] if isinstance(players, int) else players
    counts = tuple(sorted({whole(p, "--players", low=2, high=5, error=MattersError) for p in players}))
    if not counts:
        raise MattersError("give at least one player count")
    games = whole(games, "--games", low=max(counts), high=MAX_GAMES, error=MattersError)
    return MattersPlan(policies, parts, counts, games, whole(seed, "--seed", error=MattersError))


def play_cell(
    policy: str,
    players: int,
    part: str,
    games: int,
    seed: int,
    rules: Rules,
    threads: int,
    on_blocks: Callable[[int], None] | None = None,
) -> pd.DataFrame:
    """One part's match: per block, the restricted seat's win share, its VP and the others' mean VP
    (``ladder.block_figures``)."""
    base = resolve_policy(policy)
    restricted = forgoing(base, part)
    cell = Cell(HEAD, players, restricted.name, base.name, games, players)
    arrs = arrangements_of(cell, 0)
    frames = []
    for first in range(0, cell.blocks, CHUNK_BLOCKS):
        n = min(CHUNK_BLOCKS, cell.blocks - first)
        played = play_round(
            first,
            n,
            arrs,
            [restricted, base],
            [restricted.name, base.name],
            players,
            seed,
            rules,
            threads,
            tables=False,
        )
        frames.append(block_figures(played, arrs))
        if on_blocks is not None:
            on_blocks(n * players)
    return pd.concat(frames, ignore_index=True)


def cell_row(policy: str, players: int, part: str, blocks: pd.DataFrame) -> dict:
    """A part's figures from its blocks: the win share, the loss against parity and the VP behind
    the others, each with its interval; the verdict of the loss by size."""
    parity = 1.0 / players
    share, lo, hi, n = mean_and_interval(blocks["share"].to_numpy())
    vp, vp_lo, vp_hi, _ = mean_and_interval((blocks["others_vp"] - blocks["vp"]).to_numpy())
    return {
        "policy": policy,
        "players": players,
        "part": part,
        "games": n * players,
        "blocks": n,
        "share": share,
        "share_lo": lo,
        "share_hi": hi,
        "loss": parity - share,
        "loss_lo": parity - hi,
        "loss_hi": parity - lo,
        "vp_loss": vp,
        "vp_lo": vp_lo,
        "vp_hi": vp_hi,
        "verdict": VERDICTS[step_verdict(parity - share, parity - hi, parity - lo)],
    }


def ranked(table: pd.DataFrame) -> pd.DataFrame:
    """``rank`` 1 for the part whose loss is largest, per policy and player count."""
    out = table.copy()
    out["rank"] = out.groupby(["policy", "players"])["loss"].rank(ascending=False, method="min").astype(np.int64)
    return out.sort_values(["policy", "players", "rank"], ignore_index=True)[COLUMNS]


def rank_agreement(table: pd.DataFrame) -> pd.DataFrame:
    """Per player count and pair of policies, Spearman's rank correlation of the parts' losses
    (1: the same order at both strengths), over the parts both measured."""
    rows = []
    policies = list(dict.fromkeys(table["policy"]))
    for p, at in table.groupby("players"):
        losses = at.pivot(index="part", columns="policy", values="loss")
        for i, a in enumerate(policies):
            for b in policies[i + 1 :]:
                if a in losses and b in losses:
                    both = losses[[a, b]].dropna()
                    rho = both[a].rank().corr(both[b].rank()) if len(both) > 2 else float("nan")
                    rows.append({"players": p, "policy": a, "against": b, "parts": len(both), "spearman": rho})
    return pd.DataFrame(rows, columns=["players", "policy", "against", "parts", "spearman"])


@dataclass(frozen=True)
class MattersResult:
    table: pd.DataFrame  # COLUMNS, ranked
    agreement: pd.DataFrame  # rank_agreement


def identity(plan: MattersPlan, rules: Rules) -> dict:
    """What makes two studies the same: a folder of another identity is refused."""
    return {
        "policies": list(plan.policies),
        "parts": list(plan.parts),
        "players": list(plan.players),
        "games": plan.games,
        "seed": plan.seed,
        "rules": rules.to_dict(),
        "identities": {name: policy_identity(resolve_policy(name)) for name in plan.policies},
    }


def _cell_file(folder: Path, policy: str, players: int, part: str) -> Path:
    return folder / "cells" / f"{players}p-{Path(policy).stem}-without-{part}.parquet"


def what_matters(
    policies=DEFAULT_POLICIES,
    parts=FORGO_PARTS,
    players=(2, 4),
    games: int = 2_000,
    seed: int = 0,
    rules: Rules | None = None,
    threads: int | None = None,
    out: str | Path | None = None,
    command: list[str] = (),
    on_progress: Callable[[int, int], None] | None = None,
) -> MattersResult:
    """Every part of ``parts`` forbidden to one seat of each policy, as ``smsim matters``. With
    ``out``, a folder: each cell's blocks written as it ends (a rerun plays only the missing cells)
    and the table beside them (``read_matters`` reads it back).

    >>> result = what_matters(["balanced"], players=[4], games=4000, seed=38)   # doctest: +SKIP
    >>> result.table[["part", "loss", "loss_lo", "loss_hi", "rank"]]           # doctest: +SKIP
    """
    plan = plan_matters(policies, parts, players, games, seed)
    threads = checks_threads(threads, error=MattersError) or default_threads()
    rules = rules or Rules()
    folder = None if out is None else Path(out)
    # the folder as given: a URL is refused by name, never taken for a local path
    if out is not None and not check_out(out, "matters", identity(plan, rules)):
        write_manifest(folder, "matters", {"plan": identity(plan, rules), "command": list(command)})
    total = sum(max(1, plan.games // p) * p for _, p, _ in plan.cells())
    done = 0

    def step(n: int) -> None:
        nonlocal done
        done += n
        if on_progress is not None:
            on_progress(done, total)

    rows = []
    for policy, p, part in plan.cells():
        file = None if folder is None else _cell_file(folder, policy, p, part)
        if file is not None and file.is_file():
            blocks = pd.read_parquet(file)
            step(len(blocks) * p)
        else:
            blocks = play_cell(policy, p, part, plan.games, plan.seed, rules, threads, step)
            if file is not None:
                file.parent.mkdir(parents=True, exist_ok=True)
                with writing(file) as tmp:  # whole or not at all
                    blocks.to_parquet(tmp, index=False)
        rows.append(cell_row(policy, p, part, blocks))
    table = ranked(pd.DataFrame(rows))
    result = MattersResult(table, rank_agreement(table))
    if folder is not None:
        write_file(folder / "matters.csv", table.to_csv(index=False))
        write_file(folder / "agreement.csv", result.agreement.to_csv(index=False))
    return result


def read_matters(path: str | Path) -> MattersResult:
    """A what-matters folder (``what_matters(out=...)``, ``smsim matters --out``), its table made
    again from the cells written so far (a cut-off study reads as far as it got)."""
    path = Path(path)
    ident = read_manifest(path, "matters")["plan"]
    rows = [
        cell_row(policy, p, part, pd.read_parquet(_cell_file(path, policy, p, part)))
        for policy in ident["policies"]
        for p in ident["players"]
        for part in ident["parts"]
        if _cell_file(path, policy, p, part).is_file()
    ]
    if not rows:
        raise MattersError(f"{str(path)!r}: the what-matters study holds no part measured yet")
    table = ranked(pd.DataFrame(rows))
    table.attrs.update(path=str(path), seed=ident["seed"], rules=Rules.from_dict(ident["rules"]))
    return MattersResult(table, rank_agreement(table))
