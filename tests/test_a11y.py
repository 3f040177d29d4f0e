"""Every page reflows and passes axe-core (issue 12, WCAG 1.4.4, 1.4.10).

In headless Chromium: each page at 320 px wide and at 200 % zoom of a 390 px phone has
no sideways scrolling and no text field narrower than a name; axe-core (vendored from
npm, tests/vendor/axe-core) finds no violation of moderate impact or above, in the light
and the dark colour scheme. Skipped without Chromium unless NAP_REQUIRE_BROWSER=1.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.test_browser import browser, site  # noqa: F401  (fixtures)

AXE = (Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js").read_text(encoding="utf-8")
NAMES = ("Annabelle", "Bartholomew", "Cat", "Dmitri", "Eve", "Fitzgerald")
SERIOUS = {"moderate", "serious", "critical"}


def _table(page: Any, base: str) -> tuple[str, str]:
    page.goto(f"{base}/new/hoyle")
    for i, name in enumerate(NAMES):
        page.fill(f"input[name='players-{i}']", name)
    page.locator("form button[type=submit]").last.click()
    page.wait_for_url(re.compile(r"/e/[A-Za-z0-9_-]+$"))
    key = page.url.rsplit("/", 1)[-1]
    for seat, bid, tricks in (("2", "three", "3"), ("4", "nap", "4")):
        page.goto(f"{base}/e/{key}/quick")
        page.locator(f"form.quick label.pill:has(input[name=declarer][value='{seat}'])").click()
        page.locator(f"form.quick label.pill:has(input[name=contract][value='{bid}'])").click()
        page.locator(f"button[name=tricks][value='{tricks}']").click()
        page.wait_for_url(f"{base}/e/{key}")
    # a group with this evening in it: its season page
    page.goto(f"{base}/groups/new")
    page.fill("input[name=name]", "Thursday club")
    page.locator("form button[type=submit]").click()
    page.wait_for_url(re.compile(r"/g/[A-Za-z0-9_-]+$"))
    page.fill("input[name=link]", f"{base}/e/{key}")
    page.locator("form:has(input[name=link]) button[type=submit]").click()
    page.wait_for_load_state()
    return key, page.url.rsplit("/", 1)[-1]


def _pages(base: str, key: str, group: str) -> list[str]:
    table = f"{base}/e/{key}"
    return [f"{base}/", f"{base}/new", f"{base}/new/hoyle", f"{base}/new/russian36", f"{base}/new/pagat",
            f"{base}/new/napoleao", f"{base}/import", table, f"{table}/quick", f"{table}/hand", f"{table}/hand/1",
            f"{table}/hand/2/edit", f"{table}/hand/1/play", f"{table}/history", f"{table}/big", f"{table}/share",
            f"{table}/settings", f"{table}/rules", f"{table}/finish", f"{table}/undo", f"{table}/join",
            f"{base}/groups/new", f"{base}/g/{group}"]


def _problems(page: Any) -> list[str]:
    """What axe-core finds (moderate and worse) on the page now."""
    page.add_script_tag(content=AXE)
    found = page.evaluate("""async () => {
        const r = await axe.run(document, {resultTypes: ['violations']});
        return r.violations.map(v => [v.impact, v.id, v.nodes.map(n => n.target.join(' ')).slice(0, 3).join(' | ')]);
    }""")
    return [f"{impact} {rule}: {where}" for impact, rule, where in found if impact in SERIOUS]


#: Measured in the page: sideways scrolling (naming the elements that stick out) and
#: visible text fields narrower than a name (96 px), or than a card code or currency
#: (at most 8 characters: 40 px).
MEASURE = """() => {
  const out = [];
  const doc = document.documentElement;
  if (doc.scrollWidth > doc.clientWidth + 1) {
    const wide = [...document.body.querySelectorAll('*')]
      .filter(e => e.getBoundingClientRect().right > doc.clientWidth + 1)
      .map(e => e.tagName.toLowerCase() + (e.className ? '.' + String(e.className).split(' ')[0] : ''));
    out.push(`scrolls sideways: ${doc.scrollWidth} > ${doc.clientWidth} (${wide.slice(-3).join(', ')})`);
  }
  const fields = 'input[type=text], input:not([type]), input[type=number], input[type=url], textarea, select';
  document.querySelectorAll(fields).forEach(el => {
    const w = el.getBoundingClientRect().width;
    const least = el.maxLength > 0 && el.maxLength <= 8 ? 40 : 96;
    if (el.offsetParent !== null && w < least) out.push(`${el.name || el.id} is ${Math.round(w)} px`);
  });
  return out;
}"""


def _overflow(page: Any) -> list[str]:
    """Sideways scrolling and text fields narrower than a name, measured."""
    return list(page.evaluate(MEASURE))


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_page_passes_axe(browser: Any, site: Any, scheme: str) -> None:  # noqa: F811
    app, base = site
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-GB", color_scheme=scheme,
                                  bypass_csp=True)
    page = context.new_page()
    try:
        _on_every_page(page, base, _problems)
    finally:
        context.close()


def _on_every_page(page: Any, base: str, check: Any) -> None:
    """Start a table and open each of :func:`_pages` in ``page``; fails naming every page
    where ``check(page)`` finds problems (a list of them)."""
    key, group = _table(page, base)
    problems = {}
    for url in _pages(base, key, group):
        page.goto(url)
        found = check(page)
        if found:
            problems[url.replace(base, "")] = found
    assert not problems, "\n".join(f"{url}: {'; '.join(found)}" for url, found in problems.items())


@pytest.mark.parametrize("width,zoom", [(320, 1), (390, 2)])
def test_every_page_reflows(browser: Any, site: Any, width: int, zoom: int) -> None:  # noqa: F811
    app, base = site
    context = browser.new_context(viewport={"width": width, "height": 844}, locale="ru-RU")
    page = context.new_page()
    try:

        def zoomed(page: Any) -> list[str]:
            if zoom != 1:
                page.evaluate(f"document.documentElement.style.zoom = '{zoom}'")
            return _overflow(page)

        _on_every_page(page, base, zoomed)
    finally:
        context.close()
