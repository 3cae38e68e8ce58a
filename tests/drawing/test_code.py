"""The code behind every figure (drawing.code): every figure has a snippet, every snippet imports only numpy,
torch and math, and its ``result`` equals what the figure draws, at the defaults and at a second parameter set."""

from __future__ import annotations

import pytest

from posenc import figures  # noqa: F401  (registers every family)
from posenc.drawing import code, registry

# A second parameter set: each figure takes the names it declares (the others are ignored). Values within range,
# away from the defaults, and small enough that the snippets' full arrays stay quick.
OTHER = {
    "seq_len": 300,
    "d_model": 66,
    "base": 500.0,
    "layout": "t2t",
    "view": "window",
    "start": 5,
    "window": 40,
    "head_dim": 64,
    "partial_rotary_factor": 0.5,
    "n_heads": 12,
    "alibi_bias_max": 6.0,
    "hidden_dim": 5,
    "embedding_dim": 24,
    "num_buckets": 16,
    "max_distance": 40,
    "bidirectional": False,
    "grid_h": 6,
    "grid_w": 10,
    "cls_token": False,
    "embed_dim": "64",
    "patch_row": 2,
    "patch_col": 7,
    "old_grid": 10,
    "new_grid": 7,
    "resize_mode": "bilinear",
    "antialias": False,
    "channel": 3,
    "vision_head_dim": "32",
    "frequency": 5,
    "value_dim": 16,
    "n_sequences": 8,
    "no_rope_layer_interval": 3,
    "floor_scale": 1000,
    "sink_window": 6,
    "rope_type": "llama3",
    "factor": 8.0,
    "original_max_position_embeddings": 2048,
    "layered_model": "llama-4-scout",
    "mrope_section": (8, 12, 12),
    "segments": "text:2,image:1x4x4,text:1,video:2x2x2",
    "attention_text": "A dog slept.",
    "lab_metric": "perplexity",
    "lab_mode": "nonoverlapping",
    "lab_copy_metric": "loss",
    "lab_smooth": 8,
    "lab_passkey_metric": "loss",
    "lab_task": "copy",
    "lab_scheme": "alibi",
    "lab_layer": 1,
    "lab_head": 2,
}

IDS = sorted(registry.FIGURES)


def resolved(figure_id: str, given: dict) -> dict:
    values, messages = registry.resolve_params(figure_id, given)
    assert not messages, messages
    return values


@pytest.mark.parametrize("figure_id", IDS)
def test_every_figure_has_a_snippet(figure_id):
    if figure_id not in code.CODE:
        pytest.fail(f"figure {figure_id!r} has no snippet: add one to figures/<family>/code.py")


@pytest.mark.parametrize("figure_id", sorted(code.CODE))
def test_every_snippet_belongs_to_a_figure(figure_id):
    assert figure_id in registry.FIGURES


@pytest.mark.parametrize("setting", ["defaults", "other"])
@pytest.mark.parametrize("figure_id", sorted(code.CODE))
def test_the_snippet_computes_what_the_figure_draws(figure_id, setting):
    values = resolved(figure_id, OTHER if setting == "other" else {})
    snippet = code.snippet_for(figure_id, values)
    assert code.imported_modules(snippet.source) <= code.ALLOWED_IMPORTS, snippet.source
    code.assert_matches(code.run_snippet(snippet), snippet.expected(), rtol=snippet.rtol, atol=snippet.atol)


@pytest.mark.parametrize("figure_id", sorted(code.CODE))
def test_the_second_parameter_set_changes_the_figure(figure_id):
    defaults, other = resolved(figure_id, {}), resolved(figure_id, OTHER)
    assert other != defaults, f"add a value for one of {registry.get_spec(figure_id).params} to OTHER"
    assert code.snippet_for(figure_id, other).source != code.snippet_for(figure_id, defaults).source


@pytest.mark.parametrize("figure_id", sorted(code.CODE))
def test_writing_the_source_does_not_build_the_figure(figure_id, monkeypatch):
    """The page shows the source next to a figure it has built already: writing it must not build it again."""
    values = resolved(figure_id, {})

    def no_build(*args, **kwargs):
        raise AssertionError("the snippet's source built the figure")

    monkeypatch.setattr(registry, "build", no_build)
    assert "result" in code.snippet_for(figure_id, values).source


def test_a_wrong_snippet_is_caught():
    values = resolved("alibi-slopes", {})
    right = code.snippet_for("alibi-slopes", values)
    wrong = code.Snippet(right.source.replace("-alibi_bias_max", "-0.9 * alibi_bias_max"), right.expected)
    with pytest.raises(AssertionError):
        code.assert_matches(code.run_snippet(wrong), wrong.expected())


def test_imports_outside_numpy_torch_math_are_seen():
    assert code.imported_modules("import numpy as np\nfrom posenc_core import rope\nimport math") == {
        "numpy",
        "posenc_core",
        "math",
    }


def test_index_code_writes_evenly_spaced_runs_as_arange():
    assert code.index_code([0, 3, 6, 9]) == "np.arange(0, 10, 3)"
    assert code.index_code([5, 6, 7], "torch") == "torch.arange(5, 8)"
    assert code.index_code([0, 1, 5]) == "np.array([0, 1, 5])"


def test_a_learned_table_that_is_data_shows_no_snippet():
    """A trained or uploaded table has no formula to compute it from: its figures have no snippet."""
    values = resolved("learned-heatmap", {})
    assert code.snippet_for("learned-heatmap", values) is not None
    assert code.snippet_for("learned-heatmap", {**values, "table_source": "upload"}) is None


# The branches the two parameter sets above do not reach: odd widths in every layout, sampled positions that alias
# (envelopes), long contexts, the other RoPE layout, every scaling variant, symmetric ALiBi, dot similarity, ...
BRANCHES = [
    *(
        ("sinusoidal-" + f, {"layout": layout, "d_model": 33})
        for f in ("heatmap", "relative")
        for layout in ("interleaved", "half", "t2t")
    ),
    ("sinusoidal-linear-map", {"layout": "half", "d_model": 15, "offset": 3}),
    ("sinusoidal-linear-map-error", {"layout": "t2t", "d_model": 17}),
    ("sinusoidal-wavelengths", {"layout": "t2t", "d_model": 9}),
    ("sinusoidal-waves", {"seq_len": 50_000, "dims": (0, 3, 60)}),
    ("rope-scores", {"rope_layout": "interleaved", "partial_rotary_factor": 0.25, "qk_seed": 3}),
    ("rope-relative-profile", {"rope_layout": "interleaved", "seq_len": 100_000}),
    ("rope-pair-rotation", {"seq_len": 200_000, "pair": 60}),
    ("rope-decay", {"seq_len": 100_000}),
    ("alibi-bias", {"n_heads": 5, "heads": (0, 2, 4), "mode": "symmetric", "seq_len": 5000}),
    ("alibi-attention", {"n_heads": 33, "seq_len": 1_048_576}),
    ("alibi-span", {"n_heads": 128, "mass": 0.999, "seq_len": 100_000}),
    ("relative-t5-bucket", {"num_buckets": 7, "max_distance": 5, "bidirectional": False}),
    ("relative-t5-matrix", {"num_buckets": 64, "max_distance": 1000, "seq_len": 5000}),
    ("learned-similarity", {"similarity": "dot", "max_len": 3000, "d_model": 5, "seq_len": 2000}),
    ("learned-relative", {"similarity": "dot", "view": "window", "start": 100}),
    *(("context-inv-freq", {"rope_type": t, "head_dim": 96, "seq_len": 200_000}) for t in ("dynamic", "longrope")),
    ("context-angles", {"rope_type": "llama3", "seq_len": 300_000}),
    ("context-yarn-ramp", {"truncate": False, "beta_fast": 5.0, "beta_slow": 4.0}),
    ("context-temperature", {"mscale": 1.0, "mscale_all_dim": 0.707, "original_max_position_embeddings": 100}),
    ("context-base-bound", {"target_context": 3000}),
    ("mrope-channels", {"mrope_layout": "interleaved", "mrope_section": (24, 20, 20), "segments": "text:900"}),
    ("mrope-grid", {"segments": "video:3x8x8,image:2x2,text:1", "vision_index": 2, "spatial_merge_size": 1}),
    ("compare-similarity", {"schemes": "sinusoidal:65,rope,alibi:12@3,learned:300", "distance_axis": "linear"}),
    ("compare-decay", {"schemes": "rope:phi-3-mini-128k,rope:qwen2.5-7b-128k-yarn,rope:deepseek-v3,t5"}),
]


@pytest.mark.parametrize(("figure_id", "given"), BRANCHES, ids=[f"{f}-{i}" for i, (f, _) in enumerate(BRANCHES)])
def test_the_snippet_follows_every_branch_of_its_figure(figure_id, given):
    snippet = code.snippet_for(figure_id, resolved(figure_id, given))
    code.assert_matches(code.run_snippet(snippet), snippet.expected(), rtol=snippet.rtol, atol=snippet.atol)
