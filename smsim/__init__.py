"""smsim: a Monte Carlo strategy analyzer for the dice game Saint Malo.

>>> import smsim
>>> sorted(smsim.POLICIES)[:3]
['balanced', 'balanced-exact', 'builder']

The heavy entry points load on first use: ``smsim.simulate``, ``smsim.simulate_to``,
``smsim.simulate_summary``, ``smsim.load``, ``smsim.load_rounds`` (a dataset's round snapshots,
where ``simulate --rounds`` recorded them), ``smsim.compare``, ``smsim.tune`` (the heuristic's
weights by CMA-ES, in ``smsim.studies.tune``), ``smsim.sweep`` (rule variants on common dice),
``smsim.fairness`` (the per-seat compensation that evens out the seats' win rates),
``smsim.skill`` (how much skill matters: the win-rate matrix of levels of play, the skill gap),
``smsim.bonus_value`` (what each wall bonus is worth, by ablation on common dice),
``smsim.keep_regret`` (each policy's keep decisions against the exact keep, in VP a game),
``smsim.ladder`` (each level of play over the one below, head to head and against a field; the depth),
``smsim.play_game``, and for balance reports ``smsim.report_tables`` (the report's tables as
DataFrames) and ``smsim.make_report``.
"""

from smsim._cache import configure_cache

configure_cache()  # before numba is imported anywhere

__version__ = "0.1.0"

from smsim.errors import RulesError
from smsim.rules import Rules, load_rules

_LAZY = {
    "simulate": ("smsim.runs.batch", "simulate"),
    "simulate_to": ("smsim.runs.batch", "simulate_to"),
    "simulate_summary": ("smsim.runs.batch", "simulate_summary"),
    "play_game": ("smsim.play.api", "play_game"),
    "load": ("smsim.runs.dataset", "load"),
    "load_rounds": ("smsim.runs.dataset", "load_rounds"),
    "compare": ("smsim.studies.compare", "compare"),
    "tune": ("smsim.studies.tune", "tune"),
    "sweep": ("smsim.studies.sweep", "sweep"),
    "POLICIES": ("smsim.policies.registry", "POLICIES"),
    "report_tables": ("smsim.report.tables", "report_tables"),
    "make_report": ("smsim.report.write", "report"),
    "fairness": ("smsim.studies.fairness", "fairness"),
    "skill": ("smsim.studies.skill", "skill"),
    "bonus_value": ("smsim.studies.bonus", "bonus_value"),
    "keep_regret": ("smsim.studies.regret", "keep_regret"),
    "ladder": ("smsim.studies.ladder", "ladder"),
}
__all__ = ["Rules", "RulesError", "load_rules", "__version__", *_LAZY]


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        module, attr = _LAZY[name]
        return getattr(importlib.import_module(module), attr)
    raise AttributeError(f"module 'smsim' has no attribute {name!r}")
