"""A hand refused at the tap on the scorer's phone says what the server says (issue 24 item 3): the
rule and the same words in the same language. scorer/evening/said.py puts the engine's refusal in
words with the standard library and the server's compiled catalogs (the phone's engine has neither
Flask nor Babel); here its words are compared with the server's own answer to the same JSON
command, in every language, with the full catalogs and with the ones cut for the engine bundle."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

import pytest
from babel.numbers import format_decimal

from scorer.evening import said
from scorer.evening.provisional import provisional
from scorer.web.engine_bundle import build_bundle
from tests.webhelpers import start_evening

LANGS = {"en": "en", "nb": "nb", "ru": "ru", "pt_BR": "pt-BR"}
#: hands the rules (or the schema) refuse, as quick entry and the outbox send them
REFUSED = [
    {"lone_bid": {"declarer": "Bob", "contract": "wellington"}, "tricks": 5},  # no Nap before it (P-7)
    {"lone_bid": {"declarer": "Bob", "contract": "three"}, "tricks": 9},  # a ninth trick (the schema)
    {"lone_bid": {"declarer": "Zed", "contract": "three"}, "tricks": 3},  # nobody of that name
    {"lone_bid": {"declarer": "Dan", "contract": "wellington", "nap": "Dan"}, "tricks": 5},  # his own Nap
]


@pytest.mark.parametrize("n", [0, 7, -7, 999, 1000, -1234, 12345, 1234567])
def test_a_number_is_written_as_babel_writes_it(n: int) -> None:
    assert said.number(n, "en") == str(n)
    for lang in ("nb", "ru", "pt_BR"):
        assert said.number(n, lang) == format_decimal(n, locale=lang).replace("-", "\u2212"), (lang, n)
    assert said.number(-1234, "ru") == "\u22121\u00a0234" and said.number(1234, "pt_BR") == "1.234"


def test_a_pages_lang_picks_its_catalog() -> None:
    assert [said.language_of(t) for t in ("pt-BR", "pt", "nb", "nb-NO", "ru-RU", "en-GB", "", None, "de")] == \
        ["pt_BR", "pt_BR", "nb", "nb", "ru", "en", "en", "en", "en"]


def _servers_words(client: Any, key: str, facts: dict[str, Any], lang: str) -> dict[str, Any]:
    answer = client.post(f"/api/e/{key}/hands", data=json.dumps({"number": 1, "token": f"t-{lang}", "facts": facts}),
                         content_type="application/json", headers={"Accept-Language": LANGS[lang]})
    assert answer.status_code == 422, answer.get_data(as_text=True)
    return answer.get_json()["error"]


def _phones_words(server_file: str, facts: dict[str, Any], lang: str) -> tuple[str | None, str]:
    _, _, refused = provisional(server_file, [facts])
    assert refused is not None and refused.index == 0 and refused.number == 1
    return refused.rule, said.refusal_text(refused.message, refused.rule, lang)


@pytest.mark.parametrize("cut", [False, True], ids=["server catalogs", "bundle catalogs"])
def test_the_phones_refusal_is_the_servers_word_for_word_in_every_language(
        app: Any, client: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cut: bool) -> None:
    key = start_evening(client)
    server_file = client.get(f"/e/{key}/evening.json").get_data(as_text=True)
    if cut:  # the catalogs as the phone's engine gets them: cut to the engine's messages
        zipfile.ZipFile(io.BytesIO(build_bundle())).extractall(tmp_path)
        monkeypatch.setattr(said, "CATALOGS", tmp_path / "scorer" / "translations")
        assert sorted(p.parent.parent.name for p in said.CATALOGS.glob("*/LC_MESSAGES/messages.mo")) == \
            ["nb", "pt_BR", "ru"]
    said.catalog.cache_clear()
    try:
        seen = set()
        for facts in REFUSED:
            for lang in LANGS:
                server = _servers_words(client, key, facts, lang)
                assert _phones_words(server_file, facts, lang) == (server["rule"], server["message"]), (facts, lang)
                seen.add(server["message"])
        assert len(seen) == len(REFUSED) * len(LANGS)  # four refusals, each in four languages
        assert ("Bob: заявка «Веллингтон», но «Веллингтон» можно заявить только после чьей-то заявки «Нап». "
                "(P-7)") in seen
        assert "facts.tricks: 9 is too large: at most 5 here." in seen
    finally:
        said.catalog.cache_clear()
