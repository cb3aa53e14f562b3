"""Every error smsim raises for bad input, under one base, ``SmsimError``.

Each is a ``ValueError`` whose message is one line naming what is wrong; the command line prints
it as ``Error: ...`` and exits 2. They live here, at the bottom of the package, so that any layer
can raise them and the command line can catch them without loading what raises them.

>>> issubclass(DatasetError, SmsimError) and issubclass(SmsimError, ValueError)
True
"""

from __future__ import annotations


class SmsimError(ValueError):
    """Bad input to smsim: the message is one line saying what is wrong."""


class RulesError(SmsimError):
    """A rules configuration or variant file that cannot be played; the message names the field."""


class PolicyError(SmsimError):
    """An unknown or malformed policy; the message names it."""


class BoardError(SmsimError):
    """A city text that does not follow docs/rules.md §8; the message says where."""


class SimulationError(SmsimError):
    """Bad input to a simulation, or a policy that broke the interface; the message says which."""


class DatasetError(SmsimError):
    """A directory that is not an smsim dataset, or not the one this command would write."""


class ClusterError(SmsimError):
    """A bad ``--cluster`` address, Dask missing, or a cluster that cannot do the run."""


class SweepError(SmsimError):
    """A sweep that cannot be planned or a directory that is not this sweep's."""


class FairnessError(SmsimError):
    """Bad input to a fairness search; the message names it."""


class TuneError(SmsimError):
    """Bad input to ``tune``."""


class LearnError(SmsimError):
    """``smsim learn``: bad plan, or a label directory of another plan."""


class WinProbError(SmsimError):
    """A win-probability model file that cannot be read, or data it cannot be fitted on."""


class LuckError(SmsimError):
    """Bad input to ``smsim luck``: its policies, player count, games or samples."""


class MattersError(SmsimError):
    """Bad input to ``smsim matters``: its policies, parts, player counts or games."""


class SkillError(SmsimError):
    """Bad input to ``smsim skill``: its levels, caps or variants."""


class LadderError(SmsimError):
    """Bad input to ``smsim ladder``: its rungs, field, caps or check rung, or a directory of another."""


class BonusError(SmsimError):
    """Bad input to ``smsim bonus-value`` (the wall-bonus ablation), or a directory of another."""


class RegretError(SmsimError):
    """Bad input to ``smsim regret``."""


class StudyError(SmsimError):
    """A study of a rules configuration (``smsim study``) that cannot be planned or resumed."""


class AdviseError(SmsimError):
    """Bad input to ``advise``."""


class TaskFailed(SimulationError):
    """A task that would fail the same way on any executor (its message says why)."""


class TraceError(SmsimError):
    """A file that is not a JSON-lines trace (docs/trace.md); the message names the file and the
    line. ``detail`` is the message without the file's name, for a report that names it itself."""

    def __init__(self, message: str, detail: str | None = None) -> None:
        super().__init__(message)
        self.detail = message if detail is None else detail

    def __reduce__(self):
        return type(self), (str(self), self.detail)
