"""Catalogue of the rule ids the engine cites.

Every rule id of ``shared/rules/*.md`` that the engine applies is listed here with
the seed file it comes from and the source's own section heading, so that a ruling
can be shown as ``P-12 · 002_8f87c281debb8ca7.txt · «Poeng og avslutning»`` and a
table can check it against the source.

Shapes: :data:`RULES` maps a rule id (``str``, e.g. ``"H-11"``) to a :class:`Rule`.
"""

from __future__ import annotations

from dataclasses import dataclass

from .core import N_

HOYLE_SOURCE = "000_380d836cfbf226e6.txt"
RUSSIAN36_SOURCE = "001_4075811b721171fb.txt"
PAGAT_SOURCE = "002_8f87c281debb8ca7.txt"
NAPOLEAO_SOURCE = "004_f25fb04a50ebee3e.txt"
#: The language of each source, for ``lang`` attributes when it is quoted.
SOURCE_LANGUAGES = {HOYLE_SOURCE: "ru", RUSSIAN36_SOURCE: "ru", PAGAT_SOURCE: "nb", NAPOLEAO_SOURCE: "pt"}


@dataclass(frozen=True)
class Rule:
    """One numbered rule.

    ``id`` is the stable rule id; ``source`` the seed file name; ``section`` the
    source's heading (original language); ``title`` a short English summary;
    ``adopted`` is true when the product decides where the source is silent.
    """

    id: str
    source: str
    section: str
    title: str
    adopted: bool = False

    @property
    def citation(self) -> str:
        """``"P-12 · 002_….txt · «Poeng og avslutning»"``."""
        return f"{self.id} · {self.source} · «{self.section}»"


def _rules(source: str, rows: list[tuple[str, str, str, bool]]) -> dict[str, Rule]:
    return {rid: Rule(rid, source, section, title, adopted) for rid, section, title, adopted in rows}


_PAGAT = "Utstyr og utdeling"
_PAGAT_BID = "Budrunde: én sjanse hver"
_PAGAT_PLAY = "Slik spilles stikkene"
_PAGAT_SCORE = "Poeng og avslutning"
_PAGAT_END = "Avtal sluttpunkt som husregel"

RULES: dict[str, Rule] = {
    **_rules(
        PAGAT_SOURCE,
        [
            ("P-1", _PAGAT, "3 to 6 players, no fixed partnerships", False),
            ("P-2", _PAGAT, "52 cards, A high", False),
            ("P-3", _PAGAT, "shuffle, cut from the right, deal 3 then 2", False),
            ("P-4", _PAGAT, "deal passes left; shuffle after a made Nap or Wellington or when all passed", False),
            ("P-5", _PAGAT_BID, "one call each from eldest hand; each bid higher than every earlier bid", False),
            ("P-6", _PAGAT_BID, "bids Three, Four, Nap, Wellington and their units", False),
            ("P-7", _PAGAT_BID, "Wellington only after a Nap; no equal bids", False),
            ("P-8", _PAGAT_BID, "everyone passes: not played, the next dealer deals", False),
            ("P-9", _PAGAT_PLAY, "the declarer's first lead fixes trump", False),
            ("P-10", _PAGAT_PLAY, "follow suit if able; no duty to trump", False),
            ("P-11", _PAGAT_PLAY, "highest trump, else highest of the suit led, wins", False),
            ("P-12", _PAGAT_SCORE, "made: units from each opponent; defeated: the other way", False),
            ("P-13", _PAGAT_SCORE, "worked example: a made Four with four players is +12 / −4 each", False),
            ("P-14", _PAGAT_END, "agreed number of hands per dealer; highest total wins, ties share", False),
            ("P-15", "Varianter og nyttige regelhenvisninger", "no Two, misère, reduced packs or extra cards", False),
            ("P-16", "(source silent)", "irregularities: house rules adopted", True),
        ],
    ),
    **_rules(
        HOYLE_SOURCE,
        [
            ("H-1", "Число игроков", "2 to 6 players", False),
            ("H-2", "Колода", "52 cards, A high", False),
            ("H-3", "Жеребьевка", "lowest card drawn deals, ace low", False),
            ("H-4", "Тасование и сдача", "dealer shuffles last, the right-hand player cuts", False),
            ("H-5", "Сдача", "5 cards each; the deal passes to the left", False),
            ("H-6", "Торговля", "one call each from eldest hand; each bid higher; five is Nap", False),
            ("H-7", "Вариант", "Wellington over Nap, Blücher over Wellington", False),
            ("H-8", "Торговля", "everyone passes: redeal by the next dealer (or the dealer must bid)", True),
            ("H-9", "Розыгрыш", "the declarer's first lead fixes trump", False),
            ("H-10", "Подсчет очков", "extra tricks do not count", False),
            ("H-11", "Подсчет очков", "settlement: declarer collects from or pays each other player", False),
            ("H-12", "Неправильная сдача", "misdeal: the same dealer deals again, no payment", False),
            ("H-13", "Неправильное число карт", "wrong number of cards", False),
            ("H-14", "Внеочередной ход", "lead or play out of turn", False),
            ("H-15", "Ренонс", "revoke", False),
            ("H-16", "Банк", "pool", False),
            ("H-17", "Вдова", "widow", False),
            ("H-18", "Пип-Нап", "Peep Nap", False),
            ("H-19", "Сэр Гарнет", "Sir Garnet", False),
        ],
    ),
    **_rules(
        RUSSIAN36_SOURCE,
        [
            ("R-1", "Игроков от двух до шести", "2 to 6 players, 36 cards", False),
            ("R-2", "Клад Наполеона", "each player pays the ante into Napoleon's treasure every deal", False),
            ("R-3", "играют по 10 рублей", "the stake per trick", False),
            ("R-4", "Сдают по 5 карт", "5 cards each; the deal passes left", False),
            ("R-5", "Первым объявляет сдающий", "the dealer speaks first; round after round; a pass is final", False),
            ("R-6", "Сдающий имеет преимущество", "the dealer may say «Здесь», holding the highest bid", False),
            ("R-7", "идет на Наполеона", "bids 1 to 5; a five may be declared «Наполеон»", False),
            ("R-8", "(source silent)", "everyone passes: antes stay, the next dealer deals", True),
            ("R-9", "может прикупить карту", "the declarer may buy one card", False),
            ("R-10", "Первый выход делает объявивший игру", "the declarer's first lead fixes trump", False),
            ("R-11", "при отсутствии - козыря", "follow suit, else trump", False),
            ("R-12", "играют до того момента", "play stops once the result is certain", False),
            ("R-13", "каждый платит сыгравшему", "made: every other player pays stake × bid", False),
            ("R-14", "вносит такую же сумму", "defeated: pays each stake × bid and as much into the treasure", False),
            ("R-15", "Клад Наполеона достается", "Napoleon made: takes the whole treasure", False),
            ("R-16", "Клад Наполеона удваивается", "Napoleon defeated: doubles the treasure", False),
            ("R-17", "отдельно заявившему", "a plain five never takes the treasure", False),
            ("R-18", "(source silent)", "irregularities: house rules adopted", True),
        ],
    ),
    **_rules(
        NAPOLEAO_SOURCE,
        [
            ("B-1", "(source silent)", "2 to 6 players, 52 cards", True),
            ("B-2", "Regras", "the lowest card drawn deals", False),
            ("B-3", "Regras", "five cards each, one at a time, from the dealer's left", False),
            ("B-4", "Regras", "one declaration each from the dealer's left, each higher, or «Passo»", False),
            ("B-5", "Regras", "the highest declaration is 5, nap", False),
            ("B-6", "Regras", "everyone passes: the dealer declares at least 1", False),
            ("B-7", "Regras", "the declarer names trump", False),
            ("B-8", "Regras", "follow suit, else any card", False),
            ("B-9", "Regras", "highest of the suit led or highest trump wins", False),
            ("B-10", "Regras", "the hand ends as soon as the result is certain", False),
            ("B-11", "Regras", "made: the declarer scores the number declared", False),
            ("B-12", "Regras", "defeated: every opponent scores the number declared", False),
            ("B-13", "Regras", "nap: 10 made, 5 to each opponent defeated", False),
            ("B-14", "(source silent)", "end: a target score or a number of hands", True),
            ("B-15", "Observações", "no partnerships", False),
            ("B-16", "Observações", "inspection after the hand", False),
            ("B-17", "Observações", "trumping while able to follow is a failure to follow", False),
            ("B-18", "(source silent)", "misdeal: the same dealer deals again", True),
        ],
    ),
    **_rules(
        "other-sources.md",
        [
            ("O-1", "Payment schedules", "Nap, Wellington and Blücher schedules of other rule books", False),
            ("O-2", "Other bids", "Two and misère", False),
            ("O-3", "Everyone passes", "other rules when everyone passes", False),
        ],
    ),
}


def rule(rule_id: str) -> Rule:
    """Return the :class:`Rule` for ``rule_id``; raises ``KeyError`` if unknown."""
    return RULES[rule_id]


#: The source's own sentence for the rules a ruling on a disputed hand cites, with its
#: English rendering (``shared/rules/*.md``): ``rule id → (original, English)``; the English
#: is marked for translation (the web layer shows it in the phone's language).
QUOTES: dict[str, tuple[str, str]] = {
    "H-11": (
        "В случае выполнения заявки заявитель взимает плату с каждого игрока; в противном случае он производит "
        "выплату каждому другому игроку.",
        N_("Made: the declarer collects from each other player. Defeated: the declarer pays each other player."),
    ),
    "H-12": (
        "Тот же сдающий пересдает карты, если сдача признана неправильной.",
        N_("If the deal is found irregular, the same dealer deals again."),
    ),
    "H-13": (
        "Игрок, получивший в сдаче неправильное число карт, должен сообщить об ошибке до постановки заявки или "
        "паса. В противном случае он вынужден будет играть с неправильным числом карт на руках. Игрок с дефицитом "
        "карт в руке не может выиграть взятку, на которую у него не хватает карты. Если рука заявителя составлена "
        "верно, а противника неверно, заявитель ничего не выплачивает в случае проигрыша, но взимает плату, если "
        "выиграет. […] Если в руке заявителя содержится неправильное число карт, а у остальных игроков "
        "правильное, заявитель не взимает плату в случае выигрыша, но производит выплаты, если проигрывает.",
        N_("A player dealt the wrong number of cards must say so before bidding or passing; otherwise they play on "
        "with that hand, and a player short of cards cannot win a trick they have no card for. Declarer's hand "
        "right, an opponent's wrong: if defeated the declarer pays nothing, if made collects as usual. Declarer's "
        "hand wrong, the opponents' right: if made collects nothing, if defeated pays as usual."),
    ),
    "H-14": (
        "За открытие и ход, сделанные заявителем не в свою очередь, штраф не назначается […]. Если противник "
        "заявителя сделает открытие или ход не в свою очередь, он обязан выплатить 3 фишки заявителю, а в случае "
        "проигрыша заявителя он ничего не получает.",
        N_("A lead or play out of turn by the declarer carries no penalty. An opponent who leads or plays out of turn "
        "pays 3 chips to the declarer, and receives nothing if the declarer is defeated."),
    ),
    "H-15": (
        "Если предъявляется претензия на ренонс, то розыгрыш прекращают и тотчас же производят расчет. "
        "Ренонсирующий заявитель обязан выплатить всем противникам штраф в сумме, которую он мог бы выиграть, "
        "причем остальные противники ничего не платят.",
        N_("A revoke claim stops play and settlement is made at once. A revoking declarer pays each opponent what he "
        "would have won from them; a revoking opponent pays the declarer all he would have won, the other "
        "opponents paying nothing (the source merges the two clauses; this reading is adopted)."),
    ),
    "H-16": (
        'В дальнейшем "банк можно увеличить, взимая с игроков за ренонс - пять, а за внеочередной ход - три фишки.',
        N_("The pool may be fed with fines: 5 chips for a revoke, 3 chips for a lead out of turn."),
    ),
    "P-12": (
        "Oppfyller budgiveren budet, får vedkommende tabellens antall enheter fra hver motspiller. Mislykkes budet, "
        "går samme antall enheter motsatt vei.",
        N_("Made: the declarer receives the table's units from each opponent. Defeated: the same units go the other "
        "way."),
    ),
    "R-11": (
        "На выхоженную карту игроки обязаны класть карту той же масти, при отсутствии - козыря.",
        N_("Players must follow suit; a player without the suit led must trump."),
    ),
    "R-13": (
        "Если игрок, объявивший игру, взял назначенное, то остальные платят в соответствии с объявленным "
        "количеством взяток.",
        N_("If the declarer takes the tricks bid, the others pay according to the number of tricks declared."),
    ),
    "R-14": (
        "Если игрок не взял объявленного, то он платит каждому по 30 рублей и отдельно вносит такую же сумму в "
        '"Клад Наполеона".',
        N_("A declarer who fails pays each player (30 roubles in the example) and the same again into the treasure."),
    ),
    "B-11": (
        "Quando o declarante tiver vencido as rodadas que anunciou que venceria ganha tantos pontos quantas forem "
        "as rodadas que declarou que venceria.",
        N_("A declarer who wins the tricks declared scores as many points as tricks declared."),
    ),
    "B-12": (
        "Caso não consiga ganhar as rodadas que declarou que venceria todos os adversários ganharão os pontos.",
        N_("If the declarer fails, every opponent scores the points."),
    ),
    "B-16": (
        "Se um jogador, embora tendo cartas para tal, não seguiu o naipe e ele é o declarante o valor de sua "
        "declaração será creditada aos demais jogadores. Se quem burlou a regra não for o declarante será "
        "considerado que o declarante cumpriu sua intenção e lhe será creditado os pontos da sua declaração.",
        N_("A declarer who did not follow suit while able gives the value of the declaration to the other players; "
        "if the offender is an opponent, the declarer is deemed to have made it and is credited its points."),
    ),
    "B-17": (
        "O mesmo será valido se um jogador cortar com trunfo quando ainda tinha cartas para descartar.",
        N_("The same applies to a player who trumped while still holding a card of the suit led."),
    ),
}
