"""``python -m kb``: the same entry point as the ``kb`` command."""

from kb.cli import main

if __name__ == "__main__":  # pragma: no cover
    main()
