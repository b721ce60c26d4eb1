"""The small HTTP rules of the OpenAI client: Retry-After, error details, endpoint URLs."""

from __future__ import annotations

import pytest

from fastrag.llm._http import endpoint_url, error_detail, retry_after_seconds

NOW = 1_800_000_000.0  # a fixed "now" so date arithmetic is exact


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({}, None),
        ({"retry-after": "2"}, 2.0),
        ({"retry-after": " 0.25 "}, 0.25),
        ({"retry-after-ms": "1500", "retry-after": "9"}, 1.5),
        ({"retry-after-ms": "soon", "retry-after": "9"}, 9.0),
        ({"retry-after": "-3"}, None),
        ({"retry-after": "nan"}, None),
        ({"retry-after": "whenever"}, None),
        ({"retry-after": "Fri, 15 Jan 2027 08:00:30 GMT"}, 30.0),
        ({"retry-after": "Fri, 15 Jan 2027 07:00:00 GMT"}, 0.0),
    ],
)
def test_retry_after(headers: dict[str, str], expected: float | None) -> None:
    # 1_800_000_000 is 2027-01-15T08:00:00Z.
    assert retry_after_seconds(headers, now=NOW) == expected


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        (
            {"error": {"message": "text of the doc", "type": "rate_limit", "code": 42}},
            "type=rate_limit, code=42",
        ),
        ({"error": {"type": "x\n\u202eevil" + "y" * 200}}, "type=xevil" + "y" * 75),
        ({"error": "plain string"}, ""),
        (["not", "a", "dict"], ""),
        ({"error": {"code": True}}, ""),
    ],
)
def test_error_detail_reports_only_short_machine_fields(payload: object, expected: str) -> None:
    assert error_detail(payload) == expected


def test_endpoint_url_joins_without_doubling_slashes() -> None:
    assert endpoint_url("http://127.0.0.1:8080/v1/", "/embeddings") == (
        "http://127.0.0.1:8080/v1/embeddings"
    )
