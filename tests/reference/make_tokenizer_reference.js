// Reference encodings of real Hugging Face tokenizer.json files, made by Hugging Face's own `tokenizers`
// library (its Node binding), for tests/core/text/test_tokenizer_hf_json.cpp. The build and the tests never
// need this script or npm; its output, tests/reference/tokenizers/<name>.json, is committed.
//
// How to run (once, offline after the npm install):
//   mkdir -p /tmp/tokref && cd /tmp/tokref && npm install tokenizers
//   for n in llama3_1 qwen3 mixtral gemma3; do mkdir -p /tmp/hfx/$n
//     for f in /work/shared/fixtures/hf-tokenizers/$n/*; do b=$(basename $f)
//       case $b in *.gz) gunzip -c $f > /tmp/hfx/$n/${b%.gz};; *) cp $f /tmp/hfx/$n/;; esac; done; done
//   NODE_PATH=/tmp/tokref/node_modules node tests/reference/make_tokenizer_reference.js /tmp/hfx tests/reference/tokenizers
//
// Also gpt2.json and bert.json for the small files of tests/fixtures/lm-buddy. Each output file: {"source", "cases": [{"text", "addSpecial", "ids", "tokens", "offsets"}]}. Offsets are
// what the binding reports: [begin, end) in Unicode code points of the original text (not UTF-16).
// Made with tokenizers 0.23.2 (npm). synthetic.json holds small made-up tokenizer.json files that use the
// components the four real files do not (NFKC, Lowercase, Metaspace, Digits, Split behaviours, regex
// features, WordPiece, trim_offsets, lstrip/rstrip added tokens, …), each with its own cases.
'use strict';
const fs = require('fs');
const path = require('path');
const {Tokenizer} = require('tokenizers');

const paragraph = (() => {
  const words = ['the', 'attention', 'head', 'looks', 'back', 'at', 'earlier', 'tokens,', 'and', 'weighs',
                 'them;', 'a', 'model', 'with', '32', 'layers', 'does', 'this', 'many', 'times.'];
  let s = '';
  for (let i = 0; s.length < 2000; ++i) s += (i ? ' ' : '') + words[(i * 7) % words.length];
  return s.slice(0, 2000);
})();

const texts = [
  'The quick brown fox jumps over the lazy dog.',
  'Hello, world! How are you today?',
  'def f(x):\n    if x > 0:\n\treturn x * 2  # double\n    return -x\n',
  'Numbers: 1234567, 3.14159, 2024-01-01, 1,000,000 and 42nd.',
  '中文测试：注意力机制是变压器的核心。',
  '日本語のテキスト、カタカナ、ひらがな。',
  'مرحبا بالعالم، هذا اختبار.',
  'Café naïve résumé — e\u0301 a\u0300 o\u0308 Å Ω ﬁ ① ²',
  'Emoji: 😀 👍🏽 👨‍👩‍👧‍👦 🏳️‍🌈 ❤️ done',
  '\n\n  \n',
  '  leading spaces and trailing   ',
  'tabs\tand\t\tmore\ttabs',
  "DON'T you'll we've I'M it's THEY'RE she'd",
  '<|begin_of_text|>Hello<|end_of_text|>',
  '<|im_start|>user\nHi<|im_end|>',
  '<bos>Hello <eos> world<start_of_turn>',
  '<s>Hello</s> <unk> world',
  ' leading space',
  'x',
  '',
  '   ',
  'Ünïcödé ÀÉÎÕÜ ǅ ß ẞ İstanbul',
  'a\r\nb\rc\u2028d\u00a0e\u3000f',
  'Special chars: ~!@#$%^&*()_+-=[]{}|;:\'",.<>/?`\\',
  'https://example.com/path?q=1&r=2#frag',
  'मैं हिंदी में लिख रहा हूँ',
  'Привет, мир! Ёлка.',
  '한국어 텍스트입니다',
  '\u0000\u0001 control \u007f',
  paragraph,
];

// Byte-level BPE: the 256 stand-ins of bytes_to_unicode plus a few merges.
function byteLevelModel() {
  const bs = [];
  for (let b = 0x21; b <= 0x7e; ++b) bs.push(b);
  for (let b = 0xa1; b <= 0xac; ++b) bs.push(b);
  for (let b = 0xae; b <= 0xff; ++b) bs.push(b);
  const chars = {};
  let n = 0;
  for (let b = 0; b < 256; ++b) chars[b] = String.fromCodePoint(bs.includes(b) ? b : 256 + n++);
  const vocab = {};
  for (let b = 0; b < 256; ++b) vocab[chars[b]] = b;
  const merges = ['Ġ t', 'h e', 'Ġt he', 'i n', 'Ġ a', 'e r', '1 2', 'Ġ Ġ'];
  for (const m of merges) vocab[m.replace(' ', '')] = Object.keys(vocab).length;
  return {type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: null, end_of_word_suffix: null,
          fuse_unk: false, byte_fallback: false, vocab, merges};
}

// SentencePiece-style BPE: ▁, lower-case letters, byte fallback.
function metaspaceModel() {
  const vocab = {'<unk>': 0, '<s>': 1, '</s>': 2};
  for (let b = 0; b < 256; ++b) vocab['<0x' + b.toString(16).toUpperCase().padStart(2, '0') + '>'] = 3 + b;
  for (const c of '▁abcdefghijklmnopqrstuvwxyz') vocab[c] = Object.keys(vocab).length;
  const merges = ['▁ t', 'h e', '▁t he', 'i n', '▁ a', 'e r'];
  for (const m of merges) vocab[m.replace(' ', '')] = Object.keys(vocab).length;
  return {type: 'BPE', dropout: null, unk_token: '<unk>', continuing_subword_prefix: null, end_of_word_suffix: null,
          fuse_unk: true, byte_fallback: true, vocab, merges};
}

function wordPieceModel() {
  const vocab = {'[UNK]': 0, '[CLS]': 1, '[SEP]': 2};
  for (const w of ['the', 'play', '##ing', '##ed', 'a', 'cat', '.', ',', '##s', 'un', '##believ', '##able', '12', '##3'])
    vocab[w] = Object.keys(vocab).length;
  return {type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab};
}

const split = (pattern, behavior, invert = false) => ({type: 'Split', pattern, behavior, invert});
const byteLevelPre = (prefix, regex) => ({type: 'ByteLevel', add_prefix_space: prefix, trim_offsets: true, use_regex: regex});
const seq = (...p) => ({type: 'Sequence', pretokenizers: p});
const noRegexBytes = byteLevelPre(false, false);

function synthetic() {
  const bl = byteLevelModel(), ms = metaspaceModel(), wp = wordPieceModel();
  const make = (normalizer, pre_tokenizer, model, post_processor = null, added_tokens = []) =>
      ({version: '1.0', truncation: null, padding: null, added_tokens, normalizer, pre_tokenizer, post_processor,
        decoder: null, model});
  const regexes = ["(?i:'s|'t)|[A-Z][a-z]+", '\\p{Lu}+|\\p{P}|\\w{2,3}', 'a.*?b|\\d{2}', '\\s+(?!\\S)|\\s+',
                   '^\\w+|\\w+$', '[^\\s\\p{L}]+|[\\x41-\\x43\\u00e9]', '(?:ab)+|x?y*z', '\\b\\w', '[[:alpha:]]x'];
  const files = {
    byte_level_regex_trim: make(null, byteLevelPre(true, true), bl, {type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true}),
    nfkc_lower_strip: make({type: 'Sequence', normalizers: [{type: 'NFKC'}, {type: 'Lowercase'}, {type: 'Strip', strip_left: true, strip_right: true}]}, byteLevelPre(false, true), bl),
    nfd_strip_accents_replace: make({type: 'Sequence', normalizers: [{type: 'NFD'}, {type: 'StripAccents'}, {type: 'Replace', pattern: {Regex: '\\s+'}, content: ' '}]}, byteLevelPre(false, true), bl),
    nfkd_prepend: make({type: 'Sequence', normalizers: [{type: 'NFKD'}, {type: 'Prepend', prepend: '>>'}]}, noRegexBytes, bl),
    metaspace_always: make(null, {type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true}, ms, null, [{id: 1, content: '<s>', single_word: false, lstrip: false, rstrip: false, normalized: false, special: true}]),
    metaspace_first_nosplit: make(null, {type: 'Metaspace', replacement: '▁', prepend_scheme: 'first', split: false}, ms, null, [{id: 1, content: '<s>', single_word: false, lstrip: false, rstrip: false, normalized: false, special: true}]),
    metaspace_never: make({type: 'Lowercase'}, {type: 'Metaspace', replacement: '▁', prepend_scheme: 'never', split: true}, ms),
    digits_whitespace: make(null, seq({type: 'Digits', individual_digits: true}, {type: 'Whitespace'}, noRegexBytes), bl),
    digits_contiguous_wssplit: make(null, seq({type: 'WhitespaceSplit'}, {type: 'Digits', individual_digits: false}, noRegexBytes), bl),
    added_strip_normalized: make({type: 'Lowercase'}, byteLevelPre(false, true), bl, null, [
      {id: 300, content: '<mask>', single_word: false, lstrip: true, rstrip: true, normalized: false, special: true},
      {id: 301, content: 'Hello', single_word: false, lstrip: false, rstrip: false, normalized: true, special: false},
      {id: 302, content: 'cat', single_word: true, lstrip: false, rstrip: false, normalized: false, special: false}]),
    bpe_prefix_suffix_unk: make(null, {type: 'Whitespace'}, {
      type: 'BPE', dropout: null, unk_token: '[UNK]', continuing_subword_prefix: '##', end_of_word_suffix: '</w>',
      fuse_unk: false, byte_fallback: false,
      vocab: {'[UNK]': 0, 't': 1, '##h': 2, '##e</w>': 3, 'th': 4, 'the</w>': 5, 'c': 6, '##a': 7, '##t</w>': 8,
              'ca': 9, '##at</w>': 10, 'a</w>': 11, 'a': 12, '##t': 13, 'i': 14, '##n</w>': 15, 'in</w>': 16},
      merges: ['t ##h', 'th ##e</w>', 'c ##a', '##a ##t</w>', 'i ##n</w>']}),
    wordpiece_bert: make({type: 'Lowercase'}, {type: 'Whitespace'}, wp,
                         {type: 'BertProcessing', sep: ['[SEP]', 2], cls: ['[CLS]', 1]}),
  };
  for (const behavior of ['Removed', 'Isolated', 'MergedWithPrevious', 'MergedWithNext', 'Contiguous'])
    for (const invert of [false, true]) {
      files[`split_regex_${behavior}_${invert}`] = make(null, seq(split({Regex: '\\d+|[aeiou]'}, behavior, invert), noRegexBytes), bl);
      files[`split_string_${behavior}_${invert}`] = make(null, seq(split({String: '-'}, behavior, invert), noRegexBytes), bl);
      files[`split_empty_${behavior}_${invert}`] = make(null, seq(split({Regex: 'a|x*'}, behavior, invert), noRegexBytes), bl);
    }
  regexes.forEach((r, i) => { files[`regex_${i}`] = make(null, seq(split({Regex: r}, 'Isolated'), noRegexBytes), bl); });
  return files;
}

const syntheticTexts = [
  'The cat played with the ball-of-yarn, twice.', "IT'S 12345 apples aab ab a--b", '  Hello  <mask>  world\n\n ',
  'Ｆｕｌｌｗｉｄｔｈ ﬁ ① Café e\u0301 ÅNGSTRÖM', 'xyz abab caterpillar cat concat 123 unbelievable playing',
  '中文 😀 mixed\ttabs\r\nend', '', ' ', '<s>the<s> in a'];

async function writeSynthetic(outDir) {
  const out = {source: 'made-up tokenizer.json files (make_tokenizer_reference.js), npm tokenizers', tokenizers: []};
  for (const [name, json] of Object.entries(synthetic())) {
    let tok;
    try {
      tok = Tokenizer.fromString(JSON.stringify(json));
    } catch (e) {
      out.tokenizers.push({name, json, refused: String(e)});  // Hugging Face refuses the file too
      continue;
    }
    const cases = [];
    for (const text of syntheticTexts)
      for (const addSpecial of [false, true]) {
        const e = await tok.encode(text, null, {addSpecialTokens: addSpecial});
        cases.push({text, addSpecial, ids: e.getIds(), tokens: e.getTokens(), offsets: e.getOffsets()});
      }
    // The pre-tokenizer alone on the raw text ([piece, [begin, end)] in code points) and the normalizer alone.
    const pre = json.pre_tokenizer ? syntheticTexts.map(t => tok.getPreTokenizer().preTokenizeString(t)) : null;
    const normalized = json.normalizer ? syntheticTexts.map(t => tok.getNormalizer().normalizeString(t)) : null;
    out.tokenizers.push({name, json, cases, pre, normalized});
  }
  fs.writeFileSync(path.join(outDir, 'synthetic.json'), JSON.stringify(out) + '\n');
}

async function main() {
  const [root, outDir] = process.argv.slice(2);
  // The four real files (unpacked under root) and two small ones committed in tests/fixtures (GPT-2's
  // byte-level BPE with trim_offsets; BERT's BertNormalizer, BertPreTokenizer and WordPiece).
  const files = {};
  for (const name of ['llama3_1', 'qwen3', 'mixtral', 'gemma3']) files[name] = path.join(root, name, 'tokenizer.json');
  files.gpt2 = path.join(__dirname, '..', 'fixtures', 'lm-buddy', 'fake_gpt2', 'tokenizer.json');
  files.bert = path.join(__dirname, '..', 'fixtures', 'lm-buddy', 'bert_tiniest', 'tokenizer.json');
  for (const [name, file] of Object.entries(files)) {
    const tok = Tokenizer.fromFile(file);
    const cases = [];
    for (const text of texts)
      for (const addSpecial of [false, true]) {
        const e = await tok.encode(text, null, {addSpecialTokens: addSpecial});
        cases.push({text, addSpecial, ids: e.getIds(), tokens: e.getTokens(), offsets: e.getOffsets()});
      }
    const where = file.startsWith(root) ? `shared/fixtures/hf-tokenizers/${name}` : path.relative(path.join(__dirname, '..', '..'), file);
    const out = {source: `${where}, npm tokenizers`, cases};
    fs.writeFileSync(path.join(outDir, name + '.json'), JSON.stringify(out) + '\n');
  }
  await writeSynthetic(outDir);
}
main();
