"""The app's stylesheet: the font stack (a Noto face for each built-in script), the
colours of syllable kinds and tokens, and the CSS of the span views of
:mod:`sgpe_explorer.ui.render` (including the ``::before``/``::after`` markers that show
invisible characters without touching the text).

``app.py`` puts :data:`CSS` into every page with ``st.html`` (a ``<style>``-only block takes
no space).
"""

from __future__ import annotations

#: The Noto face of each built-in script (sgpe/schemas/), by the family name fontconfig and
#: the browser know it. Every script needs its own: a stack without a Tamil face showed
#: Tamil as tofu boxes in token chips and unit views. Odia's face is
#: still called "Noto Sans Oriya" by Debian's fonts-noto-core; newer releases say "Odia".
SCRIPT_FACES: dict[str, tuple[str, ...]] = {
    "sinhala": ("Noto Sans Sinhala",),
    "devanagari": ("Noto Sans Devanagari",),
    "bengali": ("Noto Sans Bengali",),
    "gurmukhi": ("Noto Sans Gurmukhi",),
    "gujarati": ("Noto Sans Gujarati",),
    "odia": ("Noto Sans Oriya", "Noto Sans Odia"),
    "tamil": ("Noto Sans Tamil",),
    "telugu": ("Noto Sans Telugu",),
    "kannada": ("Noto Sans Kannada",),
    "malayalam": ("Noto Sans Malayalam",),
    "myanmar": ("Noto Sans Myanmar",),
    "khmer": ("Noto Sans Khmer",),
    "thai": ("Noto Sans Thai",),
    "lao": ("Noto Sans Lao",),
}
# Latin first (Streamlit's own face), then each script's Noto face: the browser picks a
# font per character run, so every Abugida cluster goes whole to its script's face. The
# system faces after them serve machines without Noto (Windows: Iskoola Pota, Nirmala UI,
# Myanmar Text, Khmer UI, Leelawadee UI for Thai and Lao).
FONT_STACK = (
    ", ".join(
        f'"{family}"'
        for family in (
            "Source Sans",
            "Source Sans Pro",
            "Source Sans 3",
            *(face for faces in SCRIPT_FACES.values() for face in faces),
            "Iskoola Pota",
            "Nirmala UI",
            "Myanmar Text",
            "Khmer UI",
            "Leelawadee UI",
            "Noto Sans",
        )
    )
    + ", sans-serif"
)

#: Background colours per syllable kind: (even, odd) so neighbours stay distinguishable.
KIND_COLOURS: dict[str, tuple[str, str]] = {
    "syllable": ("#d6e9f8", "#b4d6f0"),
    "orphan": ("#fbd3c9", "#f6b3a3"),
    "passthrough": ("#e4e4dc", "#d2d2c8"),
    "whitespace": ("#f4f4ef", "#f4f4ef"),
}
KIND_HELP = {
    "syllable": "a full syllable of the script's grammar",
    "orphan": "a vowel sign, virama or modifier with no consonant to attach to",
    "passthrough": "a character no script grammar claims (Latin, digits, punctuation)",
    "whitespace": "one whitespace character",
}
#: Token backgrounds, cycled by position.
TOKEN_COLOURS = ("#d6e9f8", "#fde2b8", "#d4efd8", "#f1d4ec", "#e2dcf7", "#f9d7d3")

CSS = f"""
<style>
:root {{ --sgpe-font: {FONT_STACK}; }}
.stApp textarea, .stApp input {{ font-family: var(--sgpe-font); }}
/* the owner-cookie script (sgpe_explorer/ui/owner.py) takes no space */
.st-key-owner_cookie, div:has(> .st-key-owner_cookie) {{ display: none; }}
.sgpe-box {{
  font-family: var(--sgpe-font); font-size: 1.45rem; line-height: 2.5;
  white-space: pre-wrap; overflow-wrap: anywhere; padding: .35rem .5rem;
  border: 1px solid #d9dfe2; border-radius: .5rem; background: #ffffff;
  max-height: 32rem; overflow-y: auto;
}}
.sgpe-box.small {{ font-size: 1.2rem; line-height: 2.2; max-height: 22rem; }}
.sgpe-box span.syl, .sgpe-box span.tok {{
  border-radius: .25rem; padding: .12rem .06rem; margin: 0 1px; white-space: pre-wrap;
  cursor: help;
}}
.sgpe-box span.syl:hover, .sgpe-box span.tok:hover {{ outline: 2px solid #2f6f8f; }}
{
    "".join(
        f".sgpe-box span.syl.k-{k}{{background:{a}}}.sgpe-box span.syl.k-{k}.odd{{background:{b}}}"
        for k, (a, b) in KIND_COLOURS.items()
    )
}
.sgpe-box span.syl.k-whitespace {{ box-shadow: inset 0 0 0 1px #e3e3da; }}
.sgpe-box span.syl.k-orphan {{ box-shadow: inset 0 -3px 0 #c2410c; }}
{"".join(f".sgpe-box span.tok.c{i}{{background:{c}}}" for i, c in enumerate(TOKEN_COLOURS))}
.sgpe-box span.tok.cut {{ box-shadow: inset 3px 0 0 #c0262d; }}
.sgpe-box span.tok.part {{ box-shadow: inset 2px 0 0 #8a8a8a; }}
.sgpe-box span.tok.fallback {{ text-decoration: underline dotted #7a4b00; }}
/* A token of byte chips (and its id) stays on one line: broken across lines, its last
   chip ran past the column's edge and was clipped. */
.sgpe-box span.tok:has(> .b) {{ display: inline-block; max-width: 100%; line-height: 1.6; }}
/* A superword holds a space: kept on one line, or its halves looked like two tokens. */
.sgpe-box span.tok.super {{ text-decoration: overline 2px #7c3aed; white-space: pre; }}
/* A token of glyphless characters only (a lone ZWJ) always shows its marker. */
.sgpe-box span.tok.glyphless[data-post]::after, .sgpe-steps span.tok[data-post]::after {{
  content: attr(data-post); font-family: ui-monospace, "DejaVu Sans Mono", monospace;
  font-size: .5em; color: #b42318; vertical-align: super; white-space: nowrap;
  margin-left: 1px;
}}
.sgpe-box span.tok .b {{
  font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: .62em;
  background: #fff7e0; border: 1px solid #d8b45a; border-radius: .2rem;
  padding: 0 .12rem; margin: 0 1px; vertical-align: middle;
}}
.sgpe-box.inv [data-pre]::before, .sgpe-box.inv [data-post]::after {{
  font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: .5em;
  color: #b42318; vertical-align: super; white-space: nowrap;
}}
.sgpe-box.inv [data-pre]::before {{ content: attr(data-pre); }}
.sgpe-box.inv [data-post]::after {{ content: attr(data-post); margin-left: 1px; }}
.sgpe-box.ids span.tok::after {{
  content: attr(data-id); font-family: ui-monospace, "DejaVu Sans Mono", monospace;
  font-size: .45em; color: #4b5563; vertical-align: sub; margin-left: 1px;
}}
.sgpe-box.ids.inv span.tok[data-post]::after {{
  content: attr(data-post) " " attr(data-id);
}}
.sgpe-box.ids span.tok.glyphless[data-post]::after {{
  content: attr(data-post) " " attr(data-id);
}}
.sgpe-box.ids span.tok.nl::after {{ content: none; }}
.sgpe-box.ids span.tok.nl::before {{
  content: attr(data-id); font-family: ui-monospace, "DejaVu Sans Mono", monospace;
  font-size: .45em; color: #4b5563; vertical-align: sub; margin-right: 1px;
}}
.sgpe-box.ids.inv span.tok.nl[data-pre]::before {{
  content: attr(data-pre) " " attr(data-id);
}}
/* A tapped or clicked token or syllable shows its details (phones have no hover). */
.sgpe-tokens, .sgpe-syllables {{ position: relative; }}
.sgpe-box span.tok, .sgpe-box span.syl {{ position: relative; }}
.sgpe-box.sgpe-tokens:focus-within, .sgpe-box.sgpe-syllables:focus-within {{
  overflow: visible; max-height: none;
}}
.sgpe-box span.tok:focus, .sgpe-box span.syl:focus {{ outline: 2px solid #2f6f8f; }}
.sgpe-box span.tok[data-info]:focus::after, .sgpe-box span.syl[data-info]:focus::after {{
  content: attr(data-info); position: absolute; left: 0; top: 100%; z-index: 20;
  white-space: pre-wrap; width: max-content; max-width: min(18rem, 80vw);
  font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: .7rem;
  line-height: 1.35; color: #111827; background: #fffbea; border: 1px solid #d8b45a;
  border-radius: .3rem; padding: .3rem .45rem; box-shadow: 0 2px 6px rgba(0,0,0,.15);
  vertical-align: baseline; margin: 0;
}}
/* Merges: SGPE and BPE stay side by side on a phone (Streamlit stacks columns below
   640 px), so Play can be watched on both at once. */
.st-key-mrg_sides [data-testid="stHorizontalBlock"] {{ flex-wrap: nowrap !important; }}
.st-key-mrg_sides [data-testid="stColumn"] {{
  min-width: 0 !important; flex: 1 1 0 !important; width: auto !important;
}}
@media (max-width: 640px) {{
  .st-key-mrg_sides .sgpe-box {{ font-size: 1rem; line-height: 1.9; padding: .25rem .3rem; }}
}}
/* A table's toolbar (search, download, full screen) sits 44 px above the table. Where
   nothing hovers or the screen is narrow it is always shown, and it covered what is above
   the table: the tick labels of Compare's third chart, Grammar's tab bar. Room for it. */
@media (max-width: 640px), (hover: none) {{
  [data-testid="stDataFrame"] {{ margin-top: 2.75rem; }}
}}
.sgpe-legend {{ font-size: .85rem; margin: .2rem 0 .4rem 0; }}
.sgpe-legend span.key {{
  display: inline-block; border-radius: .25rem; padding: 0 .45rem; margin-right: .35rem;
}}
.sgpe-legend span.item {{ margin-right: 1rem; white-space: nowrap; }}
.sgpe-steps {{
  font-family: var(--sgpe-font); font-size: 1.25rem; line-height: 1.9;
  display: flex; flex-wrap: wrap; gap: 4px; align-items: center;
}}
.sgpe-steps span.tok {{
  border-radius: .25rem; padding: .05rem .25rem; background: #e9eef0; white-space: pre;
}}
.sgpe-steps span.tok.new {{ background: #fde68a; box-shadow: inset 0 0 0 2px #d97706; }}
.sgpe-steps span.tok.new.part {{ background: #dbeafe; box-shadow: inset 0 0 0 2px #2563eb; }}
.sgpe-steps span.tok.super {{ text-decoration: overline 2px #7c3aed; }}
.sgpe-steps span.tok.new.super {{ background: #ede9fe; box-shadow: inset 0 0 0 2px #7c3aed; }}
.sgpe-steps span.tok .b {{
  font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: .62em;
}}
</style>
"""
