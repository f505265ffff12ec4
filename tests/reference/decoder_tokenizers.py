"""Tiny tokenizers in the real Hugging Face tokenizer.json format, for the decoder checkpoints.

Used by make_decoder_reference.py. Three flavours, each with merges trained on CORPUS below:
  byte_level('llama3')   Llama-3: Split(Llama-3 regex, Isolated) + ByteLevel(use_regex false), ignore_merges,
                         TemplateProcessing adding <|begin_of_text|>; specials are added tokens after the BPE vocab
  byte_level('qwen')     Qwen2/3: NFC normalizer, Qwen's regex (single digits), ByteLevel post-processor, no BOS
  sentencepiece(...)     Llama-2/Mistral/Gemma: '▁' for spaces (Prepend+Replace normalizer, or a Metaspace
                         pre-tokenizer), BPE with byte_fallback over the 256 <0xNN> tokens, a <s>/<bos> BOS
Each returns (tokenizer.json object, tokenizer_config.json object, vocabulary size, {special name: id}).
"""
from make_hf_reference import bytes_to_unicode

CORPUS = [
    'the cat sat on the mat and the dog sat on the log',
    'the quick brown fox jumps over the lazy dog',
    'a transformer is a stack of attention and feed forward layers',
    'queries keys and values are projections of the same tokens',
    'every token attends to the tokens before it, again and again',
    'she gave him the roses and they walked home in 2024',
    'Attention heads read from the residual stream and write back to it.',
]

LLAMA3_REGEX = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|"
                r"\s*[\r\n]+|\s+(?!\S)|\s+")
QWEN_REGEX = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|"
              r"\s*[\r\n]+|\s+(?!\S)|\s+")


def train_merges(words, count):
    """words: dict tuple-of-symbols -> count. Greedy BPE: the most frequent pair, ties to the first in sort order."""
    merges = []
    for _ in range(count):
        pairs = {}
        for w, c in words.items():
            for a, b in zip(w, w[1:]):
                pairs[(a, b)] = pairs.get((a, b), 0) + c
        if not pairs:
            break
        best = max(sorted(pairs), key=lambda p: pairs[p])
        merges.append(best)
        merged = {}
        for w, c in words.items():
            out, i = [], 0
            while i < len(w):
                if i + 1 < len(w) and (w[i], w[i + 1]) == best:
                    out.append(w[i] + w[i + 1])
                    i += 2
                else:
                    out.append(w[i])
                    i += 1
            merged[tuple(out)] = merged.get(tuple(out), 0) + c
        words = merged
    return merges


def added(i, content, special=True):
    return {'id': i, 'content': content, 'single_word': False, 'lstrip': False, 'rstrip': False, 'normalized': False,
            'special': special}


def template(bos, bos_id):
    """TemplateProcessing that puts bos before each sequence, as Llama/Mistral/Gemma tokenizer.json files do."""
    seq = lambda s, t: {'Sequence': {'id': s, 'type_id': t}}
    tok = lambda t: {'SpecialToken': {'id': bos, 'type_id': t}}
    return {'type': 'TemplateProcessing', 'single': [tok(0), seq('A', 0)], 'pair': [tok(0), seq('A', 0), tok(1), seq('B', 1)],
            'special_tokens': {bos: {'id': bos, 'ids': [bos_id], 'tokens': [bos]}}}


def byte_level(flavour, merge_count=150):
    byte = bytes_to_unicode()
    words = {}
    for line in CORPUS:  # training splits on spaces only; the real pre-tokenizer decides the ids
        for i, w in enumerate(line.split(' ')):
            sym = tuple(byte[b] for b in ((' ' if i else '') + w).encode())
            words[sym] = words.get(sym, 0) + 1
    merges = train_merges(words, merge_count)
    vocab = {}
    for t in [byte[b] for b in range(256)] + [a + b for a, b in merges]:
        vocab.setdefault(t, len(vocab))
    bpe = {'type': 'BPE', 'dropout': None, 'unk_token': None, 'continuing_subword_prefix': None,
           'end_of_word_suffix': None, 'fuse_unk': False, 'byte_fallback': False, 'ignore_merges': flavour == 'llama3',
           'vocab': vocab, 'merges': [f'{a} {b}' for a, b in merges]}
    byte_level_pt = {'type': 'ByteLevel', 'add_prefix_space': False, 'trim_offsets': True, 'use_regex': False}
    n = len(vocab)
    if flavour == 'llama3':
        specials = {'<|begin_of_text|>': n, '<|end_of_text|>': n + 1, '<|eot_id|>': n + 2}
        post = {'type': 'Sequence', 'processors': [
            {'type': 'ByteLevel', 'add_prefix_space': True, 'trim_offsets': False, 'use_regex': True},
            template('<|begin_of_text|>', n)]}
        normalizer, regex = None, LLAMA3_REGEX
        config = {'bos_token': '<|begin_of_text|>', 'eos_token': '<|end_of_text|>', 'clean_up_tokenization_spaces': True,
                  'model_input_names': ['input_ids', 'attention_mask'], 'model_max_length': 131072,
                  'tokenizer_class': 'PreTrainedTokenizerFast'}
    else:
        specials = {'<|endoftext|>': n, '<|im_start|>': n + 1, '<|im_end|>': n + 2}
        post = {'type': 'ByteLevel', 'add_prefix_space': False, 'trim_offsets': False, 'use_regex': False}
        normalizer, regex = {'type': 'NFC'}, QWEN_REGEX
        config = {'add_prefix_space': False, 'bos_token': None, 'eos_token': '<|endoftext|>', 'pad_token': '<|endoftext|>',
                  'errors': 'replace', 'clean_up_tokenization_spaces': False, 'model_max_length': 32768,
                  'split_special_tokens': False, 'tokenizer_class': 'Qwen2Tokenizer', 'unk_token': None}
    config['added_tokens_decoder'] = {str(i): {k: v for k, v in added(i, t).items() if k != 'id'}
                                      for t, i in specials.items()}
    tok = {'version': '1.0', 'truncation': None, 'padding': None,
           'added_tokens': [added(i, t) for t, i in specials.items()], 'normalizer': normalizer,
           'pre_tokenizer': {'type': 'Sequence', 'pretokenizers': [
               {'type': 'Split', 'pattern': {'Regex': regex}, 'behavior': 'Isolated', 'invert': False}, byte_level_pt]},
           'post_processor': post,
           'decoder': {'type': 'ByteLevel', 'add_prefix_space': True, 'trim_offsets': True, 'use_regex': True},
           'model': bpe}
    return tok, config, n + len(specials), specials


def sentencepiece(flavour, merge_count=130):
    """flavour 'mistral': <unk> <s> </s>, Prepend('▁') + Replace(' ', '▁') normalizer (Llama-2/Mistral files);
    'gemma': <pad> <eos> <bos> <unk>, Metaspace pre-tokenizer (prepend_scheme first, no split)."""
    words = {}
    for line in CORPUS:
        for w in line.split(' '):
            words[tuple('▁' + w)] = words.get(tuple('▁' + w), 0) + 1
    merges = train_merges(words, merge_count)
    special_names = ['<unk>', '<s>', '</s>'] if flavour == 'mistral' else ['<pad>', '<eos>', '<bos>', '<unk>']
    vocab = {}
    for t in special_names + ['<0x%02X>' % b for b in range(256)]:
        vocab.setdefault(t, len(vocab))
    for t in sorted({c for w in words for c in w}) + [a + b for a, b in merges]:
        vocab.setdefault(t, len(vocab))
    specials = {t: vocab[t] for t in special_names}
    bos = '<s>' if flavour == 'mistral' else '<bos>'
    bpe = {'type': 'BPE', 'dropout': None, 'unk_token': '<unk>', 'continuing_subword_prefix': None,
           'end_of_word_suffix': None, 'fuse_unk': True, 'byte_fallback': True, 'ignore_merges': False,
           'vocab': vocab, 'merges': [[a, b] for a, b in merges]}
    decoder = {'type': 'Sequence', 'decoders': [{'type': 'Replace', 'pattern': {'String': '▁'}, 'content': ' '},
                                                {'type': 'ByteFallback'}, {'type': 'Fuse'}]}
    if flavour == 'mistral':
        normalizer = {'type': 'Sequence', 'normalizers': [{'type': 'Prepend', 'prepend': '▁'},
                                                          {'type': 'Replace', 'pattern': {'String': ' '}, 'content': '▁'}]}
        pre = None
        decoder['decoders'].append({'type': 'Strip', 'content': ' ', 'start': 1, 'stop': 0})
        config = {'add_bos_token': True, 'add_eos_token': False, 'bos_token': '<s>', 'eos_token': '</s>',
                  'unk_token': '<unk>', 'pad_token': None, 'legacy': False, 'clean_up_tokenization_spaces': False,
                  'model_max_length': 1000000000000000019884624838656, 'sp_model_kwargs': {},
                  'spaces_between_special_tokens': False, 'tokenizer_class': 'LlamaTokenizer', 'use_default_system_prompt': False}
    else:
        normalizer = None
        pre = {'type': 'Metaspace', 'replacement': '▁', 'prepend_scheme': 'first', 'split': False}
        config = {'add_bos_token': True, 'add_eos_token': False, 'bos_token': '<bos>', 'eos_token': '<eos>',
                  'pad_token': '<pad>', 'unk_token': '<unk>', 'clean_up_tokenization_spaces': False,
                  'model_max_length': 1000000000000000019884624838656, 'sp_model_kwargs': {},
                  'spaces_between_special_tokens': False, 'tokenizer_class': 'GemmaTokenizer'}
    config['added_tokens_decoder'] = {str(i): {k: v for k, v in added(i, t).items() if k != 'id'}
                                      for t, i in specials.items()}
    tok = {'version': '1.0', 'truncation': None, 'padding': None,
           'added_tokens': [added(i, t) for t, i in specials.items()], 'normalizer': normalizer, 'pre_tokenizer': pre,
           'post_processor': template(bos, specials[bos]), 'decoder': decoder, 'model': bpe}
    return tok, config, len(vocab), specials
