"""Commands that list what ships with smsim: ``policies`` and ``variants``."""

from __future__ import annotations

import click

from smsim.cli.common import cli


# -- policies ---------------------------------------------------------------------------------
@cli.command("policies")
@click.option("--weights/--no-weights", default=True, show_default=True, help="Show each preset's weights.")
def list_policies(weights: bool) -> None:
    """List the built-in policies: name, one-line description, weights.

    Any of them, a TOML weights file (``base = "balanced"`` plus weights by name), a model file
    ``model.json`` of ``smsim learn`` or a jitted function ``file.py:name`` can be given to
    ``--policy`` (docs/policies.md).

    \b
    Example:
      smsim policies --no-weights
    """
    from smsim.layout import PolicyKind
    from smsim.policies.heuristics import PARAM_NAMES
    from smsim.policies.registry import POLICIES

    width = max(len(name) for name in POLICIES)
    for name, spec in POLICIES.items():
        click.echo(f"{name:<{width}}  {spec.description}")
        if weights and spec.weights():
            shown = ", ".join(f"{k}={v:g}" for k, v in spec.weights().items() if v != 0.0)
            what = "base heuristic" if spec.kind == PolicyKind.LEARNED else "weights"
            click.echo(f"{'':<{width}}  {what}: {shown}")
    if weights:
        click.echo(f"\nweights (in VP): {', '.join(PARAM_NAMES)}")


@cli.command("variants")
def list_variants() -> None:
    """List the rules variants smsim ships: name, what it changes, and the fields it sets.

    Give one to ``smsim sweep --variant NAME`` (or its file to ``--rules``).

    \b
    Example:
      smsim sweep --variant gentle-last-attacks --variant free-rotation -n 20000
    """
    import tomllib

    from smsim.studies.sweep import named_variants

    shipped = named_variants()
    width = max(len(name) for name in shipped)
    for name, (path, description) in shipped.items():
        fields = tomllib.loads(path.read_text(encoding="utf-8"))
        click.echo(f"{name:<{width}}  {description}")
        click.echo(f"{'':<{width}}  {', '.join(f'{k} = {v}' for k, v in fields.items())}  ({path.name})")
