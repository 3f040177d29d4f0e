"""``flask --app scorer demo``: load the demo evening (examples/) if the database has none."""

from __future__ import annotations

from pathlib import Path

import click
import sqlalchemy as sa
from flask import current_app
from flask.cli import with_appcontext

from ..evening.file import loads
from ..storage.evening_writes import import_evening
from ..storage.models import Evening, db
from ..storage.paths import ROOT

DEMO = ROOT / "examples" / "pagat-thursday.json"
#: In ``instance/``: the demo evening's key and scorers' key, written by ``flask demo``.
DEMO_FILE = "demo_evening"


@click.command("demo")
@with_appcontext
def demo_command() -> None:
    """Load the demo evening unless an evening already exists."""
    if db.session.scalar(sa.select(sa.func.count()).select_from(Evening)):
        click.echo("The database already holds evenings; no demo loaded.")
        return
    evening = import_evening(loads(DEMO.read_bytes()), device="demo")
    # the home page offers the demo to every phone, as a scorer (it is only a demo)
    (Path(current_app.instance_path) / DEMO_FILE).write_text(f"{evening.key} {evening.edit_key}\n")
    click.echo(f"Loaded the demo evening “{evening.name}” at /e/{evening.key}")

