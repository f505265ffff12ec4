#pragma once
// The attention-variant options of the command line (a public contract, see `attnlab --help`):
// --variants LIST --features M --feature-kind positive|trig --orthogonal --feature-seed S --window W …
// They fill Params::variants, so `dump` and `export` (the variants and complexity views) share them.
#include <vector>

#include "app/cli_args.h"

namespace attnlab::cli {

const std::vector<Option>& variantOptions();

/// Applies the variant options present in `args` to `s` (then validates it); throws InputError
/// naming the option.
void applyVariantArgs(const Args& args, VariantSettings& s);

}  // namespace attnlab::cli
