"""The pages the service worker's warm-up keeps (``GET /e/<key>/kept``), written to a JSON file
so that two checkouts' answers can be compared byte for byte (issue 23 item 2: a cheaper
warm-up must answer the same pages).

On a throwaway PostgreSQL schema, the evenings of ``examples/`` (hoyle, russian36, pagat,
napoleao: a finished one among them) are imported; on two of them a viewer disputes the first
and the last hand. Then a scorer's phone and a viewer's ask ``/kept?last=N`` (the last hand, and
hand 1) in each language. Each page is written with its headers, with what is random per
request masked: the table's keys (``KEY``, ``EDITKEY``), the forms' CSRF token (``CSRF``:
signed with the time) and their one-time tokens (``TOKEN``, ``secrets.token_urlsafe``).

    .venv/bin/python benchmarks/kept_compare.py OUT.json [--database URL]
    (cd other-checkout && .venv/bin/python benchmarks/kept_compare.py OTHER.json); cmp OUT.json OTHER.json
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from load import drop_schema, make_schema  # noqa: E402 - benchmarks/load.py

EXAMPLES = ("hoyle-referee", "russian36-treasure", "pagat-thursday", "napoleao-sexta", "hoyle-peep-pool")
DISPUTED = ("hoyle-referee", "pagat-thursday")
LANGS = ("en", "ru", "nb", "pt_BR")
MASKS = ((r'(name="csrf_token" type="hidden" value=")[^"]+', r"\1CSRF"),
         (r'(name="token" type="hidden" value=")[^"]+', r"\1TOKEN"),
         (r'(type="hidden" name="token" value=")[^"]+', r"\1TOKEN"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--database", default=os.environ.get("TEST_POSTGRES_URL", "postgresql://127.0.0.1:5432/test"))
    args = parser.parse_args()
    base = args.database.replace("postgresql+psycopg://", "postgresql://")
    schema, url = make_schema(base)
    try:
        pages = kept_pages(url)
    finally:
        drop_schema(base, schema)
    Path(args.out).write_text(json.dumps(pages, indent=0, sort_keys=True, ensure_ascii=False), encoding="utf-8")
    print(f"{len(pages)} pages")


def kept_pages(url: str) -> dict[str, Any]:
    import sqlalchemy as sa
    from flask_migrate import upgrade

    from scorer import create_app
    from scorer.evening.file import loads
    from scorer.storage import evening_writes
    from scorer.storage.models import Evening, Hand, db

    app = create_app({"SECRET_KEY": "kept-compare", "SQLALCHEMY_DATABASE_URI": url, "NAP_LIVE_LISTEN": False})
    logging.disable(logging.INFO)
    with app.app_context():
        upgrade()
        tables = []
        for name in EXAMPLES:
            evening = evening_writes.import_evening(loads((ROOT / "examples" / f"{name}.json").read_text()))
            tables.append((name, evening.key, evening.edit_key))
    out: dict[str, Any] = {}
    masks: list[tuple[str, str]] = []
    for name, key, edit_key in tables:
        masks += [(key, "KEY"), (edit_key, "EDITKEY")]
        scorer, viewer = app.test_client(), app.test_client()
        assert scorer.get(f"/e/{key}/scorer/{edit_key}").status_code in (200, 302)
        for _ in range(2):  # back with its cookie: its row is made
            assert viewer.get(f"/e/{key}").status_code == 200
        with app.app_context():
            ids = dict(db.session.execute(sa.select(Hand.number, Hand.id).join(Evening, Evening.id == Hand.evening_id)
                                          .where(Evening.key == key, Hand.number > 0)).all())
        last = max(ids)
        if name in DISPUTED:
            app.config["WTF_CSRF_ENABLED"] = False
            for number, kind in ((1, "score"), (last, "misdeal")):
                raised = viewer.post(f"/e/{key}/hand/{number}/dispute",
                                     data={"hand_id": str(ids[number]), "kind": kind})
                assert raised.status_code == 302, raised.status_code
            app.config["WTF_CSRF_ENABLED"] = True
        for lang in LANGS:
            for who, phone in (("scorer", scorer), ("viewer", viewer)):
                phone.get(f"/lang/{lang}?next=/")
                for number in (last, 1):
                    answer = phone.get(f"/e/{key}/kept?last={number}", headers={"X-Nap-Warm": "1"})
                    assert answer.status_code == 200
                    for page in answer.get_json()["pages"]:
                        out[f"{name}|{lang}|{who}|last={number}|{page['path']}"] = page

    def mask(text: str) -> str:
        for found, name in masks:
            text = text.replace(found, name)
        for pattern, into in MASKS:
            text = re.sub(pattern, into, text)
        return text

    return {mask(k): {"html": mask(v["html"]), "headers": {h: mask(x) for h, x in v["headers"].items()}}
            for k, v in out.items()}


if __name__ == "__main__":
    main()
