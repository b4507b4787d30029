"""kb: a knowledge base of engineering attempts, blockers, root causes and decisions.

Pipeline (see DESIGN.md): models → store → graph → queries → presentation (CLI, MkDocs plugin,
importers).
"""

__version__ = "0.1.0"
