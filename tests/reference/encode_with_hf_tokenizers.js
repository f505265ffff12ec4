// Encodes texts with Hugging Face's own tokenizers library (the Rust core through its Node binding), so the
// reference token ids of tests/reference/decoders/ do not come from our own tokenizer code.
// Setup once: mkdir -p /tmp/tokref2 && cd /tmp/tokref2 && npm install tokenizers
// Usage: NODE_PATH=/tmp/tokref2/node_modules node encode_with_hf_tokenizers.js tokenizer.json < texts.json
//   stdin: a JSON list of strings; stdout: a JSON list of id lists (special tokens added, as the model sees them).
const fs = require('fs');
const { Tokenizer } = require('tokenizers');

async function main() {
  const tokenizer = Tokenizer.fromFile(process.argv[2]);
  const texts = JSON.parse(fs.readFileSync(0, 'utf8'));
  const out = [];
  for (const text of texts) {
    const encoding = await tokenizer.encode(text, null, { addSpecialTokens: true });
    out.push(Array.from(encoding.getIds()));
  }
  process.stdout.write(JSON.stringify(out));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
