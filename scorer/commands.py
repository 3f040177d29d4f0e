"""``flask --app scorer demo``: load the demo evening (examples/) if the database has none."""

from __future__ import annotations

import click
import sqlalchemy as sa

from .app import ROOT
from .evening_file import loads
from .models import Evening, db
from .services import import_evening

DEMO = ROOT / "examples" / "pagat-thursday.json"


@click.command("demo")
def demo_command() -> None:
    """Load the demo evening unless an evening already exists."""
    if db.session.scalar(sa.select(sa.func.count()).select_from(Evening)):
        click.echo("The database already holds evenings; no demo loaded.")
        return
    evening = import_evening(loads(DEMO.read_bytes()))
    click.echo(f"Loaded the demo evening “{evening.name}” at /e/{evening.key}")
