"""``hoyle`` — Nap, Hoyle rules, with options.

Source: ``shared/seeds/000_380d836cfbf226e6.txt`` (Russian), rendered in
``shared/rules/hoyle.md`` as H-1 … H-19, with the options of other published rules
from ``shared/rules/other-sources.md`` (cited O-1 to O-3). Units are chips.
The claims of H-13 to H-15 are ruled on by the referee (later work).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core import (
    BIDS,
    N_,
    POOL,
    Bid,
    Claim,
    EveningSetup,
    HandFacts,
    IllegalAuction,
    IllegalFacts,
    IllegalSetup,
    Reason,
    Text,
    listing,
)
from ..options import OptionSpec
from ..sources import HOYLE_SOURCE
from .base import Tally, Variant
from .bidding import OneRoundAuction
from .payments import Schedule, outcome
from .pool import Pool

#: H-11: One to Four, the number bid either way.
SMALL_BIDS = {"one": (1, 1), "two": (2, 2), "three": (3, 3), "four": (4, 4)}

#: O-1 (other-sources.md): (made, defeated) per opponent for Nap, Wellington, Blücher.
#: ``hoyle`` is H-11: Nap 10/5 from the source («Сэр Гарнет»), Wellington 10/10 and
#: Blücher 10/20 adopted from the Hoyle tradition.
SCHEDULES: dict[str, dict[str, tuple[int, int]]] = {
    "hoyle": {"nap": (10, 5), "wellington": (10, 10), "blucher": (10, 20)},
    "peel": {"nap": (10, 5), "wellington": (20, 10), "blucher": (30, 15)},
    "parlett": {"nap": (10, 10), "wellington": (20, 20), "blucher": (40, 40)},
    "britannica": {"nap": (6, 3), "wellington": (12, 6), "blucher": (18, 9)},  # × the 3 units of a Three
    "points": {"nap": (5, 5), "wellington": (10, 10), "blucher": (20, 20)},
}
SCHEDULE_NAMES = (
    ("hoyle", Text("Hoyle tradition: Nap 10/5, Wellington 10/10, Blücher 10/20")),
    ("peel", Text("Peel, Round Games with Cards (1891): 10/5, 20/10, 30/15")),
    ("parlett", Text("Parlett (Britannica): 10/10, 20/20, 40/40")),
    ("britannica", Text("1911 Britannica, in Threes: 6/3, 12/6, 18/9")),
    ("points", Text("Points (German Wikipedia, McNeely): 5/5, 10/10, 20/20")),
)
#: Each schedule's name alone (the part of its label before the colon).
SCHEDULE_LABELS = {
    "hoyle": Text("Hoyle tradition"),
    "peel": Text("Peel, Round Games with Cards (1891)"),
    "parlett": Text("Parlett (Britannica)"),
    "britannica": Text("1911 Britannica, in Threes"),
    "points": Text("Points (German Wikipedia, McNeely)"),
}

#: H-16: the pool, its options and fines (:class:`~.pool.Pool`).
POOL_PART = Pool()

#: The widow options (H-17 to H-19) and their rules.
WIDOW_RULES = {"widow": "H-17", "peep": "H-18", "garnet": "H-19"}


class HoyleSchedule(Schedule):
    """H-11 with the table's options: One to Four the number bid, Nap, Wellington and
    Blücher from the chosen schedule (O-1), Sir Garnet (H-19) and misère (O-2)."""

    def table_for(self, options: Mapping[str, Any]) -> dict[str, tuple[int, int]]:
        """Chips per opponent ``(made, defeated)`` for every bid this table plays."""
        table = {**SMALL_BIDS, **SCHEDULES[options["schedule"]]}
        nap_won, nap_lost = table["nap"]
        table["garnet"] = (nap_won, 2 * nap_lost)  # H-19: loses double the ordinary Nap failure
        if options["misere"] != "off":
            won, lost = options["misere"].split("/")
            table["misere"] = (int(won), int(lost))
        return table

    def reasons(self, setup: EveningSetup, declarer: int, contract: Bid, tricks: int | None, made: bool,
                per: int) -> list[Reason]:
        """H-11; the amounts of misère (O-2) and of another rule book's schedule (O-1) cite those."""
        reasons = super().reasons(setup, declarer, contract, tricks, made, per)
        schedule = setup.options["schedule"]
        if contract.id == "misere":
            reasons.insert(0, Reason("O-2", "Misère pays {per} per opponent at this table (other rule books).",
                                     {"per": per}))
        elif contract.id in ("nap", "wellington", "blucher", "garnet") and schedule != "hoyle":
            label = SCHEDULE_LABELS[schedule]
            reasons.insert(0, Reason("O-1", "{contract} pays {per} per opponent under the {label} schedule.",
                                     {"contract": contract.name, "per": per, "label": label}))
        return reasons


class Hoyle(Variant):
    """Nap, Hoyle rules: bids One (option Two) to Nap, Wellington and Blücher, and the
    pool, widow, Peep Nap and Sir Garnet options (H-16 to H-19)."""

    id = "hoyle"
    name = Text("Nap (Hoyle rules)")
    source = HOYLE_SOURCE
    blurb = Text("The British pub game: bids from One to Nap, with Wellington, Blücher and a pool if the "
                 "table likes; paid in chips.")
    min_players = 2  # H-1
    max_players = 6
    scoring = HoyleSchedule({**SMALL_BIDS, **SCHEDULES["hoyle"]}, "H-11", "H-11", "H-10")  # H-10, H-11, O-1, O-2
    option_specs = (
        OptionSpec("lowest_bid", Text("Lowest bid"), "choice", 1, "H-6",
                   Text("The smallest number of tricks a player may bid (H-6)."),
                   choices=((1, BIDS["one"].name), (2, BIDS["two"].name))),
        OptionSpec("wellington_blucher", Text("Wellington and Blücher"), "bool", True, "H-7",
                   Text("Nap may be overcalled by Wellington, and Wellington by Blücher (H-7).")),
        OptionSpec("schedule", Text("Payments for Nap, Wellington, Blücher"), "choice", "hoyle", "H-11",
                   Text("Chips per opponent, made / defeated (H-11; other rule books: O-1)."), choices=SCHEDULE_NAMES,
                   advanced=True),
        OptionSpec("misere", Text("Misère"), "choice", "off", "O-2",
                   Text("A bid to lose every trick, between Three and Four (other rule books: O-2)."),
                   choices=(("off", Text("Not played")), ("3/3", Text("3 won / 3 lost")),
                            ("3/6", Text("3 won / 6 lost"))), advanced=True),
        OptionSpec("all_pass", Text("When everyone passes"), "choice", "redeal", "H-8",
                   Text("What happens when nobody bids (H-8; other rule books: O-3)."),
                   choices=(("redeal", Text("The next dealer deals")), ("dealer_bids", Text("The dealer must bid")),
                            ("eldest_plays_one", Text("Eldest hand plays for One (Peel)")),
                            ("double_header", Text("Stakes doubled for the next hand (Peel)")))),
        *POOL_PART.option_specs,  # H-16
        OptionSpec("widow", Text("Widow"), "choice", "none", "H-17",
                   Text("An extra hand or card dealt face down (H-17 widow, H-18 Peep Nap, H-19 Sir Garnet)."),
                   choices=(("none", Text("No widow")), ("widow", Text("Widow: the taker must bid Nap (H-17)")),
                            ("peep", Text("Peep Nap: 1 chip to look (H-18, needs the pool)")),
                            ("garnet", Text("Sir Garnet: take the widow instead of a bid (H-19)"))), advanced=True),
    )
    draw_rule = ("H-3", True)
    pool = POOL_PART
    rule_players = "H-1"
    auction = OneRoundAuction("H-6", "H-6", "H-7")  # the order, the ladder, overcalls
    rule_all_pass = "H-8"
    rule_misdeal = "H-12"
    rule_deal_passes = "H-4"
    facts = frozenset({"widow", "peeks"})  # H-17 to H-19
    revoke_source_silent = False

    def check_setup(self, setup: EveningSetup) -> EveningSetup:
        """H-18: Peep Nap is played with the pool."""
        setup = super().check_setup(setup)
        if setup.options["widow"] == "peep" and not setup.options["pool"]:
            raise IllegalSetup(Text("Peep Nap is played with a pool: turn the pool on."), "H-18")
        return setup

    def ladder(self, options: Mapping[str, Any]) -> tuple[Bid, ...]:
        """H-6/H-7 and the options: from the lowest bid up; misère, Sir Garnet,
        Wellington and Blücher where the table plays them."""
        ids = [b for b in ("one", "two", "three") if BIDS[b].tricks >= options["lowest_bid"]]
        if options["misere"] != "off":
            ids.append("misere")
        ids += ["four", "nap"]
        if options["widow"] == "garnet":
            ids.append("garnet")
        if options["wellington_blucher"]:
            ids += ["wellington", "blucher"]
        return tuple(BIDS[b] for b in ids)

    def refuse_unknown_bid(self, call: str, options: Mapping[str, Any]) -> IllegalAuction:
        """Wellington/Blücher with the option off cite H-7; a bid below the lowest, H-6."""
        if call in ("wellington", "blucher") and not options["wellington_blucher"]:
            return IllegalAuction(
                Text("{bid} is not played at this table (the Wellington and Blücher option is off).",
                     bid=BIDS[call].name), "H-7"
            )
        if call == "garnet":
            return IllegalAuction(Text("Sir Garnet is not played at this table."), "H-19")
        if call == "misere":
            return IllegalAuction(Text("Misère is not played at this table."), "O-2")
        if call in BIDS and 0 < BIDS[call].tricks < options["lowest_bid"]:
            return IllegalAuction(Text("The lowest bid at this table is {bid}.", bid=BIDS["two"].name), "H-6")
        return super().refuse_unknown_bid(call, options)

    def check_all_pass(self, facts: HandFacts, setup: EveningSetup) -> None:
        """H-8 option: when the others have passed, the dealer must bid."""
        if setup.options["all_pass"] == "dealer_bids":
            lowest = self.ladder(setup.options)[0]
            raise IllegalAuction(
                Text("Everyone else passed, so {dealer} (the dealer) must bid at least {bid} at this table.",
                     dealer=setup.players[facts.dealer], bid=lowest.name),
                "H-8",
            )

    def check_auction(self, facts: HandFacts, setup: EveningSetup) -> tuple[int | None, Bid | None, list[Reason]]:
        """O-3 (Peel): with "eldest hand plays for One", an all-pass hand is played by eldest hand."""
        declarer, contract, reasons = super().check_auction(facts, setup)
        if declarer is None and setup.options["all_pass"] == "eldest_plays_one":
            eldest = (facts.dealer + 1) % setup.n
            reason = Reason("O-3", "Everyone passed, so {eldest} (eldest hand) must play for One (Peel).",
                            {"eldest": setup.players[eldest]})
            return eldest, BIDS["one"], [reason]
        return declarer, contract, reasons

    def check_facts(self, facts: HandFacts, setup: EveningSetup) -> None:
        """The widow (H-17, H-18, H-19) and peeks (H-18) only where the table plays them."""
        widow = setup.options["widow"]
        if facts.widow and widow == "none":
            raise IllegalFacts(Text("There is no widow at this table."), "H-17")
        if facts.peeks:
            if widow != "peep":
                raise IllegalFacts(Text("There is no Peep Nap at this table."), "H-18")
            if len(set(facts.peeks)) != len(facts.peeks) or not all(
                isinstance(s, int) and not isinstance(s, bool) and 0 <= s < setup.n for s in facts.peeks
            ):
                raise IllegalFacts(Text("Each player may peek once; name players at the table."), "H-18")
        super().check_facts(facts, setup)

    def check_contract_facts(self, facts: HandFacts, setup: EveningSetup, declarer: int, contract: Bid) -> None:
        """H-17: whoever takes the widow must bid Nap."""
        if facts.widow and setup.options["widow"] == "widow" and contract.tricks != 5:
            raise IllegalFacts(Text("{declarer} took the widow and so must bid Nap, not {contract}.",
                                    declarer=setup.players[declarer], contract=contract.name), "H-17")
        if setup.options["widow"] == "garnet" and facts.widow != (contract.id == "garnet"):
            raise IllegalFacts(Text("At a Sir Garnet table, taking the widow is the Sir Garnet bid: tick “took the "
                                    "widow” exactly when the contract is Sir Garnet."), "H-19")

    def before_play(self, facts: HandFacts, setup: EveningSetup, tally: Tally) -> None:
        """H-16: the pool's opening stakes and the dealer's top-up (:class:`~.pool.Pool`);
        H-18: peeks cost 1 chip into the pool."""
        super().before_play(facts, setup, tally)
        if not setup.options["pool"]:
            return
        for seat in facts.peeks:
            tally.pay(seat, POOL, 1)
        if len(facts.peeks) == 1:
            tally.note("H-18", "{who} paid 1 chip to look at the widow card (pool now {pool}).",
                       who=tally.name(facts.peeks[0]), pool=tally.pool_now)
        elif facts.peeks:
            tally.note("H-18", "{who} paid 1 chip each to look at the widow card (pool now {pool}).",
                       who=listing(tally.name(s) for s in facts.peeks), pool=tally.pool_now)

    def all_passed(self, facts: HandFacts, setup: EveningSetup, tally: Tally) -> None:
        super().all_passed(facts, setup, tally)
        if setup.options["all_pass"] == "double_header":
            tally.double_next = True
            tally.note("O-3", "Peel's double header: the next hand's payments are doubled.")

    def pay_contract(self, facts: HandFacts, setup: EveningSetup, tally: Tally, declarer: int, contract: Bid,
                     tricks: int | None, made: bool) -> None:
        """H-11, with the claims of H-13 (wrong number of cards) and H-14 (out of turn)."""
        upheld = [c for c in facts.claims if c.upheld]
        wrong = [c for c in upheld if c.kind == "wrong_cards"]
        declarer_wrong = any(c.accused == declarer for c in wrong)
        opponent_wrong = any(c.accused != declarer for c in wrong)
        offenders = sorted({c.accused for c in upheld if c.kind == "out_of_turn" and c.accused != declarer})
        who = tally.name(declarer)
        for claim in wrong:
            short = claim.cards_held is not None and claim.cards_held < 5
            if short:
                text = N_("Upheld: {what}; said after speaking, so the hand was played out with it. A player short "
                          "of cards cannot win a trick they have no card for.")
            else:
                text = N_("Upheld: {what}; said after speaking, so the hand was played out with it.")
            tally.note("H-13", text, what=self.describe_claim(setup, claim))
        self._declarer_out_of_turn(facts, setup, tally, declarer)
        if made and declarer_wrong and not opponent_wrong:
            tally.note("H-13", "{declarer}'s own hand was wrong and the opponents' right: {declarer} made the "
                       "contract but collects nothing.", declarer=who)
        elif not made and opponent_wrong and not declarer_wrong:
            tally.note("H-13", "{declarer}'s hand was right and an opponent's wrong: {declarer} was defeated but "
                       "pays nothing.", declarer=who)
        else:
            if declarer_wrong and opponent_wrong:
                tally.note("H-13", "Both the declarer's hand and an opponent's were wrong: settled as usual "
                           "(adopted).")
            if made or not offenders:
                super().pay_contract(facts, setup, tally, declarer, contract, tricks, made)
            else:
                per = self.payment(contract, False, setup.options) * tally.multiplier
                paid = [s for s in range(setup.n) if s != declarer and s not in offenders]
                for seat in paid:
                    tally.pay(declarer, seat, per)
                tally.note("H-11", "{outcome}. {declarer} pays {per} to each opponent except {offenders}.",
                           outcome=outcome(who, contract, tricks, made), declarer=who, per=per,
                           offenders=listing(tally.name(s) for s in offenders))
                tally.note("H-14", "{offenders} played out of turn and so receive nothing from the defeated "
                           "declarer.", offenders=listing(tally.name(s) for s in offenders))
        self._out_of_turn_fines(facts, setup, tally, declarer)
        self._widow_notes(facts, setup, tally, declarer, contract, made)

    def _declarer_out_of_turn(self, facts: HandFacts, setup: EveningSetup, tally: Tally, declarer: int) -> None:
        """H-14: the declarer's own lead or play out of turn costs nothing; each upheld claim is noted."""
        for claim in facts.claims:
            if claim.upheld and claim.kind == "out_of_turn" and claim.accused == declarer:
                tally.note("H-14", "Upheld: {what}. The declarer pays no penalty (taken back if noticed before the "
                           "trick was turned, otherwise it stands).", what=self.describe_claim(setup, claim))

    def _out_of_turn_fines(self, facts: HandFacts, setup: EveningSetup, tally: Tally, declarer: int) -> None:
        """H-14, H-16: an opponent pays the 3-chip fine for each upheld lead or play out of turn
        («за внеочередной ход - три фишки»: per move, so two upheld claims cost 6), into the
        pool when the table plays one (adopted), otherwise to the declarer."""
        to_pool = setup.options["pool"]
        fine = POOL_PART.out_of_turn_fine
        for claim in facts.claims:
            if not claim.upheld or claim.kind != "out_of_turn" or claim.accused == declarer:
                continue
            seat = claim.accused
            tally.pay(seat, POOL if to_pool else declarer, fine)
            if to_pool:
                tally.note("H-16", "{offender} led or played out of turn: pays {fine} chips into the pool.",
                           offender=tally.name(seat), fine=fine)
            else:
                tally.note("H-14", "{offender} led or played out of turn: pays {fine} chips to {declarer}.",
                           offender=tally.name(seat), fine=fine, declarer=tally.name(declarer))

    def settle_revoke(self, facts: HandFacts, setup: EveningSetup, tally: Tally, declarer: int, contract: Bid,
                      claim: Claim) -> bool:
        """H-15: play stops. A revoking declarer pays each opponent what the declarer would
        have collected from them; a revoking opponent pays the declarer everything the
        declarer would have collected from all opponents, and the others pay nothing.
        With the pool, the offender also pays the 5-chip fine into it (H-16).

        The hand's other upheld claims (issue 25 item 9) are still ruled: an opponent's
        lead out of turn still pays its 3-chip fine (H-14, into the pool with H-16), and
        a declarer's costs nothing; the revoking declarer's H-15 payment is a fine to every
        opponent, so an out-of-turn opponent receives it too (adopted: H-14's "receives
        nothing" is about a defeat played out). A wrong number of cards said after
        speaking (H-13) changes no payment, since the hand was not played out (adopted)."""
        won = self.payment(contract, True, setup.options) * tally.multiplier
        offender = claim.accused
        what = self.describe_claim(setup, claim)
        if offender == declarer:
            for seat in range(setup.n):
                if seat != declarer:
                    tally.pay(declarer, seat, won)
            tally.note("H-15", "Upheld: {what}. Play stops: the revoking declarer pays each opponent {won}, what "
                       "{contract} would have collected from each.", what=what, won=won, contract=contract.name)
        else:
            total = won * (setup.n - 1)
            tally.pay(offender, declarer, total)
            tally.note("H-15", "Upheld: {what}. Play stops: {offender} pays {declarer} {total}, all that "
                       "{contract} would have collected; the other opponents pay nothing.", what=what,
                       offender=tally.name(offender), declarer=tally.name(declarer), total=total,
                       contract=contract.name)
        if setup.options["pool"]:
            tally.pay(offender, POOL, POOL_PART.revoke_fine)
            tally.note("H-16", "{offender} also pays the revoke fine of {fine} chips into the pool. The pool is "
                       "neither taken nor doubled: the hand was not played out (adopted).",
                       offender=tally.name(offender), fine=POOL_PART.revoke_fine)
        for other in facts.claims:
            if other.upheld and other.kind == "wrong_cards":
                tally.note("H-13", "Upheld: {what}; said after speaking. Play stopped on the revoke, so the wrong "
                           "number of cards changes no payment (adopted).", what=self.describe_claim(setup, other))
        self._declarer_out_of_turn(facts, setup, tally, declarer)
        late = sorted({c.accused for c in facts.claims
                       if c.upheld and c.kind == "out_of_turn" and c.accused != declarer})
        if late and offender == declarer:
            tally.note("H-14", "{offenders} played out of turn but still receive the revoking declarer's payment: "
                       "H-15 is a fine paid to every opponent, not a defeat played out (adopted).",
                       offenders=listing(tally.name(s) for s in late))
        self._out_of_turn_fines(facts, setup, tally, declarer)
        return offender != declarer

    def _widow_notes(self, facts: HandFacts, setup: EveningSetup, tally: Tally, declarer: int, contract: Bid,
                     made: bool) -> None:
        if tally.multiplier > 1:
            tally.note("O-3", "Payments doubled after the previous hand where everyone passed (double header).")
        if facts.widow:
            rule = {"widow": "H-17", "peep": "H-18", "garnet": "H-19"}[setup.options["widow"]]
            tally.note(rule, "{declarer} took the widow.", declarer=tally.name(declarer))
        if contract.id == "garnet" and not made:
            tally.note("H-19", "Sir Garnet defeated pays double the ordinary Nap failure.")

    def widow_rule(self, options: Mapping[str, Any]) -> str | None:
        return WIDOW_RULES.get(options.get("widow", "none"))

    def peek_rule(self, options: Mapping[str, Any]) -> str | None:
        return "H-18" if options.get("widow") == "peep" else None

    def shuffle_note(self, shuffle: bool) -> tuple[str, str]:
        """H-4: the dealer shuffles last; the player on the dealer's right cuts."""
        return "H-4", Text("The dealer shuffles last; the player on the dealer's right cuts (at least 4 cards a "
                           "packet).")
