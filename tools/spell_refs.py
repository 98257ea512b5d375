"""Spell out bare spec references in code comments and docstrings.

A comment such as ``(spec ch3 A17)`` or ``(§6.4)`` means nothing without the spec at hand. This
tool finds every such bare code in the comments and docstrings of the project's Python files and
rewrites it as a short title plus the document it comes from: ``(§6.4)`` in a value-of-service
module becomes ``(permanent reservations vs. place-holders (ch. 2 spec §6.4))`` and ``spec ch3
A17`` becomes ``place-holders that start before the next event (ch. 3 spec A17)``; the title is
left out when its words already stand just before the reference. The titles, the documents and
which document a file's bare ``§`` means live in ``simcore/spec_refs.json`` (docs/references.md),
read through ``simcore.references``, which also spells codes out where the lab shows them.

    python tools/spell_refs.py --check        # list bare references as file:line, exit 1 if any
    python tools/spell_refs.py --write        # rewrite them in place (idempotent)
    python tools/spell_refs.py --data         # list bare references inside data strings (help=...)

Only COMMENT tokens and docstrings (string statements) are touched, found with ``tokenize``; code
and strings that are data (help texts, ``spec=``/``source=`` fields, results) are never changed.
A reference is already spelled out when one of the map's document labels stands right before it.
Rewritten lines longer than the project's line limit are re-wrapped into the next line of the
same comment or docstring paragraph; a trailing comment that grows too long moves above its line.
"""

from __future__ import annotations

import argparse
import io
import os
import re
import sys
import tokenize
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this tree's simcore, not an installed one

from simcore.references import MAP_FILE, Speller, load_map  # noqa: E402

SKIP = {"tools", "migrations", "node_modules", "staticfiles", "build", "dist", "__pycache__"}
LIMIT = 100


@dataclass
class Ref:
    path: str
    line: int
    text: str
    where: str  # "comment", "docstring" or "data"


# -- the files ----------------------------------------------------------------------------------
def python_files(root: Path) -> list[Path]:
    """Every Python file of the project: hidden folders, outputs, migrations and tools aside."""
    files = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIP)
        files += [Path(folder) / n for n in sorted(names) if n.endswith(".py")]
    return files


def _is_docstring(prev_type: int, tok: tokenize.TokenInfo, nxt: tokenize.TokenInfo) -> bool:
    return (prev_type in (tokenize.NEWLINE, tokenize.NL, tokenize.INDENT, tokenize.DEDENT,
                          tokenize.ENCODING, None)
            and nxt.type in (tokenize.NEWLINE, tokenize.ENDMARKER, tokenize.COMMENT))


def pieces(source: str):
    """(kind, token) for every comment, docstring and data string of ``source``; f-strings
    are data (Python 3.12 gives them tokens of their own, which this never touches)."""
    toks = list(tokenize.generate_tokens(io.StringIO(source).readline))
    prev = None
    for i, tok in enumerate(toks):
        if tok.type == tokenize.COMMENT:
            yield "comment", tok
        elif tok.type == tokenize.STRING:
            nxt = toks[i + 1] if i + 1 < len(toks) else tok
            kind = "docstring" if _is_docstring(prev, tok, nxt) else "data"
            yield kind, tok
        if tok.type != tokenize.COMMENT:
            prev = tok.type


def scan(speller: Speller, root: Path, kinds=("comment", "docstring")) -> list[Ref]:
    refs = []
    for f in python_files(root):
        rel = f.relative_to(root).as_posix()
        source = f.read_text(encoding="utf-8")
        for kind, tok in pieces(source):
            if kind not in kinds:
                continue
            for m, _ in speller.groups(tok.string, speller.home_of_path(rel)):
                line = tok.start[0] + tok.string[:m.start()].count("\n")
                refs.append(Ref(rel, line, m.group(), kind))
    return refs


# -- rewriting a file ---------------------------------------------------------------------------
_BULLET = re.compile(r"[-*+] |\d+[.)] ")
_LIST_START = re.compile(r"(?:[-*+] |\d+[.)] |>>> |\.\. )")


def _split_at(text: str, room: int, keep: re.Pattern) -> tuple[str, str] | None:
    """Split ``text`` at the last space that leaves its head within ``room`` characters and
    does not part a document label from its section code (``keep`` finds those)."""
    inside = [(m.start(), m.end()) for m in keep.finditer(text)]
    cut = room + 1
    while True:
        cut = text.rfind(" ", 0, cut)
        if cut <= 0:
            return None
        rest = text[cut:].lstrip()
        if (not any(a < cut < b for a, b in inside) and text[:cut].strip()
                and not _BULLET.match(rest)):  # a line must not start to look like a list item
            return text[:cut].rstrip(), rest


def rewrite_source(speller: Speller, path: str, source: str) -> str:
    """``source`` with the bare references of its comments and docstrings spelled out."""
    lines = source.splitlines(keepends=True)
    kind = ["code"] * len(lines)
    block = [None] * len(lines)  # docstring id of a docstring line
    edits: dict[int, list[tuple[int, int, str]]] = {}
    for n, (what, tok) in enumerate(pieces(source)):
        if what == "data":
            continue
        (r0, c0), (r1, c1) = tok.start, tok.end
        if what == "comment":
            kind[r0 - 1] = "comment" if not lines[r0 - 1][:c0].strip() else "trail"
        else:
            for r in range(r0, r1 + 1):
                kind[r - 1], block[r - 1] = "doc", n
        new = speller.rewrite(tok.string, speller.home_of_path(path), where=(path, r0))
        if new != tok.string:
            edits.setdefault(r0, []).append((c0, r1, c1, new))
    if not edits:
        return source
    changed = [False] * len(lines)
    for r0 in sorted(edits, reverse=True):
        for c0, r1, c1, new in sorted(edits[r0], reverse=True):
            head, tail = lines[r0 - 1][:c0], lines[r1 - 1][c1:]
            new_lines = (head + new + tail).splitlines(keepends=True)
            lines[r0 - 1:r1] = new_lines
            kind[r0 - 1:r1] = [kind[r0 - 1]] * len(new_lines)
            block[r0 - 1:r1] = [block[r0 - 1]] * len(new_lines)
            changed[r0 - 1:r1] = [True] * len(new_lines)
    return "".join(_rewrap(lines, kind, block, changed, speller.label_code))


def _rewrap(lines, kind, block, changed, keep):
    """Bring every changed line back within LIMIT: the overflow goes to the start of the next
    line of the same paragraph, or to a new line when the paragraph ends there."""
    i = 0
    while i < len(lines):
        body = lines[i].rstrip("\n")
        end = lines[i][len(body):]
        if not changed[i] or len(body) <= LIMIT:
            i += 1
            continue
        k = kind[i]
        if k == "trail":
            idx = _comment_col(body)
            code, comment = body[:idx].rstrip(), body[idx:]
            indent = re.match(r"\s*", body).group()
            if code.endswith(":") and i + 1 < len(lines):
                # "else:  # why": the comment opens the block it explains
                indent = re.match(r"\s*", lines[i + 1]).group()
                lines[i:i + 1] = [code + end, indent + comment + end]
                kind[i:i + 1] = ["code", "comment"]
                changed[i:i + 1] = [False, True]
            else:
                lines[i:i + 1] = [indent + comment + end, code + end]
                kind[i:i + 1] = ["comment", "code"]
                changed[i:i + 1] = [True, False]
            block[i:i + 1] = [None, None]
            continue
        divider = re.fullmatch(r"(\s*#.*\S )-{3,}", body)
        if k == "comment" and divider and len(divider.group(1)) + 3 <= LIMIT:
            # "# -- section ------": shorten the rule instead of wrapping the title
            lines[i] = divider.group(1) + "-" * (LIMIT - len(divider.group(1))) + end
            i += 1
            continue
        if k == "comment":
            prefix = re.match(r"\s*#+:? ?", body).group()
        elif k == "doc":
            prefix = re.match(r"\s*", body).group()
        else:
            i += 1
            continue
        split = _split_at(body[len(prefix):], LIMIT - len(prefix), keep)
        if split is None:
            i += 1
            continue
        head, rest = split
        lines[i] = prefix + head + end
        bullet = _BULLET.match(body[len(prefix):])
        if bullet:  # a list item continues under its text, not under its bullet
            prefix += " " * len(bullet.group())
        nxt = i + 1
        joinable = False
        if nxt < len(lines) and kind[nxt] == k and (k != "doc" or block[nxt] == block[i]):
            nb = lines[nxt].rstrip("\n")
            npre = re.match(r"\s*#+:? ?" if k == "comment" else r"\s*", nb).group()
            ntext = nb[len(npre):]
            joinable = (npre == prefix and ntext.strip() and not _LIST_START.match(ntext)
                        and not ntext.lstrip().startswith(('"""', "'''")))
        if joinable:
            lines[nxt] = prefix + rest + " " + ntext + lines[nxt][len(nb):]
            changed[nxt] = True
        else:
            lines.insert(nxt, prefix + rest + (end or "\n"))
            kind.insert(nxt, k)
            block.insert(nxt, block[i])
            changed.insert(nxt, True)
        i += 1
    return lines


def _comment_col(line: str) -> int:
    """Column of the comment of a code line (a '#' inside a string is not one)."""
    toks = tokenize.generate_tokens(io.StringIO(line + "\n").readline)
    try:
        for tok in toks:
            if tok.type == tokenize.COMMENT:
                return tok.start[1]
    except tokenize.TokenError:
        pass
    return line.index("#")


# -- command line -------------------------------------------------------------------------------
def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="list bare references, exit 1 if any")
    mode.add_argument("--write", action="store_true", help="spell them out in place")
    mode.add_argument("--data", action="store_true", help="list bare references in data strings")
    ap.add_argument("--root", type=Path, default=ROOT, help="tree to work on (default: this one)")
    args = ap.parse_args(argv)
    speller = Speller(load_map())
    if args.write:
        touched = 0
        for f in python_files(args.root):
            rel = f.relative_to(args.root).as_posix()
            source = f.read_text(encoding="utf-8")
            new = rewrite_source(speller, rel, source)
            if new != source:
                f.write_text(new, encoding="utf-8")
                touched += 1
        print(f"{touched} files rewritten")
        for path, line, text in speller.unresolved:
            print(f"{path}:{line}: unresolved reference {text!r} (not in {MAP_FILE.name})")
        return 0
    kinds = ("data",) if args.data else ("comment", "docstring")
    refs = scan(speller, args.root, kinds)
    for r in refs:
        print(f"{r.path}:{r.line}: bare reference {r.text!r} in a {r.where}")
    print(f"{len(refs)} bare references")
    return 1 if refs and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
