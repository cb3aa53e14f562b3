"""The first compile on two cores: a helper process compiles part of the play loop beside this one.

numba compiles a jitted function's callees as it types the calls to them, one after another, in
one thread (its compiler lock), and the front end (typing, rewrites, lowering) is most of a first
compile. A second process can compile some of the loop's functions at the same time, into the
on-disk cache, if it knows their exact signatures: this process then loads them from the cache
when its own typing reaches the calls, instead of compiling them.

The signatures are those the last compile of the same entry signature met on this machine,
remembered beside the cache (``ahead-*.pkl`` in the cache's parent directory, so that an edit of
the engine, which starts a new cache directory, keeps them), or, for a machine's very first
compile, those the package ships for its numba and Python versions (``runs/data/``, made by
``scripts/ahead_record.py`` for the line-ups ``smsim warmup`` compiles first); with neither, the
compile runs here alone, as before, and is remembered. A remembered signature the code no longer
uses costs the helper's core, never this process's time: this process waits for the helper only
at a function and signature the helper was given, and compiles anything else as it always did.
``SMSIM_COMPILE_AHEAD=0`` turns it off; ``=record`` compiles alone and remembers.

The functions handed over (``HANDED``) are those of the heuristic loop that need none of what
this process compiles before them, in the order it needs them: the policy's pick (a sibling of
its keep, which this process compiles meanwhile), then a turn's uses, the pirates and the game's
end. Measured (a 2-core machine, quiet, fresh caches, 3 runs each, interleaved): ``smsim compare``
of four heuristics compiles in 16-17 s where it compiled in 19-20 s alone, the whole process 20.1 s
against 23.3 s (medians). The persons and the wall bonuses, reached later, stay here: placing a
person asks the policy, so the helper would compile the whole choice again first (tried: this
process then waited 4.4 s for it in all).
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import os
import pickle
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

from smsim._cache import cache_dir
from smsim.engine import actions, events, game, pirates
from smsim.engine.memory import is_cached
from smsim.files import write_file
from smsim.play import loop
from smsim.policies import heuristics

HANDED = (
    heuristics.heuristic_pick_nb,
    loop.ask_end_nb,
    actions.list_uses_nb,
    pirates.mark_swords_nb,
    events.record_after_nb,
    game.finish_game_nb,
)
BY_NAME = {f"{d.py_func.__module__}.{d.__name__}": d for d in HANDED}
_ONE_AT_A_TIME = threading.Lock()  # threads that call the loop first at once: one hands over, the others wait as before


@contextlib.contextmanager
def compiling() -> Iterator[None]:
    """Fewer garbage collections while numba compiles. The compiler makes millions of small
    objects that live until the function is compiled; with the default thresholds Python scans
    them again and again, about a sixth of a first compile (7 s of 37 measured). Collections
    stay on, only rarer, and the thresholds are put back after."""
    before = gc.get_threshold()
    gc.set_threshold(max(before[0], 200_000), *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)


def _enabled() -> bool:
    if os.environ.get("SMSIM_COMPILE_AHEAD", "1").strip() in ("0", "no", "off"):
        return False
    try:
        return len(os.sched_getaffinity(0)) > 1
    except AttributeError:  # no affinity call (macOS)
        return (os.cpu_count() or 1) > 1


SHIPPED = Path(__file__).parent / "data"  # the record of a first compile, shipped (scripts/ahead_record.py)


def record_name() -> str:
    """The record's file name: signatures are numba's types, pickled, so each numba and Python
    version has its own."""
    import numba

    return f"ahead-numba{numba.__version__}-py{sys.version_info[0]}{sys.version_info[1]}.pkl"


def _record_path() -> Path:
    return Path(cache_dir()).parent / record_name()


def _load(path: Path) -> dict:
    try:
        return pickle.loads(path.read_bytes())
    except Exception:  # none yet, unreadable, or naming a class this process cannot import
        return {}


def _read_record() -> dict:
    """What this machine's compiles met, over what the package ships for a machine's first."""
    return {**_load(SHIPPED / record_name()), **_load(_record_path())}


def _entry_key(dispatcher, args: tuple) -> str:
    sig = tuple(dispatcher.typeof_pyval(a) for a in args)
    return hashlib.sha256(f"{dispatcher.py_func.__module__}.{dispatcher.__name__}{sig}".encode()).hexdigest()


def _signatures() -> dict[str, set]:
    return {name: set(d.signatures) for name, d in BY_NAME.items()}


class Helper:
    """The helper process and what it has compiled so far (read from its standard output)."""

    def __init__(self, plan: list[tuple[str, tuple]]):
        self.plan = plan
        self.done: set[int] = set()
        self.lock = threading.Condition()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "smsim.runs.ahead"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.proc.stdin.write(pickle.dumps(plan))
        self.proc.stdin.close()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            with self.lock:
                self.done.add(int(line))
                self.lock.notify_all()
        self.proc.wait()
        with self.lock:
            self.done.update(range(len(self.plan)))  # ended (or failed): nothing more to wait for
            self.lock.notify_all()

    def wait_for(self, i: int) -> None:
        with self.lock:
            self.lock.wait_for(lambda: i in self.done)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


@contextlib.contextmanager
def compile_ahead(dispatcher, args: tuple) -> Iterator[None]:
    """Around the first call of ``dispatcher`` (the play loop's entry) with ``args``: where its
    machine code is not cached and the signatures of its handed functions are remembered, a
    helper compiles those while this process compiles the rest; where not, the compile runs here
    alone, and the signatures it met are remembered for the next one."""
    if not _enabled() or not _ONE_AT_A_TIME.acquire(blocking=False):
        yield
        return
    try:
        if is_cached(dispatcher, args):
            yield
            return
        key = _entry_key(dispatcher, args)
        alone = os.environ.get("SMSIM_COMPILE_AHEAD", "").strip() == "record"  # scripts/ahead_record.py
        plan = [] if alone else [(name, sig) for name, sig in _read_record().get(key, []) if name in BY_NAME]
        before = _signatures()
        helper, hooked = None, []
        if plan:
            helper = Helper(plan)
            wanted = {(name, sig): i for i, (name, sig) in enumerate(plan)}
            for name in dict.fromkeys(name for name, _ in plan):
                d = BY_NAME[name]
                d.compile = _waiting(d, name, wanted, helper)  # numba's typing calls dispatcher.compile(sig)
                hooked.append(d)
        try:
            yield
        finally:
            for d in hooked:
                del d.compile
            if helper is not None:
                helper.stop()
        after = _signatures()
        met = [(name, sig) for name in BY_NAME for sig in sorted(after[name] - before[name], key=str)]
        if met and not plan:  # compiled here alone: remember what the handed functions met
            record = _load(_record_path())
            record[key] = met
            write_file(_record_path(), pickle.dumps(record))
    finally:
        _ONE_AT_A_TIME.release()


def _waiting(d, name: str, wanted: dict, helper: Helper):
    compile_here = type(d).compile.__get__(d)

    def compile(sig):
        i = wanted.get((name, tuple(sig)))
        if i is not None:
            helper.wait_for(i)  # then loaded from the cache the helper wrote
        return compile_here(sig)

    return compile


def _helper_main() -> None:
    """The helper: compile each (module, function, signature) of the plan on standard input in
    order, saying the index of each on standard output once it is in the cache."""
    plan = pickle.loads(sys.stdin.buffer.read())
    with compiling():
        for i, (name, sig) in enumerate(plan):
            with contextlib.suppress(Exception):  # a signature the code no longer takes: the caller compiles it
                BY_NAME[name].compile(sig)
            print(i, flush=True)


if __name__ == "__main__":
    _helper_main()
