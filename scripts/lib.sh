# Shared by scripts/run and scripts/test: install missing Debian packages, configure and build.
# Sourced, not executed.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${ATTNLAB_BUILD_DIR:-$ROOT/build}"

# Packages the build needs on a fresh, minimal Debian 12.
# liblapack-dev + libopenblas0-pthread: the spectra of large attention matrices (core/compute/lapack_spectrum.h).
# fonts-noto-cjk, fonts-symbola, fonts-noto-color-emoji: Chinese, Japanese, Korean and emoji drawn as text,
# not boxes, on screen and in figures (ui/plots/fonts.h).
# pybind11-dev, python3-dev, python3-numpy: the Python module `import attnlab` (python/) and its tests.
BUILD_PACKAGES=(g++ cmake ninja-build pkg-config qt6-base-dev qt6-svg-dev libqcustomplot-dev libeigen3-dev
  nlohmann-json3-dev libgl-dev fonts-dejavu-core fontconfig fonts-noto-cjk fonts-symbola fonts-noto-color-emoji
  liblapack-dev libopenblas0-pthread libsentencepiece-dev pybind11-dev python3-dev python3-numpy)
# The test suite's fuzz targets (tests/fuzz) need clang with libFuzzer; without them they are skipped.
FUZZ_PACKAGES=(clang libclang-rt-14-dev)
# bench/compare.sh: PyTorch from Debian, doing its products with OpenBLAS.
BENCH_PACKAGES=(python3-torch python3-numpy libopenblas0-pthread)

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# ensure_packages PKG...: installs those not yet installed (apt-get update first, once).
ensure_packages() {
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    echo "attnlab: installing missing Debian packages: ${missing[*]}"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
  fi
}

# build TARGET...: configures once (Release) and builds the named targets.
build() {
  if [ ! -f "$BUILD_DIR/build.ninja" ]; then
    cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release
  fi
  cmake --build "$BUILD_DIR" --parallel "$(nproc)" --target "$@"
}
