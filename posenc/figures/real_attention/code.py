"""The code behind the real-attention figure, in PyTorch with HF transformers: the built-in encoder's attention
probabilities, then the share of each head on [CLS] and [SEP] from its definition (a mean over the queries).

Ref: HF transformers ``BertModel`` (``output_attentions=True``, eager attention); Clark et al. 2019, arXiv
1906.04341 (attention to [CLS] and [SEP]).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from posenc.drawing.code import Snippet, code_block, figure_data, literal, register_code
from posenc.figures.real_attention.model import INSTALL_COMMAND
from posenc_core.teaching.encoder_attention import builtin_encoder_folder


@register_code("real-attention-first-tokens")
def first_tokens_code(values: Mapping[str, Any]) -> Snippet:
    folder = builtin_encoder_folder()
    if folder is None:  # the figure draws nothing either: say what to install
        source = code_block(f"result = {{}}  # all-MiniLM-L6-v2 is not installed: {INSTALL_COMMAND}", imports=())
        return Snippet(source, expected=dict)
    source = code_block(
        "from transformers import BertModel, BertTokenizer",
        f"""
        folder = {literal(str(folder))}  # the built-in all-MiniLM-L6-v2
        text = {literal(values["attention_text"])}
        """,
        """
        ids = BertTokenizer.from_pretrained(folder)(text)["input_ids"]  # [CLS] word pieces [SEP]
        model = BertModel.from_pretrained(folder, attn_implementation="eager").eval()
        with torch.no_grad():
            attentions = model(torch.tensor([ids]), output_attentions=True).attentions
        A = torch.stack(attentions)[:, 0]  # (layers, heads, L queries, L keys): softmax(Q K^T / sqrt(d))
        sep = [i for i, token in enumerate(ids) if token == 102]  # the [SEP] keys
        result = {
            "share_first": A[..., 0].mean(-1),  # attention on key 0 ([CLS]), averaged over the queries
            "share_sep": A[..., sep].sum(-1).mean(-1),  # attention on [SEP], averaged over the queries
            "uniform": torch.tensor([1 / len(ids)]),  # what a head attending evenly puts on each token
        }
        """,
        imports=("torch",),
    )
    return Snippet(source, expected=lambda: figure_data("real-attention-first-tokens", values), atol=1e-5)
