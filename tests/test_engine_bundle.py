"""The phone's engine bundle (scorer/web/engine_bundle.py) and the pure ``rpds`` it carries."""

from __future__ import annotations

import io
import zipfile
import zoneinfo

import pytest
import rpds

from scorer.evening import pure_rpds
from scorer.web.engine_bundle import build_bundle, bundle_entries


def test_the_bundle_is_the_same_bytes_from_the_same_source() -> None:
    first = build_bundle()
    assert build_bundle() == first
    names = zipfile.ZipFile(io.BytesIO(first)).namelist()
    assert names == sorted(names)
    for needed in ("scorer/rules/core.py", "scorer/evening/file.py", "scorer/schema/evening.schema.json",
                   "scorer/cli/main.py", "jsonschema/validators.py", "referencing/_core.py",
                   "jsonschema_specifications/schemas/draft202012/metaschema.json", "rpds/__init__.py",
                   "tzdata/zones", "tzdata/zoneinfo/UTC"):
        assert needed in names
    # nothing of the web app, no tests, no compiled files, and not the rpds stand-in twice
    assert not [n for n in names if n.startswith(("scorer/web", "scorer/storage", "scorer/reports"))
                or "/tests/" in n or n.endswith((".pyc", ".so", ".po")) or n.endswith("pure_rpds.py")]
    # the server's compiled catalogs, cut to the engine's messages (a refusal at the tap in the phone's language)
    assert [n for n in names if n.endswith(".mo")] == [f"scorer/translations/{lang}/LC_MESSAGES/messages.mo"
                                                       for lang in ("nb", "pt_BR", "ru")]
    assert not [n for n in names if n.startswith("scorer/cli/") and n not in ("scorer/cli/__init__.py",
                                                                             "scorer/cli/main.py")]
    assert 150_000 < len(first) < 400_000  # about 300 KB: what a scorer's phone downloads once


def test_the_bundles_catalogs_hold_the_engines_messages_and_none_of_the_pages() -> None:
    from babel.messages.mofile import read_mo

    from scorer.evening import said

    entries = bundle_entries()
    cut = read_mo(io.BytesIO(entries["scorer/translations/ru/LC_MESSAGES/messages.mo"]))
    full = said.catalog("ru")
    for msgid in ("{speaker} bid {bid}, but {bid} may only be bid after someone has bid {needs}.",
                  "{value} is too large: at most {limit} here.", "{where}: {message}"):
        assert cut.get(msgid) is not None and cut.get(msgid).string == full.gettext(msgid), msgid
    assert cut.get("Record hand %(n)s") is None  # a page's words: not the engine's
    assert full.gettext("Record hand %(n)s") != "Record hand %(n)s"
    with (said.CATALOGS / "ru" / "LC_MESSAGES" / "messages.mo").open("rb") as file:
        assert len(cut) < len(read_mo(file)) / 2


def test_the_bundle_knows_the_zones_the_server_knows() -> None:
    entries = bundle_entries()
    zones = entries["tzdata/zones"].decode().split()
    assert zones == sorted(zoneinfo.available_timezones()) and "Europe/Oslo" in zones
    assert entries["tzdata/zoneinfo/UTC"].startswith(b"TZif")
    assert entries["rpds/__init__.py"] == pure_rpds.__loader__.get_data(pure_rpds.__file__)  # type: ignore[union-attr]


def test_pure_rpds_answers_as_rpds_does() -> None:
    for module in (rpds, pure_rpds):
        m = module.HashTrieMap({"a": 1})
        m2 = m.insert("b", 2).update({"c": 3}, [("d", 4)])
        assert dict(m) == {"a": 1} and dict(m2) == {"a": 1, "b": 2, "c": 3, "d": 4}
        assert dict(m2.remove("a").discard("zz")) == {"b": 2, "c": 3, "d": 4}
        assert module.HashTrieMap.convert(m2) is m2 and m2.get("b") == 2 and m2.get("q") is None
        with pytest.raises(KeyError):
            m.remove("zz")
        s = module.HashTrieSet(["x"]).insert("y").update(["z"], ["w"])
        assert set(s) == {"x", "y", "z", "w"} and set(s.discard("x").discard("q")) == {"y", "z", "w"}
        assert len(s) == 4 and "y" in s and not module.HashTrieSet()
        with pytest.raises(KeyError):
            s.remove("q")
        lst = module.List().push_front(2).push_front(1)
        assert list(lst) == [1, 2] and lst.first == 1 and list(lst.rest) == [2] and len(lst) == 2
        assert not module.List()
