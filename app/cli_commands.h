#pragma once
// The headless subcommands of `attnlab`. Each is a row of the table in cli_commands.cpp: its name,
// a summary for --help, its options and the function that runs it (returns the exit code).
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/cli_args.h"
#include "core/atlas/head_atlas.h"

namespace attnlab::cli {

struct Subcommand {
  std::string name;
  std::string usage;  ///< one line after "attnlab NAME"
  std::string summary;
  std::vector<Option> options;  ///< besides the common parameter options when usesParams
  bool usesParams;
  bool needsGui;  ///< renders widgets: runs under a QApplication on the offscreen platform
  int (*run)(const Args&);
};

const std::vector<Subcommand>& subcommands();
const Subcommand* findSubcommand(const std::string& name);

/// The text of `attnlab --help`.
std::string helpText();
/// The text of `attnlab NAME --help`: one subcommand's usage, summary and options.
std::string subcommandHelp(const Subcommand& c);

int runDump(const Args& args);
int runExport(const Args& args);
int runTokenize(const Args& args);
int runCollapse(const Args& args);
/// The options of `attnlab collapse` (its own table: --norm and --d-model mean the deep stack's here).
const std::vector<Option>& collapseOptions();
int runRankDemo(const Args& args);
int runGenerate(const Args& args);
/// The options of `attnlab generate` (besides the parameter options; --seed is shared with them).
const std::vector<Option>& generateOptions();
int runTrain(const Args& args);
int runPredict(const Args& args);
int runAttribute(const Args& args);
int runPatch(const Args& args);
int runHeads(const Args& args);
/// attnlab.heads/1 of an atlas, with at most `top` strongest contexts per head (app/cli_heads.cpp).
nlohmann::json headsJson(const HeadAtlas& atlas, int top);
/// The options of `attnlab train`.
const std::vector<Option>& trainOptions();

}  // namespace attnlab::cli
