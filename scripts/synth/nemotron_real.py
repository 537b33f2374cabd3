"""Nemotron 3.5 streaming (560 ms export) at its REAL size, random int8 weights: for measuring cost, never accuracy.

Called by sherpa_synth.py (`--size real`). The graph has the inputs, outputs and metadata of the tiny
fixture (same loader), and the real dimensions, each from a public source:
  - 24 layers, d_model 1024, 8 heads, prediction network 2-layer LSTM 640, joint 640 -> 13088 outputs,
    prompt MLP (one-hot language -> 2048 -> 1024): the GGUF conversion's model card,
    huggingface.co/cstr/nemotron-3.5-asr-streaming-GGUF ("24 layers, d=1024, 8 heads ... 2-layer LSTM,
    hidden=640 ... joint network (640 -> 13088 vocab) ... one-hot lang -> 2048-dim hidden -> 1024").
    13088 joint outputs = 13087 tokens + blank, so vocab_size (blank excluded) 13087.
  - cache_last_channel (B, 24, 70, 1024), cache_last_time (B, 24, 1024, 8) (left context 70, conv kernel 9):
    k2-fsa/sherpa-onnx scripts/nemo/qnn/nemotron-3.5-asr-streaming-0.6b/test_onnx.py (the dumped shapes).
  - att_context_size [70, 6] for 560 ms (`chunk_size = ms // 80 - 1`), window = chunk + pre-encode cache,
    chunk_shift = chunk: scripts/nemo/nemotron-3.5-asr-streaming-0.6b/export_onnx.py; 56 + 9 = 65 frames,
    7 encoder frames of 80 ms per chunk (subsampling 8).
  - feed-forward 4096 (FastConformer's ff_expansion_factor 4), dw_striding subsampling with 256 channels,
    auto prompt id 101 (export_onnx.py asserts it): NeMo's FastConformer configs. num_prompts 128 is assumed
    (the export only requires auto=101 < num_prompts).
  - int8: every MatMul weight quantised as onnxruntime's quantize_dynamic(QInt8) writes it
    (DynamicQuantizeLinear on the activation, MatMulInteger with int8 weights, the two scales multiplied):
    Debian's python has no onnxruntime, so the same pattern is written by hand. The LSTM stays float32
    (quantize_dynamic makes it a contrib DynamicQuantizeLSTM; its cost is small beside the encoder).
Simplified, not cost-changing: relative positions are a learnt projection of 153 sinusoid rows (NeMo's
linear_pos over 2L-1 positions) without the rel-shift; batch norm folded away; the pre-encode is one int8
linear over 8 stacked frames after the first conv (the 256-channel convolutions' MACs kept).
"""
import json

import numpy as np
from onnx import TensorProto

LAYERS, D, HEADS, FF, KERNEL, LEFT = 24, 1024, 8, 4096, 9, 70
PRED, VOCAB_OUT, PROMPTS_N, PROMPT_HIDDEN = 640, 13088, 128, 2048
WINDOW, SHIFT, SUB, CHUNK_T, PRE_CH = 65, 56, 8, 7, 256
POS = 2 * (LEFT + CHUNK_T) - 1


def build(synth, out, files):
    g, vi, save = synth.Graph(), synth.vi, synth.save
    rng = np.random.default_rng(20261128)
    I64 = lambda v: g.const(np.array(v, np.int64))  # noqa: E731

    def qlinear(x, fan_in, fan_out, bias=True):
        w = rng.integers(-127, 128, size=(fan_in, fan_out), dtype=np.int8)
        scale = np.float32(1.0 / (73.0 * np.sqrt(fan_in)))
        q, s, z = g.name("xq"), g.name("xs"), g.name("xz")
        g.nodes.append(synth.helper.make_node("DynamicQuantizeLinear", [x], [q, s, z]))
        mm = g.op("MatMulInteger", [q, g.const(w, "w_int8"), z, g.const(np.int8(0), "w_zp")])
        y = g.op("Mul", [g.op("Cast", [mm], to=TensorProto.FLOAT), g.op("Mul", [s, g.const(scale, "w_scale")])])
        return g.op("Add", [y, g.const(np.zeros(fan_out, np.float32), "b")]) if bias else y

    def norm(x):
        mu = g.op("ReduceMean", [x], axes=[-1])
        c = g.op("Sub", [x, mu])
        var = g.op("ReduceMean", [g.op("Mul", [c, c])], axes=[-1])
        return g.op("Div", [c, g.op("Sqrt", [g.op("Add", [var, g.const(np.float32(1e-5))])])])

    def swish(x):
        return g.op("Mul", [x, g.op("Sigmoid", [x])])

    def ff(x):
        return g.op("Mul", [qlinear(swish(qlinear(norm(x), D, FF)), FF, D), g.const(np.float32(0.5))])

    # ---- pre-encode: (B, 128, 65) -> (B, 7, 1024)
    feats = g.op("Transpose", [g.op("Slice", ["audio_signal", I64([0]), I64([SHIFT]), I64([2])])], perm=[0, 2, 1])  # (B,56,128)
    x4 = g.op("Unsqueeze", [feats, I64([1])])  # (B,1,56,128)
    conv_w = rng.standard_normal((PRE_CH, 1, 3, 3)).astype(np.float32) * 0.1
    c1 = g.op("Relu", [g.op("Conv", [x4, g.const(conv_w)], strides=[2, 2], pads=[1, 1, 1, 1])])  # (B,256,28,64)
    for _ in range(2):  # depthwise 3x3 stride 2 + pointwise 256 -> 256, twice (dw_striding)
        dw = rng.standard_normal((PRE_CH, 1, 3, 3)).astype(np.float32) * 0.3
        c1 = g.op("Conv", [c1, g.const(dw)], strides=[2, 2], pads=[1, 1, 1, 1], group=PRE_CH)
        pw = rng.standard_normal((PRE_CH, PRE_CH, 1, 1)).astype(np.float32) / 16.0
        c1 = g.op("Relu", [g.op("Conv", [c1, g.const(pw)])])  # -> (B,256,7,16)
    flat = g.op("Reshape", [g.op("Transpose", [c1], perm=[0, 2, 1, 3]), I64([0, CHUNK_T, PRE_CH * 16])])
    x = qlinear(flat, PRE_CH * 16, D)  # (B,7,1024)

    pos = np.stack([np.sin(np.arange(POS)[:, None] / 10000 ** (np.arange(D)[None, :] / D))]).astype(np.float32)  # (1,153,D)
    pos_c = g.const(pos, "pos_emb")
    next_ch, next_t = [], []
    dh = D // HEADS
    for layer in range(LAYERS):
        x = g.op("Add", [x, ff(x)])
        # -- attention over the 70 cached frames and the chunk's 7
        cache = g.op("Gather", ["cache_last_channel", I64(layer)], axis=1)  # (B,70,D)
        h = norm(x)
        kv_in = g.op("Concat", [cache, h], axis=1)  # (B,77,D)
        next_ch.append(g.op("Unsqueeze", [g.op("Slice", [kv_in, I64([CHUNK_T]), I64([LEFT + CHUNK_T]), I64([1])]), I64([1])]))
        heads = lambda t: g.op("Transpose", [g.op("Reshape", [t, I64([0, -1, HEADS, dh])])], perm=[0, 2, 1, 3])  # noqa: E731
        q, k, v = heads(qlinear(h, D, D)), heads(qlinear(kv_in, D, D)), heads(qlinear(kv_in, D, D))
        p = qlinear(pos_c, D, D, bias=False)  # linear_pos over 2L-1 positions (its cost), (1,153,D)
        p = heads(g.op("Slice", [p, I64([0]), I64([LEFT + CHUNK_T]), I64([1])]))
        kt = g.op("Transpose", [g.op("Add", [k, p])], perm=[0, 1, 3, 2])
        att = g.op("Softmax", [g.op("Mul", [g.op("MatMul", [q, kt]), g.const(np.float32(1 / np.sqrt(dh)))])], axis=-1)
        ctx = g.op("Reshape", [g.op("Transpose", [g.op("MatMul", [att, v])], perm=[0, 2, 1, 3]), I64([0, -1, D])])
        x = g.op("Add", [x, qlinear(ctx, D, D)])
        # -- convolution module with its 8-frame cache
        pw1 = qlinear(norm(x), D, 2 * D)
        a = g.op("Slice", [pw1, I64([0]), I64([D]), I64([2])])
        b = g.op("Slice", [pw1, I64([D]), I64([2 * D]), I64([2])])
        glu = g.op("Transpose", [g.op("Mul", [a, g.op("Sigmoid", [b])])], perm=[0, 2, 1])  # (B,D,7)
        tcache = g.op("Gather", ["cache_last_time", I64(layer)], axis=1)  # (B,D,8)
        cat = g.op("Concat", [tcache, glu], axis=2)  # (B,D,15)
        next_t.append(g.op("Unsqueeze", [g.op("Slice", [cat, I64([CHUNK_T]), I64([CHUNK_T + KERNEL - 1]), I64([2])]), I64([1])]))
        dw = rng.standard_normal((D, 1, KERNEL)).astype(np.float32) / 3.0
        conv = swish(g.op("Conv", [cat, g.const(dw)], group=D))  # (B,D,7)
        x = g.op("Add", [x, qlinear(g.op("Transpose", [conv], perm=[0, 2, 1]), D, D)])
        x = norm(g.op("Add", [x, ff(x)]))
    # ---- the prompt MLP: [x, one-hot(prompt)] -> 2048 -> 1024
    onehot = g.op("Gather", [g.const(np.eye(PROMPTS_N, dtype=np.float32), "prompts"), "prompt_index"], axis=0)  # (B,P)
    onehot = g.op("Expand", [g.op("Unsqueeze", [onehot, I64([1])]), I64([1, CHUNK_T, 1])])
    y = qlinear(g.op("Relu", [qlinear(g.op("Concat", [x, onehot], axis=2), D + PROMPTS_N, PROMPT_HIDDEN)]), PROMPT_HIDDEN, D)
    g.op("Transpose", [y], perm=[0, 2, 1], out="outputs")  # (B, D, 7)
    g.op("Add", [g.op("Mul", ["length", I64(0)]), I64(CHUNK_T)], out="encoded_lengths")
    g.op("Concat", next_ch, axis=1, out="cache_last_channel_next")
    g.op("Concat", next_t, axis=1, out="cache_last_time_next")
    g.op("Min", [g.op("Add", ["cache_last_channel_len", I64(CHUNK_T)]), I64(LEFT)], out="cache_last_channel_next_len")
    prompts = {"en-US": 0, "fr-FR": 1, "es-ES": 2, "de-DE": 3, "auto": 101}
    meta = {
        "vocab_size": VOCAB_OUT - 1, "window_size": WINDOW, "chunk_size_ms": 560, "chunk_shift": SHIFT, "normalize_type": "",
        "cache_last_channel_dim1": LAYERS, "cache_last_channel_dim2": LEFT, "cache_last_channel_dim3": D,
        "cache_last_time_dim1": LAYERS, "cache_last_time_dim2": D, "cache_last_time_dim3": KERNEL - 1,
        "pred_rnn_layers": 2, "pred_hidden": PRED, "subsampling_factor": SUB, "feat_dim": 128,
        "model_type": "EncDecRNNTBPEModelWithPrompt", "version": "1",
        "model_author": "dictee-synth REAL SIZE, RANDOM int8 weights (for cost only: not a speech model)",
        "url": "synthetic", "comment": "synthetic, Nemotron 3.5 560 ms dimensions, random weights",
        "prompt_dictionary": json.dumps(prompts, sort_keys=True), "auto_prompt_id": 101,
    }
    ins = [vi("audio_signal", TensorProto.FLOAT, ["B", 128, "T"]), vi("length", TensorProto.INT64, ["B"]),
           vi("cache_last_channel", TensorProto.FLOAT, ["B", LAYERS, LEFT, D]),
           vi("cache_last_time", TensorProto.FLOAT, ["B", LAYERS, D, KERNEL - 1]),
           vi("cache_last_channel_len", TensorProto.INT64, ["B"]), vi("prompt_index", TensorProto.INT64, ["B"])]
    outs = [vi("outputs", TensorProto.FLOAT, ["B", D, CHUNK_T]), vi("encoded_lengths", TensorProto.INT64, ["B"]),
            vi("cache_last_channel_next", TensorProto.FLOAT, ["B", LAYERS, LEFT, D]),
            vi("cache_last_time_next", TensorProto.FLOAT, ["B", LAYERS, D, KERNEL - 1]),
            vi("cache_last_channel_next_len", TensorProto.INT64, ["B"])]
    save(g, ins, outs, meta, f"{out}/{files['encoder']}", "REAL-SIZE Nemotron 3.5 encoder, random int8 weights")

    # ---- prediction network: embedding (int8, dequantised) + 2-layer LSTM 640
    g = synth.Graph()
    emb_q = rng.integers(-127, 128, size=(VOCAB_OUT, PRED), dtype=np.int8)
    emb = g.op("DequantizeLinear", [g.const(emb_q, "emb_int8"), g.const(np.float32(1 / 127)), g.const(np.int8(0))])
    e = g.op("Transpose", [g.op("Gather", [emb, "targets"], axis=0)], perm=[1, 0, 2])  # (1,B,H)
    h_all, c_all, seq = [], [], e
    for layer in range(2):
        W = (rng.standard_normal((1, 4 * PRED, PRED)) / np.sqrt(PRED)).astype(np.float32)
        R = (rng.standard_normal((1, 4 * PRED, PRED)) / np.sqrt(PRED)).astype(np.float32)
        h0 = g.op("Slice", ["states.1", I64([layer]), I64([layer + 1]), I64([0])])
        c0 = g.op("Slice", ["onnx::Slice_3", I64([layer]), I64([layer + 1]), I64([0])])
        y, hn, cn = g.name("y"), g.name("h"), g.name("c")
        g.nodes.append(synth.helper.make_node("LSTM", [seq, g.const(W), g.const(R), "", "", h0, c0], [y, hn, cn], hidden_size=PRED))
        seq = g.op("Squeeze", [y, I64([1])])
        h_all.append(hn)
        c_all.append(cn)
    g.op("Transpose", [seq], perm=[1, 2, 0], out="outputs")  # (B,H,1)
    g.op("Identity", ["target_length"], out="prednet_lengths")
    g.op("Concat", h_all, axis=0, out="states")
    g.op("Concat", c_all, axis=0, out="162")
    ins = [vi("targets", TensorProto.INT32, ["B", 1]), vi("target_length", TensorProto.INT32, ["B"]),
           vi("states.1", TensorProto.FLOAT, [2, "B", PRED]), vi("onnx::Slice_3", TensorProto.FLOAT, [2, "B", PRED])]
    outs = [vi("outputs", TensorProto.FLOAT, ["B", PRED, 1]), vi("prednet_lengths", TensorProto.INT32, ["B"]),
            vi("states", TensorProto.FLOAT, [2, "B", PRED]), vi("162", TensorProto.FLOAT, [2, "B", PRED])]
    save(g, ins, outs, {}, f"{out}/{files['decoder']}", "REAL-SIZE prediction network, random weights")

    # ---- joint: enc 1024 -> 640, pred 640 -> 640, ReLU, 640 -> 13088; blank biased up so that most frames are
    # blank, as in real speech (a random joint would emit a token at nearly every step)
    g = synth.Graph()
    enc = qlinear(g.op("Reshape", ["encoder_outputs", I64([-1, D])]), D, PRED)
    dec = qlinear(g.op("Reshape", ["decoder_outputs", I64([-1, PRED])]), PRED, PRED)
    logits = qlinear(g.op("Relu", [g.op("Add", [enc, dec])]), PRED, VOCAB_OUT, bias=False)
    bias = np.zeros(VOCAB_OUT, np.float32)
    bias[-1] = 3.0
    g.op("Reshape", [g.op("Add", [logits, g.const(bias)]), I64([-1, 1, 1, VOCAB_OUT])], out="outputs")
    save(g, [vi("encoder_outputs", TensorProto.FLOAT, ["B", D, 1]), vi("decoder_outputs", TensorProto.FLOAT, ["B", PRED, 1])],
         [vi("outputs", TensorProto.FLOAT, ["B", 1, 1, VOCAB_OUT])], {}, f"{out}/{files['joiner']}", "REAL-SIZE joint, random int8 weights")
    tokens = ["<unk>"] + [f"\u2581t{i}" for i in range(1, VOCAB_OUT - 1)] + ["<blk>"]
    synth.write_tokens(f"{out}/{files['tokens']}", tokens)
    return {"family": "nemo-streaming", "frame_ms": 80, "words": {}, "feature_dim": 128, "size": "real",
            "dimensions": {"layers": LAYERS, "d_model": D, "heads": HEADS, "ff": FF, "left_context": LEFT, "conv_kernel": KERNEL,
                           "pred_hidden": PRED, "joint_outputs": VOCAB_OUT, "window": WINDOW, "chunk_shift": SHIFT},
            "weights": "random int8 (onnxruntime dynamic-quantisation pattern); LSTM float32"}
