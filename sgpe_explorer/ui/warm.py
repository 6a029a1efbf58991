"""Warm the browser for the pages after the first: load Streamlit's chart and table code
while the visitor reads the first page.

Streamlit's frontend loads the code of each element type the first time a page shows
one: Plotly's (4.7 MB of JavaScript in Streamlit 1.67) and the dataframe's. The first
page most visitors see, Syllables, has no chart, so the first visit to Train, Vocabulary
or Compare paid for loading and compiling that code: about 2 to 4 s of Vocabulary's
first visit on two busy cores, against 1 to 2 s once warmed (``python -m bench app``,
docs/app.md section 10).

:func:`chunk_script` is a small script for the page (sgpe_explorer/ui/owner.py puts it beside the
owner cookie's): once per browser tab, when the browser is idle after the first page has
drawn (a second after the app's script ended), it imports those modules from the URLs
Streamlit itself imports them from, so the browser's module map already holds them when
a chart comes. The file names are read
from the installed Streamlit's ``static/`` folder; a Streamlit whose files are named
otherwise gets no script, and the pages load the code as before.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

#: The element code to warm: the prefixes of Streamlit's file names (``PlotlyChart.*.js``).
CHUNKS = ("PlotlyChart", "DataFrame")


@functools.cache
def chunk_files() -> tuple[str, ...]:
    """The file names of :data:`CHUNKS` in the installed Streamlit (none if not found)."""
    import streamlit

    folder = Path(streamlit.__file__).resolve().parent / "static" / "static" / "js"
    found: list[str] = []
    for prefix in CHUNKS:
        names = sorted(p.name for p in folder.glob(f"{prefix}.*.js"))
        if len(names) == 1:  # one file of that name, or we cannot tell which one loads
            found.extend(names)
    return tuple(found)


def chunk_script(files: tuple[str, ...] | None = None) -> str:
    """The ``<script>`` that imports ``files`` (default: :func:`chunk_files`) when the
    browser is idle, once per tab; "" when there is nothing to warm."""
    files = chunk_files() if files is None else files
    if not files:
        return ""
    return (
        "<script>(function(){"
        "if(window.__sgpeWarm){return;}window.__sgpeWarm=true;"
        "var src=[].slice.call(document.scripts).map(function(s){return s.src||'';})"
        ".filter(function(u){return /\\/static\\/js\\/index\\.[^\\/]+\\.js$/.test(u);})[0];"
        "if(!src){return;}"
        "var base=src.slice(0,src.lastIndexOf('/')+1);"
        f"var files={json.dumps(list(files))};"
        "var go=function(){files.forEach(function(f){import(base+f).catch(function(){});});};"
        "var idle=window.requestIdleCallback||function(f){setTimeout(f,0);};"
        # Not while the first page draws (that made it 1 s slower): once the app's script
        # has ended, a second later, when the browser is idle; at the latest after 60 s.
        "var tries=0;var wait=function(){"
        "var app=document.querySelector('[data-testid=stApp]');"
        "if(++tries>120||(app&&app.getAttribute('data-test-script-state')==='notRunning')){"
        "setTimeout(function(){idle(go,{timeout:3000});},1000);}else{setTimeout(wait,500);}};"
        "setTimeout(wait,500);"
        "})();</script>"
    )
