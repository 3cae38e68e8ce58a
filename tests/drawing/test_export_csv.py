"""The CSV export (drawing.export.data_to_csv) on the real data behind figures: a tidy table with a named
header, one meaning per column, long form for matrices with their coordinates named."""

import csv
import io

import numpy as np
import pytest

from posenc import figures  # noqa: F401
from posenc.drawing import export, registry


def table(figure_id: str, given: dict | None = None) -> tuple[dict, list[str], list[list[str]]]:
    """The figure's data, and its CSV read back as a spreadsheet would: header, rows."""
    params, _ = registry.resolve_params(figure_id, given or {})
    data = registry.build(figure_id, params).data
    header, *rows = csv.reader(io.StringIO(export.data_to_csv(data).decode()))
    return data, header, rows


def column(header: list[str], rows: list[list[str]], name: str) -> np.ndarray:
    index = header.index(name)
    return np.array([float(row[index]) if row[index] else np.nan for row in rows if len(row) > index])


def test_a_matrix_is_long_with_its_axes_named_by_their_coordinates():
    data, header, rows = table("rope-angles", {"seq_len": 256, "head_dim": 16})
    pairs, positions = len(data["pairs"]), len(data["positions"])
    assert header == ["pairs", "positions", "angle_mod_2pi"]
    assert len(rows) == pairs * positions
    np.testing.assert_allclose(column(header, rows, "angle_mod_2pi"), data["angle_mod_2pi"].ravel(), rtol=1e-6)
    np.testing.assert_array_equal(column(header, rows, "pairs"), np.repeat(data["pairs"], positions))
    np.testing.assert_array_equal(column(header, rows, "positions"), np.tile(data["positions"], pairs))


def test_a_square_matrix_over_one_coordinate_names_its_two_axes_i_and_j():
    data, header, rows = table("sinusoidal-similarity", {"seq_len": 64})
    assert header == ["positions_i", "positions_j", "similarity"]
    first = rows[1]  # similarity of position 0 with position 1
    assert float(first[0]) == data["positions"][0] and float(first[1]) == data["positions"][1]
    assert float(first[2]) == pytest.approx(float(data["similarity"][0, 1]), rel=1e-6)


def test_attributes_of_an_axis_stand_beside_its_coordinate():
    data, header, rows = table("mrope-channels")
    assert header == ["tokens", "pair", "axis", "wavelength", "angles"]  # axis and wavelength: per pair
    assert len(rows) == data["angles"].size


def test_matrices_without_coordinates_share_row_and_column_indices():
    data, header, rows = table("why-attention", {"embedding_dim": 32})
    assert header[:2] == ["row", "column"] and set(header[2:]) == set(data)
    assert len(rows) == 36 and rows[7][:2] == ["1", "1"]
    np.testing.assert_allclose(column(header, rows, "weights_A_no_PE"), data["weights_A_no_PE"].ravel(), rtol=1e-6)


def test_curves_of_one_length_stand_side_by_side_with_their_names():
    data, header, rows = table("context-inv-freq")
    assert header == list(data) and len(rows) == len(data["pair"])
    for name in header:
        np.testing.assert_allclose(column(header, rows, name), data[name], rtol=1e-6)


def test_tables_of_different_lengths_are_padded_with_empty_cells():
    data, header, rows = table("compare-similarity")
    longest = max(len(values) for values in data.values())
    assert header == list(data) and len(rows) == longest
    metric = header.index("metric_half_distance")
    assert all(row[metric] == "" for row in rows[len(data["metric_half_distance"]) :])
    np.testing.assert_allclose(
        column(header, rows, "metric_half_distance")[: len(data["metric_half_distance"])],
        data["metric_half_distance"],
        rtol=1e-6,
    )


def test_no_column_mixes_meanings_and_values_are_the_datas():
    data, header, rows = table("alibi-bias", {"seq_len": 32})
    assert header[0] == "heads" and header[-3:] == ["positions_i", "positions_j", "bias"]  # per-head values between
    assert not any("/" in cell for row in rows for cell in row)  # no "0/3/5" index column
    np.testing.assert_array_equal(column(header, rows, "bias"), data["bias"].ravel())  # the mask: -inf
    assert {"0", "-inf"} <= {row[-1] for row in rows}


def test_nan_is_an_empty_cell_names_with_commas_are_quoted_and_no_header_repeats():
    data = {"a, b": np.arange(3), "m": np.eye(2), "n": np.full((3, 2), np.nan)}
    header, *rows = csv.reader(io.StringIO(export.data_to_csv(data).decode()))
    assert header == ["row", "column", "m", "a, b", "column_2", "n"]
    assert rows[0] == ["0", "0", "1", "0", "0", ""] and rows[5] == ["", "", "", "2", "1", ""]
    with pytest.raises(ValueError, match="no data"):
        export.data_to_csv({})
