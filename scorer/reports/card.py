"""The result card (issue 22 item 7): an evening's standings and settle-up as a PNG picture
for a group chat, drawn with Pillow on the server (no browser, no HTTPS needed).

Every text is given already translated and formatted by the caller; this module lays it out:
a title, a line under it, the standings (name and amount, a gain green, a loss red), the
payments (a paid one ticked and greyed) and a footer. 1080 px wide (a chat's full width), as
tall as the lines need. Fonts: DejaVu Sans from the system (it has the minus sign U+2212
and the tick U+2713, which Debian's Noto Sans lacks), else Noto Sans, else Pillow's own.
Text is drawn left to right as given: a right-to-left name keeps its letters but not its
shaping (Pillow without libraqm).
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

WIDTH = 1080
MARGIN = 64
_FONTS = {
    False: ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf"),
    True: ("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf", "/usr/share/fonts/truetype/noto/NotoSans-Bold.ttf"),
}
INK, MUTED, GAIN, LOSS, PAPER, LINE = "#1b1f24", "#5b6470", "#1a7f37", "#b42318", "#ffffff", "#d6dbe1"


@lru_cache(maxsize=16)
def font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """The card's font at ``size`` px."""
    for path in _FONTS[bold]:
        if Path(path).exists():
            return ImageFont.truetype(path, size)
    return ImageFont.load_default(size)


@dataclass(frozen=True)
class CardLine:
    """A line of the card: ``text`` on the left, ``figure`` on the right (may be ""),
    ``tone`` "gain", "loss", "done" (paid: ticked, grey) or ""."""

    text: str
    figure: str = ""
    tone: str = ""


def _fit(draw: ImageDraw.ImageDraw, text: str, size: int, width: int, bold: bool = False) -> str:
    """``text`` cut with an ellipsis to fit ``width`` px."""
    face = font(size, bold)
    if draw.textlength(text, font=face) <= width:
        return text
    while text and draw.textlength(text + "…", font=face) > width:
        text = text[:-1]
    return text + "…"


def result_card(title: str, subtitle: str, standings_heading: str, standings: Sequence[CardLine],
                payments_heading: str, payments: Sequence[CardLine], footer: str) -> bytes:
    """The card as PNG bytes (see the module)."""
    rows = 2 + len(standings) + (1 + len(payments) if payments_heading else 0)
    height = MARGIN * 2 + 130 + rows * 62
    image = Image.new("RGB", (WIDTH, height), PAPER)
    draw = ImageDraw.Draw(image)
    inner = WIDTH - 2 * MARGIN
    y = MARGIN
    draw.rectangle((0, 0, WIDTH, 14), fill="#2557a7")
    draw.text((MARGIN, y), _fit(draw, title, 52, inner, True), font=font(52, True), fill=INK)
    y += 70
    draw.text((MARGIN, y), _fit(draw, subtitle, 30, inner), font=font(30), fill=MUTED)
    y += 60

    def section(heading: str, lines: Sequence[CardLine]) -> None:
        nonlocal y
        draw.text((MARGIN, y), heading, font=font(34, True), fill=INK)
        y += 52
        for line in lines:
            draw.line((MARGIN, y - 6, WIDTH - MARGIN, y - 6), fill=LINE, width=2)
            colour = {"gain": GAIN, "loss": LOSS, "done": MUTED}.get(line.tone, INK)
            figure_width = draw.textlength(line.figure, font=font(36, True)) if line.figure else 0
            text = ("✓ " if line.tone == "done" else "") + line.text
            draw.text((MARGIN, y), _fit(draw, text, 36, int(inner - figure_width - 24)), font=font(36),
                      fill=MUTED if line.tone == "done" else INK)
            if line.figure:
                draw.text((WIDTH - MARGIN - figure_width, y), line.figure, font=font(36, True), fill=colour)
            y += 62
        y += 20

    section(standings_heading, standings)
    if payments_heading:
        section(payments_heading, payments)
    draw.text((MARGIN, height - MARGIN + 8), _fit(draw, footer, 26, inner), font=font(26), fill=MUTED)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()
