#!/usr/bin/python3
"""Synthetic sherpa-onnx transducers of the exact shape sherpa-onnx 1.13.8 loads (test fixtures).

Run by `npm run models -- synth NAME --out DIR` (src/models/synth.ts), with Debian's python3-onnx (1.12)
and numpy; no torch. Deterministic: the same arguments write the same bytes.

Three families, each with the inputs, outputs and metadata that sherpa-onnx's loader reads
(k2-fsa/sherpa-onnx, sherpa-onnx/csrc/):
  zipformer2      online-zipformer2-transducer-model.cc (icefall's streaming Zipformer2: kroko, zipformer-en)
  nemo-streaming  online-transducer-nemo-model.cc + online-recognizer-transducer-nemo-impl.h (Nemotron 3.5,
                  multilingual: a `prompt_index` input and `prompt_dictionary` metadata)
  nemo-tdt        offline-transducer-nemo-model.cc (Parakeet TDT v3: joiner outputs tokens + durations)

The weights are chosen, not learnt, so that decoding is predictable: the encoder measures, per output
frame, the loudest log-mel bin in each of four frequency bands; a band louder than THRESHOLD makes the
joiner emit that band's word (per language for Nemotron, from the stream's prompt), unless the last
emitted token is already that band's (the decoder's output says which band the last token belongs to);
otherwise blank. So a tone burst at a band's frequency decodes to one word, at the encoder frame where
it starts; bursts must alternate bands for each to give a word. Band 3 of the offline model is
ambiguous on purpose: its best word is WORDS_OFFLINE[3][0], the second (0.7 lower) wins with a hotword.
The manifest (synthetic.json) written beside the model says which tone gives which word.
"""
import argparse
import json
import math
import os
import sys

import numpy as np

try:
    import onnx
    from onnx import TensorProto, helper, numpy_helper
except ImportError:  # pragma: no cover - reported by synth.ts
    sys.stderr.write("python3-onnx is missing (Debian: apt-get install python3-onnx)\n")
    sys.exit(3)

GENERATOR_VERSION = 1
OPSET = 13
IR_VERSION = 7
BANDS_HZ = [(220.0, 420.0), (750.0, 1100.0), (1700.0, 2400.0), (3800.0, 5200.0)]
TONES_HZ = [300, 900, 2000, 4400]
# log-mel above which a band is "loud": silence is log(eps) (about -16), a tone at -10 dBFS is above 0.
THRESHOLD = -8.0
GAIN = 4.0
BLANK_LOGIT = 0.5
# a word token away from its band: far below blank, so that no boost (hotwords) makes it come out of silence
WORD_BIAS = -10.0
SUPPRESS = -100.0
WORDS_ONLINE = {
    "fr": ["un", "deux", "trois", "quatre"],
    "es": ["uno", "dos", "tres", "cuatro"],
    "de": ["eins", "zwei", "drei", "vier"],
    "en": ["one", "two", "three", "four"],
    "auto": ["alpha", "bravo", "charlie", "delta"],
}
# Offline (the proofreading pass): cased and punctuated words, as Parakeet writes them.
WORDS_OFFLINE = [["Premier"], ["deuxième,"], ["troisième."], ["thorax", "torax"]]
HOTWORD_MARGIN = 0.7
PROMPTS = {"en-US": 0, "fr-FR": 1, "es-ES": 2, "de-DE": 3, "auto": 4}


def mel_kaldi(f):
    return 1127.0 * math.log(1.0 + f / 700.0)


def mel_slaney(f):
    return 3.0 * f / 200.0 if f < 1000.0 else 15.0 + 27.0 / math.log(6.4) * math.log(f / 1000.0)


def band_bins(family, feat_dim):
    """The mel bins (indices) whose centre lies in each band, for the features sherpa-onnx computes."""
    if family == "zipformer2":  # kaldi-native-fbank: 20 Hz .. 8000 - 400 Hz, HTK mel
        lo, hi, mel = mel_kaldi(20.0), mel_kaldi(7600.0), mel_kaldi
    else:  # NeMo: librosa (Slaney) mel, 0 .. 8000 Hz
        lo, hi, mel = mel_slaney(0.0), mel_slaney(8000.0), mel_slaney
    step = (hi - lo) / (feat_dim + 1)
    centres = [lo + (i + 1) * step for i in range(feat_dim)]
    out = []
    for a, b in BANDS_HZ:
        idx = [i for i, c in enumerate(centres) if mel(a) <= c <= mel(b)]
        if not idx:
            raise SystemExit(f"no mel bin in {a}-{b} Hz with {feat_dim} bins")
        out.append((idx[0], idx[-1] + 1))
    return out


class Graph:
    def __init__(self):
        self.nodes, self.inits, self.n = [], [], 0

    def name(self, p):
        self.n += 1
        return f"{p}_{self.n}"

    def const(self, arr, p="c"):
        n = self.name(p)
        self.inits.append(numpy_helper.from_array(np.asarray(arr), n))
        return n

    def op(self, op_type, inputs, p=None, out=None, **attrs):
        o = out or self.name(p or op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [o], **attrs))
        return o


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def save(g, inputs, outputs, meta, path, doc):
    graph = helper.make_graph(g.nodes, "synthetic", inputs, outputs, initializer=g.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="dictee-synth", producer_version=str(GENERATOR_VERSION))
    model.ir_version = IR_VERSION
    model.doc_string = doc
    for k, v in meta.items():
        p = model.metadata_props.add()
        p.key, p.value = k, str(v)
    onnx.checker.check_model(model)
    with open(path, "wb") as f:
        f.write(model.SerializeToString())


def loud_bands(g, x, bins, axis):
    """(…) features → per band, max log-mel over the band's bins minus the threshold, ReLU'd; concatenated on `axis`."""
    parts = []
    for a, b in bins:
        s = g.op("Slice", [x, g.const(np.array([a], np.int64)), g.const(np.array([b], np.int64)), g.const(np.array([axis], np.int64))])
        parts.append(g.op("ReduceMax", [s], axes=[axis], keepdims=1))
    cat = g.op("Concat", parts, axis=axis)
    return g.op("Relu", [g.op("Sub", [cat, g.const(np.array(THRESHOLD, np.float32))])])


def write_tokens(path, tokens):
    with open(path, "w", encoding="utf-8") as f:
        for i, t in enumerate(tokens):
            f.write(f"{t} {i}\n")


# ---------------------------------------------------------------- zipformer2 (kroko, zipformer-en)
def zipformer2(out, files, feat_dim, language, defect):
    bins = band_bins("zipformer2", feat_dim)
    words = WORDS_ONLINE.get(language, WORDS_ONLINE["en"])
    tokens = ["<blk>", "<sos/eos>", "<unk>"] + [f"\u2581{w}" for w in words]
    V, K = len(tokens), len(BANDS_HZ)
    T, chunk = 45, 32  # icefall chunk-16: 32 feature frames a chunk, 13 more of right context
    enc_dims, key_head, val_head, heads, layers, kernels, left = [8], [2], [2], [1], [1], [3], [4]
    meta = {
        "model_type": "zipformer2", "version": "1", "model_author": "dictee-synth (random: not a speech model)",
        "encoder_dims": ",".join(map(str, enc_dims)), "query_head_dims": ",".join(map(str, key_head)),
        "value_head_dims": ",".join(map(str, val_head)), "num_heads": ",".join(map(str, heads)),
        "num_encoder_layers": ",".join(map(str, layers)), "cnn_module_kernels": ",".join(map(str, kernels)),
        "left_context_len": ",".join(map(str, left)), "T": T, "decode_chunk_len": chunk,
        "comment": "synthetic fixture of dictee: tone bands to words",
    }
    if defect == "missing-metadata":
        del meta["decode_chunk_len"]
    g = Graph()
    ins = [vi("x", TensorProto.FLOAT, ["N", T, feat_dim])]
    outs = []
    state_specs = []
    for i in range(len(enc_dims)):
        for j in range(layers[i]):
            kd, vd, nl = key_head[i] * heads[i], val_head[i] * heads[i], 3 * enc_dims[i] // 4
            state_specs += [
                (f"cached_key_{j}", TensorProto.FLOAT, [left[i], "N", kd]),
                (f"cached_nonlin_attn_{j}", TensorProto.FLOAT, [1, "N", left[i], nl]),
                (f"cached_val1_{j}", TensorProto.FLOAT, [left[i], "N", vd]),
                (f"cached_val2_{j}", TensorProto.FLOAT, [left[i], "N", vd]),
                (f"cached_conv1_{j}", TensorProto.FLOAT, ["N", enc_dims[i], kernels[i] // 2]),
                (f"cached_conv2_{j}", TensorProto.FLOAT, ["N", enc_dims[i], kernels[i] // 2]),
            ]
    embed = (((feat_dim - 1) // 2) - 1) // 2
    state_specs += [("embed_states", TensorProto.FLOAT, ["N", 128, 3, embed]), ("processed_lens", TensorProto.INT64, ["N"])]
    loud = loud_bands(g, "x", bins, 2)  # (N, T, K)
    new = g.op("Slice", [loud, g.const(np.array([0], np.int64)), g.const(np.array([chunk], np.int64)), g.const(np.array([1], np.int64))])
    frames = g.op("Reshape", [new, g.const(np.array([0, chunk // 4, 4, K], np.int64))])
    g.op("ReduceMax", [frames], axes=[2], keepdims=0, out="encoder_out")  # (N, 8, K): one frame per 40 ms
    outs.append(vi("encoder_out", TensorProto.FLOAT, ["N", chunk // 4, K]))
    for name, t, shape in state_specs:
        ins.append(vi(name, t, shape))
        g.op("Identity", [name], out=f"new_{name}")
        outs.append(vi(f"new_{name}", t, shape))
    save(g, ins, outs, meta, os.path.join(out, files["encoder"]), "synthetic zipformer2 encoder")

    # decoder: y (N, context_size) int64 → which band the last token is of (N, K)
    emb = np.zeros((V, K), np.float32)
    for b in range(K):
        emb[3 + b, b] = 1.0
    g = Graph()
    last = g.op("Slice", ["y", g.const(np.array([1], np.int64)), g.const(np.array([2], np.int64)), g.const(np.array([1], np.int64))])
    e = g.op("Gather", [g.const(emb, "embedding"), last], axis=0)  # (N, 1, K)
    g.op("Reshape", [e, g.const(np.array([-1, K], np.int64))], out="decoder_out")
    dmeta = {"vocab_size": V, "context_size": 2}
    save(g, [vi("y", TensorProto.INT64, ["N", 2])], [vi("decoder_out", TensorProto.FLOAT, ["N", K])], dmeta, os.path.join(out, files["decoder"]), "synthetic decoder")

    # joiner: (N, K) encoder frame, (N, K) last band → (N, V)
    w_enc = np.zeros((K, V), np.float32)
    w_dec = np.zeros((K, V), np.float32)
    bias = np.full((V,), WORD_BIAS, np.float32)
    bias[0] = BLANK_LOGIT
    for b in range(K):
        w_enc[b, 3 + b] = GAIN
        w_dec[b, 3 + b] = SUPPRESS
    g = Graph()
    a = g.op("MatMul", ["encoder_out", g.const(w_enc)])
    d = g.op("MatMul", ["decoder_out", g.const(w_dec)])
    g.op("Add", [g.op("Add", [a, d]), g.const(bias)], out="logit")
    save(g, [vi("encoder_out", TensorProto.FLOAT, ["N", K]), vi("decoder_out", TensorProto.FLOAT, ["N", K])],
         [vi("logit", TensorProto.FLOAT, ["N", V])], {}, os.path.join(out, files["joiner"]), "synthetic joiner")
    write_tokens(os.path.join(out, files["tokens"]), tokens)
    return {"family": "zipformer2", "frame_ms": 40, "words": {language: words}, "feature_dim": feat_dim}


# ---------------------------------------------------------------- NeMo decoder and joiner (both NeMo families)
def nemo_decoder(path, token_band, V, layers, hidden):
    K = len(BANDS_HZ)
    emb = np.zeros((V, hidden), np.float32)
    for tok, band in token_band.items():
        emb[tok, band] = 1.0
    g = Graph()
    e = g.op("Gather", [g.const(emb, "embedding"), "targets"], axis=0)  # (B, 1, H)
    g.op("Transpose", [e], perm=[0, 2, 1], out="outputs")  # (B, H, 1)
    g.op("Identity", ["target_length"], out="prednet_lengths")
    g.op("Identity", ["states.1"], out="states")
    g.op("Identity", ["onnx::Slice_3"], out="162")
    ins = [vi("targets", TensorProto.INT32, ["B", 1]), vi("target_length", TensorProto.INT32, ["B"]),
           vi("states.1", TensorProto.FLOAT, [layers, "B", hidden]), vi("onnx::Slice_3", TensorProto.FLOAT, [layers, "B", hidden])]
    outs = [vi("outputs", TensorProto.FLOAT, ["B", hidden, 1]), vi("prednet_lengths", TensorProto.INT32, ["B"]),
            vi("states", TensorProto.FLOAT, [layers, "B", hidden]), vi("162", TensorProto.FLOAT, [layers, "B", hidden])]
    save(g, ins, outs, {}, path, "synthetic NeMo prediction network")
    assert K <= hidden


def nemo_joiner(path, w_enc, token_band, offsets, V, hidden, durations=None):
    n_out = V + (len(durations) if durations is not None else 0)
    d_enc = w_enc.shape[0]
    we = np.zeros((d_enc, n_out), np.float32)
    we[:, :V] = w_enc
    wd = np.zeros((hidden, n_out), np.float32)
    bias = np.full((n_out,), WORD_BIAS, np.float32)
    bias[V - 1] = BLANK_LOGIT
    for tok, band in token_band.items():
        wd[band, tok] = SUPPRESS
        bias[tok] = offsets.get(tok, WORD_BIAS)
    if durations is not None:
        bias[V:] = durations
    g = Graph()
    e = g.op("Reshape", ["encoder_outputs", g.const(np.array([-1, d_enc], np.int64))])
    d = g.op("Reshape", ["decoder_outputs", g.const(np.array([-1, hidden], np.int64))])
    s = g.op("Add", [g.op("Add", [g.op("MatMul", [e, g.const(we)]), g.op("MatMul", [d, g.const(wd)])]), g.const(bias)])
    g.op("Reshape", [s, g.const(np.array([-1, 1, 1, n_out], np.int64))], out="outputs")
    save(g, [vi("encoder_outputs", TensorProto.FLOAT, ["B", d_enc, 1]), vi("decoder_outputs", TensorProto.FLOAT, ["B", hidden, 1])],
         [vi("outputs", TensorProto.FLOAT, ["B", 1, 1, n_out])], {}, path, "synthetic NeMo joint")


# ---------------------------------------------------------------- NeMo cache-aware streaming (Nemotron 3.5)
def nemo_streaming(out, files, feat_dim, defect):
    bins = band_bins("nemo", feat_dim)
    K = len(BANDS_HZ)
    langs = sorted(PROMPTS, key=lambda k: PROMPTS[k])  # en-US, fr-FR, es-ES, de-DE, auto
    L = len(langs)
    tokens = ["<unk>"]
    token_band, enc_index = {}, {}
    for li, lang in enumerate(langs):
        short = lang.split("-")[0]
        for b, w in enumerate(WORDS_ONLINE[short]):
            token_band[len(tokens)] = b
            enc_index[len(tokens)] = b * L + li
            tokens.append(f"\u2581{w}")
    tokens += ["<fr-FR>", "<de-DE>", "<blk>"]  # language tags (filtered by sherpa-onnx), blank last
    V = len(tokens)
    window, shift, sub = 65, 56, 8  # 560 ms chunks: 56 feature frames, 9 of pre-encode cache
    layers_c, cache_ch, d_model, conv_ctx = 2, 8, 4, 3
    pred_layers, pred_hidden = 2, 8
    meta = {
        "vocab_size": V - 1, "window_size": window, "chunk_size_ms": 560, "chunk_shift": shift, "normalize_type": "",
        "cache_last_channel_dim1": layers_c, "cache_last_channel_dim2": cache_ch, "cache_last_channel_dim3": d_model,
        "cache_last_time_dim1": layers_c, "cache_last_time_dim2": d_model, "cache_last_time_dim3": conv_ctx,
        "pred_rnn_layers": pred_layers, "pred_hidden": pred_hidden, "subsampling_factor": sub, "feat_dim": feat_dim,
        "model_type": "EncDecRNNTBPEModelWithPrompt", "version": "1", "model_author": "dictee-synth (random: not a speech model)",
        "url": "synthetic", "comment": "synthetic fixture of dictee: tone bands to words, per prompt",
        "prompt_dictionary": json.dumps(PROMPTS, sort_keys=True), "auto_prompt_id": PROMPTS["auto"],
    }
    if defect == "missing-metadata":
        del meta["pred_hidden"]
    g = Graph()
    loud = loud_bands(g, "audio_signal", bins, 1)  # (B, K, window)
    new = g.op("Slice", [loud, g.const(np.array([0], np.int64)), g.const(np.array([shift], np.int64)), g.const(np.array([2], np.int64))])
    r = g.op("Reshape", [new, g.const(np.array([0, K, shift // sub, sub], np.int64))])
    frames = g.op("ReduceMax", [r], axes=[3], keepdims=1)  # (B, K, T', 1)
    frames = g.op("Transpose", [frames], perm=[0, 1, 3, 2])  # (B, K, 1, T')
    onehot = g.op("Gather", [g.const(np.eye(L, dtype=np.float32), "prompts"), "prompt_index"], axis=0)  # (B, L)
    lang = g.op("Unsqueeze", [onehot, g.const(np.array([1, 3], np.int64))])  # (B, 1, L, 1)
    prod = g.op("Mul", [frames, lang])  # (B, K, L, T')
    g.op("Reshape", [prod, g.const(np.array([0, K * L, shift // sub], np.int64))], out="outputs")
    g.op("Add", [g.op("Mul", ["length", g.const(np.array(0, np.int64))]), g.const(np.array(shift // sub, np.int64))], out="encoded_lengths")
    g.op("Identity", ["cache_last_channel"], out="cache_last_channel_next")
    g.op("Identity", ["cache_last_time"], out="cache_last_time_next")
    g.op("Identity", ["cache_last_channel_len"], out="cache_last_channel_next_len")
    ins = [vi("audio_signal", TensorProto.FLOAT, ["B", feat_dim, "T"]), vi("length", TensorProto.INT64, ["B"]),
           vi("cache_last_channel", TensorProto.FLOAT, ["B", layers_c, cache_ch, d_model]),
           vi("cache_last_time", TensorProto.FLOAT, ["B", layers_c, d_model, conv_ctx]),
           vi("cache_last_channel_len", TensorProto.INT64, ["B"]), vi("prompt_index", TensorProto.INT64, ["B"])]
    outs = [vi("outputs", TensorProto.FLOAT, ["B", K * L, shift // sub]), vi("encoded_lengths", TensorProto.INT64, ["B"]),
            vi("cache_last_channel_next", TensorProto.FLOAT, ["B", layers_c, cache_ch, d_model]),
            vi("cache_last_time_next", TensorProto.FLOAT, ["B", layers_c, d_model, conv_ctx]),
            vi("cache_last_channel_next_len", TensorProto.INT64, ["B"])]
    save(g, ins, outs, meta, os.path.join(out, files["encoder"]), "synthetic cache-aware NeMo encoder")
    nemo_decoder(os.path.join(out, files["decoder"]), token_band, V, pred_layers, pred_hidden)
    w_enc = np.zeros((K * L, V), np.float32)
    for tok, row in enc_index.items():
        w_enc[row, tok] = GAIN
    nemo_joiner(os.path.join(out, files["joiner"]), w_enc, token_band, {}, V, pred_hidden)
    if defect == "blank-not-last":
        tokens = tokens[:-2] + [tokens[-1], tokens[-2]]
    write_tokens(os.path.join(out, files["tokens"]), tokens)
    return {"family": "nemo-streaming", "frame_ms": 80, "words": {l.split("-")[0]: WORDS_ONLINE[l.split("-")[0]] for l in langs}, "feature_dim": feat_dim}


# ---------------------------------------------------------------- NeMo TDT, offline (Parakeet v3)
def nemo_tdt(out, files, feat_dim, defect):
    bins = band_bins("nemo", feat_dim)
    K = len(BANDS_HZ)
    tokens = ["<unk>"]
    token_band, offsets, words = {}, {}, []
    for b, alts in enumerate(WORDS_OFFLINE):
        for i, w in enumerate(alts):
            token_band[len(tokens)] = b
            offsets[len(tokens)] = WORD_BIAS - i * HOTWORD_MARGIN
            tokens.append(f"\u2581{w}")
        words.append(alts)
    tokens.append("<blk>")
    V = len(tokens)
    sub, pred_layers, pred_hidden = 8, 2, 8
    durations = [0, 1, 2, 3, 4]
    meta = {
        "vocab_size": V - 1, "normalize_type": "", "pred_rnn_layers": pred_layers, "pred_hidden": pred_hidden,
        "subsampling_factor": sub, "model_type": "EncDecRNNTBPEModel", "version": "2", "model_author": "dictee-synth (random: not a speech model)",
        "url": "synthetic-parakeet-tdt", "comment": "synthetic fixture of dictee: tone bands to words", "feat_dim": feat_dim,
    }
    if defect == "missing-metadata":
        del meta["vocab_size"]
    g = Graph()
    loud = loud_bands(g, "audio_signal", bins, 1)  # (B, K, T)
    g.op("MaxPool", [loud], kernel_shape=[sub], strides=[sub], ceil_mode=1, out="outputs")  # (B, K, ceil(T/8))
    g.op("Div", [g.op("Add", ["length", g.const(np.array(sub - 1, np.int64))]), g.const(np.array(sub, np.int64))], out="encoded_lengths")
    ins = [vi("audio_signal", TensorProto.FLOAT, ["B", feat_dim, "T"]), vi("length", TensorProto.INT64, ["B"])]
    outs = [vi("outputs", TensorProto.FLOAT, ["B", K, "T8"]), vi("encoded_lengths", TensorProto.INT64, ["B"])]
    save(g, ins, outs, meta, os.path.join(out, files["encoder"]), "synthetic NeMo encoder (offline)")
    nemo_decoder(os.path.join(out, files["decoder"]), token_band, V, pred_layers, pred_hidden)
    w_enc = np.zeros((K, V), np.float32)
    for tok, band in token_band.items():
        w_enc[band, tok] = GAIN
    # durations: always a skip of one frame
    nemo_joiner(os.path.join(out, files["joiner"]), w_enc, token_band, offsets, V, pred_hidden,
                durations=None if defect == "not-tdt" else [0.0, 5.0, 0.0, 0.0, 0.0])
    write_tokens(os.path.join(out, files["tokens"]), tokens)
    return {"family": "nemo-tdt", "frame_ms": 80, "words": {"*": [a[0] for a in words]}, "hotword_alternative": WORDS_OFFLINE[3][1], "feature_dim": feat_dim}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--family", required=True, choices=["zipformer2", "nemo-streaming", "nemo-tdt"])
    p.add_argument("--out", required=True)
    p.add_argument("--files", required=True, help="JSON: {encoder, decoder, joiner, tokens} file names")
    p.add_argument("--feature-dim", type=int, required=True)
    p.add_argument("--language", default="en")
    p.add_argument("--defect", default="", choices=["", "missing-metadata", "blank-not-last", "not-tdt"])
    p.add_argument("--size", default="tiny", choices=["tiny", "real"], help="real: Nemotron 3.5's real dimensions, random int8 weights (nemotron_real.py)")
    a = p.parse_args()
    files = json.loads(a.files)
    os.makedirs(a.out, exist_ok=True)
    if a.size == "real":
        if a.family != "nemo-streaming" or a.defect:
            raise SystemExit("--size real is made for the NeMo streaming family (Nemotron 3.5) only, without defects")
        import nemotron_real  # noqa: E402 (beside this script)

        m = nemotron_real.build(sys.modules[__name__], a.out, files)
    elif a.family == "zipformer2":
        m = zipformer2(a.out, files, a.feature_dim, a.language, a.defect)
    elif a.family == "nemo-streaming":
        m = nemo_streaming(a.out, files, a.feature_dim, a.defect)
    else:
        m = nemo_tdt(a.out, files, a.feature_dim, a.defect)
    m.update({"generator_version": GENERATOR_VERSION, "tones_hz": TONES_HZ, "onnx": onnx.__version__, "opset": OPSET, "ir_version": IR_VERSION, "defect": a.defect or None})
    json.dump(m, sys.stdout, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
