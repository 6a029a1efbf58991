"""Escaped HTML for the app's coloured spans: syllables (by kind) and tokens (by tokenizer).

Rules every function here keeps:

* Every piece of text that came from a user, a corpus or a vocabulary goes through
  :func:`html.escape` (with ``quote=True``), in element content and in attributes alike.
* One syllable (or one token) is one ``<span>`` holding only its text, so the browser
  shapes it as the script needs: no markup is ever put *inside* a syllable. Byte tokens
  that are not whole characters are the one exception (they have no shape to break) and
  show their bytes as ``E0 B6`` chips, never as U+FFFD.
* Invisible characters (ZWJ, ZWNJ, virama, spaces, tabs, newlines, ...) are made visible
  with CSS ``::before``/``::after`` markers read from ``data-pre``/``data-post``
  attributes, i.e. *outside* the syllable's text, so shaping is untouched and
  ``textContent`` of a span is still exactly the syllable.
* Hover information lives in ``title`` (and ``data-*``) attributes. Tokens are also
  focusable (``tabindex``), and the stylesheet shows their ``data-info`` in a box while one
  has focus, so a tap on a phone (where nothing hovers) or a click shows the same details.

Nothing here imports Streamlit; the pages pass the strings to ``st.html``.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sgpe.protocol import BYTE_TOKEN

from .style import KIND_COLOURS, KIND_HELP, TOKEN_COLOURS

# ============================================================================ invisibles

VIRAMAS = frozenset("\u0dca\u094d")  # Sinhala al-lakuna, Devanagari virama
#: Marker shown for each invisible (or easily missed) character.
INVISIBLE_MARKS: dict[str, str] = {
    "\u200d": "ZWJ",
    "\u200c": "ZWNJ",
    "\u200b": "ZWSP",
    "\u2060": "WJ",
    "\ufeff": "BOM",
    "\u00ad": "SHY",
    "\u00a0": "NBSP",
    "\u0dca": "\u25cc\u0dca",  # dotted circle + al-lakuna: a visible virama
    "\u094d": "\u25cc\u094d",
    " ": "\u00b7",  # middle dot
    "\t": "\u2192",  # rightwards arrow
    "\n": "\u21b5",  # downwards arrow with corner leftwards
    "\r": "\u240d",  # symbol for carriage return
}


#: The characters that have no glyph at all: a token or table cell of only these looked
#: empty, so they are always marked (spaces and viramas only on request).
ZERO_WIDTH = frozenset("\u200d\u200c\u200b\u2060\ufeff\u00ad")
#: What each marker means, for legends and hover titles.
MARK_MEANINGS: dict[str, str] = {
    "ZWJ": "zero width joiner U+200D: asks for the joined (conjunct) form, e.g. ශ්‍ර",
    "ZWNJ": "zero width non-joiner U+200C: asks for the separate form",
    "ZWSP": "zero width space U+200B",
    "WJ": "word joiner U+2060",
    "BOM": "byte order mark U+FEFF",
    "SHY": "soft hyphen U+00AD",
    "NBSP": "no-break space U+00A0",
    "\u00b7": "a space (a token that starts a word begins with one)",
}


def is_superword(text: str) -> bool:
    """Whether a token holds a space between its characters: a *superword*, whole
    syllables of several words in one token (an opt-in training setting).

    >>> is_superword(" ශ්\u200dරී ලංකා"), is_superword(" ලංකා"), is_superword("  ")
    (True, False, False)
    """
    return " " in text.strip()


def zero_width_marks(text: str) -> str:
    """Markers of the glyphless characters of ``text`` (:data:`ZERO_WIDTH`), in order.

    >>> zero_width_marks("ශ්\u200dර")
    'ZWJ'
    """
    return "".join(INVISIBLE_MARKS[ch] for ch in text if ch in ZERO_WIDTH)


def invisible_markers(text: str) -> tuple[str, str]:
    """Markers for the invisible characters of one span: ``(before, after)``.

    Leading whitespace is marked *before* the span (where it is), every other invisible
    character *after* it, in order, so the span's own text stays untouched.

    >>> invisible_markers(" ක්\u200dර")
    ('·', '◌්ZWJ')
    >>> invisible_markers("\\n")
    ('↵', '')
    """
    i = 0
    pre: list[str] = []
    while i < len(text) and text[i] in " \t\n\r":
        pre.append(INVISIBLE_MARKS[text[i]])
        i += 1
    post = [INVISIBLE_MARKS[ch] for ch in text[i:] if ch in INVISIBLE_MARKS]
    return "".join(pre), "".join(post)


def visible(text: str, *, viramas: bool = True) -> str:
    """Text with every invisible character replaced by its marker (for tables and labels,
    not spans: this breaks shaping). ``viramas=False`` keeps viramas as they are.

    >>> visible("ශ්\u200dරී ")
    'ශ◌්ZWJරී·'
    >>> visible(" ක්", viramas=False)
    '·ක්'
    """
    out = [ch if (not viramas and ch in VIRAMAS) else INVISIBLE_MARKS.get(ch, ch) for ch in text]
    return "".join(out)


def char_name(ch: str) -> str:
    """Unicode name of a character, or a description for the unnamed ones."""
    name = unicodedata.name(ch, "")
    if name:
        return name
    if ch in "\t\n\r":
        return {"\t": "CHARACTER TABULATION", "\n": "LINE FEED", "\r": "CARRIAGE RETURN"}[ch]
    return f"<unnamed, category {unicodedata.category(ch)}>"


def code_points(text: str) -> str:
    """``U+0DC1 U+0DCA ...`` for a string."""
    return " ".join(f"U+{ord(ch):04X}" for ch in text)


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~:$&])")


def md_escape(text: str) -> str:
    """Text made literal for ``st.markdown``/``st.caption``: every ASCII punctuation
    character that Markdown or Streamlit's ``:directives[]`` could read is backslash-escaped.

    >>> print(md_escape("**a** <b>:red[x]"))
    \\*\\*a\\*\\* \\<b\\>\\:red\\[x\\]
    """
    return _MD_SPECIAL.sub(r"\\\1", text).replace("\n", " ")


_ABS_PATH = re.compile(r"(?<![\w.~:/])/(?:[^\s/:'\"`,;()]+/)+([^\s/:'\"`,;()]*)")


def names_only(message: str) -> str:
    """A message with each absolute path cut to its last part (a file or folder name): a
    shared server's visitors get names, not where the server keeps its files.

    >>> names_only("/srv/sgpe/runs/20260101-000000-abcdef/vocab.json: not valid JSON")
    'vocab.json: not valid JSON'
    >>> names_only("and/or 1/2 stays")
    'and/or 1/2 stays'
    """
    return _ABS_PATH.sub(lambda m: m.group(1) or "", message)


# ============================================================================ attributes


def _attr(name: str, value: object) -> str:
    return f' {name}="{html.escape(str(value), quote=True)}"'


def _marker_attrs(text: str, show: bool) -> str:
    if not show:
        return ""
    pre, post = invisible_markers(text)
    return (_attr("data-pre", pre) if pre else "") + (_attr("data-post", post) if post else "")


# ============================================================================ syllables


@dataclass(frozen=True)
class UnitView:
    """One syllable-layer unit as the page shows it."""

    text: str
    kind: str  # syllable | orphan | passthrough | whitespace
    title: str = ""  # hover text (plain text; escaped here)
    classes: str = ""  # class letters, e.g. "CHZCP"
    path: str = ""  # DFA path


def syllables_html(
    units: Iterable[UnitView],
    *,
    show_invisible: bool = False,
    first_index: int = 0,
    box: str = "sgpe-syllables",
) -> str:
    """The coloured syllable spans, one ``<span class="syl k-KIND">`` per unit, in a
    ``<div class="sgpe-box BOX">``."""
    parts: list[str] = []
    for n, u in enumerate(units, start=first_index):
        odd = " odd" if n % 2 else ""
        parts.append(
            f'<span class="syl k-{html.escape(u.kind)}{odd}" tabindex="0"'
            + _attr("data-kind", u.kind)
            + _attr("data-i", n)
            + (_attr("data-classes", u.classes) if u.classes else "")
            + (_attr("data-path", u.path) if u.path else "")
            # a tap focuses the unit and the stylesheet shows data-info (phones have no
            # hover), as for tokens
            + (_attr("title", u.title) + _attr("data-info", u.title) if u.title else "")
            + _marker_attrs(u.text, show_invisible)
            + f">{html.escape(u.text)}</span>"
        )
    inv = " inv" if show_invisible else ""
    return f'<div class="sgpe-box {html.escape(box)}{inv}">{"".join(parts)}</div>'


def legend_html(counts: dict[str, int] | None = None) -> str:
    """A colour key for the syllable kinds (with counts if given)."""
    items = []
    for kind, (colour, _) in KIND_COLOURS.items():
        n = f" ({counts.get(kind, 0):,})" if counts is not None else ""
        items.append(
            f'<span class="item" title="{html.escape(KIND_HELP[kind])}">'
            f'<span class="key" style="background:{colour}">&nbsp;</span>{kind}{n}</span>'
        )
    return f'<div class="sgpe-legend">{"".join(items)}</div>'


# ============================================================================ tokens


def byte_segments(data: bytes) -> list[str | int]:
    """Split bytes into decodable text runs (``str``) and stray bytes (``int``).

    >>> byte_segments("ක".encode()[:2] + b"a")
    [224, 182, 'a']
    """
    out: list[str | int] = []
    i = 0
    while i < len(data):
        try:
            out.append(data[i:].decode("utf-8"))
            break
        except UnicodeDecodeError as err:
            if err.start:
                out.append(data[i : i + err.start].decode("utf-8"))
            bad_end = i + max(err.end, err.start + 1)
            out.extend(data[i + err.start : bad_end])
            i = bad_end
    return out


def token_text_html(data: bytes, label: str | None = None) -> str:
    """Escaped content of one token: its text, stray bytes as ``<span class="b">E0</span>``
    chips (never U+FFFD). ``label`` replaces the content (e.g. ``[UNK]``)."""
    if label is not None:
        return html.escape(label)
    parts = []
    for seg in byte_segments(data):
        if isinstance(seg, int):
            parts.append(f'<span class="b">{seg:02X}</span>')
        else:
            parts.append(html.escape(seg))
    return "".join(parts)


@dataclass(frozen=True)
class TokenView:
    """One token as the Compare page shows it."""

    token_id: int
    data: bytes  # the token's bytes in the text
    cut: bool = False  # starts strictly inside a syllable (a broken boundary)
    # The cut above is between two parts of one syllable that each lie inside it (the
    # hierarchical SGPE mode spells a syllable it has not learned whole from its parts):
    # the syllable is intact, only not one token. False for a cut that tears a syllable.
    part: bool = False
    fallback: bool = False  # a byte/code-point fallback or [UNK] token
    label: str | None = None  # shown instead of the bytes (e.g. "[UNK]")
    title: str = ""


def tokens_html(
    tokens: Sequence[TokenView],
    *,
    show_ids: bool = False,
    show_invisible: bool = False,
    first_index: int = 0,
    name: str = "",
) -> str:
    """Coloured token spans; a token starting inside a syllable gets a red left edge."""
    parts: list[str] = []
    for n, t in enumerate(tokens, start=first_index):
        cls = f"tok c{n % len(TOKEN_COLOURS)}"
        if t.cut:
            cls += " part" if t.part else " cut"
        if t.fallback:
            cls += " fallback"
        text = t.data.decode("utf-8", errors="ignore") if t.label is None else ""
        if is_superword(text):
            cls += " super"  # a superword: whole syllables of several words
        marks = ""
        if text and all(ch in ZERO_WIDTH for ch in text):
            # Only glyphless characters (a lone ZWJ): an empty chip unless marked, so it
            # is marked whether or not the invisible characters are shown.
            cls += " glyphless"
            marks = zero_width_marks(text)
        if text.endswith("\n"):
            cls += " nl"  # its id goes before the line break, not at the next line's start
        parts.append(
            f'<span class="{cls}" tabindex="0"'
            + _attr("data-id", t.token_id)
            + _attr("data-i", n)
            + (_attr("data-cut", "1") if t.cut and not t.part else "")
            + (_attr("data-part", "1") if t.cut and t.part else "")
            + (_attr("title", t.title) + _attr("data-info", t.title) if t.title else "")
            + (_attr("data-post", marks) if marks else _marker_attrs(text, show_invisible))
            + f">{token_text_html(t.data, t.label)}</span>"
        )
    flags = (" ids" if show_ids else "") + (" inv" if show_invisible else "")
    return (
        f'<div class="sgpe-box small sgpe-tokens{flags}"'
        + _attr("data-tokenizer", name)
        + f">{''.join(parts)}</div>"
    )


def token_title(
    token_id: int,
    data: bytes,
    *,
    cut: bool,
    label: str | None = None,
    part: bool = False,
    status: str = "",
) -> str:
    """Hover text for a token: id, text, bytes, code points, and what it does to the
    syllables (``status``; else a note on a broken boundary at its start)."""
    lines = [f"id {token_id}"]
    text = data.decode("utf-8", errors="replace")
    if label is not None:
        lines.append(f"{label} (covers {text!r})")
    elif "\ufffd" in text and b"\xef\xbf\xbd" not in data:
        lines.append("partial UTF-8: " + " ".join(f"{b:02X}" for b in data))
    else:
        lines.append(f"{visible(text)!s}  ({code_points(text)})")
    lines.append(
        f"{len(data)} byte{'s' if len(data) != 1 else ''}: "
        + " ".join(f"{b:02X}" for b in data[:24])
        + (" …" if len(data) > 24 else "")
    )
    if label is None and is_superword(text):
        lines.append(
            f"superword: whole syllables of {len(text.split())} words in one token, joined "
            "across a space (superwords are an opt-in training setting)"
        )
    for ch in dict.fromkeys(ch for ch in text if ch in ZERO_WIDTH):
        lines.append(f"{INVISIBLE_MARKS[ch]} = {MARK_MEANINGS[INVISIBLE_MARKS[ch]]}")
    if status:
        lines.append(status)
    elif cut and part:
        lines.append("a part of a syllable: the syllable is spelled by its own parts")
    elif cut:
        lines.append("starts inside a syllable: a broken boundary")
    return "\n".join(lines)


# ============================================================================ merge steps


def step_tokens_html(
    tokens: Sequence[str], new_index: int | None = None, kind: str = "join"
) -> str:
    """A token sequence of the merge stepper; the token just made is highlighted (in its own
    colour when the step assembled part of a syllable rather than joining whole ones).

    Token strings come from the tokenizers' display form: ``<0xNN>`` marks a stray byte.
    """
    parts = []
    for i, tok in enumerate(tokens):
        cls = "tok new" + {"part": " part", "super": " super"}.get(kind, "")
        plain = tok.replace("\u00b7", " ")  # the display form marks spaces with a dot
        cls = cls if i == new_index else "tok super" if is_superword(plain) else "tok"
        # Glyphless characters (ZWJ, ZWNJ) get a marker after the token, outside its
        # text, so a token of a lone ZWJ is no longer an empty chip and shaping is kept.
        marks = zero_width_marks(tok)
        parts.append(
            f'<span class="{cls}"'
            + _attr("title", step_token_title(tok))
            + (_attr("data-post", marks) if marks else "")
            + ">"
            + display_token_html(tok)
            + "</span>"
        )
    return f'<div class="sgpe-steps">{"".join(parts)}</div>'


def step_token_title(token: str) -> str:
    """Hover text of a merge-stepper token: its code points, what a superword is, and
    what each marker stands for.

    >>> print(step_token_title("\u200d"))
    U+200D
    ZWJ = zero width joiner U+200D: asks for the joined (conjunct) form, e.g. ශ්‍ර
    """
    lines = [code_points(token) or "(empty)"]
    plain = token.replace("\u00b7", " ")
    if is_superword(plain):
        lines.append("superword: whole syllables of several words joined across a space")
    if plain.startswith(" "):
        lines.append("\u00b7 = " + MARK_MEANINGS["\u00b7"])
    for ch in dict.fromkeys(ch for ch in token if ch in ZERO_WIDTH):
        lines.append(f"{INVISIBLE_MARKS[ch]} = {MARK_MEANINGS[INVISIBLE_MARKS[ch]]}")
    return "\n".join(lines)


def display_token_html(token: str) -> str:
    """Escaped display string of a token, ``<0xNN>`` parts as small byte chips, a leading
    space as a visible middle dot."""

    out = []
    pos = 0
    for m in BYTE_TOKEN.finditer(token):
        out.append(_visible_space(html.escape(token[pos : m.start()])))
        out.append(f'<span class="b">{m.group(1)}</span>')
        pos = m.end()
    out.append(_visible_space(html.escape(token[pos:])))
    return "".join(out)


def _visible_space(escaped: str) -> str:
    return escaped.replace(" ", "\u00b7").replace("\n", "\u21b5").replace("\t", "\u2192")
