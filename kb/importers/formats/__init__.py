"""One reader per session-log format of FORMATS.md. Each module's ``read(reading)`` fills a
:class:`~kb.importers.formats._common.Reading` with events, warnings and session fields;
``kb.importers.sessions.read_session`` is the public entry point."""
