"""`import sgpe` needs only `regex`: the app, HF, tiktoken and pyarrow stay unloaded."""

from __future__ import annotations

import subprocess
import sys


def test_core_import_loads_no_optional_dependency():
    code = (
        "import sys, sgpe, sgpe.train, sgpe.tokenizer, sgpe.bytebpe, sgpe.metrics, sgpe.cli, "
        "sgpe.jobs, sgpe.runs, sgpe.export, sgpe.meta\n"
        "heavy = ['streamlit', 'tokenizers', 'tiktoken', 'pyarrow', 'pandas', 'plotly', 'sentencepiece', 'transformers']\n"
        "print(','.join(m for m in heavy if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_public_api():
    import sgpe

    assert set(sgpe.__all__) == {
        "Tokenizer",
        "__version__",
        "load",
        "syllabify",
        "syllable_spans",
        "train",
    }
    assert callable(sgpe.syllabify) and callable(sgpe.train)
