"""The ``nap`` command.

``nap settle FILE [--json]``: settle an evening file without the web app. Prints the
hand-by-hand entries and the totals as a text table, or with ``--json`` as JSON. Exit
status 0 on success, 2 for a file that cannot be read or settled. Needs no Flask.

``nap verify FILE``: check an evening file's record (issue 22 item 6,
:mod:`scorer.evening.chain`): exit 0 and "whole" with its fingerprint when every link
matches the facts, 2 and "altered from change 3 (hand 3)" when one does not (or the file
cannot be read), 1 for a file that carries no chain.

``nap serve [--host H] [--port P] [--workers N] [--worker-ports Q]``: the web app under
waitress with the limits of :mod:`scorer.cli.serve`, in N processes (process *i* also on port
Q + *i*), on ``DATABASE_URL`` (SQLite in ``instance/`` by default), the database brought up to
the newest migration first.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from ..evening.file import EveningFile, EveningFileError, loads
from ..evening.ledger import Ledger, settle_evening
from ..evening.settle import settle_up
from ..evening.verify import verify


def ledger_report(evening: EveningFile, ledger: Ledger) -> dict[str, Any]:
    """The ledger as JSON-ready data: one entry per hand with its ruling, then the totals.

    Units are the variant's units (chips or points); ``money`` values are in the
    currency's smallest unit (the stake's ``digits`` decimals: 0 for JPY, 2 for £), or
    absent for a points-only evening.
    """
    setup = ledger.setup
    names = setup.players
    stake = setup.stake

    def by_name(values: tuple[int, ...]) -> dict[str, int]:
        return dict(zip(names, values))

    hands = []
    for row in ledger.rows:
        r = row.ruling
        entry: dict[str, Any] = {
            "number": row.number,
            "dealer": names[r.dealer],
            "declarer": None if r.declarer is None else names[r.declarer],
            "contract": None if r.contract is None else r.contract.id,
            "tricks": r.tricks,
            "result": r.result.value,
            "entries": by_name(r.units),
            "pool": r.pool,
            **({"contract_entries": by_name(r.contract_units), "pool_entries": by_name(r.pool_units)}
               if r.pool_units else {}),
            "rules": list(r.rule_ids),
            "reasons": [{"rule": x.rule, "text": x.text} for x in r.reasons],
            "totals": by_name(row.totals),
        }
        money = r.money(stake)
        if money is not None:
            entry["money"] = by_name(money)
        hands.append(entry)
    report: dict[str, Any] = {
        "name": evening.name,
        "variant": setup.variant,
        "options": dict(setup.options),
        "players": list(names),
        "stake": None if stake is None else {"minor": stake.minor, "currency": stake.currency, "digits": stake.digits},
        "hands": hands,
        "totals": by_name(ledger.totals),
        "pool": ledger.pool,
        "winners": [names[s] for s in ledger.winners],
        "next_dealer": names[ledger.next_dealer],
        "hands_remaining": ledger.hands_remaining,
    }
    if ledger.deals_owed is not None:  # P-14: counted deals each player still owes
        report["still_to_deal"] = {names[s]: d for s, d in ledger.still_to_deal}
    if ledger.money_totals is not None:
        report["money_totals"] = by_name(ledger.money_totals)
    if not ledger.variant.points_only:
        result = settle_up(ledger)
        report["settle_up"] = {
            "unit": "money" if result.money else "units",  # money: the currency's smallest unit
            "balances": by_name(result.balances),
            "pool_share": result.pool_share,
            "pool_left": result.pool_left,
            "odd": [names[s] for s in result.odd],
            "payments": [
                {"payer": _party(names, p.payer), "payee": _party(names, p.payee), "amount": p.amount}
                for p in result.payments
            ],
        }
    report["end_reached"] = ledger.end_reached
    return report


def _party(names: tuple[str, ...], party: int | str) -> str:
    return names[party] if isinstance(party, int) else "pool"


def signed(n: int) -> str:
    """``+4``, ``-12``, ``0``."""
    return f"{n:+d}" if n else "0"


def text_report(evening: EveningFile, ledger: Ledger) -> str:
    """The ledger as a plain-text table, one line per hand, then totals and winners."""
    setup = ledger.setup
    names = setup.players
    width = max(8, *(len(n) for n in names))
    head = f"{'#':>3}  {'dealer':<{width}}  {'declarer':<{width}}  {'contract':<10} {'tricks':>6}  {'result':<10}"
    lines = []
    title = evening.name or "Nap evening"
    money = "points only" if setup.stake is None else f"stake {setup.stake.format(setup.stake.minor)} per unit"
    lines.append(f"{title} — {ledger.variant.name}, {setup.n} players, {money}")
    for spec, value in ledger.variant.describe_options(setup.options):
        lines.append(f"  {spec.label}: {value}")
    lines.append("")
    lines.append(head + "".join(f" {n:>{width}}" for n in names) + "  rules")
    for row in ledger.rows:
        r = row.ruling
        declarer = names[r.declarer] if r.declarer is not None else "—"
        contract = r.contract.name if r.contract else "—"
        tricks = "" if r.tricks is None else str(r.tricks)
        lines.append(
            f"{row.number:>3}  {names[r.dealer]:<{width}}  {declarer:<{width}}  {contract:<10} {tricks:>6}  "
            f"{r.result.value:<10}" + "".join(f" {signed(u):>{width}}" for u in r.units) + "  " + " ".join(r.rule_ids)
        )
    pad = 3 + 2 + width + 2 + width + 2 + 10 + 1 + 6 + 2 + 10
    lines.append(f"{'Totals':<{pad}}" + "".join(f" {signed(t):>{width}}" for t in ledger.totals))
    if ledger.money_totals is not None and setup.stake is not None:
        gains = [("+" if m > 0 else "") + setup.stake.format(m) for m in ledger.money_totals]  # +£0.60, −£0.30
        lines.append(f"{'Money':<{pad}}" + "".join(f" {m:>{width}}" for m in gains))
    if ledger.pool:
        lines.append(f"{'Pool':<{pad}} {ledger.pool:>{width}}")
    if ledger.rows:
        lines.append("")
        label = "Winners" if len(ledger.winners) > 1 else "Winner"
        lines.append(f"{label}: " + ", ".join(names[s] for s in ledger.winners))
    if ledger.rows and not ledger.variant.points_only:
        result = settle_up(ledger)
        lines.append("")
        stake = setup.stake

        def amount(x: int) -> str:
            return str(stake.format(x)) if result.money and stake is not None else str(x)

        rule = ledger.variant.rule_pool_end
        shared = f" (pool shared: {amount(result.pool_share)} each, {rule})" if result.pool_share else ""
        lines.append("Settle-up" + shared + ":")
        if result.odd:
            odd = ", ".join(names[s] for s in result.odd)
            lines.append(f"  the last {amount(len(result.odd))} does not divide equally: {amount(1)} each to {odd}, "
                         f"in turn from the next dealer ({rule}, adopted)")
        for p in result.payments:
            lines.append(f"  {_party(names, p.payer)} pays {_party(names, p.payee)} {amount(p.amount)}")
        if not result.payments:
            lines.append("  nobody owes anything")
    if ledger.hands_remaining is not None:
        lines.append(f"Hands remaining to the agreed end: {ledger.hands_remaining}")
    if ledger.still_to_deal:
        owed = ", ".join(f"{names[s]} {d}" for s, d in ledger.still_to_deal)
        lines.append(f"Still to deal (counted hands, P-14): {owed}")
    return "\n".join(lines) + "\n"


def verify_report(path: Path, text: bytes) -> int:
    """``nap verify``: print what the file's record says and return the exit status (0
    whole, 1 no chain, 2 altered or unreadable)."""
    try:
        verdict = verify(text)
    except EveningFileError as error:
        rule = f" ({error.rule})" if error.rule else ""
        print(f"nap: {path}: not a readable evening, so not whole: {error}{rule}", file=sys.stderr)
        return 2
    if not verdict.chained:
        print(f"{path}: carries no record chain (exported before issue 22?): nothing to check; its facts' "
              f"fingerprint is {verdict.fingerprint}")
        return 1
    if verdict.whole:
        print(f"{path}: whole — fingerprint {verdict.fingerprint}; compare it with the one the phones and the "
              "PDF showed")
        return 0
    print(f"{path}: altered from {verdict.where}; its facts' fingerprint is {verdict.fingerprint}")
    return 2


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``nap`` command."""
    parser = argparse.ArgumentParser(prog="nap", description="Settle a Nap evening file, or serve the web app.")
    sub = parser.add_subparsers(dest="command", required=True)
    settle = sub.add_parser("settle", help="print the hand-by-hand entries and the totals of an evening file")
    settle.add_argument("file", type=Path, help="an evening file (JSON, see docs/evening-format.md)")
    settle.add_argument("--json", action="store_true", help="print JSON instead of a text table")
    check = sub.add_parser("verify", help="check that an evening file's record is whole, or from which change "
                                          "it was altered")
    check.add_argument("file", type=Path, help="an evening file (JSON) exported by the app")
    serve = sub.add_parser("serve", help="serve the web app (waitress, with limits fit for the internet)")
    serve.add_argument("--host", default=os.environ.get("HOST", "0.0.0.0"), help="address to listen on")  # noqa: S104
    serve.add_argument("--port", type=int, default=int(os.environ.get("PORT", "5000")), help="port")
    serve.add_argument("--workers", type=int, default=None,
                       help="app processes (default: NAP_WORKERS, else one per core on PostgreSQL, one on SQLite)")
    serve.add_argument("--live-port", type=int, default=None,
                       help="port of the live stream server, pushed updates (default: NAP_LIVE_PORT, else behind "
                            "a proxy the port + 1, else none: the phones poll); 0: none")
    serve.add_argument("--worker-ports", type=int, default=None,
                       help="worker i also listens on this port + i, for a proxy that sends each table to one "
                            "process (default: NAP_WORKER_PORTS, else none)")
    args = parser.parse_args(argv)
    if args.command == "serve":
        from .serve import serve as run_server  # Flask and waitress only here: `nap settle` needs neither

        run_server(args.host, args.port, workers=args.workers, live_port=args.live_port,
                   worker_ports=args.worker_ports)
        return 0
    try:
        text = args.file.read_bytes()
    except OSError as error:
        print(f"nap: cannot read {args.file}: {error.strerror}", file=sys.stderr)
        return 2
    if args.command == "verify":
        return verify_report(args.file, text)
    try:
        evening = loads(text)
        ledger = settle_evening(evening.setup, evening.hands, evening.changes)
    except EveningFileError as error:
        rule = f" ({error.rule})" if error.rule else ""
        print(f"nap: {args.file}: {error}{rule}", file=sys.stderr)
        return 2
    if args.json:
        json.dump(ledger_report(evening, ledger), sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(text_report(evening, ledger))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
