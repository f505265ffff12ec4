#include "app/cli_commands.h"

#include "app/cli_encdec.h"

#include <sstream>

namespace attnlab::cli {
namespace {

/// dump, generate and predict also take two texts of an encoder–decoder (app/cli_encdec.h).
std::vector<Subcommand> withEncDecForms(std::vector<Subcommand> table) {
  for (Subcommand& c : table) {
    const bool dump = c.name == "dump";
    if (!dump && c.name != "generate" && c.name != "predict") continue;
    for (const Option& o : encDecOptions(true, dump)) c.options.push_back(o);
    if (c.name == "predict" || c.name == "generate")
      for (const Option& o : encDecAblationOptions()) c.options.push_back(o);
    if (c.name == "generate") {  // predict has them for one text too
      c.options.push_back({"ablate", true,
                           "L.H,L.H,...: with --source, heads of the decoder's self-attention switched off (each "
                           "step then runs the full ablated pass, no cache)"});
      c.options.push_back({"ablate-mode", true, "zero|mean: with --source, how the --ablate* heads are switched off"});
    }
    c.usage += "  |  --model DIR --source TEXT" + std::string(c.name == "generate" ? " --steps N" : " [--target TEXT]");
    if (dump) c.usage += "  |  --mode encdec --source TEXT --target TEXT";
    c.summary +=
        dump ? " Two texts (an encoder-decoder: Marian, BART, T5): \"source_tokens\", \"source_ids\", "
               "\"encoder_layers\" (bidirectional maps, n_src x n_src), \"tokens\" and \"token_ids\" the "
               "decoder's input (its start token, then the target without its final </s>; without --target "
               "the greedy translation), \"layers\" the decoder's, each with \"cross_heads\": [{\"q\", "
               "\"k\", \"v\", \"scores\", \"attention\" (n_tgt x n_src), \"output\"}...]. The built-in model's "
               "rung 7 (--mode encdec, no --model) writes the same document for --source (or --sentence) and "
               "--target, its words as tokens, config.kind \"builtin\" (--target is required: it has no output "
               "head)."
        : c.name == "generate"
            ? " With --source TEXT, an encoder-decoder's target tokens after its start token (and "
              "--target), until </s>; --ablate, --ablate-encoder, --ablate-cross (--ablate-mode zero or mean) "
              "switch heads off as predict's do, each step then the argmax (or draw) of the ablated full pass's "
              "last row."
            : " With --source TEXT, an encoder-decoder's next target token after its start token and "
              "--target (\"source_tokens\", \"source_ids\" added); --ablate switches off heads of the decoder's "
              "self-attention, --ablate-encoder of the encoder's, --ablate-cross of the cross-attention "
              "(--ablate-mode zero or mean; \"ablate\", \"ablate_encoder\", \"ablate_cross\", "
              "\"ablate_mode\" added).";
  }
  return table;
}

}  // namespace

const std::vector<Subcommand>& subcommands() {
  static const std::vector<Subcommand> table = withEncDecForms({
      {"dump",
       "[options] [--out FILE]",
       "Writes the forward pass's Trace as JSON (schema attnlab.trace/1): tokens, config, and per layer "
       "and head q, k, v, scores, attention, output, plus residual_out. With --variants, also "
       "\"variants\": {NAME: {attention, output, rank, entropy, sparsity, rel_error, output_mse}} for the "
       "selected layer/head (errors against scaled softmax with the same mask). The JSON is written as it is made, "
       "never held whole.",
       {{"out", true, "FILE: where to write the JSON (default: standard output)"},
        {"performer-curve", false,
         "also write \"performer_curve\": Performer's relative error vs m (1..4096) for positive/trig x "
         "iid/orthogonal features, averaged over --redraws R"},
        {"indent", true, "N: pretty-print with N spaces (default: compact)"},
        {"only", true,
         "L.H[,L.H...]: write \"scores\" and \"attention\" for these heads only (the others keep q, k, v and "
         "output): a long input without gigabytes of JSON"},
        {"no-qkv", false, "leave out every head's q, k and v"},
        {"no-streams", false,
         "leave out \"embeddings\", every layer's residual_in, concat, attention_out, mlp_out and residual_out, "
         "and every head's output: with --only and --no-qkv, 1,024 GPT-2 tokens are a few maps, not a gigabyte"},
        {"only-layers", true,
         "L[,L...]: write these layers only; the others stay in \"layers\" as empty objects {} (--layers is the "
         "built-in model's depth)"},
        {"npy", true,
         "DIR: write the matrices as DIR/*.npy (float32) and DIR/index.json, the same document with each matrix "
         "replaced by {\"npy\": FILE, \"shape\": [rows, cols], \"dtype\": \"float32\"} (instead of --out)"},
        {"spectrum", false,
         "add \"spectrum\" for the selected head: singular values, numerical and effective rank, eigenvalues "
         "[[re, im], ...] of the attention matrix, singular values of the scores and of exp(scores)"}},
       true,
       false,
       runDump},
      {"predict",
       "[options] [--position I] [--top K] [--temperature T] [--ablate L.H,L.H] [--ablate-mode zero|mean|resample "
       "--resample-text TEXT] "
       "[--logit-lens] [--out FILE]",
       "The next-token distribution at a position (default: the last token) as JSON (schema attnlab.predict/1): "
       "\"tokens\", \"token_ids\", \"position\", \"top\": [{\"id\", \"token\", \"logit\", \"prob\"}...] with "
       "softmax(logits / T) over the whole vocabulary; with --logit-lens also \"logit_lens\": [{\"layer\", "
       "\"top\": [{\"id\", \"token\", \"prob\"}...]}...] for the position, layer -1 being the embeddings.",
       {{"position", true, "I: the token whose next token is predicted (default: the last)"},
        {"top", true, "K: how many tokens to list (default 10)"},
        {"temperature", true, "T: softmax temperature (default 1)"},
        {"ablate", true, "L.H,L.H,...: heads whose output is switched off before the output projection"},
        {"ablate-mode", true,
         "zero|mean|resample: set the ablated heads' output to zero, to its mean over positions, or to its output in "
         "a run of --resample-text"},
        {"resample-text", true,
         "TEXT: with --ablate-mode resample, the other text (at least as many tokens) whose run gives the ablated "
         "heads' outputs, position by position"},
        {"logit-lens", false, "add each layer's residual stream decoded through the final norm and unembedding"},
        {"out", true, "FILE: where to write the JSON (default: standard output)"},
        {"indent", true, "N: pretty-print with N spaces (default: compact)"}},
       true,
       false,
       runPredict},
      {"attribute",
       "[options] [--position I] [--target TOKEN_OR_ID] [--versus TOKEN_OR_ID] [--out FILE]",
       "Direct logit attribution (schema attnlab.attribution/1): \"position\", \"target\": {\"id\", \"token\"}, "
       "\"logit\" (before soft-capping), \"heads\": [[per head] per layer], \"mlp\": [per layer], "
       "\"embeddings\", \"bias\" (output-projection biases, final-norm shift, unembedding bias; each MLP's "
       "output bias is in its \"mlp\" entry), and with --versus \"versus\": {\"id\", \"token\"} with the same "
       "fields for logit(target) - logit(versus). The final norm is frozen at the position, so heads + mlp + "
       "embeddings + bias = logit. Refused for Gemma 2/3 (post-attention norms are not linear in the heads).",
       {{"position", true, "I: the position (default: the last token)"},
        {"target", true, "TOKEN_OR_ID: a vocabulary piece (e.g. Ġmat) or a decimal id (default: the prediction)"},
        {"versus", true, "TOKEN_OR_ID: also attribute logit(target) - logit(versus)"},
        {"out", true, "FILE: where to write the JSON (default: standard output)"},
        {"indent", true, "N: pretty-print with N spaces (default: compact)"}},
       true,
       false,
       runAttribute},
      {"patch",
       "[model options] --clean TEXT --corrupt TEXT --target TOKEN --versus TOKEN [--map all|heads|positions|"
       "head-position] [--ablate L.H,L.H] [--ablate-mode zero|mean|resample] [--resample-text TEXT] [--out FILE]",
       "Activation patching (schema attnlab.patch/1): for each head, and for the residual stream entering each "
       "layer at each position (last row: after the last layer), the effect (patched - corrupt) / (clean - "
       "corrupt) of logit(target) - logit(versus) at the last token when that activation is copied from the "
       "clean run into the corrupted one: \"heads\": [[per head] per layer], \"resid\": [[per position] x "
       "(layers + 1)], \"clean_diff\", \"corrupt_diff\". The texts must have the same number of tokens. Also "
       "\"map\", \"first_difference\" (the first position where the texts differ), \"runs\" and \"skipped\" "
       "(patches that copy equal values: effect 0 without a run), with --map head-position \"head_positions\": "
       "[[per position] x (layers * heads)], with --ablate \"ablate\" and \"ablate_mode\", and \"warning\" when "
       "|clean - corrupt| < 0.1 (the effects then mean little). Progress goes to standard error.",
       {{"clean", true, "TEXT: the clean sentence"},
        {"corrupt", true, "TEXT: the corrupted sentence (same token length)"},
        {"target", true, "TOKEN_OR_ID: the token whose logit difference is measured"},
        {"versus", true, "TOKEN_OR_ID: the other token of the difference"},
        {"map", true,
         "all|heads|positions|head-position: heads and residual stream (default), heads only (layers * heads runs), "
         "residual stream only ((layers + 1) * n runs), or each head at each position (layers * heads * n runs)"},
        {"ablate", true, "L.H,L.H,...: heads switched off in the clean, the corrupted and every patched run"},
        {"ablate-mode", true, "zero|mean|resample: how --ablate switches them off (default zero)"},
        {"resample-text", true, "TEXT: with --ablate-mode resample, the text whose run gives the heads' outputs"},
        {"out", true, "FILE: where to write the JSON (default: standard output)"},
        {"indent", true, "N: pretty-print with N spaces (default: compact)"}},
       true,
       false,
       runPatch},
      {"heads",
       "[model options] [--probe-length T] [--probe-seed S] [--corpus FILE ...] [--window N] [--top K] [--out FILE]",
       "The head atlas (schema attnlab.heads/1): every head scored on the probe [BOS] r1..rT r1..rT of T random "
       "tokens: \"layers\", \"heads\", \"probe_ids\", \"probe_tokens\", \"metrics\": {\"previous_token\", "
       "\"induction\", \"duplicate_token\", \"bos\", \"entropy\", \"mean_distance\", \"copying\": [[per head] "
       "per layer]}, \"similarity\": [[...]] (1 - mean Jensen-Shannon divergence / ln 2 of the heads' attention rows, "
       "heads layer-major), \"cluster_order\", \"map_2d\" (classical MDS), \"notes\". NaN is null. With --corpus, "
       "the text is scanned in windows: \"top_examples\": {\"L.H\": [{\"text\", \"position\", \"score\", \"kind\", "
       "\"key\", \"tokens\", \"source\", \"token_index\"}...]}, \"corpus_tokens\", the metrics \"dla_magnitude\", "
       "\"ablation_effect\", \"corpus_previous_token\", \"corpus_bos\", \"corpus_entropy\", \"corpus_mean_distance\", "
       "and the similarity over the corpus.",
       {{"probe-length", true, "T: random tokens per copy (default 64)"},
        {"probe-seed", true, "S: the random tokens' seed (default 0)"},
        {"corpus", true, "FILE: a text file or a folder of them to scan (repeat the option for more)"},
        {"window", true, "N: tokens per forward pass of the corpus scan (default 256, at most the model's context)"},
        {"ablation-tokens", true, "N: tokens of the corpus the ablation effect is measured on (default 64, 0 = none)"},
        {"top", true, "K: strongest contexts listed per head after a corpus scan (default 10)"},
        {"out", true, "FILE: where to write the JSON (default: standard output)"},
        {"indent", true, "N: pretty-print with N spaces (default: compact)"}},
       true,
       false,
       runHeads},
      {"rank-demo",
       "[--n 100] [--scale C] [--seed S] [--sweep] [--out FILE]",
       "The 'exp raises rank' demonstration: x ~ N(0,1)^n, rank(x x^T) = 1 against rank(exp(C x x^T)). "
       "Prints JSON with \"x\", \"rank_outer\", \"rank_exp\", both spectra (\"outer_singular_values\", "
       "\"exp_singular_values\") and with --sweep \"sweep\": [{\"scale\", \"rank\", \"effective_rank\"}, ...].",
       {{"n", true, "N: length of x (default 100, 2..4096)"},
        {"scale", true, "C: the scale c in exp(c x x^T) (default 1, -20..20)"},
        {"seed", true, "S: seed of x (default 0)"},
        {"sweep", false, "add rank vs c for c log-spaced over [--sweep-min, --sweep-max]"},
        {"sweep-min", true, "C: smallest c of the sweep (default 0.01)"},
        {"sweep-max", true, "C: largest c of the sweep (default 10)"},
        {"sweep-points", true, "N: number of c values (default 31)"},
        {"out", true, "FILE: where to write the JSON (default: standard output)"},
        {"indent", true, "N: pretty-print with N spaces (default: compact)"}},
       false,
       false,
       runRankDemo},
      {"export",
       "[options] --view NAME [--preset slide-16x9|slide-4x3|column|page] --out FILE.png|.svg|.pdf|.csv|.json|.npy  |  "
       "--all-heads --out DIR/",
       "Renders one view to a figure (PNG, SVG, PDF) or writes the numbers behind it (CSV with token labels, "
       "JSON, NPY for numpy.load); the format from the extension (or --format). With --params SESSION.json "
       "and no --view, the session's own view is exported: one command rebuilds a saved figure. --view training "
       "draws a bounded, seeded training run (--task, --train-steps; default the induction task's first 300 "
       "steps of the trainer's 2 x 4-head model, seed 1; --seed, --layers, --heads, --d-model change it) or, with "
       "--model DIR of a model saved by the Training view or `attnlab train --save`, that "
       "model's history; its numbers are the loss per step and the scores of every head.",
       {{"view", true, "NAME: the view to render (see --list-views; default with --params: the file's view)"},
        {"out", true, "FILE: the file to write; with --all-heads a folder (created if missing)"},
        {"format", true, "png|svg|pdf|csv|json|npy: overrides the extension (with --all-heads, default png)"},
        {"width", true, "PIXELS: figure width (default 1200)"},
        {"height", true, "PIXELS: figure height (default 900)"},
        {"width-cm", true, "CM: figure width in centimetres (instead of --width; default 16)"},
        {"height-cm", true, "CM: figure height in centimetres (instead of --height; default 12)"},
        {"dpi", true,
         "DPI: PNG resolution; with centimetres the pixel count follows (default 300), "
         "with pixels it sets the scale (DPI / 96) unless --scale is given"},
        {"preset", true,
         "slide-16x9|slide-4x3|column|page: a named size, laid out for it: a 16:9 slide 25.4 x 14.29 cm, a 4:3 "
         "slide 25.4 x 19.05 cm, one column of a two-column paper 8.5 x 6.4 cm, a full page width 17.8 x 11 cm "
         "(instead of --width/--height; PNG at --dpi, default 300)"},
        {"scale", true, "FACTOR: PNG resolution multiplier (default 1)"},
        {"font-scale", true, "FACTOR: larger fonts, as in presentation mode (default 1)"},
        {"matrix", true, "NAME: for npy, the one matrix of the view to write (default: the only one, or a stack)"},
        {"all-heads", false, "write one file per layer and head into the --out folder: VIEW_L<l>_H<h>.<format>"},
        {"list-views", false, "print the view names, one per line, and exit"},
        {"run", true,
         "FILE: a run recorded by attnlab.figure from Python (with its hooks), exported instead of computed; "
         "the session's model and token ids must be the run's"},
        {"task", true,
         "induction|reverse|copy|sort|recall: with --view training, the task of the run (default induction)"},
        {"train-steps", true, "N: with --view training, the run's optimiser steps (default 300, at most 100000)"},
        {"source", true, "TEXT: an encoder–decoder's source text (the same as --sentence)"},
        {"target", true, "TEXT: an encoder–decoder's target text (the decoder's input; a session's \"target\")"},
        {"stack", true,
         "encoder|decoder|cross: which stack of an encoder–decoder the view shows (a session's selection.stack)"}},
       true,
       true,
       runExport},
      {"tokenize",
       "--model DIR [--special] < lines",
       "Reads one text per line on standard input and writes one JSON object per line, "
       "{\"ids\": [...], \"tokens\": [...]}, with the model's token strings (without --model: the built-in "
       "model's words, no ids).",
       {{"special", false, "add the model's special tokens ([CLS] ... [SEP] for BERT; none for GPT-2)"}},
       true,
       false,
       runTokenize},
      {"generate", "[options] --steps N [--greedy | --temperature T [--seed S] [--top-k K] [--top-p P]]",
       "Appends N next tokens to the sentence, greedy or sampled, each step reusing the model's cached keys "
       "and values (GPT-2 and the decoder families). Prints one JSON object per line and step: {\"step\", "
       "\"id\", \"token\", \"prob\"} (prob: softmax(logits / T) of the token over the whole vocabulary). "
       "--seed S fixes the sampled draw.",
       generateOptions(), true, false, runGenerate},
      {"collapse",
       "--depth L --tokens N --d-model D --heads H --init lecun|xavier|bert [--mlp-gain G] --seeds S --configs LIST",
       "Rank collapse (Dong, Cordonnier, Loukas 2021): runs deep stacks of attention in the chosen "
       "configurations and prints the relative residual ||res(X_l)||/||X_l|| per depth as JSON: {\"depths\": "
       "[0..L], \"configs\": {\"san\": {\"median\": [...], \"min\": [...], \"max\": [...]}, ...}}. A curve whose "
       "values leave the double range stops there (null entries, \"stopped_at\" says where and why).",
       collapseOptions(), false, false, runCollapse},
      {"train",
       "--task induction|reverse|copy|sort|recall --layers L --heads H --d-model D --steps N --lr X --seed S "
       "[--attention-only] [--variant NAME] [--save DIR]",
       "Trains a tiny transformer on a toy task and prints one JSON object per line: {\"step\": k, \"loss\": x, "
       "\"grad_norm\": g} every --every steps, then {\"final\": {\"step\", \"loss\", \"accuracy\", \"scores\": "
       "[[{\"induction\": a, \"previous_token\": b, ...} per head] per layer], \"best_head\", \"ms_per_step\"}}. "
       "--save DIR writes the model as a checkpoint folder that --model DIR opens.",
       trainOptions(), false, false, runTrain},
  });
  return table;
}

const Subcommand* findSubcommand(const std::string& name) {
  for (const Subcommand& s : subcommands())
    if (s.name == name) return &s;
  return nullptr;
}

std::string subcommandHelp(const Subcommand& c) {
  std::ostringstream s;
  s << "Usage: attnlab " << c.name << " " << c.usage << "\n\n" << c.summary << "\n\nOptions:\n";
  for (const Option& o : c.options) s << "  --" << o.name << "  " << o.help << "\n";
  if (c.usesParams) {
    s << "\nParameter options (the GUI's parameter struct):\n";
    for (const Option& o : paramOptions()) s << "  --" << o.name << "  " << o.help << "\n";
  }
  return s.str();
}

std::string helpText() {
  std::ostringstream s;
  s << "Attention Lab: run small transformers and attention variants, and see inside them.\n\n"
       "Usage:\n  attnlab [options]       start the graphical program (e.g. --model DIR --sentence TEXT)\n";
  for (const Subcommand& c : subcommands()) s << "  attnlab " << c.name << " " << c.usage << "\n";
  s << "  attnlab FILE.attnlab.json  start the graphical program on a saved session\n";
  s << "  attnlab --run RUN FILE.attnlab.json  the same, showing the run RUN that attnlab.show recorded\n"
       "                          from Python (its hooks applied) instead of computing it, while the text is the "
       "run's\n";
  s << "  attnlab --version       the version\n";
  s << "  attnlab --help          this text\n";
  for (const Subcommand& c : subcommands()) {
    s << "\n" << c.name << ": " << c.summary << "\n";
    for (const Option& o : c.options) s << "  --" << o.name << "  " << o.help << "\n";
  }
  s << "\nParameter options (dump, export and the GUI share one parameter struct):\n";
  for (const Option& o : paramOptions()) s << "  --" << o.name << "  " << o.help << "\n";
  s << "\nExit status: 0 on success, 1 when the input is wrong (the message says what), 2 on a usage error.\n";
  return s.str();
}

}  // namespace attnlab::cli
