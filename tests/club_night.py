"""A whole club night worked out by hand (issue 22, "Done means"), driven through the JSON
commands with Flask test clients: tests/test_event_pdf.py and tests/test_browser_club_night.py
play it (the browser test at the points where a person would look: the room screen, the
referee's phone).

Pagat (hands_per_dealer 1), points; a bid of k made wins k from each other player at the
table, beaten pays k to each (P-10). The auction starts at the dealer's left (eldest).

Round 1, typed: table 1 Ann Bob Cat Dan Eve, table 2 Fay Gus Hal Ivy Jo, table 3 Kim Lee Max
Ned (four); Zoe arrives late and is placed at table 3, the smallest with room, in the last
seat (Kim Lee Max Ned Zoe).

  T1 h1  dealer Ann: Bob Three, 3 tricks: Bob +12, Ann Cat Dan Eve −3
  T1 h2  dealer Bob: Dan Four, 3 tricks (beaten): Dan −16, Ann Bob Cat Eve +4
         → Ann +1, Bob +16, Cat +1, Dan −19, Eve +1
  T2 h1  dealer Fay: Hal Four, 4 tricks: Hal +16, Fay Gus Ivy Jo −4
  T3 h1  dealer Kim: Ned Three, 3 tricks: Ned +12, Kim Lee Max Zoe −3
  T3 h2  dealer Lee: Zoe Four, 4 tricks: Zoe +16, Kim Lee Max Ned −4
         → Kim −7, Lee −7, Max −7, Ned +8, Zoe +13

After round 1 (total; then contracts made; then tables won; equals share the place):
  Bob +16 (1 made, 1 won) and Hal +16 (1, 1) share 1st; Zoe +13 3rd; Ned +8 4th;
  Ann Cat Eve +1 share 5th; Fay Gus Ivy Jo −4 share 8th; Kim Lee Max −7 share 12th; Dan −19 15th.
Round 2, together (15 players: 5, 5, 5, in rank order; equals by name):
  T1 Bob Hal Zoe Ned Ann · T2 Cat Eve Fay Gus Ivy · T3 Jo Kim Lee Max Dan

  R2T1 h1 dealer Bob: Hal Three, 2 tricks (beaten: Hal −12, the others +3); Hal disputes it:
         Zoe (an opponent) revoked. The table calls the referee; Rita, the referee, upholds the
         claim: a revoke by an opponent scores the contract as made (P-16): Hal +12,
         Bob Zoe Ned Ann −3
  R2T2 h1 dealer Cat: Fay Four, 4 tricks: Fay +16, Cat Eve Gus Ivy −4
  R2T3 h1 dealer Jo: Dan Three, 3 tricks: Dan +12, Jo Kim Lee Max −3

After round 2: Hal 28, Bob 13, Fay 12, Zoe 10, Ned 5, Ann −2, Cat −3, Eve −3 (share 7th),
  Dan −7 (1 made) 9th, Jo −7 (none) 10th, Gus −8 Ivy −8 (share 11th), Kim Lee Max −10 (13th).
Round 3, together: T1 Hal Bob Fay Zoe Ned · T2 Ann Cat Eve Dan Jo · T3 Gus Ivy Kim Lee Max

  R3T1 h1 dealer Hal: Bob Four, 4 tricks: Bob +16, Hal Fay Zoe Ned −4
  R3T2 h1 dealer Ann: Cat Three, 3 tricks: Cat +12, Ann Eve Dan Jo −3
  R3T3 h1 dealer Gus: Kim Four, 4 tricks: Kim +16, Gus Ivy Lee Max −4

Final (sum 0): see :data:`FINAL`. Kim +6 and Zoe +6 both made one contract and won one table
(Zoe round 1 table 3, Kim round 3 table 3): they share 5th. Dan and Jo −10: Dan made one, Jo
none. Gus Ivy −12 share 12th; Lee Max −14 share 14th.
"""

from __future__ import annotations

import json
from typing import Any

TABLES_1 = [["Ann", "Bob", "Cat", "Dan", "Eve"], ["Fay", "Gus", "Hal", "Ivy", "Jo"], ["Kim", "Lee", "Max", "Ned"]]
PLAYERS = [p for t in TABLES_1 for p in t]
SEATING_2 = [
    ["Bob", "Hal", "Zoe", "Ned", "Ann"],
    ["Cat", "Eve", "Fay", "Gus", "Ivy"],
    ["Jo", "Kim", "Lee", "Max", "Dan"],
]
SEATING_3 = [
    ["Hal", "Bob", "Fay", "Zoe", "Ned"],
    ["Ann", "Cat", "Eve", "Dan", "Jo"],
    ["Gus", "Ivy", "Kim", "Lee", "Max"],
]
#: (place, name, total) after round 1, worked out above.
AFTER_1 = [
    (1, "Bob", 16),
    (1, "Hal", 16),
    (3, "Zoe", 13),
    (4, "Ned", 8),
    (5, "Ann", 1),
    (5, "Cat", 1),
    (5, "Eve", 1),
    (8, "Fay", -4),
    (8, "Gus", -4),
    (8, "Ivy", -4),
    (8, "Jo", -4),
    (12, "Kim", -7),
    (12, "Lee", -7),
    (12, "Max", -7),
    (15, "Dan", -19),
]
#: (place, name, total) at the end of the night.
FINAL = [
    (1, "Bob", 29),
    (2, "Hal", 24),
    (3, "Cat", 9),
    (4, "Fay", 8),
    (5, "Kim", 6),
    (5, "Zoe", 6),
    (7, "Ned", 1),
    (8, "Ann", -5),
    (9, "Eve", -6),
    (10, "Dan", -10),
    (11, "Jo", -10),
    (12, "Gus", -12),
    (12, "Ivy", -12),
    (14, "Lee", -14),
    (14, "Max", -14),
]

# (dealer, auction from the eldest, tricks) of each table's hands, round by round
HANDS_1 = [
    [("Ann", ["three", "pass", "pass", "pass", "pass"], 3), ("Bob", ["pass", "four", "pass", "pass", "pass"], 3)],
    [("Fay", ["pass", "four", "pass", "pass", "pass"], 4)],
    [("Kim", ["pass", "pass", "three", "pass", "pass"], 3), ("Lee", ["pass", "pass", "four", "pass", "pass"], 4)],
]
HANDS_2 = [
    [("Bob", ["three", "pass", "pass", "pass", "pass"], 2)],
    [("Cat", ["pass", "four", "pass", "pass", "pass"], 4)],
    [("Jo", ["pass", "pass", "pass", "three", "pass"], 3)],
]
HANDS_3 = [
    [("Hal", ["four", "pass", "pass", "pass", "pass"], 4)],
    [("Ann", ["three", "pass", "pass", "pass", "pass"], 3)],
    [("Gus", ["pass", "four", "pass", "pass", "pass"], 4)],
]


def post(client: Any, url: str, body: Any, expect: tuple[int, ...] = (200, 201)) -> Any:
    answer = client.post(url, data=json.dumps(body), content_type="application/json")
    assert answer.status_code in expect, (url, answer.status_code, answer.get_data(as_text=True))
    return answer.get_json()


def local(url: str) -> str:
    """An absolute link the app made, as a path for the test client."""
    for host in ("127.0.0.1", "localhost"):
        if host in url:
            url = url.split(host, 1)[1]
            url = url[url.index("/") :] if not url.startswith("/") else url
    return url


class Night:
    """The club night above, step by step; ``owner`` is the organiser's phone (a test client)."""

    def __init__(self, app: Any, owner: Any) -> None:
        self.app, self.owner = app, owner
        group = post(owner, "/api/groups", {"name": "The Crown", "token": "night-g"})["group"]["key"]
        self.group = group
        self.key = post(
            owner,
            f"/api/g/{group}/events",
            {
                "name": "Thursday club night",
                "token": "club-night",
                "variant": "pagat",
                "options": {"hands_per_dealer": 1},
                "stake": None,
                "players": PLAYERS,
                "rounds": 3,
                "length": "hands",
                "amount": 10,
            },
        )["event"]["key"]
        self.rounds: list[list[str]] = []  # each round's tables' evening keys

    def state(self) -> dict[str, Any]:
        return self.owner.get(f"/api/ev/{self.key}").get_json()["event"]  # type: ignore[no-any-return]

    def seat_and_start(self) -> None:
        post(self.owner, f"/api/ev/{self.key}/seat", {"how": "typed", "tables": TABLES_1})
        self._take(post(self.owner, f"/api/ev/{self.key}/start", {})["event"]["tables"])

    def _take(self, tables: list[dict[str, Any]]) -> None:
        """The organiser takes every table's scorers' link (as a phone of each table would)."""
        for table in tables:
            assert self.owner.get(local(table["scorers_link"])).status_code == 302
        self.rounds.append([t["evening"] for t in tables])

    def arrive(self, name: str) -> dict[str, Any]:
        return post(self.owner, f"/api/ev/{self.key}/arrive", {"name": name})["event"]  # type: ignore[no-any-return]

    def play(self, number: int, hands: list[list[tuple[str, list[str], int]]], *, skip: int | None = None) -> None:
        """Round ``number``'s hands at every table (table ``skip`` left for later)."""
        for index, (evening, table_hands) in enumerate(zip(self.rounds[number - 1], hands, strict=True)):
            if index == skip:
                continue
            for n, (dealer, auction, tricks) in enumerate(table_hands, start=1):
                self.hand(evening, n, dealer, auction, tricks)

    def hand(self, evening: str, n: int, dealer: str, auction: list[str], tricks: int) -> None:
        post(
            self.owner,
            f"/api/e/{evening}/hands",
            {"number": n, "token": f"{evening}-{n}", "facts": {"dealer": dealer, "auction": auction, "tricks": tricks}},
        )

    def finish_round(self, number: int) -> None:
        """Finish every table of round ``number``; the last one seats and begins the next round."""
        for evening in self.rounds[number - 1]:
            revision = self.owner.get(f"/api/e/{evening}").get_json()["revision"]
            post(self.owner, f"/api/e/{evening}/finish", {"revision": revision})
        state = self.state()
        if state["round"]["number"] == number + 1:
            self._take(state["tables"])

    def standings(self) -> list[tuple[int, str, int]]:
        return [(r["place"], r["name"], r["total"]) for r in self.state()["standings"]["rows"]]

    def name_referee(self, name: str) -> dict[str, Any]:
        """The owner names a referee (not a player): their link and PIN."""
        return post(
            self.owner,
            f"/api/ev/{self.key}/referees",  # type: ignore[no-any-return]
            {"name": name, "token": f"ref-{name}"},
        )["referee"]

    def dispute_and_call(self, evening: str, note: str) -> tuple[int, int]:
        """Round 2 table 1, hand 1: Hal says Zoe revoked in trick 2, and the table calls the
        referee; ``(dispute id, call id)``."""
        from tests.webhelpers import hand_id

        hand = int(hand_id(self.app, evening, 1))
        dispute = post(
            self.owner,
            f"/api/e/{evening}/hands/{hand}/disputes",
            {"kind": "revoke", "accused": "Zoe", "raised_by": "Hal", "trick": 2, "token": "night-d1"},
        )
        call = post(self.owner, f"/api/e/{evening}/referee", {"hand": 1, "note": note, "token": "night-c1"})
        return dispute["dispute"]["id"], call["call"]["id"]


NOTE = "Zoe revoked in trick 2"


def play_whole_night(app: Any, owner: Any, referee: Any) -> Night:
    """The night above through its JSON commands; ``referee`` (a test client) is Rita's
    phone, joined by her PIN, and rules on the call by JSON."""
    night = Night(app, owner)
    night.seat_and_start()
    assert night.arrive("Zoe")["round"]["seating"][2] == ["Kim", "Lee", "Max", "Ned", "Zoe"]
    night.play(1, HANDS_1)
    assert night.standings() == AFTER_1
    night.finish_round(1)
    assert night.state()["round"]["seating"] == SEATING_2
    rita = night.name_referee("Rita")
    post(referee, f"/api/ev/{night.key}/referee/join", {"pin": rita["pin"]})
    night.play(2, HANDS_2)
    dispute, call = night.dispute_and_call(night.rounds[1][0], NOTE)
    post(referee, f"/api/ev/{night.key}/calls/{call}/take", {})
    post(
        referee,
        f"/api/ev/{night.key}/calls/{call}/rule",
        {"dispute": dispute, "version": 1, "upheld": True, "token": "rita-1"},
    )
    night.finish_round(2)
    assert night.state()["round"]["seating"] == SEATING_3
    night.play(3, HANDS_3)
    night.finish_round(3)
    return night
