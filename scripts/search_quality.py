"""How good are the search's decisions? The default ``rollout`` against a reference with 16
times its budget, on decisions sampled from games of its base policy (``balanced`` for the
shipped searches; printed, never asserted).

    python scripts/search_quality.py                         # 1,000 decisions of each kind, 4 players
    python scripts/search_quality.py --decisions 200 --knobs deep.toml --seed 7

Decisions are drawn from 4-player mirror games of the search's base policy (its
``candidate_policy``), of seeds the defaults were never chosen on (``--seed``): a game, then a
decision number uniformly among its decisions, kept when it is of a kind still wanted (KEEP, USE,
PLACE) and has at least two candidates the search would weigh. At each, with the candidates
``rollout`` would weigh there (the base policy's pick and best by its own values,
``smsim.play.search.candidate_rows_nb``):

- the search under test (``--knobs``, a rollout TOML; default the shipped defaults), with
  every kind of decision switched on, on continuation streams 0 onwards; a decision it leaves
  to the base (``clear_gap``) counts as the base's pick, with no continuation spent;
- a reference: the same candidates, each valued by ``factor * budget / candidates``
  continuations (flat, no stopping, ``--factor`` 16), on streams the search never used.

Printed per kind: decisions, the share the search searched (the rest it leaves to its base),
mean candidates, mean continuations the search spent (and the reference), the share of
decisions where the search's pick is another move than the reference's best while the
reference separates the two by more than 2 of its paired standard errors (target: at most
5%), the mean loss in the reference's value (its best minus the search's pick, in the
search's own units: win share plus ``margin`` times VP margin; and in win share alone), and
the same share and loss for the base policy's own pick: what the search buys.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from smsim import layout as L
from smsim.engine import events as E
from smsim.engine.dice import seed_key
from smsim.play.api import EVENTS_PER_TURN
from smsim.play.loop import new_work
from smsim.play.search import new_search, play_one_search_nb, search_captured_nb
from smsim.policies.registry import POLICIES, base_arrays, line_up_marks, policy_arrays, resolve_policy
from smsim.policies.rollout import ROLLOUT_PARAMS
from smsim.rules import Rules

KINDS = ("KEEP", "USE", "PLACE")
REFERENCE_STREAM = 1 << 19  # the reference's continuations: streams the search never reads


def knobs_of(ref: str | None) -> tuple[np.ndarray, str, str]:
    """The knobs of the rollout policy ``ref`` (default the shipped ``rollout``), every kind
    switched on, and the names of its candidate and playout policies."""
    spec = POLICIES["rollout"] if ref is None else resolve_policy(ref)
    if spec.base is None:
        sys.exit(f"{ref!r} is not a rollout policy")
    params = spec.params.copy()
    for kind in KINDS:
        params[ROLLOUT_PARAMS.offset(f"search_{kind.lower()}")] = 1.0
    return params, reference_of(spec.decider), reference_of(spec.player)


def reference_of(spec) -> str:
    """What names ``spec`` to ``resolve_policy`` in a worker process: a built-in's name, a file's path."""
    return spec.name if spec.source == "built-in" else spec.source


def paired(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """Mean of a - b and its standard error."""
    d = a - b
    return float(d.mean()), float(d.std(ddof=1) / math.sqrt(len(d))) if len(d) > 1 else math.inf


def sample(args: tuple) -> list[dict]:
    """Decisions of games ``games`` of ``seed``, each searched and referenced."""
    seed, games, players, wanted, (knobs, chooser, player), ref_budget, kinds = args
    rules = Rules()
    specs = [resolve_policy(chooser)] * players  # the games: the search's candidate policy in every seat
    kind, params, fns = policy_arrays(specs)
    base_kind, base_params, _, _ = base_arrays(specs)
    playouts = [resolve_policy(player)] * players  # who plays continuations
    _, _, playout_kind, playout_params = base_arrays(playouts)
    marks = line_up_marks(specs + playouts)
    rules_nb, crates = rules.to_nb(), rules.start_crate_cells()
    margin = knobs[ROLLOUT_PARAMS.offset("margin")]
    budget = int(knobs[ROLLOUT_PARAMS.offset("budget")])
    ref_knobs = knobs.copy()
    ref_knobs[ROLLOUT_PARAMS.offset("halving")] = 0.0
    ref_knobs[ROLLOUT_PARAMS.offset("stop_se")] = 0.0
    ref_knobs[ROLLOUT_PARAMS.offset("group")] = 1.0
    defaults = POLICIES["rollout"].params
    for name in ("candidates", "place_candidates"):  # the shipped candidate sets, whatever the search weighs
        ref_knobs[ROLLOUT_PARAMS.offset(name)] = defaults[ROLLOUT_PARAMS.offset(name)]
    ref_knobs[ROLLOUT_PARAMS.offset("place_gap")] = 0.0
    ref_knobs[ROLLOUT_PARAMS.offset("budget")] = ref_budget
    ref_knobs[ROLLOUT_PARAMS.offset("place_budget")] = ref_budget
    ref_knobs[ROLLOUT_PARAMS.offset("drop_se")] = 0.0
    ref_knobs[ROLLOUT_PARAMS.offset("switch_se")] = 0.0
    ref_knobs[ROLLOUT_PARAMS.offset("clear_gap")] = 0.0  # the reference weighs every decision
    trace = np.zeros((rules.max_rounds * players * EVENTS_PER_TURN + 16, E.EVENT_WIDTH), dtype=np.int64)
    room = max(budget, *(int(knobs[ROLLOUT_PARAMS.offset(k)]) for k in ("place_budget", "min_playouts")))
    search = new_search(players, room)
    reference = new_search(players, ref_budget)
    rng = np.random.default_rng(seed)
    counts = dict.fromkeys(kinds, 0)
    out = []
    key = seed_key(seed)
    for game in games:
        if all(counts[k] >= wanted for k in kinds):
            break
        w = new_work(players, trace)
        play_one_search_nb(
            key,
            game,
            rules_nb,
            crates,
            kind,
            params,
            fns,
            base_kind,
            base_params,
            base_kind,
            base_params,
            marks,
            w,
            search,
            -1,
        )
        total = int(w.ctx[L.CTX_INDEX])
        for d in rng.choice(total, size=min(total, 12), replace=False):
            w = new_work(players, trace)
            play_one_search_nb(
                key,
                game,
                rules_nb,
                crates,
                kind,
                params,
                fns,
                base_kind,
                base_params,
                base_kind,
                base_params,
                marks,
                w,
                search,
                int(d),
            )
            name = L.Decision(int(w.cap.ctx[L.CTX_DECISION])).name
            if name not in counts or counts[name] >= wanted:
                continue
            # the reference first, over the candidates the shipped defaults weigh (no pruning)
            before = int(reference.spent[0])
            m, best = search_captured_nb(
                w, rules_nb, fns, base_kind, playout_kind, playout_params, marks, ref_knobs, REFERENCE_STREAM, reference
            )
            if best < 0:
                continue
            ref_spent = int(reference.spent[0]) - before
            rows = [int(r) for r in reference.rows[:m]]
            before = int(search.spent[0])
            m_search, found = search_captured_nb(
                w, rules_nb, fns, base_kind, playout_kind, playout_params, marks, knobs, 0, search
            )
            spent = int(search.spent[0]) - before
            picked = int(search.rows[found]) if found >= 0 else int(w.cap.at[3])  # no search: the base's pick
            if picked not in rows:
                raise AssertionError("the search weighed a candidate the reference did not")
            pick = rows.index(picked)
            m_searched = m_search if found >= 0 else 1
            t = int(reference.played[best])
            value = reference.win[:m, :t] + margin * reference.margin_vp[:m, :t]
            same = reference.same[:m]

            def judged(c: int) -> tuple[bool, float, float]:
                if same[c] == same[best]:  # noqa: B023 (called at once)
                    return False, 0.0, 0.0
                diff, se = paired(value[same[best]], value[same[c]])  # noqa: B023 (called at once)
                win_loss = float(reference.win[same[best], :t].mean() - reference.win[same[c], :t].mean())  # noqa: B023 (called at once)
                return diff > 2 * se, diff, win_loss

            wrong, loss, win_loss = judged(pick)
            base_wrong, base_loss, base_win_loss = judged(0)
            counts[name] += 1
            out.append(
                dict(
                    kind=name,
                    candidates=m_searched,
                    searched=found >= 0,
                    spent=spent,
                    ref_spent=ref_spent,
                    wrong=wrong,
                    loss=loss,
                    win_loss=win_loss,
                    base_wrong=base_wrong,
                    base_loss=base_loss,
                    base_win_loss=base_win_loss,
                )
            )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=1000, help="decisions of each kind")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=20261125)
    parser.add_argument("--knobs", default=None, help="a rollout TOML (default: the shipped rollout)")
    parser.add_argument("--factor", type=int, default=16, help="the reference's budget over the search's")
    parser.add_argument(
        "--reference-budget",
        type=int,
        default=None,
        help="the reference's budget (default: factor x the search's budget)",
    )
    parser.add_argument("--kinds", default="keep,use,place", help="decision kinds to sample")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    knobs, chooser, player = knobs_of(args.knobs)
    kinds = tuple(k.strip().upper() for k in args.kinds.split(","))
    ref_budget = args.reference_budget or args.factor * int(knobs[ROLLOUT_PARAMS.offset("budget")])
    # every worker samples its own games (game g of worker i: g * workers + i), each wanting its share
    per = math.ceil(args.decisions / args.workers)
    jobs = [
        (args.seed, range(i, 10**9, args.workers), args.players, per, (knobs, chooser, player), ref_budget, kinds)
        for i in range(args.workers)
    ]
    start = time.perf_counter()
    with ProcessPoolExecutor(args.workers) as pool:
        rows = [r for part in pool.map(sample, jobs) for r in part]
    elapsed = time.perf_counter() - start
    spec = "rollout (shipped defaults)" if args.knobs is None else args.knobs
    print(
        f"search quality: {spec}, every kind searched; reference {ref_budget} continuations a decision, flat; "
        f"{args.players} players, {chooser} games of seed {args.seed}, continuations by {player}; "
        f"{elapsed:.0f} s on {args.workers} workers"
    )
    print(
        f"{'kind':<6} {'decisions':>9} {'searched':>9} {'cands':>6} {'spent':>7} {'ref':>7} "
        f"{'wrong>2se':>10} {'loss':>8} "
        f"{'win loss':>9} {'base wrong':>11} {'base loss':>10}"
    )
    for kind in kinds:
        sel = [r for r in rows if r["kind"] == kind]
        if not sel:
            continue

        def mean(key: str) -> float:
            return float(np.mean([r[key] for r in sel]))  # noqa: B023 (called at once)

        print(
            f"{kind:<6} {len(sel):>9} {100 * mean('searched'):>8.1f}% {mean('candidates'):>6.2f} "
            f"{mean('spent'):>7.1f} {mean('ref_spent'):>7.0f} "
            f"{100 * mean('wrong'):>9.1f}% {mean('loss'):>8.4f} {mean('win_loss'):>9.4f} "
            f"{100 * mean('base_wrong'):>10.1f}% {mean('base_loss'):>10.4f}"
        )


if __name__ == "__main__":
    main()
