"""The tokenizers SGPE is measured against, with SGPE's own interface: byte-level BPE
(:mod:`sgpe.baselines.bytebpe`, trained by this project) and OpenAI's tiktoken encodings
read from local rank files (:mod:`sgpe.baselines.tiktoken_offline`)."""
