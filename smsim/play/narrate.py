"""A readable turn-by-turn account of a traced game (``smsim play``)."""

from __future__ import annotations

from typing import Any

from smsim.layout import CELL_CHAR, CHURCH_CELLS, CORNERS, N_DICE, PERSON_0, SIZE, Cell, Person, cell_rc

# the letters of the board text format (docs/rules.md §8), by the names the trace uses
PERSON_LETTER = {p.name.lower(): CELL_CHAR[Cell(PERSON_0 + p)] for p in Person}
SYMBOL_LETTER = {name: CELL_CHAR[Cell[name.upper()]] for name in ("crate", "wall", "house")}


def _cell(rc: list[int]) -> str:
    return f"({rc[0]},{rc[1]})"


def _dice(faces: list[str]) -> str:
    return " ".join(f"{f:<6}" for f in faces).rstrip()


class Cities:
    """Cities rebuilt from the records, to draw them as the game goes."""

    def __init__(self, n_players: int, start_crates: list[list[int]]):
        self.grid = []
        for _ in range(n_players):
            g = [[CELL_CHAR[Cell.EMPTY] for _ in range(SIZE)] for _ in range(SIZE)]
            for corner in CORNERS:
                r, c = cell_rc(corner)
                g[r][c] = CELL_CHAR[Cell.TOWER]
            for r, c in start_crates:
                g[r][c] = SYMBOL_LETTER["crate"]
            self.grid.append(g)

    def put(self, seat: int, rc: list[int], letter: str) -> None:
        self.grid[seat][rc[0]][rc[1]] = letter

    def place_turn(self, rec: dict[str, Any]) -> None:
        """Put what a turn record placed; a record cut short (``smsim advise``) puts what it has."""
        seat, use = rec["seat"], rec["use"]
        if use is not None and rec["cells"]:
            if use["symbol"] == "cross":
                self.put(seat, rec["cells"][0], CELL_CHAR[CHURCH_CELLS[use["dice"] - 1]])
            elif use["symbol"] == "head":
                self.put(seat, rec["cells"][0], PERSON_LETTER[use["person"]])
            else:
                for c in rec["cells"]:
                    self.put(seat, c, SYMBOL_LETTER[use["symbol"]])
        for c in rec["houses"]:
            self.put(seat, c, SYMBOL_LETTER["house"])
        for bonus in rec["bonuses"]:
            if bonus["kind"] == "person" and bonus["person"] is not None and bonus["cell"] is not None:
                self.put(seat, bonus["cell"], PERSON_LETTER[bonus["person"]])
            for c in bonus["houses"]:
                self.put(seat, c, SYMBOL_LETTER["house"])

    def draw(self) -> str:
        rows = ["    ".join(" ".join(g[r]) for g in self.grid) for r in range(SIZE)]
        header = "    ".join(f"seat {s:<8}" for s in range(len(self.grid)))
        return header + "\n" + "\n".join(rows)


def narrate(records: list[dict[str, Any]], quiet: bool = False, notes: dict[int, list[str]] | None = None) -> str:
    """The account of one game's records; ``notes`` adds lines after the turn record at that
    index of ``records`` (``smsim play --advise``)."""
    header = records[0]
    n_players = header["players"]
    policies = header["policies"]
    rules = header["rules"]
    cities = Cities(n_players, rules["start_crates"])
    row_len = rules["pirate_boxes_per_player"] * n_players
    n_rows = len(rules["pirate_strengths"])
    out = [
        f"Saint Malo, {n_players} players, seed {header['seed']}, game {header['game']}: "
        + ", ".join(f"seat {s} {p}" for s, p in enumerate(policies))
    ]
    boxes = 0
    last_round = -1
    for index, rec in enumerate(records[1:], 1):
        if rec["type"] == "turn":
            if rec["round"] != last_round:
                if last_round >= 0 and not quiet:
                    out.append(cities.draw())
                last_round = rec["round"]
                if not quiet:
                    out.append(f"\n=== Round {last_round + 1}")
            seat = rec["seat"]
            cities.place_turn(rec)
            lines = [f"seat {seat} ({policies[seat]}): rolled {_dice(rec['rolls'][0])}"]
            for mask, faces in zip(rec["rerolled"], rec["rolls"][1:]):
                kept = [i for i in range(N_DICE) if not (mask >> i) & 1]
                lines.append(f"    kept dice {kept or 'none'}, rolled {_dice(faces)}")
            use = rec["use"]
            if use is None:
                lines.append("    used no die")
            else:
                what = use["person"] if use["symbol"] == "head" else use["symbol"]
                text = f"    used {use['dice']} x {use['symbol']}"
                if use["rotated"]:
                    text += f" ({use['rotated']} rotated for {rec['rotation_cost']} coins)"
                if use["symbol"] == "log":
                    text += f": +{use['dice']} logs for a delivery of {rec['delivery_cost']} coins"
                elif use["symbol"] == "cross":
                    text += f": church of size {use['dice']} at {_cell(rec['cells'][0])}"
                elif use["symbol"] == "head":
                    text += f": {what} at {_cell(rec['cells'][0])}"
                else:
                    text += f": {what}s at " + " ".join(_cell(c) for c in rec["cells"])
                if rec["houses"]:
                    text += ", houses at " + " ".join(_cell(c) for c in rec["houses"])
                lines.append(text)
            for bonus in rec["bonuses"]:
                text = f"    {bonus['side']} wall complete: {bonus['kind']} bonus"
                if bonus["kind"] == "person":
                    if bonus["person"] is None:
                        text += " lost (no empty space)"
                    else:
                        text += f": {bonus['person']} at {_cell(bonus['cell'])}"
                elif bonus["kind"] != "none":
                    text += f" of {bonus['amount']}"
                lines.append(text)
            if rec["swords"]:
                boxes = min(boxes + rec["swords"], row_len * n_rows)
                lines.append(f"    {rec['swords']} swords: pirate boxes {boxes}/{row_len * n_rows}")
            for attack in rec["attacks"]:
                lost = ", ".join(f"seat {s}" for s in attack["lost"]) or "nobody"
                lines.append(
                    f"    PIRATES attack with strength {attack['strength']} "
                    f"(defence {attack['defence']}): {lost} lost a cannon"
                )
            me = rec["after"][seat]
            lines.append(f"    now {me['coins']} coins, {me['logs']} logs, {me['vp']} VP, defence {me['defence']}")
            noted = (notes or {}).get(index, [])
            if not quiet:
                out.extend(lines + noted)
            elif noted:  # quiet: the notes alone, with their turn
                out.extend([f"round {rec['round'] + 1}, seat {seat}:", *noted])
        elif rec["type"] == "end":
            if not quiet:
                out.append(cities.draw())
            how = (
                "aborted at the round cap"
                if rec["aborted"]
                else ("city full: " + ", ".join(f"seat {s}" for s in rec["filled"]))
            )
            out.append(f"\nGame over after {rec['rounds']} rounds ({how}).")
            # the seat compensation (rules seat_vp) only where a variant gives one; older traces lack it
            seat_vp = any(sc.get("seat_vp", 0) for sc in rec["scores"])
            out.append(
                "seat policy      earned church coins logs cannons full "
                + ("seat " if seat_vp else "")
                + " total empty rank"
            )
            for sc in rec["scores"]:
                mark = " winner (shared)" if sc["shared"] else (" winner" if sc["won"] else "")
                comp = f" {sc['seat_vp']:>4}" if seat_vp else ""
                out.append(
                    f"{sc['seat']:>4} {policies[sc['seat']]:<10} {sc['earned']:>6} {sc['church_vp']:>6} "
                    f"{sc['coins']:>5} {sc['logs']:>4} {sc['cannons']:>7} {sc['full_city']:>4}{comp} "
                    f"{sc['total']:>6} {sc['empty']:>5} {sc['rank']:>4}{mark}"
                )
            if quiet:
                out.append("\n" + "\n\n".join(rec["cities"]))
    return "\n".join(out)
