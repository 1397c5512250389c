#!/usr/bin/python3
"""Build an ONNX graph of a BERT/XLM-R sentence encoder from a model directory.

Usage: /usr/bin/python3 ref.py MODEL_DIR [OUT_PREFIX]

Reads MODEL_DIR/config.json, MODEL_DIR/1_Pooling/config.json and
MODEL_DIR/model.safetensors (parsed here with numpy, independently of the Go
reader), and writes OUT_PREFIX.onnx (opset 17) and OUT_PREFIX.batches.json
(the batches of MODEL_DIR/inputs.json padded to the longest sequence, with
attention masks and position ids as Hugging Face computes them). run.js then
runs the graph with ONNX Runtime (reference vectors), time.js times it.
OUT_PREFIX defaults to build/<name of MODEL_DIR> beside this script; its
folder is created. When MODEL_DIR/inputs.json is absent, ref.py writes one
with the cases of `holomem bench embed` (embed.BenchInputs' shapes: one
text of 10, 60 and 128 tokens, 32 texts of 8-47 and of 28 tokens; random
ids).

Memory stays well under 1 GB for MiniLM-L12 shapes: the safetensors file is
memory-mapped, and an F32 word-embedding table (384 MB there) is not copied
into the graph but referenced as ONNX external data in OUT_PREFIX.weights
beside the graph: a hard link to model.safetensors, or a streamed copy of
just that table when the two folders are on different file systems.

The graph is written from the standard operators only: Gather, Add,
LayerNormalization, MatMul, Reshape, Transpose, Softmax, Erf (or Tanh) GELU,
masked mean or CLS pooling, L2 normalisation.
"""
import json
import os
import struct
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def read_safetensors(path):
    """Returns {name: array} (read-only views of a memory map; F16 is
    converted lazily by the caller) and {name: (dtype, file offset, bytes)}."""
    data = np.memmap(path, dtype=np.uint8, mode="r")
    (n,) = struct.unpack("<Q", bytes(data[:8]))
    header = json.loads(bytes(data[8 : 8 + n]))
    base = 8 + n
    out, where = {}, {}
    for name, e in header.items():
        if name == "__metadata__":
            continue
        b, end = e["data_offsets"]
        dt = {"F32": "<f4", "F16": "<f2"}[e["dtype"]]
        out[name] = data[base + b : base + end].view(dt).reshape(e["shape"])
        where[name] = (e["dtype"], base + b, end - b)
    return out, where


# The cases of embed.BenchInputs: (name, texts, shortest, longest tokens).
BENCH_CASES = [
    ("1 text x 10 tokens", 1, 10, 10),
    ("1 text x 60 tokens", 1, 60, 60),
    ("1 text x 128 tokens", 1, 128, 128),
    ("32 texts x 8-47 tokens", 32, 8, 47),
    ("32 texts x 28 tokens", 32, 28, 28),
]


def write_bench_inputs(path, cfg, max_tokens):
    rng = np.random.default_rng(1)
    names, batches = [], []
    for name, texts, lo, hi in BENCH_CASES:
        b = []
        for _ in range(texts):
            n = min(int(rng.integers(lo, hi + 1)), max_tokens)
            b.append([int(v) for v in rng.integers(3, cfg["vocab_size"], size=n)])
        names.append(name)
        batches.append(b)
    with open(path, "w") as f:
        json.dump({"names": names, "batches": batches}, f)
    print(f"wrote {path} ({len(batches)} batches)")


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    model_dir = sys.argv[1]
    if len(sys.argv) == 3:
        prefix = sys.argv[2]
    else:
        here = os.path.dirname(os.path.abspath(__file__))
        prefix = os.path.join(here, "build", os.path.basename(os.path.abspath(model_dir)))
    os.makedirs(os.path.dirname(os.path.abspath(prefix)), exist_ok=True)
    cfg = json.load(open(os.path.join(model_dir, "config.json")))
    pooling = "mean"
    pc = os.path.join(model_dir, "1_Pooling", "config.json")
    if os.path.exists(pc) and json.load(open(pc)).get("pooling_mode_cls_token"):
        pooling = "cls"
    st_path = os.path.abspath(os.path.join(model_dir, "model.safetensors"))
    W, where = read_safetensors(st_path)
    W = {k.removeprefix("roberta.").removeprefix("bert."): v for k, v in W.items()}
    where = {k.removeprefix("roberta.").removeprefix("bert."): v for k, v in where.items()}
    H = cfg["hidden_size"]
    nh = cfg["num_attention_heads"]
    dh = H // nh
    eps = float(cfg["layer_norm_eps"])
    roberta = cfg["model_type"] in ("roberta", "xlm-roberta")
    pad = cfg.get("pad_token_id", 1 if roberta else 0)

    nodes, inits = [], []
    counter = [0]

    def name(p):
        counter[0] += 1
        return f"{p}_{counter[0]}"

    def const(arr, p="c"):
        n = name(p)
        a = np.asarray(arr)
        if a.dtype == np.float16:
            a = a.astype(np.float32)
        inits.append(numpy_helper.from_array(a, n))
        return n

    weights_link = prefix + ".weights"

    def external(key, p):
        """An F32 tensor of model.safetensors as external data (no copy)."""
        dtype, offset, length = where[key]
        if dtype != "F32" or sys.byteorder != "little":
            return const(W[key], p)
        # ONNX Runtime refuses external data outside the graph's folder,
        # symlinks included: hard-link the file, or copy just this tensor
        # in chunks when the build folder is on another file system.
        if os.path.lexists(weights_link):
            os.remove(weights_link)
        try:
            os.link(st_path, weights_link)
        except OSError:
            with open(st_path, "rb") as src, open(weights_link, "wb") as dst:
                src.seek(offset)
                left = length
                while left > 0:
                    chunk = src.read(min(left, 16 << 20))
                    if not chunk:
                        sys.exit(f"{st_path}: short read")
                    dst.write(chunk)
                    left -= len(chunk)
            offset = 0
        n = name(p)
        t = TensorProto()
        t.name = n
        t.data_type = TensorProto.FLOAT
        t.dims.extend(W[key].shape)
        t.data_location = TensorProto.EXTERNAL
        for k, v in (("location", os.path.basename(weights_link)), ("offset", str(offset)), ("length", str(length))):
            e = t.external_data.add()
            e.key, e.value = k, v
        inits.append(t)
        return n

    def op(kind, inputs, **attrs):
        out = name(kind)
        nodes.append(helper.make_node(kind, inputs, [out], **attrs))
        return out

    def linear(x, p):
        # PyTorch stores W as [out, in]; ONNX MatMul wants x @ W^T.
        w = const(np.ascontiguousarray(W[p + ".weight"].T), p + ".wT")
        b = const(W[p + ".bias"], p + ".b")
        return op("Add", [op("MatMul", [x, w]), b])

    def layernorm(x, p):
        g = const(W[p + ".weight"], p + ".g")
        b = const(W[p + ".bias"], p + ".b")
        return op("LayerNormalization", [x, g, b], axis=-1, epsilon=eps)

    def gelu(x):
        half = const(np.float32(0.5))
        one = const(np.float32(1.0))
        if cfg.get("hidden_act", "gelu") == "gelu_new":
            c = const(np.float32(np.sqrt(2 / np.pi)))
            k = const(np.float32(0.044715))
            x3 = op("Mul", [op("Mul", [x, x]), x])
            inner = op("Mul", [c, op("Add", [x, op("Mul", [k, x3])])])
            t = op("Tanh", [inner])
        else:
            t = op("Erf", [op("Div", [x, const(np.float32(np.sqrt(2.0)))])])
        return op("Mul", [op("Mul", [half, x]), op("Add", [one, t])])

    # Embeddings.
    x = op("Gather", [external("embeddings.word_embeddings.weight", "word"), "input_ids"], axis=0)
    x = op("Add", [x, op("Gather", [const(W["embeddings.position_embeddings.weight"], "pos"), "position_ids"], axis=0)])
    x = op("Add", [x, op("Gather", [const(W["embeddings.token_type_embeddings.weight"], "type"), "token_type_ids"], axis=0)])
    x = layernorm(x, "embeddings.LayerNorm")

    # Additive mask [B, 1, 1, L]: 0 for tokens, a large negative for padding.
    maskf = op("Cast", ["attention_mask"], to=TensorProto.FLOAT)
    neg = op("Mul", [op("Sub", [const(np.float32(1.0)), maskf]), const(np.float32(-1e9))])
    maskbias = op("Unsqueeze", [neg, const(np.array([1, 2], dtype=np.int64))])
    shape4 = const(np.array([0, 0, nh, dh], dtype=np.int64))
    shape3 = const(np.array([0, 0, H], dtype=np.int64))
    scale = const(np.float32(1.0 / np.sqrt(dh)))

    for i in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{i}."
        def heads(t, perm):
            return op("Transpose", [op("Reshape", [t, shape4])], perm=perm)
        q = heads(linear(x, p + "attention.self.query"), [0, 2, 1, 3])
        k = heads(linear(x, p + "attention.self.key"), [0, 2, 3, 1])
        v = heads(linear(x, p + "attention.self.value"), [0, 2, 1, 3])
        s = op("Add", [op("Mul", [op("MatMul", [q, k]), scale]), maskbias])
        pr = op("Softmax", [s], axis=-1)
        c = op("Reshape", [op("Transpose", [op("MatMul", [pr, v])], perm=[0, 2, 1, 3]), shape3])
        a = linear(c, p + "attention.output.dense")
        x = layernorm(op("Add", [a, x]), p + "attention.output.LayerNorm")
        h = gelu(linear(x, p + "intermediate.dense"))
        o = linear(h, p + "output.dense")
        x = layernorm(op("Add", [o, x]), p + "output.LayerNorm")

    if pooling == "cls":
        pooled = op("Gather", [x, const(np.array(0, dtype=np.int64))], axis=1)
    else:
        m3 = op("Unsqueeze", [maskf, const(np.array([2], dtype=np.int64))])
        summed = op("ReduceSum", [op("Mul", [x, m3]), const(np.array([1], dtype=np.int64))], keepdims=0)
        count = op("ReduceSum", [maskf, const(np.array([1], dtype=np.int64))], keepdims=1)
        count = op("Max", [count, const(np.float32(1e-9))])
        pooled = op("Div", [summed, count])
    norm = op("Sqrt", [op("ReduceSum", [op("Mul", [pooled, pooled]), const(np.array([1], dtype=np.int64))], keepdims=1)])
    norm = op("Max", [norm, const(np.float32(1e-12))])
    nodes.append(helper.make_node("Div", [pooled, norm], ["sentence_embedding"]))

    graph = helper.make_graph(
        nodes,
        "sentence_encoder",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["B", "L"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["B", "L"]),
            helper.make_tensor_value_info("token_type_ids", TensorProto.INT64, ["B", "L"]),
            helper.make_tensor_value_info("position_ids", TensorProto.INT64, ["B", "L"]),
        ],
        [helper.make_tensor_value_info("sentence_embedding", TensorProto.FLOAT, ["B", H])],
        inits,
    )
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="holomem-onnx-ref")
    m.ir_version = 8
    onnx.save(m, prefix + ".onnx")
    # By path, so that external data is looked up beside the graph.
    onnx.checker.check_model(prefix + ".onnx")

    inputs_path = os.path.join(model_dir, "inputs.json")
    if not os.path.exists(inputs_path):
        max_tokens = cfg["max_position_embeddings"] - (pad + 1 if roberta else 0)
        write_bench_inputs(inputs_path, cfg, min(max_tokens, 128))
    inputs = json.load(open(inputs_path))
    names = inputs.get("names") or [f"batch {i}" for i in range(len(inputs["batches"]))]
    batches = []
    for bname, seqs in zip(names, inputs["batches"]):
        L = max(len(s) for s in seqs)
        ids = np.full((len(seqs), L), pad, dtype=np.int64)
        for j, s in enumerate(seqs):
            ids[j, : len(s)] = s
        mask = np.zeros_like(ids)
        for j, s in enumerate(seqs):
            mask[j, : len(s)] = 1
        if roberta:
            # transformers.create_position_ids_from_input_ids
            not_pad = (ids != pad).astype(np.int64)
            pos = np.cumsum(not_pad, axis=1) * not_pad + pad
        else:
            pos = np.tile(np.arange(L, dtype=np.int64), (len(seqs), 1))
        batches.append({
            "name": bname,
            "sequences": seqs,
            "input_ids": ids.tolist(),
            "attention_mask": mask.tolist(),
            "token_type_ids": np.zeros_like(ids).tolist(),
            "position_ids": pos.tolist(),
        })
    json.dump({"batches": batches}, open(prefix + ".batches.json", "w"))
    print(f"wrote {prefix}.onnx ({len(nodes)} nodes) and {prefix}.batches.json ({len(batches)} batches)")


if __name__ == "__main__":
    main()
