"""The progress displays (rich) of the commands that play many games; each is handed the
Python API's progress records and only draws them."""

from __future__ import annotations

import sys

import click

from smsim.intervals import interval_text


class RunProgressBar:
    """A rich progress display fed by simulate_to's reports; it appears with the first report,
    so input refused up front prints nothing but its one line (nothing at all when quiet). Its
    last column is ``note``: the leading policy's win rate here."""

    stderr = False  # where the bar is drawn: standard error keeps standard output for the results

    def __init__(self, total: int, quiet: bool):
        self.total, self.quiet, self.bar = total, quiet, None

    def __enter__(self):
        return self.report

    def note(self, p) -> str:
        if not p.leader:
            return ""
        return f"leader {p.leader}: {interval_text(p.leader_rate, p.leader_lo, p.leader_hi, scale=100, unit='%')}"

    def report(self, p) -> None:
        if self.quiet:
            return
        if self.bar is None:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            self.bar = Progress(
                TextColumn("[bold]games"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[speed]}"),
                TimeRemainingColumn(),
                TextColumn("{task.fields[note]}"),
                **({"console": Console(stderr=True)} if self.stderr else {}),
            )
            self.bar.__enter__()
            self.task = self.bar.add_task("games", total=self.total, speed="", note="")
        speed = f"{p.games_per_second:,.0f} games/s" + (f" on {p.workers} workers" if p.workers else "")
        self.bar.update(self.task, completed=p.done, speed=speed, note=self.note(p))

    def __exit__(self, *exc):
        if self.bar is not None:
            self.bar.__exit__(*exc)
        return False


class CompareProgressBar:
    """A progress display for ``smsim compare`` on standard error, gone when it ends: games
    played and the widest win-share interval so far."""

    def __enter__(self):
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        self.bar = Progress(
            TextColumn("[bold]games"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            TextColumn("{task.fields[width]}"),
            console=Console(stderr=True),
            transient=True,
        )
        self.bar.__enter__()
        self.task = None
        return self.report

    def report(self, done: int, total: int, width: float) -> None:
        if self.task is None:
            self.task = self.bar.add_task("games", total=total, width="")
        self.bar.update(self.task, completed=done, width=f"widest win-share interval {100 * width:.2f} points")

    def __exit__(self, *exc):
        self.bar.__exit__(*exc)
        return False


class RegretProgressBar:
    """Progress of ``smsim regret`` on standard error, gone when it ends: games of the policy
    being judged, a bar a policy."""

    def __init__(self, quiet: bool) -> None:
        self.quiet, self.bar, self.tasks = quiet, None, {}

    def __enter__(self):
        if not self.quiet:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            self.bar = Progress(
                TextColumn("[bold]{task.fields[policy]}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeRemainingColumn(),
                console=Console(stderr=True),
                transient=True,
            )
            self.bar.__enter__()
        return self

    def report(self, policy: str, done: int, total: int) -> None:
        if self.bar is None:
            return
        if policy not in self.tasks:
            self.tasks[policy] = self.bar.add_task("games", total=total, policy=policy)
        self.bar.update(self.tasks[policy], completed=done)

    def __exit__(self, *exc):
        if self.bar is not None:
            self.bar.__exit__(*exc)
        return False


class SweepProgressBar(RunProgressBar):
    """One progress display for a whole sweep: games of every variant, and the variant playing."""

    stderr = True

    def note(self, p) -> str:
        return f"variant {p.variant_index + 1}/{p.variants}: {p.variant}"


# -- tune -------------------------------------------------------------------------------------
class TuneProgressBar:
    """Progress of ``smsim tune`` on standard error: a bar gone when it ends where stderr is a
    terminal, otherwise a plain line at each new best and every tenth candidate."""

    def __init__(self, quiet: bool) -> None:
        self.quiet, self.bar, self.task = quiet, None, None

    def __enter__(self):
        if not self.quiet and sys.stderr.isatty():
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            self.bar = Progress(
                TextColumn("[bold]{task.fields[phase]}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeRemainingColumn(),
                TextColumn("{task.fields[best]}"),
                console=Console(stderr=True),
                transient=True,
            )
            self.bar.__enter__()
        self.last_best = None
        return self.report

    def report(self, p) -> None:
        if self.quiet:
            return
        best = f"best {interval_text(p.best, p.best_lo, p.best_hi, scale=100, unit='%')} (parity {100 * p.parity:.1f}%)"
        if self.bar is not None:
            if self.task is None:
                self.task = self.bar.add_task("tune", total=p.budget, phase="candidates", best="")
            phase = "candidates" if p.phase == "tuning" else "held-out games"
            self.bar.update(self.task, completed=p.done, phase=phase, best=best)
            return
        if p.phase == "held-out":
            click.echo("held-out games: the best candidate against the base on fresh dice", err=True)
        elif p.best != self.last_best or p.done % 10 == 0 or p.done == p.budget:
            click.echo(
                f"candidate {p.done}/{p.budget} (generation {p.generation}): {100 * p.score:.1f}%; {best}", err=True
            )
        self.last_best = p.best

    def __exit__(self, *exc):
        if self.bar is not None:
            self.bar.__exit__(*exc)
        return False


# -- fairness ---------------------------------------------------------------------------------
class FairnessProgressBar:
    """Progress of ``smsim fairness`` on standard error: one line per step of the search, and a
    status line (gone when it ends) while candidates are played."""

    def __init__(self, quiet: bool) -> None:
        self.quiet, self.status = quiet, None

    def __enter__(self):
        return self.report

    def report(self, p: dict) -> None:
        if self.quiet:
            return
        if self.status is None:  # at the first report: input refused up front prints only its one line
            from rich.console import Console

            self.console = Console(stderr=True)
            self.status = self.console.status("searching")
            self.status.__enter__()
        wins = " ".join(f"{100 * w:.1f}%" for w in p["win"])
        line = f"{list(p['compensation'])}: objective {p['objective']:.2e}, win shares {wins}"
        if p["what"] == "candidate":
            self.status.update(f"candidate {p['evaluated']}: {line}")
        elif p["what"] == "check":
            self.status.update("held-out check: without and with the compensation")
        else:
            label = {"start": "start", "step": "step", "done": "best"}[p["what"]]
            self.console.print(f"{label:>5} {line} (candidates played: {p['evaluated']})")

    def __exit__(self, *exc):
        if self.status is not None:
            self.status.__exit__(*exc)
        return False


class LearnProgress:
    """``smsim learn``'s display on standard error: the games whose decisions have been labelled
    (a part's games at a time), gone when it ends."""

    def __init__(self, quiet: bool):
        self.quiet, self.bar, self.games = quiet, None, 0

    def __enter__(self):
        return self.report

    def report(self, name: str, done: int) -> None:
        if self.quiet:
            return
        if self.bar is None:
            from rich.console import Console
            from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

            self.bar = Progress(
                SpinnerColumn(),
                TextColumn("[bold]labelling[/] {task.fields[what]}"),
                TimeElapsedColumn(),
                console=Console(stderr=True),
                transient=True,
            )
            self.bar.__enter__()
            self.task = self.bar.add_task("labels", total=None, what="")
        self.games += done
        self.bar.update(self.task, what=f"{name}: {self.games:,} games")

    def __exit__(self, *exc):
        if self.bar is not None:
            self.bar.__exit__(*exc)
        return False


class GamesProgressBar:
    """Games played of a whole study, on standard error, gone when it ends (``smsim matters``)."""

    def __enter__(self):
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        self.bar = Progress(
            TextColumn("[bold]games"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            console=Console(stderr=True),
            transient=True,
        )
        self.bar.__enter__()
        self.task = None
        return self.report

    def report(self, done: int, total: int) -> None:
        if self.task is None:
            self.task = self.bar.add_task("games", total=total)
        self.bar.update(self.task, completed=done)

    def __exit__(self, *exc):
        self.bar.__exit__(*exc)
        return False
