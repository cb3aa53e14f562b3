"""Board geometry computed from coordinates (docs/rules.md §2)."""

from pathlib import Path

import numpy as np

from smsim import layout as L


def popcount(x) -> int:
    return bin(int(x)).count("1")


def test_forty_five_spaces_twenty_outer_twenty_five_inner():
    assert (L.N_SPACES, L.N_OUTER, L.N_INNER) == (45, 20, 25)


def test_inner_spaces_have_8_neighbours_except_inner_corners_with_7():
    for r in range(1, 6):
        for c in range(1, 6):
            expected = 7 if (r, c) in {(1, 1), (1, 5), (5, 1), (5, 5)} else 8
            assert popcount(L.NEIGH8_MASK[L.cell_index(r, c)]) == expected, (r, c)


def test_outer_spaces_have_5_neighbours_or_4_next_to_a_tower():
    for r in range(7):
        for c in range(7):
            if not L.is_outer(r, c):
                continue
            next_to_tower = any(abs(r - tr) <= 1 and abs(c - tc) <= 1 for tr, tc in ((0, 0), (0, 6), (6, 0), (6, 6)))
            assert popcount(L.NEIGH8_MASK[L.cell_index(r, c)]) == (4 if next_to_tower else 5), (r, c)


def test_adjacency_is_symmetric_and_excludes_towers_and_self():
    for a in range(49):
        for b in range(49):
            ab = bool(int(L.NEIGH8_MASK[a]) >> b & 1)
            ba = bool(int(L.NEIGH8_MASK[b]) >> a & 1)
            assert ab == ba
        assert not int(L.NEIGH8_MASK[a]) >> a & 1
        for corner in L.CORNERS:
            assert not int(L.NEIGH8_MASK[a]) >> corner & 1


def test_spaces_touching_diagonally_across_a_tower_are_adjacent():
    assert int(L.NEIGH8_MASK[L.cell_index(0, 1)]) >> L.cell_index(1, 0) & 1
    assert not int(L.NEIGH4_MASK[L.cell_index(0, 1)]) >> L.cell_index(1, 0) & 1


def test_orthogonal_neighbours_are_a_subset_of_adjacent():
    for a in range(49):
        assert int(L.NEIGH4_MASK[a]) & ~int(L.NEIGH8_MASK[a]) == 0


def test_four_sides_of_five_outer_spaces_each():
    cells = sorted(int(c) for c in L.SIDE_CELLS.reshape(-1))
    outer = sorted(L.cell_index(r, c) for r in range(7) for c in range(7) if L.is_outer(r, c))
    assert cells == outer
    assert [popcount(m) for m in L.SIDE_MASK] == [5, 5, 5, 5]
    assert all(L.side_of(0, c) == L.Side.TOP for c in range(1, 6))
    assert all(L.side_of(r, 6) == L.Side.RIGHT for r in range(1, 6))
    assert all(L.side_of(6, c) == L.Side.BOTTOM for c in range(1, 6))
    assert all(L.side_of(r, 0) == L.Side.LEFT for r in range(1, 6))
    assert np.all(L.SIDE_OF_CELL[[L.cell_index(3, 3), 0, 6, 42, 48]] == -1)


# -- encodings and record layouts are declared once ------------------------------------------------
ENUMS = (L.Face, L.Person, L.Cell, L.Side, L.BonusKind, L.Decision, L.PolicyKind)
ENUM_SIZES = {"N_FACES": L.Face, "N_PERSONS": L.Person, "N_CELL_CODES": L.Cell, "N_SIDES": L.Side}
RECORDS = (L.PLAYER, L.PIRATES, L.SCORE, L.GAME, L.CAND, L.CTX)


def test_enum_sizes_follow_the_enums():
    for name, enum in ENUM_SIZES.items():
        assert getattr(L, name) == len(enum), name
        assert [int(m) for m in enum] == list(range(len(enum))), enum


def test_records_are_contiguous_and_exported():
    from smsim.policies.heuristic_layout import MEMO, PARAMS
    from smsim.rules import RULES_RECORD

    for record in (*RECORDS, RULES_RECORD, MEMO, PARAMS):
        at = 0
        for name, width, _ in record.fields:
            assert width >= 1
            assert record.offset(name) == at
            at += width
        assert record.size == at == len(record.columns())
        assert len(set(record.columns())) == len(record.columns())
    for record in RECORDS:
        for key, value in record.constants().items():
            assert getattr(L, key) == value, key


def test_record_refuses_a_field_declared_twice():
    import pytest

    with pytest.raises(ValueError, match="twice"):
        L.Record("bad", "B_", "N_BAD", (("coins", 1, ""), ("coins", 1, "")))


def test_score_columns_are_the_dataset_names():
    from smsim.engine.scoring import SCORE_FIELD_NAMES

    assert SCORE_FIELD_NAMES[: L.S_CHURCHES] == (
        "total",
        "earned",
        "church_vp",
        "coins_vp",
        "logs_vp",
        "cannon_vp",
        "full_city_vp",
        "seat_vp",
        "empty",
        "rank",
        "won",
        "shared",
    )
    assert SCORE_FIELD_NAMES[L.S_SERIES : L.S_SERIES + 5] == tuple(f"series_{k}" for k in range(1, 6))


def _module_sources():
    import smsim

    package = Path(smsim.__file__).parent
    return sorted(package.rglob("*.py"))


def _layout_alias(value) -> bool:
    """``L.NAME``, ``int(L.Face.SWORDS)``, ``np.int64(Cell.WALL)``: a layout constant or an enum
    member given a second name."""
    import ast

    if isinstance(value, ast.Tuple):
        return any(_layout_alias(v) for v in value.elts)
    if isinstance(value, ast.Call) and len(value.args) == 1 and not value.keywords:
        func = value.func
        caster = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        arg = value.args[0]
        return (
            caster in ("int", "int64")
            and isinstance(arg, ast.Attribute)
            and (
                (isinstance(arg.value, ast.Attribute) and arg.value.attr in ENUM_NAMES)
                or (isinstance(arg.value, ast.Name) and arg.value.id in ENUM_NAMES)
            )
        )
    return (
        isinstance(value, ast.Attribute)
        and isinstance(value.value, ast.Name)
        and value.value.id == "L"
        and value.attr.isupper()
    )


ENUM_NAMES = {enum.__name__ for enum in ENUMS}


def redeclarations(name: str, text: str) -> list[str]:
    """Places in a module's source that number an encoding again: ``A, B = range(n)``,
    ``NAME = <int>`` for an enum member's name, a bonus or policy kind compared with a bare int,
    or a second module-level name for a layout constant (``SWORDS = int(L.Face.SWORDS)``: jitted
    code says ``L.FACE_SWORDS``)."""
    import ast
    import re

    member_names = {m.name for enum in ENUMS for m in enum}
    found = []
    tree = ast.parse(text)
    for node in tree.body:
        if isinstance(node, ast.Assign) and _layout_alias(node.value):
            found.append(f"{name}:{node.lineno}: a second name for a layout constant")
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assign):
            continue
        value = node.value
        if (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Name)
            and value.func.id == "range"
            and isinstance(node.targets[0], ast.Tuple)
        ):
            found.append(f"{name}:{node.lineno}: names numbered by range()")
        if isinstance(value, ast.Constant) and type(value.value) is int:
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id in member_names:
                    found.append(f"{name}:{node.lineno}: {target.id} = {value.value}")
    for m in re.finditer(r"\bkind\s*==\s*\d", text):
        found.append(f"{name}: a kind compared with a bare number at offset {m.start()}")
    return found


def test_no_module_redeclares_an_encoding():
    """The enums above are the only declarations of those codes."""
    offenders = []
    for path in _module_sources():
        if path.name in ("layout.py", "referee.py"):  # the referee re-derives the rules on purpose
            continue
        offenders += redeclarations(path.name, path.read_text())
    assert not offenders, "\n".join(offenders)


def test_the_redeclaration_check_catches_each_shape():
    source = "CITIZEN, SOLDIER = range(2)\nWALL = 2\nif kind == 1:\n    pass\nx = L.Cell.WALL + 1\n"
    assert len(redeclarations("bad.py", source)) == 3
    aliases = (
        "SWORDS = int(L.Face.SWORDS)\nKEEP = np.int64(Decision.KEEP)\nSIDE_MASK = L.SIDE_MASK\n"
        "LO, HI = L.MIN_PLAYERS, L.MAX_PLAYERS\nK_SPAN = L.N_DICE + 1\ndef f():\n    x = L.N_DICE\n"
    )
    assert len(redeclarations("bad.py", aliases)) == 4


# each plain int jitted code reads, by the enum it comes from (layout.py's last block)
PLAIN_INTS = {
    L.Face: "FACE_",
    L.Person: "PERSON_",
    L.Cell: "CELL_",
    L.BonusKind: "BONUS_KIND_",
    L.Decision: "DECISION_",
    L.PolicyKind: "POLICY_KIND_",
}


def test_each_plain_int_is_its_enum_member():
    """``L.FACE_SWORDS`` is ``int(Face.SWORDS)``, a plain int; every member of the small enums
    has one; a cell holding a person or a church is PERSON_0 + person, CELL_CHURCH_1 + size - 1."""
    for enum, prefix in PLAIN_INTS.items():
        for member in enum:
            value = getattr(L, prefix + member.name, None)
            if enum is not L.Cell:
                assert value is not None, prefix + member.name
            if value is not None:
                assert type(value) is int and value == member, prefix + member.name
    assert [L.PERSON_0 + p for p in L.Person] == [int(L.Cell[p.name]) for p in L.Person]
    assert [L.CELL_CHURCH_1 + i for i in range(L.N_CHURCH_SIZES)] == [int(c) for c in L.CHURCH_CELLS]
    assert L.SCORE.width("churches") == L.SCORE.width("series") == L.N_CHURCH_SIZES
