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
// Each output file: {"source", "cases": [{"text", "addSpecial", "ids", "tokens", "offsets"}]}. Offsets are
// what the binding reports: [begin, end) in Unicode code points of the original text (not UTF-16).
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

async function main() {
  const [root, outDir] = process.argv.slice(2);
  for (const name of ['llama3_1', 'qwen3', 'mixtral', 'gemma3']) {
    const tok = Tokenizer.fromFile(path.join(root, name, 'tokenizer.json'));
    const cases = [];
    for (const text of texts)
      for (const addSpecial of [false, true]) {
        const e = await tok.encode(text, null, {addSpecialTokens: addSpecial});
        cases.push({text, addSpecial, ids: e.getIds(), tokens: e.getTokens(), offsets: e.getOffsets()});
      }
    const out = {source: `shared/fixtures/hf-tokenizers/${name}/tokenizer.json, npm tokenizers`, cases};
    fs.writeFileSync(path.join(outDir, name + '.json'), JSON.stringify(out) + '\n');
  }
}
main();
