"""What a person does with kb, as plain functions without click (the CLI in :mod:`kb.cli` is a
thin layer over them, as is :mod:`kb.api`):

- record an attempt: :func:`kb.usecases.log.log_attempt` (``kb log``);
- start a campaign or write a record skeleton: :mod:`kb.usecases.new` (``kb new``);
- read the machine as a stack and platform: :func:`kb.capture.capture_machine` and
  :mod:`kb.machine` (``kb capture``);
- draft attempts from session logs: :func:`kb.importers.drafts.import_logs` (``kb import``);
- feed agent sessions to kb when they end: :mod:`kb.usecases.hooks` (``kb hooks``, ``kb import --hook``);
- review the drafts (accept, edit, merge into an attempt, reject for good): :mod:`kb.usecases.review`
  (``kb review``);
- publish the site: :func:`kb.site.build.build_site` (``kb build``).

Every one of them writes through the store's one write gate (:func:`kb.store.save_record`).
"""
