"""Spec references spelled out for people who do not have the spec at hand.

Policies, parameters and figure presets cite the section they implement with a bare code (a
policy's ``spec`` field, codes inside help texts and sources); which document a bare code means
depends on the kind it belongs to. :func:`spell` turns every bare code of a text into a short
title plus its document ("Simple and its variants (ch. 2 spec §7.2)") for display, keeping the
code itself; a code the map has no title for stays as it is. The data strings are never
rewritten: the API and result files keep their codes, and what people read (the API's added
``spec_text``, the CLI's policy table, the lab's pages) shows the spelled-out text.

The map (``spec_refs.json`` beside this module; docs/references.md) holds the documents, which
document a bare code means in each kind folder, and the titles. ``tools/spell_refs.py`` uses
the same :class:`Speller` to keep the comments and docstrings of the code spelled out.
"""

from __future__ import annotations

import json
import re
from functools import cache, lru_cache
from pathlib import Path

MAP_FILE = Path(__file__).with_name("spec_refs.json")

_SEC = r"(?:\d+(?:\.\d+)*|[IVX]+(?:\.[A-Z])?)"
# one item of a group: a section (with an optional range end), or an ambiguity/result row
_ITEM = (rf"(?:§§?[ \t]?{_SEC}(?:[ \t]?[-–][ \t]?§?{_SEC})?"
         r"|(?<![\w.])A\d+(?:'s)?(?![\w-]))")
_PREFIX = (r"(?:(?<![\w.-])(?P<pre>spec\s+ch[ \t]?(?P<ch>\d)|spec"
           r"|dissertation(?:[ \t]+ch\.[ \t]?\d)?|paper)(?:,)?\s+)?")
GROUP = re.compile(rf"(?i:{_PREFIX})(?P<items>{_ITEM}(?:(?:,[ \t]*|[ \t]+and[ \t]+){_ITEM})*)")
ITEM = re.compile(_ITEM)
# an ambiguity row is a reference only when a spec prefix or parentheses make it one
_A_ONLY = re.compile(r"A\d+(?:'s)?")
# a code right after a file name is that file's section ("docs/calibration.md" and a number)
_FILE_BEFORE = re.compile(r"([\w.-]+\.md)[ \t]*$")
_SECTION = re.compile(rf"§§?[ \t]?({_SEC})(?:[ \t]?[-–][ \t]?§?({_SEC}))?")


def load_map() -> dict:
    return json.loads(MAP_FILE.read_text(encoding="utf-8"))


class Speller:
    """Finds bare codes in a text and spells them out. ``home`` is the key of the document a
    bare code means there (the spec of the kind; None where no kind applies)."""

    def __init__(self, refmap: dict):
        self.map = refmap
        labels = sorted((d["label"] for d in refmap["docs"].values()), key=len, reverse=True)
        any_label = r"(?:" + "|".join(re.escape(x) for x in labels) + r")"
        self.spelled_before = re.compile(any_label + r"[ \t]+$", re.IGNORECASE)
        self.label_code = re.compile(any_label + r" \S+", re.IGNORECASE)
        # (where, line, code) of every code without a title met by a rewrite given ``where``
        self.unresolved: list[tuple[str, int, str]] = []

    # -- which document a reference points to ---------------------------------------------------
    def home_of_path(self, path: str) -> str | None:
        """The document of a file's kind: named for the file, else for its innermost kind folder."""
        if path in self.map["files"]:
            return self.map["files"][path]
        for part in reversed(path.split("/")[:-1]):
            if part in self.map["folders"]:
                return self.map["folders"][part]
        return None

    def home_of_kind(self, kind: str) -> str | None:
        """The document of a kind, by its folder (a kind's folder is its name in snake case)."""
        return self.map["folders"].get(kind.replace("-", "_"))

    def doc_for(self, home: str | None, pre: str | None, ch: str | None, code: str) -> str | None:
        if ch:
            return self.map["chapters"].get(ch)
        if pre and pre.lower().startswith("dissertation"):
            return "dissertation"
        pre = pre.lower() if pre else pre
        if pre == "paper":
            return self.map["papers"].get(home or "")
        first = re.match(rf"§*[ \t]?({_SEC})", code)
        if first and first.group(1).count(".") >= 2:
            return "dissertation"  # the specs number two levels deep; three are the chapter's
        return home

    def title(self, doc: str, code: str) -> str | None:
        titles = self.map["titles"].get(doc, {})
        m = _SECTION.fullmatch(code)
        if m:
            first = titles.get("§" + m.group(1))
            if m.group(2) is None:
                return first
            last = titles.get("§" + m.group(2))
            return f"{first} to {last}" if first and last else None
        return titles.get(code.removesuffix("'s"))

    def canonical(self, code: str) -> str:
        m = _SECTION.fullmatch(code)
        if not m:
            return code.removesuffix("'s")
        return "§" + m.group(1) + (f"-{m.group(2)}" if m.group(2) else "")

    # -- finding and rewriting ------------------------------------------------------------------
    def groups(self, text: str, home: str | None):
        """Bare reference groups in ``text``: (match, [item matches])."""
        for m in GROUP.finditer(text):
            items = list(ITEM.finditer(m.group("items")))
            if self.spelled_before.search(text[:m.start("items")]):
                continue
            named = _FILE_BEFORE.search(text[:m.start()])
            if named and not (home and self.map["docs"][home]["file"].endswith(named.group(1))):
                continue  # another file's section: not the spec's, and not ours to title
            if all(_A_ONLY.fullmatch(i.group()) for i in items):
                # "A4" is an ambiguity row after "spec chN" or in a kind's own files
                qualified = m.group("ch") or home
                if not qualified or re.search(r"(?:Table|Fig\.|Figs\.)\s*$", text[:m.start()]):
                    continue
            yield m, items

    def rewrite(self, text: str, home: str | None, where: tuple[str, int] | None = None) -> str:
        """``text`` with its bare codes spelled out; a group with a code the map has no title
        for stays as it is (and is noted in ``unresolved`` when ``where`` says (file, line))."""
        out, pos = [], 0
        for m, items in self.groups(text, home):
            parts = []
            for it in items:
                code = it.group()
                doc = self.doc_for(home, m.group("pre"), m.group("ch"), code)
                title = self.title(doc, code) if doc else None
                if not title:
                    if where:
                        line = where[1] + text[:m.start()].count("\n")
                        self.unresolved.append((where[0], line, m.group()))
                    parts = None
                    break
                label = self.map["docs"][doc]["label"]
                tail = "'s" if code.endswith("'s") else ""
                parts.append((title, f"{label} {self.canonical(code)}{tail}"))
            if parts is None:
                continue
            before = "".join(out) + text[pos:m.start()]
            near = " ".join((before[-80:] + " " + text[m.end():m.end() + 40]).lower().split())
            spelled = []
            for title, ref in parts:
                if title.lower() in near:  # the sentence already says the title
                    spelled.append(ref)
                    continue
                near += " " + title.lower()
                if ref.endswith("'s"):  # "A4's alternative": the possessive stays
                    spelled.append(f"{ref} ({title})")
                else:
                    spelled.append(f"{title} ({ref})")
            new = ", ".join(spelled)
            opening = before.rstrip().rstrip("#:").rstrip('"').rstrip()
            if not opening or opening.endswith(".") and not opening.endswith(("e.g.", "i.e.")):
                new = new[:1].upper() + new[1:]  # the code opened a sentence
            out.append(text[pos:m.start()])
            out.append(new)
            pos = m.end()
        out.append(text[pos:])
        return "".join(out)


@cache
def speller() -> Speller:
    return Speller(load_map())


# The texts are the kinds' declared strings, a few hundred, read on every form and API listing
@lru_cache(maxsize=4096)
def spell(text: str, kind: str) -> str:
    """``text`` (a policy's spec, a help text, a preset's source) of scenario kind ``kind``
    with every bare code spelled out: the spec of the value-of-service policy ``simple`` becomes
    "Simple and its variants (ch. 2 spec §7.2)". Codes without a title, and texts without
    codes, are returned as they are."""
    if not text:
        return text
    sp = speller()
    return sp.rewrite(text, sp.home_of_kind(kind))
