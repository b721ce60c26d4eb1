"""Suite-wide settings.

Hypothesis explores new examples on every developer run, where a failure is a lead to
follow; in CI (``CI`` set, as ``.ci/run`` runs) it is derandomized, so a submission's
verdict depends on its code, not on which examples a run happened to draw.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
