"""The benchmarks: SGPE against the tokenizers people use, measured in the same run.

    python -m bench --help          every command, one line each

What is where:

* ``peers.py``    every tokenizer measured (how it is trained, loaded, named): a new peer
                  is one entry there;
* ``corpora.py``  every text file read (``../shared/corpora``, read in place);
* ``xgenre.py``, ``compression.py``, ``speed.py``, ``scripts.py``, ``meta.py``,
  ``pieces.py``, ``oracles.py``: the measurements; each writes plain records to
  ``results/`` (``records.py``);
* ``render/``     records to reports, one module per bench: the markdown tables, the charts
                  and the docs' generated blocks (``python -m bench tables``, no measuring).

Nothing is imported here: a training process (``python -m bench.peers``) must not pay for
more than it uses.
"""
