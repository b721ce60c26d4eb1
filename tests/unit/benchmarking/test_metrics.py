"""Every metric against cases computed by hand (character arithmetic on small ranges)."""

from __future__ import annotations

import math

import pytest

from fastrag.benchmarking.metrics import (
    aggregate,
    covered,
    intersect,
    mean_std,
    score_question,
    union,
)

D = "doc"


def test_union_merges_overlapping_and_touching_ranges_and_drops_empty_ones() -> None:
    assert union([(5, 10), (0, 3), (8, 12), (3, 4), (20, 20)]) == [(0, 4), (5, 12)]
    assert covered([(0, 10), (5, 15)]) == 15


def test_intersect_is_the_intersection_of_the_unions() -> None:
    assert intersect([(0, 10), (20, 30)], [(5, 25)]) == [(5, 10), (20, 25)]
    assert intersect([(0, 5)], [(5, 9)]) == []


def test_one_chunk_covering_part_of_one_excerpt() -> None:
    # excerpt [10, 20) (10 chars); chunk [15, 40) (25 chars): 5 excerpt chars retrieved.
    score = score_question([(D, (10, 20))], [(D, [(15, 40)])], [(D, [(0, 15)]), (D, [(15, 40)])])
    assert score.recall == pytest.approx(5 / 10)
    assert score.precision == pytest.approx(5 / 25)
    # IoU: 5 / (25 retrieved + 5 missed)
    assert score.iou == pytest.approx(5 / 30)
    # Ω: evidence chunks [0,15) and [15,40) cover [0,40): 10 / 40
    assert score.precision_omega == pytest.approx(10 / 40)
    assert score.hit == 0.0
    assert score.split == 1.0  # no single chunk holds [10, 20) whole


def test_overlapping_retrieved_chunks_count_twice_in_the_precision_denominator() -> None:
    # Two chunks [0, 30) and [20, 50) overlap by 10; excerpt [25, 35) is inside both.
    chunks = [(D, [(0, 30)]), (D, [(20, 50)])]
    score = score_question([(D, (25, 35))], chunks, chunks)
    assert score.recall == 1.0
    assert score.precision == pytest.approx(10 / 60)  # 30 + 30, not the 50 of the union
    assert score.iou == pytest.approx(10 / 60)
    assert score.precision_omega == pytest.approx(10 / 50)  # Ω uses the union
    assert score.hit == 1.0
    assert score.split == 0.0


def test_two_excerpts_one_found_one_missed() -> None:
    excerpts = [(D, (0, 10)), (D, (100, 130))]
    retrieved = [(D, [(0, 20)])]
    evidence = [(D, [(0, 20)]), (D, [(90, 140)])]
    score = score_question(excerpts, retrieved, evidence)
    assert score.recall == pytest.approx(10 / 40)
    assert score.precision == pytest.approx(10 / 20)
    assert score.iou == pytest.approx(10 / (20 + 30))
    assert score.precision_omega == pytest.approx(40 / (20 + 50))
    assert score.hit == 0.5
    assert score.split == 0.0


def test_overlapping_excerpts_are_counted_once() -> None:
    # Excerpts [0, 10) and [5, 15) overlap: E = [0, 15), 15 characters.
    score = score_question([(D, (0, 10)), (D, (5, 15))], [(D, [(0, 12)])], [(D, [(0, 12)])])
    assert score.recall == pytest.approx(12 / 15)
    assert score.precision == pytest.approx(12 / 12)
    assert score.iou == pytest.approx(12 / (12 + 3))
    assert score.hit == 0.5  # [0, 10) whole, [5, 15) not


def test_repeated_text_in_another_place_or_document_earns_nothing() -> None:
    # The same words at [100, 110) or in another document are not the referenced range.
    retrieved = [(D, [(100, 110)]), ("other", [(0, 10)])]
    score = score_question([(D, (0, 10))], retrieved, [(D, [(0, 10)])])
    assert score.recall == 0.0
    assert score.precision == 0.0
    assert score.iou == pytest.approx(0 / (20 + 10))
    assert score.precision_omega == 1.0  # the index has a chunk that is exactly the excerpt


def test_empty_retrieval_scores_zero_without_dividing_by_zero() -> None:
    score = score_question([(D, (0, 10))], [], [])
    assert (score.recall, score.precision, score.iou, score.hit) == (0.0, 0.0, 0.0, 0.0)
    assert score.precision_omega == 0.0
    assert score.split == 1.0
    assert score.retrieved == 0


def test_chunk_with_several_source_ranges() -> None:
    # A chunk showing [0, 5) (repeated table header) and [50, 70): 25 characters shown.
    score = score_question([(D, (55, 65))], [(D, [(0, 5), (50, 70)])], [(D, [(0, 5), (50, 70)])])
    assert score.precision == pytest.approx(10 / 25)
    assert score.recall == 1.0


def test_section_accuracy_compares_heading_path_prefixes() -> None:
    excerpts = [(D, (0, 10))]
    chunk = [(D, [(0, 10)])]
    match = score_question(
        excerpts, chunk, chunk, sections=[("Install",)], first_heading_path=("Install", "Linux")
    )
    miss = score_question(
        excerpts, chunk, chunk, sections=[("Usage",)], first_heading_path=("Install",)
    )
    unlabelled = score_question(excerpts, chunk, chunk, sections=[None], first_heading_path=("A",))
    assert match.section == 1.0
    assert miss.section == 0.0
    assert unlabelled.section is None


def test_mean_std_is_the_population_std() -> None:
    result = mean_std([1.0, 2.0, 3.0, 4.0])
    assert result.mean == 2.5
    assert result.std == pytest.approx(math.sqrt(1.25))
    assert math.isnan(mean_std([]).mean)


def test_aggregate_per_group_and_overall() -> None:
    a = score_question([(D, (0, 10))], [(D, [(0, 10)])], [(D, [(0, 10)])])
    b = score_question([(D, (0, 10))], [], [])
    overall, groups = aggregate([a, b, a], ["x", "y", "x"])
    assert overall["recall"].mean == pytest.approx(2 / 3)
    assert groups["x"]["recall"].mean == 1.0
    assert groups["y"]["recall"].mean == 0.0
    assert "section" not in overall  # no question carries section labels
