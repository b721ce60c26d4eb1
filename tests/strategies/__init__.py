"""One shared home for Hypothesis strategies: generated documents per format and budgets.

Each format has its own module (``text``, ``markdown``, ``rst``, ``html``) exposing a
``documents()`` strategy of source strings; import them from here.
"""
