"""smsim: a Monte Carlo strategy analyzer for the dice game Saint Malo."""

from smsim._cache import configure_cache

configure_cache()

__version__ = "0.1.0"

from smsim.rules import Rules, RulesError, load_rules  # noqa: E402

__all__ = ["Rules", "RulesError", "load_rules", "__version__"]
