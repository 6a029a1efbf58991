"""Reading what a user uploads (text to tokenize, a vocabulary) into a value or a one-line
reason naming the file: a page shows the reason instead of zeros or a traceback."""

from __future__ import annotations

import json
from typing import Any


def text_lines(name: str, data: bytes) -> tuple[list[str] | None, str | None]:
    """The lines of an uploaded UTF-8 text file (one document per line, blank lines left
    out), or ``(None, why not)``: empty, not UTF-8, or only whitespace."""
    if not data:
        return (
            None,
            f"{name}: the file is empty (0 bytes); upload a text file with one document per line",
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        return None, (
            f"{name}: not UTF-8 text ({err.reason} at byte {err.start}); save it as UTF-8 "
            "and upload it again"
        )
    if "\x00" in text:
        return None, f"{name}: holds NUL characters, so it is not a text file"
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return (
            None,
            f"{name}: holds only whitespace ({len(data):,} bytes); there is no text to count",
        )
    return lines, None


def hf_tokenizer(name: str, data: bytes) -> tuple[Any, str | None]:
    """An uploaded Hugging Face ``tokenizer.json`` as a ``tokenizers.Tokenizer``, or
    ``(None, why not)``. The JSON is checked first, so a damaged file gets our message."""
    if not data:
        return None, f"{name}: the file is empty (0 bytes)"
    try:
        parsed = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as err:
        return None, f"{name}: not UTF-8 ({err.reason} at byte {err.start})"
    except json.JSONDecodeError as err:
        return None, f"{name}: not valid JSON (line {err.lineno}, column {err.colno}: {err.msg})"
    except RecursionError:
        return None, f"{name}: JSON nested too deeply to read"
    if not isinstance(parsed, dict) or "model" not in parsed:
        return None, f"{name}: not a Hugging Face tokenizer.json (no 'model' object)"
    try:
        from tokenizers import Tokenizer
    except ImportError:
        return None, "the tokenizers package is not installed (pip install tokenizers)"
    try:
        return Tokenizer.from_str(data.decode("utf-8")), None
    except Exception as err:  # the Rust parser's own message, in one line
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        return None, f"{name}: the tokenizers package cannot read it: {first[:200]}"


def text_upload(key: str) -> tuple[list[str] | None, str]:
    """A text-file uploader (a Streamlit component): the uploaded lines and the file's name,
    or ``(None, "")`` with the reason shown on the page when there is nothing to use."""
    import streamlit as st

    from .render import md_escape

    upload = st.file_uploader("A UTF-8 .txt file", type=["txt"], key=key)
    if upload is None:
        return None, ""
    name = upload.name[:80]
    lines, why_not = text_lines(name, upload.getvalue())
    if lines is None:
        st.error(md_escape(why_not or ""), icon=":material/error:")
    return lines, name
