#include "app/man_page.h"

#include <sstream>

#include "app/cli_commands.h"

namespace attnlab::cli {

std::string roffEscape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (c == '\\')
      out += "\\e";
    else if (c == '-')
      out += "\\-";
    else if (c == '\n')
      out += "\n.br\n";
    else
      out += c;
  }
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out.insert(0, "\\&");
  return out;
}

namespace {

void writeOptions(std::ostringstream& s, const std::vector<Option>& options) {
  for (const Option& o : options) {
    s << ".TP\n.B \\-\\-" << roffEscape(o.name) << "\n" << roffEscape(o.help) << "\n";
  }
}

}  // namespace

std::string manPage(const std::string& version) {
  std::ostringstream s;
  s << ".TH ATTNLAB 1 \"\" \"Attention Lab " << roffEscape(version) << "\" \"User Commands\"\n"
    << ".SH NAME\nattnlab \\- run small transformers and attention variants, and see inside them\n"
    << ".SH SYNOPSIS\n.B attnlab\n[\\fIoptions\\fR] [\\fISESSION\\fB.attnlab.json\\fR]\n.br\n"
    << ".B attnlab\n\\fIcommand\\fR [\\fIoptions\\fR]\n.br\n.B attnlab \\-\\-version\n.br\n.B attnlab \\-\\-help\n"
    << ".SH DESCRIPTION\nWithout a command, \\fBattnlab\\fR opens its window on the built-in model and sentence (or on "
       "the session file named, or the parameters given): attention heatmaps, head outputs, spectra, rank, rank "
       "collapse, the prediction and its attribution, ablation and patching, the head atlas and lessons, live while "
       "the sentence and the parameters are edited. Models (GPT-2, BERT, Llama, Mistral, Qwen, SmolLM, Gemma) open "
       "from Hugging Face folders on disk.\n.PP\nWith a command it runs headless and writes JSON, CSV, NPY or "
       "figures; the commands share one parameter struct with the window.\n"
    << ".SH COMMANDS\n";
  for (const Subcommand& c : subcommands()) {
    s << ".SS " << roffEscape(c.name) << "\n.B attnlab " << roffEscape(c.name) << "\n"
      << roffEscape(c.usage) << "\n.PP\n"
      << roffEscape(c.summary) << "\n";
    writeOptions(s, c.options);
    if (c.usesParams) s << ".PP\nAlso takes the parameter options below.\n";
  }
  s << ".SH PARAMETER OPTIONS\nThe window, \\fBdump\\fR, \\fBexport\\fR and the other commands marked above share "
       "these.\n";
  writeOptions(s, paramOptions());
  s << ".SH FILES\n.TP\n.I *.attnlab.json\nA session: the sentence, the model, every parameter and the view. "
       "Double-clicking one opens it.\n"
    << ".TP\n.I ~/.config/AttentionLab/attnlab.conf\nThe window's settings (recent files, layout).\n"
    << ".SH ENVIRONMENT\n.TP\n.B QT_QPA_PLATFORM\n\\fBoffscreen\\fR runs the window without a display "
       "(figures are always rendered offscreen by \\fBexport\\fR).\n"
    << ".TP\n.B OMP_NUM_THREADS\nThreads of the forward pass (default: every core).\n"
    << ".TP\n.B ATTNLAB_KERNEL\n\\fBportable\\fR or \\fBavx2\\fR: use a narrower matrix-product kernel than the "
       "CPU allows (the fastest one the CPU has is chosen at run time).\n"
    << ".SH EXIT STATUS\n0 on success, 1 when the input is wrong (the message says what), 2 on a usage error.\n"
    << ".SH SEE ALSO\nThe README of the source, and \\fBattnlab \\-\\-help\\fR.\n";
  return s.str();
}

}  // namespace attnlab::cli
