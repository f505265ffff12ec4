#!/usr/bin/env python3
"""Moves the flat core/, ui/ and tests/ folders into rooms by concept (issue "The house and the window").

Run from the repository root, on a clean tree that still has the flat layout:

    python3 tools/rehouse.py            # moves (git mv), rewrites includes, writes the rooms' CMakeLists.txt
    python3 tools/rehouse.py --dry-run  # only checks and prints where every file would go

What it does, in order; nothing is changed until every check has passed:
  1. places every file of core/, ui/ and tests/ (test_*.cpp and their helpers) by the tables below;
     a file the tables do not name stops the run with the list of unplaced files;
  2. checks the include graph of the placed tree: no include from a room into a room above it
     (ROOM_DEPS), no Qt and no ui/ include in core/;
  3. git mv's the files, rewrites every "core/x.h", "ui/x.h", "tests/x.h" include and path mention
     (C++, CMake, scripts, tools, README) to the new path and runs clang-format -i on the C++ files
     it changed (.clang-format sorts includes, and a longer path may reflow a comment);
  4. writes core/ROOM/CMakeLists.txt and ui/ROOM/CMakeLists.txt (one static library per room linking
     only the rooms below it) and the umbrella targets attnlab_core and attnlab_ui that app/, bench/
     and the tests link as before; tests/CMakeLists.txt globs tests/**/test_*.cpp (ctest names stay
     the unit names) and tests/fuzz finds its core sources in their rooms;
  5. moves tools/test_room_dependencies.cpp to tests/, the test that keeps the rooms one-way.

Adding a file later is one line in ROOMS (or TEST_ROOMS): `room: stem`. A test test_<x> follows the
room of <x> when <x> is a stem of core/ or ui/ (test_packed_matrix -> tests/core/compute/), unless
TEST_ROOMS names it.
"""
import argparse
import hashlib
import os
import re
import subprocess
import sys
from pathlib import Path

# Rooms of core/ and ui/: `room: stems` (a stem is a file name up to its first dot, so x.h and x.cpp go
# together). A room may appear on several lines. Order within the table does not matter.
ROOMS = """
core/base: errors tensor rng run_control threading eigen_threads parallel_jobs json_file npy enum_names
core/base: mapped_file gaussian_fill
core/compute: packed_gemm packed_matrix heap_policy lapack_spectrum lapack_tuning
core/text: utf8 unicode_data unicode_props text_offsets word_tokenizer gpt2_pretokenizer bpe_tokenizer
core/text: bert_normalizer wordpiece_tokenizer tokenizer tokenizer_loader
core/model: model trace trace_json blocks attention_head embedding model_config builtin_model
core/spectra: attention_metrics spectrum spectra_settings head_spectrum exp_rank_demo spectrum_json
core/checkpoint: safetensors safetensors_writer hf_config hf_model hf_weights gpt2_model bert_model
core/checkpoint: checkpoint
core/variants: attention_variant linear_attention performer variant_settings variant_analysis variant_json
core/variants: complexity_sweep feature_maps head_size_sweep
core/collapse: collapse_settings collapse_metrics deep_stack
core/train: tiny_config tiny_params tiny_net tiny_model train_tasks trainer train_json tiny_checkpoint
# The shipped models are tiny models compiled into the program (loadTinyModelFromMemory).
core/train: shipped_models
core/session: params params_json display_settings session lesson view_numbers token_pins
core/run: model_factory pipeline collapse_experiment path_analysis

ui/plots: colormaps view_style matrix_plot spectrum_plot figure_export attention_grid
ui/views/common: trace_view compute_result background_job
ui/views/attention: heatmap_view model_grid_view head_view
ui/views/inside_head: matrix_grid_view
ui/views/variants: variants_view variant_controls complexity_view feature_map_view head_size_view
ui/views/spectra: spectrum_view rank_table_view rank_demo_view
ui/views/depth: collapse_view collapse_controls collapse_plotting paths_view
ui/views/training: training_view training_worker
ui/shell: main_window live_controller model_opener param_panel param_history session_actions session_io
ui/shell: autosave lesson_library lesson_panel view_factory view_export view_actions export_dialog
ui/plots: fonts cell_painter
ui/views/common: token_selection
ui/views/attention: head_view_legend
ui/shell: view_navigator view_pages
"""

# Tests and their helpers that do not follow the test_<x> rule. `tests` is the folder itself.
TEST_ROOMS = """
tests: fuzzy_compare test_room_dependencies
tests/app: cli_test_util test_cli test_cli_models test_cli_spectra test_cli_train test_collapse_cli
tests/core/text: tokenizer_test_util test_tokenizer_bert test_tokenizer_gpt2 test_tokenizer_words
tests/core/model: test_builtin_engine test_reference_builtin
tests/core/checkpoint: test_checkpoint_errors test_hf_models
tests/core/variants: test_variants test_performer_stats
tests/core/collapse: test_collapse_reference
tests/core/train: test_training test_tiny_gradients test_shipped_model
tests/ui/shell: test_lessons test_sessions
tests/ui/shell: test_export
tests/ui/views/spectra: test_spectra_views
tests/ui/plots: test_figures
tests/ui/shell: test_presentation test_token_selection
tests/ui/views/common: test_token_labels
"""

# Direct dependencies of each room: its CMake target links exactly these, and an include may reach
# these rooms and everything below them. tests/test_room_dependencies.cpp holds the same table.
ROOM_DEPS = """
core/base:
core/compute: core/base
core/text: core/base
core/model: core/text
core/spectra: core/model core/compute
core/checkpoint: core/model core/compute
core/variants: core/spectra
core/collapse: core/spectra
core/train: core/checkpoint
core/session: core/variants core/collapse
core/run: core/session core/train
ui/plots: core
ui/views/common: ui/plots
ui/views/attention: ui/views/common
ui/views/inside_head: ui/views/common
ui/views/variants: ui/views/common
ui/views/spectra: ui/views/common
ui/views/depth: ui/views/common
ui/views/training: ui/views/common
ui/shell: ui/views/attention ui/views/inside_head ui/views/variants ui/views/spectra ui/views/depth
ui/shell: ui/views/training
"""

# The first lines of each room's CMakeLists.txt: what the room holds (the README's words for it).
ROOM_DESCRIPTIONS = {
    "core/base": "errors, tensors, the deterministic Rng, run control and cancellation, threads and "
    "parallel jobs, JSON/NPY/mapped-file helpers, enum names: what every room uses.",
    "core/compute": "fast products and LAPACK: packed weight matrices and their GEMM, the heap policy "
    "of the forward pass, LAPACK's SVD and eigenvalues and their tuning.",
    "core/text": "text to tokens: UTF-8, the Unicode tables, the word tokenizer of the built-in model "
    "and every checkpoint tokenizer (GPT-2 byte-level BPE, BERT WordPiece) with their loader.",
    "core/model": "the Model interface and its Trace, the transformer's blocks and attention heads, "
    "embeddings, the model config and the built-in random transformer.",
    "core/spectra": "rank and spectra: singular values, numerical rank and the metrics of an attention "
    "matrix, spectra of heads, the exp-raises-rank demo, their settings and JSON.",
    "core/checkpoint": "models from disk: safetensors (read and write), Hugging Face configs, weights "
    "and models (GPT-2, BERT), the checkpoint loader and the models shipped with the program.",
    "core/variants": "attention variants: linear attention, Performer, their settings and analysis "
    "against softmax, the complexity sweep, feature maps and the head-size sweep.",
    "core/collapse": "rank collapse (Dong et al. 2021): deep attention stacks, the residual metrics "
    "and the collapse settings.",
    "core/train": "the tiny trainable transformer: its config, parameters, network with gradients, "
    "tasks, trainer, JSON and checkpoint files.",
    "core/session": "the one parameter struct that gathers every room's settings, its JSON, "
    "sessions, lessons and the numbers behind a view.",
    "core/run": "from one Params to results: the model factory, the forward pipeline, the rank-collapse "
    "experiment and the path analysis.",
    "ui/plots": "the plotting kit: colormaps, the shared view style, the matrix and spectrum plots, "
    "the attention grid and the PNG/SVG/PDF save helper.",
    "ui/views/common": "what every view shares: the TraceView base, the ComputeResult it draws and "
    "the BackgroundJob that computes off the GUI thread.",
    "ui/views/attention": "the navigator's Attention group: heatmap, model view, head view.",
    "ui/views/inside_head": "the navigator's Inside a head group: Q/K/V and scores, head outputs.",
    "ui/views/variants": "the navigator's Variants group: variants, complexity, feature maps, head size.",
    "ui/views/spectra": "the navigator's Rank and spectra group: spectrum, head ranks, exp raises rank.",
    "ui/views/depth": "the navigator's Depth group: rank collapse and paths.",
    "ui/views/training": "the navigator's Training group: the training view and its worker.",
    "ui/shell": "the window around the views: main window, live controller, model opener, parameter "
    "panel and history, sessions and autosave, lessons, view factory, export and its dialog.",
}

# CMake a room needs beyond the common part (compile definitions on single sources, options).
# `{target}` is the room's target name.
ROOM_EXTRA_CMAKE = {
    "core/base": """
# Every room links base, so these reach every object of the core (and every user of Eigen through it).
target_link_libraries({target} PUBLIC Eigen3::Eigen nlohmann_json::nlohmann_json OpenMP::OpenMP_CXX)
target_compile_options({target} PUBLIC $<$<CONFIG:Release>:-O3>)
# EIGEN_DONT_PARALLELIZE: Eigen would otherwise split every product above a small size over the OpenMP
# threads. Our matrices are small (tens of rows): the split costs more than it gains, and on a busy
# machine a 2-thread GEMM waits for a second core that is not there (a 32-layer deep stack took 40×
# longer). Parallelism comes from running independent jobs side by side (core/base/parallel_jobs.h).
target_compile_definitions({target} PUBLIC EIGEN_NO_DEBUG EIGEN_DONT_PARALLELIZE)
""",
    "core/compute": """
# LAPACK (Debian's liblapack-dev; OpenBLAS's when libopenblas0-pthread is installed) for the spectra of
# large attention matrices: lapack_spectrum.h. Without it Eigen computes them, 10–20× slower.
option(ATTNLAB_LAPACK "Singular values and eigenvalues of large matrices through LAPACK" ON)
if(ATTNLAB_LAPACK)
  find_library(ATTNLAB_LAPACK_LIBRARY NAMES lapack)
  if(ATTNLAB_LAPACK_LIBRARY)
    target_link_libraries({target} PUBLIC ${{ATTNLAB_LAPACK_LIBRARY}} ${{CMAKE_DL_LIBS}})
    set_source_files_properties(${{CMAKE_CURRENT_SOURCE_DIR}}/lapack_spectrum.cpp
      ${{CMAKE_CURRENT_SOURCE_DIR}}/lapack_tuning.cpp PROPERTIES COMPILE_DEFINITIONS ATTNLAB_HAVE_LAPACK)
    # lapack_tuning.cpp replaces LAPACK's IPARMQ (see lapack_tuning.h). Nothing in the program calls
    # it by name, so the linker would leave that member of the archive out: ask for the symbol.
    target_link_options({target} INTERFACE "LINKER:--undefined=iparmq_")
  else()
    message(WARNING "LAPACK not found (apt-get install liblapack-dev): spectra use Eigen only")
  endif()
endif()
""",
    "core/train": """
# The shipped trained models (resources/models/) are compiled into the program (cmake/embed_files.cmake
# writes their bytes as arrays), so a binary copied anywhere opens them: sessions and the command line
# name them "builtin:NAME", never by path. Retraining (scripts/train-default-model) regenerates the array.
set(ATTNLAB_EMBEDDED_FILES models/induction/config.json models/induction/model.safetensors)
set(ATTNLAB_EMBEDDED_INPUTS ${{ATTNLAB_EMBEDDED_FILES}})
list(TRANSFORM ATTNLAB_EMBEDDED_INPUTS PREPEND ${{PROJECT_SOURCE_DIR}}/resources/)
list(JOIN ATTNLAB_EMBEDDED_FILES "|" ATTNLAB_EMBEDDED_ARG)  # a ';' would end the shell command
add_custom_command(
  OUTPUT ${{CMAKE_CURRENT_BINARY_DIR}}/embedded_files.cpp
  COMMAND ${{CMAKE_COMMAND}} -DOUTPUT=${{CMAKE_CURRENT_BINARY_DIR}}/embedded_files.cpp
          -DROOT=${{PROJECT_SOURCE_DIR}}/resources -DFILES=${{ATTNLAB_EMBEDDED_ARG}}
          -P ${{PROJECT_SOURCE_DIR}}/cmake/embed_files.cmake
  DEPENDS ${{ATTNLAB_EMBEDDED_INPUTS}} ${{PROJECT_SOURCE_DIR}}/cmake/embed_files.cmake
  COMMENT "Embedding the shipped models" VERBATIM)
target_sources({target} PRIVATE ${{CMAKE_CURRENT_BINARY_DIR}}/embedded_files.cpp)
""",
    "ui/plots": """
target_link_libraries({target}
  PUBLIC attnlab_core Qt6::Widgets Qt6::Svg Qt6::PrintSupport Qt6::Concurrent QCustomPlotQt6::QCustomPlotQt6)
""",
    "ui/shell": """
# The shipped lessons (resources/lessons/*.json) are compiled in; lesson_library.cpp initialises the
# resource, since a static library's resources are otherwise dropped by the linker.
target_sources({target} PRIVATE ${{PROJECT_SOURCE_DIR}}/resources/lessons.qrc)
set_target_properties({target} PROPERTIES AUTORCC ON)
""",
}

# The folder CMakeLists.txt this script replaces, as it was written for (sha256). If one changed (a
# merged branch added a generated source, say), port the change into ROOM_EXTRA_CMAKE above, then put
# the new hash here: `sha256sum core/CMakeLists.txt`.
KNOWN_CMAKE = {
    "core/CMakeLists.txt": "e689a0109054835e1ba7ef43feeecfb4722901cd0aa72df94ee90a282508cf67",
    "ui/CMakeLists.txt": "2218e9d173e969c06f75da46bff7dd3b164a074fbd7b061311786fa7f4309576",
}
# The commit whose core/ and ui/ CMakeLists.txt the hashes above describe (for `git diff`).
KNOWN_CMAKE_COMMIT = "9badb270a29641aab88ed81d742b2d6c16c1e9c1"

TEST_TEMPLATE = "tools/test_room_dependencies.cpp"
QT_INCLUDE = re.compile(r'^\s*#\s*include\s*<(Q[A-Z]\w*|Qt\w*/[^>]*|Qt\w*)>', re.M)
PROJECT_INCLUDE = re.compile(r'^\s*#\s*include\s*"((core|ui)/[^"]+)"', re.M)
MENTION = re.compile(r'(?<![\w.])((?:core|ui|tests)/[A-Za-z0-9_]+\.(?:h|cpp))\b')
# Text files whose path mentions are rewritten (README.md too: its file references follow the move).
MENTION_SUFFIXES = {".h", ".cpp", ".txt", ".py", ".sh", ".md"}
MENTION_SKIP = {"tools/rehouse.py", TEST_TEMPLATE}
MENTION_SKIP_DIRS = ("tests/fixtures/", "tests/reference/", "tests/fuzz/corpus/")


class Stop(Exception):
    """A reason to change nothing and tell the person running the script what to do."""


def stem(name):
    return name.split(".", 1)[0]


def parse_table(text):
    """`room: words` lines -> {word: room}; a word on two rooms is an error of the table."""
    placed = {}
    for line in text.strip().splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        room, _, words = line.partition(":")
        for word in words.split():
            if word in placed and placed[word] != room.strip():
                raise Stop(f"tools/rehouse.py: '{word}' is placed in both {placed[word]} and {room.strip()}")
            placed[word] = room.strip()
    return placed


def parse_deps(text):
    deps = {}
    for line in text.strip().splitlines():
        room, _, words = line.partition(":")
        deps.setdefault(room.strip(), []).extend(words.split())
    return deps


def closure(deps):
    """Room -> every room it may include (itself, its dependencies and theirs); `core` means all of core."""
    core_rooms = [r for r in deps if r.startswith("core/")]
    out = {}

    def below(room, seen):
        for d in deps.get(room, []):
            for r in core_rooms if d == "core" else [d]:
                if r not in seen:
                    seen.add(r)
                    below(r, seen)
        return seen

    for room in deps:
        out[room] = below(room, {room})
    return out


def git(*args, capture=True):
    return subprocess.run(["git", *args], check=True, text=True, capture_output=capture).stdout


def tracked_files(*paths):
    return [f for f in git("ls-files", "--", *paths).splitlines() if f]


def check_preconditions():
    if not Path("core/CMakeLists.txt").is_file() or not Path(".git").exists():
        raise Stop("run tools/rehouse.py from the repository root")
    for top in ("core", "ui"):
        rooms = [p for p in Path(top).iterdir() if p.is_dir()]
        if rooms or "attnlab_core_base" in Path("core/CMakeLists.txt").read_text():
            raise Stop(f"{top}/ already has rooms ({', '.join(map(str, rooms)) or 'CMake'}): the tree is already "
                       "rehoused; this script only moves the flat layout")
    if Path("tests/test_room_dependencies.cpp").exists():
        raise Stop("tests/test_room_dependencies.cpp exists: the tree is already rehoused")
    dirty = git("status", "--porcelain", "--", "core", "ui", "tests", "app", "bench", "tools", "scripts")
    if dirty.strip():
        raise Stop("commit or remove these changes first, so the move is one clean diff:\n" + dirty)
    changed = []
    for path, known in KNOWN_CMAKE.items():
        digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()
        if digest != known:
            changed.append(f"  {path} (sha256 {digest})")
    if changed:
        raise Stop("these CMakeLists.txt changed since tools/rehouse.py was written; the rooms' CMake is "
                   "generated from ROOM_EXTRA_CMAKE, so port what changed there, then update KNOWN_CMAKE:\n"
                   + "\n".join(changed) + f"\n  see: git diff {KNOWN_CMAKE_COMMIT} -- core/CMakeLists.txt ui/CMakeLists.txt")


def plan_moves(rooms, test_rooms):
    """Old path -> new path for every file of core/, ui/ and tests/ (top level), and the test template."""
    moves, unplaced = {}, []
    for top in ("core", "ui"):
        for f in sorted(tracked_files(top)):
            name = Path(f).name
            if "/" in f[len(top) + 1:] or name == "CMakeLists.txt":
                continue
            room = rooms.get(stem(name))
            if room is None or not room.startswith(top + "/"):
                unplaced.append(f)
            else:
                moves[f] = f"{room}/{name}"
    for f in sorted(tracked_files("tests")):
        name = Path(f).name
        if "/" in f[len("tests/"):] or not (name.endswith(".h") or (name.startswith("test_") and name.endswith(".cpp"))):
            continue
        s = stem(name)
        room = test_rooms.get(s)
        if room is None and s.startswith("test_") and s[5:] in rooms:
            room = "tests/" + rooms[s[5:]]
        if room is None:
            unplaced.append(f)
        elif room != "tests":
            moves[f] = f"{room}/{name}"
    if unplaced:
        raise Stop("these files have no room; add a line `room: stem` to ROOMS (core/, ui/) or TEST_ROOMS "
                   "(tests/; test_<x> follows <x> by itself when <x> is placed) in tools/rehouse.py:\n  "
                   + "\n  ".join(unplaced))
    if not Path(TEST_TEMPLATE).is_file():
        raise Stop(f"{TEST_TEMPLATE} is missing")
    moves[TEST_TEMPLATE] = "tests/test_room_dependencies.cpp"
    return moves


def room_of(path, room_names):
    """The longest room whose folder holds `path`, or None."""
    best = None
    for r in room_names:
        if path.startswith(r + "/") and "/" not in path[len(r) + 1:] and (best is None or len(r) > len(best)):
            best = r
    return best


def check_includes(moves, deps):
    """Include rules on the planned layout: one-way rooms, no Qt and no ui/ in core/."""
    allowed = closure(deps)
    problems = []
    for old, new in sorted(moves.items()):
        if not new.startswith(("core/", "ui/")):
            continue
        room = room_of(new, deps)
        text = Path(old).read_text(encoding="utf-8")
        for m in PROJECT_INCLUDE.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            target = moves.get(m.group(1))
            if target is None:
                problems.append(f"{new}:{line}: includes {m.group(1)}, which is not a file of the tree")
                continue
            target_room = room_of(target, deps)
            if room.startswith("core/") and target_room.startswith("ui/"):
                problems.append(f"{new}:{line}: core includes ui ({target})")
            elif target_room not in allowed[room]:
                problems.append(f"{new}:{line}: {room} may not include {target_room} ({target})")
        if room.startswith("core/"):
            for m in QT_INCLUDE.finditer(text):
                problems.append(f"{new}:{text.count(chr(10), 0, m.start()) + 1}: core includes Qt <{m.group(1)}>")
    if problems:
        raise Stop("the placed tree would break the room order (ROOM_DEPS); move the files or change the "
                   "dependency (and tests/test_room_dependencies.cpp's table with it):\n  " + "\n  ".join(problems))


def wrapped(head, words, indent="  ", width=110):
    """`head w1 w2 …` on one line when it fits in `width`, else the words on indented lines after `head`."""
    one = " ".join([head, *words])
    if len(one) <= width:
        return one
    lines, line = [head], indent
    for w in words:
        if len(line) + len(w) > width and line.strip():
            lines.append(line.rstrip())
            line = indent
        line += w + " "
    lines.append(line.rstrip())
    return "\n".join(lines)


def target_name(room):
    return "attnlab_" + room.replace("/", "_")


def room_cmake(room, deps):
    """core/ROOM/CMakeLists.txt: a comment saying what the room holds, its library, links to the rooms below."""
    target = target_name(room)
    words = ROOM_DESCRIPTIONS[room]
    lines, line = [], f"# {room}: "
    for w in words.split():
        if len(line) + len(w) > 108:
            lines.append(line.rstrip())
            line = "#   "
        line += w + " "
    lines.append(line.rstrip())
    below = [d for d in deps[room] if d != "core"]
    names = below + (["all of core/"] if "core" in deps[room] else [])
    lines.append(wrapped("# Links the rooms below it:", (", ".join(names) if names else "none").split(" ")
                         + "(checked by tests/test_room_dependencies.cpp).".split(" "), indent="#   "))
    var = target.upper() + "_SOURCES"
    globs = "${CMAKE_CURRENT_SOURCE_DIR}/*.cpp" + (" ${CMAKE_CURRENT_SOURCE_DIR}/*.h" if room.startswith("ui/") else "")
    lines.append(f"file(GLOB {var} CONFIGURE_DEPENDS {globs})")
    lines.append(f"add_library({target} STATIC ${{{var}}})")
    if room.startswith("ui/"):
        lines.append(f"set_target_properties({target} PROPERTIES AUTOMOC ON)")
    lines.append(f"target_include_directories({target} PUBLIC ${{PROJECT_SOURCE_DIR}})")
    links = ["PUBLIC", *(target_name(d) for d in below)] if below else []
    lines.append(wrapped(f"target_link_libraries({target}", links + ["PRIVATE", "attnlab_warnings)"]))
    text = "\n".join(lines) + "\n"
    if room in ROOM_EXTRA_CMAKE:
        text += ROOM_EXTRA_CMAKE[room].format(target=target)
    return text


def top_cmake(top, deps):
    rooms = [r for r in topological(deps) if r.startswith(top + "/")]
    if top == "core":
        head = ("# The numeric core: Eigen and the standard library only. Qt is deliberately not linked, so that\n"
                "# nothing here can include it. One folder per concept (a room), each a static library that links\n"
                "# only the rooms below it; its CMakeLists.txt says what it holds. Listed from the bottom up;\n"
                "# tests/test_room_dependencies.cpp checks the includes keep to this order.\n")
    else:
        head = ("# The Qt side: the plotting kit, the views in the navigator's groups (views/GROUP) and the shell\n"
                "# around them. One static library per room, linking only the rooms below it, listed from the\n"
                "# bottom up; tests/test_room_dependencies.cpp checks the includes keep to this order.\n")
    body = "".join(f"add_subdirectory({r[len(top) + 1:]})\n" for r in rooms)
    umbrella = f"attnlab_{top}"
    body += (f"\n# {umbrella}: every room, for app/, bench/ and the tests.\nadd_library({umbrella} INTERFACE)\n"
             + wrapped(f"target_link_libraries({umbrella} INTERFACE", [target_name(r) for r in rooms[:-1]]
                       + [target_name(rooms[-1]) + ")"]) + "\n")
    return head + body


def topological(deps):
    order, seen = [], set()

    def visit(r):
        if r in seen or r == "core":
            return
        seen.add(r)
        for d in deps[r]:
            visit(d)
        order.append(r)

    for r in deps:
        visit(r)
    return order


def rewrite_mentions(moves):
    """Rewrites "core/x.h"-style paths and the tests' relative helper includes; returns the changed files."""
    mapping = {old: new for old, new in moves.items()}
    helpers = {Path(old).name: new for old, new in moves.items() if old.startswith("tests/") and old.endswith(".h")}
    helpers["fuzzy_compare.h"] = "tests/fuzzy_compare.h"
    changed = []
    files = tracked_files("core", "ui", "app", "tests", "bench", "tools", "scripts", "docs", "README.md", "CMakeLists.txt")
    for f in files:
        f = moves.get(f, f)
        if (f in MENTION_SKIP or f.startswith(MENTION_SKIP_DIRS) or Path(f).suffix not in MENTION_SUFFIXES
                or not Path(f).is_file()):
            continue
        text = Path(f).read_text(encoding="utf-8")
        new = MENTION.sub(lambda m: mapping.get(m.group(1), m.group(1)), text)
        if f.startswith("tests/"):
            new = re.sub(r'(#include\s*")([A-Za-z0-9_]+\.h)(")',
                         lambda m: m.group(1) + helpers.get(m.group(2), m.group(2)) + m.group(3), new)
        if new != text:
            Path(f).write_text(new, encoding="utf-8")
            changed.append(f)
    return changed


def replace_once(path, old, new):
    text = Path(path).read_text(encoding="utf-8")
    if text.count(old) < 1:
        raise Stop(f"{path} no longer contains the text tools/rehouse.py edits:\n{old}\nedit the script to match")
    Path(path).write_text(text.replace(old, new), encoding="utf-8")


def check_cmake_edits():
    """The tests' and fuzz targets' CMake is edited in place: check the edited text is there before moving."""
    for path, old, _ in CMAKE_EDITS:
        if old not in Path(path).read_text(encoding="utf-8"):
            raise Stop(f"{path} no longer contains the text tools/rehouse.py edits:\n  {old}\nedit CMAKE_EDITS to match")


CMAKE_EDITS = [
    ("tests/CMakeLists.txt",
     "# One Qt Test executable per unit: tests/test_<unit>.cpp becomes the ctest test <unit>.\n",
     "# One Qt Test executable per unit: tests/ROOM/test_<unit>.cpp (the rooms of core/ and ui/, app/ for the\n"
     "# command line) becomes the ctest test <unit>; the names stay unique across rooms.\n"),
    ("tests/CMakeLists.txt",
     "file(GLOB ATTNLAB_TEST_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/test_*.cpp)\n",
     "file(GLOB_RECURSE ATTNLAB_TEST_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/test_*.cpp)\n"
     "list(FILTER ATTNLAB_TEST_SOURCES EXCLUDE REGEX \"/tests/(fixtures|reference|fuzz)/\")\n"),
    ("tests/CMakeLists.txt",
     "    ATTNLAB_TEST_DATA=\"${CMAKE_CURRENT_SOURCE_DIR}\"\n",
     "    ATTNLAB_TEST_DATA=\"${CMAKE_CURRENT_SOURCE_DIR}\"\n    ATTNLAB_SOURCE_DIR=\"${PROJECT_SOURCE_DIR}\"\n"),
    ("tests/fuzz/CMakeLists.txt",
     "foreach(src ${fuzz_core_sources})\n",
     "foreach(src ${fuzz_core_sources})\n"
     "  # The sources live in core's rooms (core/ROOM/NAME.cpp); the names above stay room-free.\n"
     "  file(GLOB src_path ${PROJECT_SOURCE_DIR}/core/*/${src}.cpp)\n"),
    ("tests/fuzz/CMakeLists.txt", "${PROJECT_SOURCE_DIR}/core/${src}.cpp", "${src_path}"),
    ("tests/fuzz/CMakeLists.txt", "COMMENT \"clang (fuzz): core/${src}.cpp\"", "COMMENT \"clang (fuzz): ${src_path}\""),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dry-run", action="store_true", help="check and print the moves, change nothing")
    args = parser.parse_args()
    try:
        rooms, test_rooms, deps = parse_table(ROOMS), parse_table(TEST_ROOMS), parse_deps(ROOM_DEPS)
        missing = sorted(set(rooms.values()) - set(deps)) + sorted(set(deps) - set(ROOM_DESCRIPTIONS) - {"core"})
        if missing:
            raise Stop("rooms without a ROOM_DEPS or ROOM_DESCRIPTIONS line: " + ", ".join(missing))
        check_preconditions()
        moves = plan_moves(rooms, test_rooms)
        check_includes(moves, deps)
        check_cmake_edits()
    except Stop as e:
        print(f"rehouse: {e}", file=sys.stderr)
        return 1
    if args.dry_run:
        for old, new in sorted(moves.items()):
            print(f"{old} -> {new}")
        print(f"rehouse: {len(moves)} files would move; nothing changed (--dry-run)")
        return 0
    for old, new in sorted(moves.items()):
        os.makedirs(Path(new).parent, exist_ok=True)
        git("mv", old, new)
    changed = rewrite_mentions(moves)
    for path, old, new in CMAKE_EDITS:
        replace_once(path, old, new)
    written = []
    for room in topological(deps):
        path = f"{room}/CMakeLists.txt"
        Path(path).write_text(room_cmake(room, deps), encoding="utf-8")
        written.append(path)
    for top in ("core", "ui"):
        Path(f"{top}/CMakeLists.txt").write_text(top_cmake(top, deps), encoding="utf-8")
    formatted = sorted({f for f in changed if f.endswith((".h", ".cpp"))})
    if formatted:
        subprocess.run(["clang-format", "-i", *formatted], check=True)
    git("add", "-A", "--", "core", "ui", "tests", "app", "bench", "tools", "scripts", "docs", "README.md",
        "CMakeLists.txt")
    print(f"rehouse: moved {len(moves)} files, rewrote paths in {len(changed)}, clang-format on {len(formatted)}, "
          f"wrote {len(written)} room CMakeLists.txt; staged, not committed")
    print("rehouse: next: cmake -S . -B build && cmake --build build && ctest (tests/test_room_dependencies.cpp "
          "checks the rooms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
