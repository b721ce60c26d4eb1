"""``Policy``: validated fields, explicit-field tracking, overlay and deterministic backoff."""

from __future__ import annotations

from typing import Any

import pytest

from fastrag.exceptions import ConfigurationError
from fastrag.pipeline import ExecutionContext, Policy
from tests.unit.pipeline._steps import WordStep


def test_defaults_and_explicit_fields() -> None:
    policy = Policy(timeout=5.0, retries=2)
    assert policy.explicit == frozenset({"timeout", "retries"})
    assert (policy.concurrency, policy.on_failure, policy.window) == (1, "raise", 64)
    assert Policy().explicit == frozenset()


def test_overlay_keeps_explicit_fields_and_inherits_the_rest() -> None:
    inherited = Policy(retries=3, concurrency=4, on_failure="skip")
    own = Policy(retries=0, timeout=1.5)
    merged = own.overlay(inherited)
    assert merged.retries == 0
    assert merged.timeout == 1.5
    assert merged.concurrency == 4
    assert merged.on_failure == "skip"
    assert merged.explicit == frozenset({"retries", "timeout", "concurrency", "on_failure"})
    # An explicitly set default still wins over the inherited value.
    assert Policy(on_failure="raise").overlay(inherited).on_failure == "raise"
    assert Policy().overlay(inherited) is inherited


def test_effective_policy_overlays_the_step_on_the_context() -> None:
    context = ExecutionContext(policy=Policy(retries=5, backoff=0.5))
    assert WordStep().effective_policy(context) is context.policy
    step = WordStep(policy=Policy(backoff=0.0))
    effective = step.effective_policy(context)
    assert (effective.retries, effective.backoff) == (5, 0.0)


def test_backoff_is_exponential_capped_and_jitter_free_by_default() -> None:
    policy = Policy(backoff=0.5, backoff_factor=2.0, max_backoff=3.0)
    assert [policy.delay_for(n, "doc") for n in (1, 2, 3, 4, 5)] == [0.5, 1.0, 2.0, 3.0, 3.0]


def test_jitter_is_deterministic_per_item_and_bounded() -> None:
    policy = Policy(backoff=1.0, jitter=0.5)
    delays = [policy.delay_for(1, f"doc-{i}") for i in range(20)]
    assert delays == [policy.delay_for(1, f"doc-{i}") for i in range(20)]
    assert all(1.0 <= delay < 1.5 for delay in delays)
    assert len(set(delays)) > 1


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"retries": -1}, "'retries' must be an int >= 0 \\(got -1\\)"),
        ({"retries": True}, "'retries' must be an int"),
        ({"concurrency": 0}, "'concurrency' must be an int >= 1"),
        ({"window": 0}, "'window' must be an int >= 1"),
        ({"backoff": -0.1}, "'backoff' must be a finite number"),
        ({"backoff_factor": 0.5}, "'backoff_factor' must be a finite number >= 1.0"),
        ({"timeout": 0}, "'timeout' must be > 0 seconds"),
        ({"timeout": float("inf")}, "'timeout' must be a finite number"),
        ({"jitter": 2.0}, "'jitter' must be within \\[0, 1\\]"),
        ({"on_failure": "ignore"}, "'on_failure' must be 'raise' or 'skip' \\(got 'ignore'\\)"),
        ({"retry_on": ValueError}, "'retry_on' must be a tuple of exception classes"),
    ],
)
def test_invalid_values_are_rejected_with_the_value(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        Policy(**kwargs)


def test_replace_marks_changes_explicit() -> None:
    policy = Policy(retries=1).replace(timeout=2.0)
    assert policy.explicit == frozenset({"retries", "timeout"})
    assert policy.timeout == 2.0
