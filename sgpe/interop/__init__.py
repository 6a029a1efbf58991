"""SGPE vocabularies in other tools: a Hugging Face ``tokenizer.json`` with exact id parity
(:mod:`sgpe.interop.hf`) and the meta-vocabulary that puts SGPE beside o200k_base in one id
space (:mod:`sgpe.interop.meta`)."""
