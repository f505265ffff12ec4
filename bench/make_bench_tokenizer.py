#!/usr/bin/env python3
"""Writes DIR/tokenizer.json for a benchmark checkpoint that has none (bench_decoder writes config.json and weights
only): a byte-level BPE of VOCAB pieces — the 256 byte symbols, then filler pieces — with no merges. The benches feed
token ids; loading a checkpoint folder needs a tokenizer of the model's vocabulary size.

    bench/make_bench_tokenizer.py /tmp/attnlab-bench-smollm2-135m-f32 49152
"""
import json
import sys


def byte_symbols():
    """GPT-2's byte → printable-character table (the ByteLevel pre-tokenizer's alphabet)."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + \
        list(range(ord("®"), ord("ÿ") + 1))
    chars, extra = printable[:], 0
    for b in range(256):
        if b not in printable:
            printable.append(b)
            chars.append(256 + extra)
            extra += 1
    return [chr(c) for c in chars]


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    folder, size = sys.argv[1], int(sys.argv[2])
    vocab = {s: i for i, s in enumerate(byte_symbols())}
    for i in range(len(vocab), size):
        vocab["<filler_%d>" % i] = i
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}
    tokenizer = {"version": "1.0", "truncation": None, "padding": None, "added_tokens": [], "normalizer": None,
                 "pre_tokenizer": byte_level, "post_processor": None, "decoder": byte_level,
                 "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                           "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "vocab": vocab,
                           "merges": []}}
    with open(folder + "/tokenizer.json", "w") as f:
        json.dump(tokenizer, f)


if __name__ == "__main__":
    main()
