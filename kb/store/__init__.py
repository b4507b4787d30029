"""The store: the only code that reads or writes ``records/`` on disk.

Layout: one YAML file per record, one folder per kind (``records/attempts/<id>.yaml``, see
:data:`kb.models.KINDS`). :mod:`kb.store.read` loads: it collects every problem of every file and
never stops at the first; a bad file costs only itself. :mod:`kb.store.write` writes through one
gate (:func:`save_record`): redacted, atomic (temporary file in the same folder, then a hard link
that fails if the name exists, so a record is never overwritten and two concurrent writers never
take the same id).
"""

from typing import Any

_FROM = {
    "write_text_atomic": "kb.atomic",
    "last_changed": "kb.store.history",
    **dict.fromkeys(["ASSETS_FOLDER", "list_assets", "save_asset"], "kb.store.assets"),
    **dict.fromkeys(["MAX_FILE_BYTES", "LoadResult", "Origin", "Prefetched", "RecordSet",
                     "load_records", "parse_record"], "kb.store.read"),
    **dict.fromkeys(["RECORD_SUFFIXES", "record_files"], "kb.store.listing"),
    **dict.fromkeys(["SCHEMA_URL_ENV", "Saved", "create_record", "dump_record", "free_id", "record_path", "record_to_data",
                     "record_text", "redact_record", "remove_record", "save_record", "schema_ref", "write_record"], "kb.store.write"),
}
"""Where each name kb.store re-exports lives. They are imported on first use (PEP 562), so that
importing a light part of the store (:mod:`kb.store.memo`, which ``kb check`` uses before
anything else) does not import the models and pydantic."""


def __getattr__(name: str) -> Any:
    module = _FROM.get(name)
    if module is None:
        raise AttributeError(f"module 'kb.store' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "MAX_FILE_BYTES", "RECORD_SUFFIXES", "SCHEMA_URL_ENV", "LoadResult", "Origin", "Prefetched",
    "RecordSet",
    "Saved", "create_record", "dump_record", "free_id", "last_changed", "list_assets", "load_records", "parse_record",
    "record_files", "record_path", "record_text", "record_to_data", "redact_record", "remove_record", "save_asset",
    "save_record", "schema_ref", "write_record",
    "write_text_atomic",
]
