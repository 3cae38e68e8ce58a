"""bench/three_point_figures.py: a page's figures swapped for three points of the same height, nothing else."""

import plotly.graph_objects as go

from bench.three_point_figures import swapped, three_points


def test_three_points_keep_the_figures_height_and_nothing_else():
    rich = go.Figure([go.Heatmap(z=[[1, 2], [3, 4]]), go.Scatter(y=list(range(100)))], layout={"height": 520})
    small = three_points(rich)
    assert [list(trace.y) for trace in small.data] == [[1, 3, 2]]
    assert small.layout.height == 520
    assert three_points({"data": [], "layout": {"height": 300}}).layout.height == 300
    assert three_points(go.Figure()).layout.height is None


def test_only_a_figure_keyed_as_a_pages_figure_is_swapped():
    seen = []
    chart = swapped(lambda self, figure, *args, **kwargs: seen.append((figure, kwargs.get("key"))))
    rich = go.Figure(go.Scatter(y=list(range(50))), layout={"height": 400})
    chart(None, rich, key="chart-rope-angles", width="stretch")
    chart(None, rich, config={"staticPlot": True})  # a placeholder frame: no key, left as it is
    chart(None, rich, key="sweep-preview")
    assert list(seen[0][0].data[0].y) == [1, 3, 2] and seen[0][1] == "chart-rope-angles"
    assert seen[1][0] is rich and seen[2][0] is rich
