#pragma once
// `attnlab dump | generate | predict --model DIR --source TEXT [--target TEXT]`: the encoder–decoder forms (issue 33).
// The subcommands hand over to these when a source text is given (--source, --source-file or --source-ids).
#include <vector>

#include "app/cli_args.h"

namespace attnlab::cli {

/// Whether the arguments give a source text (the two-text form).
bool hasSource(const Args& args);
/// The options of the two-text forms: --source, --source-file, --source-ids, --target, --target-ids (dump and predict)
/// and --max-new (dump).
std::vector<Option> encDecOptions(bool target, bool maxNew);
/// predict's two-text ablations beside --ablate (the decoder's self-attention): --ablate-encoder, --ablate-cross.
std::vector<Option> encDecAblationOptions();

int runEncDecDump(const Args& args);
/// True when the parameters name the built-in model's rung 7 (--mode encdec, or a --params session at that rung).
bool isBuiltinEncDec(const Params& p);
/// `attnlab dump --mode encdec --source TEXT (or --sentence TEXT) --target TEXT`: rung 7's two-text trace, the
/// document runEncDecDump writes (config.kind "builtin"). Without --target: refused (no output head to translate).
int runBuiltinEncDecDump(const Args& args, Params p);
int runEncDecGenerate(const Args& args);
int runEncDecPredict(const Args& args);

}  // namespace attnlab::cli
