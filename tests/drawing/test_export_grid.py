"""drawing.export_grid: a subplot grid on a paper column becomes a stack, each subplot with its own labels, its title
and its colour bar."""

import pytest
from plotly.subplots import make_subplots

from posenc import figures  # noqa: F401
from posenc.drawing import export, registry


def laid_out(figure_id: str, style: str, size: str):
    given = {"n_heads": 8, "heads": "0,2,5,7", "seq_len": 64} if figure_id == "alibi-bias" else {}
    params, _ = registry.resolve_params(figure_id, given)
    return export.laid_out(registry.build(figure_id, params).figure, style, size)


@pytest.mark.parametrize("figure_id", ["alibi-bias", "compare-similarity"])
def test_a_paper_column_stacks_subplots_side_by_side(figure_id):
    fig, _, _ = laid_out(figure_id, "screen", "column")
    assert {tuple(axis.domain) for axis in fig.select_xaxes()} == {(0.0, 1.0)}
    rows = sorted({tuple(axis.domain) for axis in fig.select_yaxes()})
    assert len(rows) == len(list(fig.select_xaxes()))
    titles = sorted(a.y for a in fig.layout.annotations if a.yref == "paper" and a.yanchor == "bottom")
    assert titles == pytest.approx(sorted(top for _, top in rows))  # each title on its subplot
    two_columns, _, _ = laid_out(figure_id, "screen", "two-columns")
    assert len({tuple(axis.domain) for axis in two_columns.select_xaxes()}) == 2  # wide enough for the grid


def test_a_shared_axis_stacked_gets_back_its_labels_but_not_another_axis_title():
    shared = make_subplots(rows=1, cols=2, shared_yaxes=True)
    other = make_subplots(rows=1, cols=2)
    for fig in (shared, other):
        fig.add_scatter(x=[0, 1], y=[0, 1], row=1, col=1)
        fig.add_scatter(x=[0, 1], y=[1, 0], row=1, col=2)
        fig.update_yaxes(title_text="score", row=1, col=1)
        fig.update_layout(title="two subplots", height=400)
    stacked, _, _ = export.laid_out(shared, "screen", "column")
    assert [(axis.showticklabels, axis.title.text) for axis in stacked.select_yaxes()] == [
        (None, "score"),
        (True, "score"),
    ]
    stacked, _, _ = export.laid_out(other, "screen", "column")
    assert [axis.title.text for axis in stacked.select_yaxes()] == ["score", None]


def test_a_colour_bar_placed_between_subplots_follows_its_subplot_when_stacked():
    fig = make_subplots(rows=1, cols=2, subplot_titles=("left", "right"))
    fig.add_scatter(x=[0, 1], y=[0, 1], mode="markers", marker={"color": [0, 1], "colorbar": {"x": 0.45}}, row=1, col=1)
    fig.add_scatter(x=[0, 1], y=[1, 0], row=1, col=2)
    fig.update_layout(title="two subplots", height=400)
    laid, _, _ = export.laid_out(fig, "screen", "column")
    bar, (upper, _) = (
        laid.data[0].marker.colorbar,
        sorted((tuple(axis.domain) for axis in laid.select_yaxes()), reverse=True),
    )
    assert bar.x > 1 and upper[0] <= bar.y <= upper[1] and bar.len == pytest.approx(upper[1] - upper[0])
