"""The keys of a vocabulary file, read with the error a user can act on (file, key, type):
the SGPE tokenizer's (sgpe/tokenizer.py) and the byte-level baseline's
(sgpe/baselines/bytebpe.py) files share them."""

from __future__ import annotations

from typing import Any


def merge_counts_of(data: Any, source: str) -> list[int] | None:
    """The optional ``merge_counts`` key of a vocabulary file: a list of non-negative
    integers (its length is checked against the merges by the tokenizer), or None."""
    if "merge_counts" not in data:
        return None
    counts = data["merge_counts"]
    # Every count exactly an int (not a bool) and none negative, checked at C speed: a
    # 32k vocabulary's counts are a share of loading it.
    if not isinstance(counts, list) or (
        counts and (set(map(type, counts)) != {int} or min(counts) < 0)
    ):
        raise ValueError(
            f"{source}: key 'merge_counts' must be a list of non-negative integers "
            "(one per merge), or be left out"
        )
    return counts


def required_key(data: dict[str, Any], key: str, kind: type, source: str) -> Any:
    """``data[key]`` of exactly type ``kind``, or an error naming the file and key."""
    if key not in data:
        raise ValueError(f"{source}: missing key {key!r}")
    return optional_key(data, key, kind, None, source)


def json_kind(value: Any) -> str:
    """The JSON name of a value's type, for error messages."""
    names = {bool: "a boolean", int: "a number", float: "a number", str: "a string"}
    names.update({list: "a list", dict: "an object", type(None): "null"})
    return names.get(type(value), type(value).__name__)


def optional_key(data: dict[str, Any], key: str, kind: type, default: Any, source: str) -> Any:
    """``data[key]`` if it has exactly type ``kind`` (``True`` is not an int), else an error
    naming the file and key; ``default`` when the key is absent."""
    if key not in data:
        return default
    value = data[key]
    if type(value) is not kind and not (kind in (list, dict) and isinstance(value, kind)):
        raise ValueError(
            f"{source}: key {key!r} must be {json_kind(kind())}, not {json_kind(value)} ({value!r:.40})"
        )
    return value


def optional_str(data: dict[str, Any], key: str, default: str, source: str) -> str:
    """A string setting of a vocabulary file, ``default`` when the key is absent."""
    return str(optional_key(data, key, str, default, source))


def schema_record(script: str) -> dict[str, Any]:
    """The keys a vocabulary of a linguist's own schema adds beside ``scripts`` (its key):
    ``schema_sha256`` (sha256 of the schema's canonical JSON, sgpe/schema.py) and
    ``schema``, the document whole, so the file encodes the same ids anywhere without the
    schema file. Empty for a built-in script: those files keep their bytes."""
    from .schema import custom_schema, schema_digest, schema_document

    schema = custom_schema(script)
    if schema is None:
        return {}
    return {"schema_sha256": schema_digest(schema), "schema": schema_document(schema)}


def recorded_script(data: dict[str, Any], default: str, source: str) -> str:
    """The ``scripts`` key of a vocabulary file; for a file that records its own schema
    (:func:`schema_record`), the schema is checked against its digest and registered, and
    its key (``name@digest``) is what ``scripts`` must say."""
    script = optional_str(data, "scripts", default, source)
    if "schema" not in data and "schema_sha256" not in data:
        return script
    from .schema import parse_schema, register_schema, schema_digest

    document = required_key(data, "schema", dict, source)
    digest = required_key(data, "schema_sha256", str, source)
    schema = parse_schema(document, f"{source}: key 'schema'")
    if schema_digest(schema) != digest:
        raise ValueError(
            f"{source}: key 'schema' does not match its sha256 in 'schema_sha256' (the "
            "schema was edited after training); restore the file, or train again with the "
            "edited schema"
        )
    key = register_schema(schema)
    if script != key:
        raise ValueError(
            f"{source}: key 'scripts' is {script!r}, but the recorded schema's key is {key!r}"
        )
    return key
