"""smsim: a Monte Carlo strategy analyzer for the dice game Saint Malo.

>>> import smsim
>>> sorted(smsim.POLICIES)[:3]
['balanced', 'balanced-exact', 'builder']

The heavy entry points load on first use (``_LAZY``); every command of ``smsim`` is a thin layer
over them (docs/api.md):

- runs of many games: ``smsim.simulate``, ``smsim.simulate_to``, ``smsim.simulate_summary``,
  ``smsim.load``, ``smsim.load_rounds`` (a dataset's round snapshots, where ``simulate --rounds``
  recorded them), ``smsim.summarise_dataset`` (a dataset's headline tables: ``smsim summary``);
- one game: ``smsim.play_game``, ``smsim.score_city`` with ``smsim.parse_position`` (a written
  city: ``smsim score``), ``smsim.check_trace`` (the independent referee: ``smsim validate``),
  ``smsim.read_jsonl``, ``smsim.games_of``, ``smsim.replay_game`` and ``smsim.replay_page`` (a
  trace's games, one replayed by the referee, its page: ``smsim replay``), ``smsim.advise``,
  ``smsim.advise_trace`` and ``smsim.annotate_game`` (every move of a decision valued by playouts:
  ``smsim advise``, ``smsim play --advise``);
- studies: ``smsim.compare``, ``smsim.tune`` (the heuristic's weights by CMA-ES),
  ``smsim.sweep`` (rule variants on common dice; ``smsim.sweep_table`` reads one back, and with
  ``smsim.AdaptPlan`` each variant is also played by a bot adapted to it: ``smsim.adapted_table``,
  ``smsim.effects_across_bots``) and ``smsim.named_variants`` (the shipped ones:
  ``smsim variants``), ``smsim.fairness`` (the per-seat compensation that evens out the seats' win
  rates), ``smsim.skill`` (how much skill matters: the win-rate matrix of levels of play, the skill
  gap), ``smsim.bonus_value`` (what each wall bonus is worth, by ablation on common dice),
  ``smsim.keep_regret`` (each policy's keep decisions against the exact keep, in VP a game:
  ``smsim regret``), ``smsim.ladder`` (each level of play over the one below, head to head and
  against a field; the depth), ``smsim.learn`` with ``smsim.LearnPlan`` (a learned policy by expert
  iteration), ``smsim.fit_winprob`` and ``smsim.WinProbModel`` (win probability from a position:
  ``smsim winprob``), ``smsim.game_shape`` (lead changes, comebacks, when a game is decided:
  ``smsim shape``), ``smsim.luck_match`` with ``smsim.LuckPlan`` (how much of a result is the
  dice: ``smsim luck``), ``smsim.what_matters`` (each part of the game forbidden: ``smsim
  matters``), ``smsim.study`` with ``smsim.plan_study``, ``smsim.run_study``, ``smsim.read_study``
  and ``smsim.write_study_report`` (a rules file against the printed rules, played until its
  verdicts settle: ``smsim study``);
- ``smsim.POLICIES`` (the built-in policies: ``smsim policies``), and for balance reports
  ``smsim.report_tables`` (the report's tables as DataFrames), ``smsim.make_report`` (``smsim
  report``), ``smsim.read_report_data`` and ``smsim.PLOTS`` (one figure: ``smsim plot``).

``smsim warmup`` is ``smsim.warmup.warmup``, in a module of its own.
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
    "sweep_table": ("smsim.studies.sweep", "sweep_table"),
    "adapted_table": ("smsim.studies.sweep", "adapted_table"),
    "effects_across_bots": ("smsim.studies.sweep", "effects_across_bots"),
    "AdaptPlan": ("smsim.studies.adapt", "AdaptPlan"),
    "POLICIES": ("smsim.policies.registry", "POLICIES"),
    "report_tables": ("smsim.report.tables", "report_tables"),
    "make_report": ("smsim.report.write", "report"),
    "fairness": ("smsim.studies.fairness", "fairness"),
    "skill": ("smsim.studies.skill", "skill"),
    "bonus_value": ("smsim.studies.bonus", "bonus_value"),
    "keep_regret": ("smsim.studies.regret", "keep_regret"),
    "ladder": ("smsim.studies.ladder", "ladder"),
    "summarise_dataset": ("smsim.runs.summary", "summarise_dataset"),
    "score_city": ("smsim.play.api", "score_city"),
    "parse_position": ("smsim.play.board", "parse_position"),
    "check_trace": ("smsim.play.referee", "check_trace"),
    "read_jsonl": ("smsim.play.tracefile", "read_jsonl"),
    "games_of": ("smsim.play.replay", "games_of"),
    "replay_game": ("smsim.play.replay", "replay_game"),
    "replay_page": ("smsim.report.replay", "replay_page"),
    "advise": ("smsim.studies.advise", "advise"),
    "advise_trace": ("smsim.studies.advise", "advise_trace"),
    "annotate_game": ("smsim.studies.advise", "annotate_game"),
    "named_variants": ("smsim.studies.sweep", "named_variants"),
    "learn": ("smsim.studies.learn", "learn"),
    "LearnPlan": ("smsim.studies.learn", "LearnPlan"),
    "fit_winprob": ("smsim.studies.winprob", "fit_winprob"),
    "WinProbModel": ("smsim.studies.winprob", "WinProbModel"),
    "game_shape": ("smsim.studies.shape", "game_shape"),
    "luck_match": ("smsim.studies.luck", "luck_match"),
    "LuckPlan": ("smsim.studies.luck", "LuckPlan"),
    "what_matters": ("smsim.studies.matters", "what_matters"),
    "study": ("smsim.studies.study", "study"),
    "plan_study": ("smsim.studies.study", "plan_study"),
    "run_study": ("smsim.studies.study", "run_study"),
    "read_study": ("smsim.studies.study", "read_study"),
    "write_study_report": ("smsim.report.write", "write_study_report"),
    "read_report_data": ("smsim.report.tables", "read_report_data"),
    "PLOTS": ("smsim.report.plots", "PLOTS"),
}
__all__ = ["Rules", "RulesError", "load_rules", "__version__", *_LAZY]


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        module, attr = _LAZY[name]
        return getattr(importlib.import_module(module), attr)
    raise AttributeError(f"module 'smsim' has no attribute {name!r}")
