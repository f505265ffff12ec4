#!/usr/bin/python3
"""Small SentencePiece Unigram models, their T5-style tokenizer.json files and reference encodings, for
tests/core/text/test_tokenizer_spm.cpp.

Run with Debian's python3-sentencepiece (the SentencePiece library's own encoder) and Hugging Face's
tokenizers from npm (the Rust core through its Node binding):
    mkdir -p /tmp/tokref2 && cd /tmp/tokref2 && npm install tokenizers
    NODE_PATH=/tmp/tokref2/node_modules /usr/bin/python3 tests/reference/make_spm_reference.py
Writes tests/reference/tokenizers/spm/:
  t5like.model        Unigram, nmt_nfkc normalization, T5's special ids (pad 0, eos 1, unk 2, no bos)
  t5like.json         the tokenizer.json T5's files use (legacy T5 layout: Precompiled normalizer,
                      WhitespaceSplit + Metaspace pre-tokenizer, Unigram, "$A </s>" template, <extra_id_N>)
  fallback.model      Unigram with byte_fallback (<0x00>…<0xFF> pieces), nmt_nfkc
  fallback.json       its tokenizer.json in the newer converter's layout (Precompiled, Strip right, Replace
                      " {2,}" → "▁"; Metaspace prepend_scheme "always"; byte_fallback)
  marian/             a Marian-like folder: source.spm, target.spm and the joint vocab.json Marian's
                      converter writes ("</s>": 0, "<unk>": 1, the pieces of both models, "<pad>" last)
  reference.json      {"texts": [...], "hf": {name: [{ids, tokens, offsets}]}, "spm": {name: [{ids, pieces,
                      spans}]}, "marian": [{ids}]}; hf offsets in code points of the text (the binding's),
                      spm spans [begin, end) from the immutable proto, which the Python binding gives in
                      code points of the text too (the library reports bytes).
Deterministic: a fixed random seed and a single training thread, so re-running gives the same files.
"""
import base64
import io
import json
import os
import random
import subprocess
import sys

import sentencepiece as spm

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, 'tokenizers', 'spm')

WORDS = ('the attention head looks back at earlier tokens and weighs them a model with many layers does this '
         'again translation encoder decoder cross source target sentence house small green water river '
         'café naïve résumé über straße élève garçon Ångström São Paulo crème brûlée façade coöperate '
         'Москва привет мир 東京 注意力 机制 模型 日本語 テキスト 한국어 😀 👍 🌍 ❤️ '
         'ＡＢＣ ｆｕｌｌ ｗｉｄｔｈ １２３ ﬁ ① ² ½ ™ … — “quoted” «guillemets»').split()


def corpus(seed, n):
    rng = random.Random(seed)
    lines = []
    for _ in range(n):
        words = [rng.choice(WORDS) for _ in range(rng.randint(4, 14))]
        if rng.random() < 0.3:
            words.insert(rng.randint(0, len(words)), str(rng.randint(0, 99999)))
        if rng.random() < 0.2:
            words.append(rng.choice(['.', '!', '?', ',', ';']))
        lines.append(' '.join(words))
    return lines


# Texts the references encode: accents composed and decomposed, full-width forms, ligatures, CJK, emoji
# (with modifiers, ZWJ sequences and flags), control characters, runs of spaces, unknown scripts, literal
# byte-piece names and special tokens typed in the text.
TEXTS = [
    'the attention head looks back at earlier tokens',
    'Café naïve résumé — e\u0301 a\u0300 o\u0308 Å Ω ﬁ ① ² ½',
    'ＡＢＣ ｆｕｌｌ ｗｉｄｔｈ １２３ and ｶﾀｶﾅ',
    '東京の注意力机制 模型 日本語テキスト 한국어',
    'Emoji: 😀 👍🏽 👨\u200d👩\u200d👧 🇫🇷 ❤️ 🌍!',
    '  leading   and   trailing  spaces  ',
    'tabs\tand\nnewlines\r\nhere',
    'control\u0001chars\u200band\u00adsoft\ufeffhyphen',
    'Ελληνικά και עברית και ไทย',
    'The price is 12345 dollars (½ off) ™',
    '\u0001start with a control',
    'x',
    '',
    '   ',
    'ｶﾞｷﾞ ｸﾞ e\u0301\u0301 q\u0323\u0307 Z\u0351\u0352\u0353',
    'literal <0x41> and <unk> and </s> and <extra_id_0> here',
    'house<pad>river',
    '>>fra<< the small green house',
    '\U0001F9D1\u200d\U0001F91D\u200d\U0001F9D1 \u0915\u094d\u0937 \u1100\u1161\u11a8',
]


def train(name, lines, **options):
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(lines), model_writer=model, model_type='unigram',
                                   num_threads=1, seed_sentencepiece_size=20000, shuffle_input_sentence=False,
                                   minloglevel=2, **options)
    data = model.getvalue()
    with open(os.path.join(OUT, name), 'wb') as f:
        f.write(data)
    return spm.SentencePieceProcessor(model_proto=data), data


def proto_fields(data):
    """The top-level fields of a protobuf message: {field number: [values]} (varint → int, bytes → bytes)."""
    out, pos = {}, 0

    def varint():
        nonlocal pos
        v, shift = 0, 0
        while True:
            b = data[pos]
            pos += 1
            v |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                return v

    while pos < len(data):
        key = varint()
        field, wire = key >> 3, key & 7
        if wire == 0:
            value = varint()
        elif wire == 2:
            n = varint()
            value = data[pos:pos + n]
            pos += n
        elif wire == 5:
            value = data[pos:pos + 4]
            pos += 4
        elif wire == 1:
            value = data[pos:pos + 8]
            pos += 8
        else:
            raise ValueError('unexpected wire type %d' % wire)
        out.setdefault(field, []).append(value)
    return out


def charsmap(model_bytes):
    """ModelProto.normalizer_spec (field 3) .precompiled_charsmap (field 2)."""
    spec = proto_fields(model_bytes)[3][0]
    return proto_fields(spec).get(2, [b''])[0]


def vocab_of(sp):
    return [[sp.id_to_piece(i), sp.get_score(i)] for i in range(sp.get_piece_size())]


def special(content, id_):
    return {'id': id_, 'content': content, 'single_word': False, 'lstrip': False, 'rstrip': False,
            'normalized': False, 'special': True}


def eos_template(eos_id):
    seq = lambda s: {'Sequence': {'id': s, 'type_id': 0}}
    eos = {'SpecialToken': {'id': '</s>', 'type_id': 0}}
    return {'type': 'TemplateProcessing', 'single': [seq('A'), eos], 'pair': [seq('A'), eos, seq('B'), eos],
            'special_tokens': {'</s>': {'id': '</s>', 'ids': [eos_id], 'tokens': ['</s>']}}}


def t5_json(sp, data, extra_ids):
    vocab = vocab_of(sp)
    n = len(vocab)
    # T5Converter: the sentinels follow the pieces, <extra_id_{k-1}> first, all scored 0.
    vocab += [['<extra_id_%d>' % k, 0.0] for k in range(extra_ids - 1, -1, -1)]
    added = [special(sp.id_to_piece(i), i) for i in (sp.pad_id(), sp.eos_id(), sp.unk_id())]
    added += [special('<extra_id_%d>' % k, n + extra_ids - 1 - k) for k in range(extra_ids)]
    return {'version': '1.0', 'truncation': None, 'padding': None, 'added_tokens': added,
            'normalizer': {'type': 'Precompiled', 'precompiled_charsmap': base64.b64encode(charsmap(data)).decode()},
            'pre_tokenizer': {'type': 'Sequence', 'pretokenizers': [
                {'type': 'WhitespaceSplit'},
                {'type': 'Metaspace', 'replacement': '\u2581', 'add_prefix_space': True}]},
            'post_processor': eos_template(sp.eos_id()),
            'decoder': {'type': 'Metaspace', 'replacement': '\u2581', 'add_prefix_space': True},
            'model': {'type': 'Unigram', 'unk_id': sp.unk_id(), 'vocab': vocab}}


def fallback_json(sp, data):
    added = [special(sp.id_to_piece(i), i) for i in (sp.unk_id(), sp.bos_id(), sp.eos_id())]
    return {'version': '1.0', 'truncation': None, 'padding': None, 'added_tokens': added,
            'normalizer': {'type': 'Sequence', 'normalizers': [
                {'type': 'Precompiled', 'precompiled_charsmap': base64.b64encode(charsmap(data)).decode()},
                {'type': 'Strip', 'strip_left': False, 'strip_right': True},
                {'type': 'Replace', 'pattern': {'Regex': ' {2,}'}, 'content': '\u2581'}]},
            'pre_tokenizer': {'type': 'Metaspace', 'replacement': '\u2581', 'prepend_scheme': 'always',
                              'split': True},
            'post_processor': eos_template(sp.eos_id()),
            'decoder': None,
            'model': {'type': 'Unigram', 'unk_id': sp.unk_id(), 'vocab': vocab_of(sp), 'byte_fallback': True}}


HF_SCRIPT = r'''
const {Tokenizer} = require('tokenizers');
(async () => {
  const tok = Tokenizer.fromFile(process.argv[1]);
  const texts = JSON.parse(require('fs').readFileSync(0, 'utf8'));
  const out = [];
  for (const text of texts) {
    const e = await tok.encode(text, null, {addSpecialTokens: true});
    out.push({ids: Array.from(e.getIds()), tokens: e.getTokens(), offsets: e.getOffsets()});
  }
  process.stdout.write(JSON.stringify(out));
})().catch((e) => { console.error(e); process.exit(1); });
'''


def hf_encode(path):
    r = subprocess.run(['node', '-e', HF_SCRIPT, path], input=json.dumps(TEXTS).encode(), capture_output=True,
                       check=True)
    return json.loads(r.stdout)


def spm_encode(sp):
    out = []
    for text in TEXTS:
        p = sp.encode(text, out_type='immutable_proto')
        out.append({'ids': [x.id for x in p.pieces], 'pieces': [x.piece for x in p.pieces],
                    'spans': [[x.begin, x.end] for x in p.pieces]})
    return out


def marian_ids(sp, vocab):
    """MarianTokenizer without sacremoses: a leading ">>xx<<" code kept whole, every ">>…<<" removed from the
    text, special tokens (</s>, <unk>, <pad>) split out first, pieces → vocab.json (unknown → <unk>), </s>."""
    import re
    code_re = re.compile('>>.+<<')
    specials = ['</s>', '<unk>', '<pad>']
    out = []
    for text in TEXTS:
        ids = []
        parts = re.split('(' + '|'.join(re.escape(s) for s in specials) + ')', text)
        for k, part in enumerate(parts):
            if part in specials:
                ids.append(vocab[part])
                continue
            if not part:
                continue
            m = code_re.match(part)
            code = [m.group(0)] if m else []
            pieces = code + sp.encode(code_re.sub('', part), out_type=str)
            ids += [vocab.get(p, vocab['<unk>']) for p in pieces]
        out.append({'ids': ids + [vocab['</s>']]})
    return out


def main():
    os.makedirs(os.path.join(OUT, 'marian'), exist_ok=True)
    t5, t5_data = train('t5like.model', corpus(1, 3000), vocab_size=400, character_coverage=0.995, pad_id=0,
                        eos_id=1, unk_id=2, bos_id=-1)
    fb, fb_data = train('fallback.model', corpus(2, 3000), vocab_size=700, character_coverage=0.99,
                        byte_fallback=True)
    src, _ = train('marian/source.spm', corpus(3, 2000), vocab_size=300, character_coverage=0.995)
    tgt, _ = train('marian/target.spm', corpus(4, 2000), vocab_size=300, character_coverage=0.995,
                   normalization_rule_name='identity')
    # Marian's converter: the joint vocabulary, </s> and <unk> first, then the pieces of both models in
    # order of first appearance, <pad> last; plus a language code so that ">>fra<<" has an id.
    vocab = {'</s>': 0, '<unk>': 1}
    for sp in (src, tgt):
        for i in range(sp.get_piece_size()):
            if not (sp.is_control(i) or sp.is_unknown(i)):
                vocab.setdefault(sp.id_to_piece(i), len(vocab))
    vocab['>>fra<<'] = len(vocab)
    vocab['<pad>'] = len(vocab)
    with open(os.path.join(OUT, 'marian', 'vocab.json'), 'w', encoding='utf-8') as f:
        json.dump(vocab, f, ensure_ascii=False, indent=0)
    with open(os.path.join(OUT, 'marian', 'tokenizer_config.json'), 'w') as f:
        json.dump({'source_lang': 'eng', 'target_lang': 'fra', 'unk_token': '<unk>', 'eos_token': '</s>',
                   'pad_token': '<pad>', 'separate_vocabs': False}, f, indent=1)

    for name, j in (('t5like.json', t5_json(t5, t5_data, 3)), ('fallback.json', fallback_json(fb, fb_data))):
        with open(os.path.join(OUT, name), 'w', encoding='utf-8') as f:
            json.dump(j, f, ensure_ascii=False, indent=0)
    ref = {'texts': TEXTS,
           'hf': {n: hf_encode(os.path.join(OUT, n + '.json')) for n in ('t5like', 'fallback')},
           'spm': {'t5like': spm_encode(t5), 'fallback': spm_encode(fb), 'marian_source': spm_encode(src),
                   'marian_target': spm_encode(tgt)},
           'marian': marian_ids(src, vocab)}
    with open(os.path.join(OUT, 'reference.json'), 'w', encoding='utf-8') as f:
        json.dump(ref, f, ensure_ascii=False, indent=0)


if __name__ == '__main__':
    sys.exit(main())
