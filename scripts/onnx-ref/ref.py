#!/usr/bin/python3
"""Build an ONNX graph of a BERT/XLM-R sentence encoder from a model directory.

Usage: /usr/bin/python3 ref.py MODEL_DIR OUT_PREFIX

Reads MODEL_DIR/config.json, MODEL_DIR/1_Pooling/config.json and
MODEL_DIR/model.safetensors (parsed here with numpy, independently of the Go
reader), and writes OUT_PREFIX.onnx (opset 17) and OUT_PREFIX.batches.json
(the batches of MODEL_DIR/inputs.json padded to the longest sequence, with
attention masks and position ids as Hugging Face computes them). run.js then
runs the graph with ONNX Runtime. The graph is written from the standard
operators only: Gather, Add, LayerNormalization, MatMul, Reshape, Transpose,
Softmax, Erf (or Tanh) GELU, masked mean or CLS pooling, L2 normalisation.
"""
import json
import os
import struct
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + n])
    base = 8 + n
    out = {}
    for name, e in header.items():
        if name == "__metadata__":
            continue
        b, end = e["data_offsets"]
        dt = {"F32": "<f4", "F16": "<f2"}[e["dtype"]]
        arr = np.frombuffer(data[base + b : base + end], dtype=dt).astype(np.float32)
        out[name] = arr.reshape(e["shape"])
    return out


def main():
    model_dir, prefix = sys.argv[1], sys.argv[2]
    cfg = json.load(open(os.path.join(model_dir, "config.json")))
    pooling = "mean"
    pc = os.path.join(model_dir, "1_Pooling", "config.json")
    if os.path.exists(pc) and json.load(open(pc)).get("pooling_mode_cls_token"):
        pooling = "cls"
    W = read_safetensors(os.path.join(model_dir, "model.safetensors"))
    W = {k.removeprefix("roberta.").removeprefix("bert."): v for k, v in W.items()}
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
        inits.append(numpy_helper.from_array(np.asarray(arr), n))
        return n

    def op(kind, inputs, **attrs):
        out = name(kind)
        nodes.append(helper.make_node(kind, inputs, [out], **attrs))
        return out

    def linear(x, p):
        # PyTorch stores W as [out, in]; ONNX MatMul wants x @ W^T.
        w = const(W[p + ".weight"].T.copy(), p + ".wT")
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
    x = op("Gather", [const(W["embeddings.word_embeddings.weight"], "word"), "input_ids"], axis=0)
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
    onnx.checker.check_model(m)
    onnx.save(m, prefix + ".onnx")

    batches = []
    for seqs in json.load(open(os.path.join(model_dir, "inputs.json")))["batches"]:
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
