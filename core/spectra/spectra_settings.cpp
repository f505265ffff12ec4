#include "core/spectra/spectra_settings.h"

#include <cmath>
#include <sstream>
#include <string>

#include "core/base/errors.h"

namespace attnlab {
namespace {

template <typename T>
void checkRange(const char* field, T value, T lo, T hi) {
  if (value >= lo && value <= hi) return;  // also false for NaN
  std::ostringstream s;
  s << "params: spectra." << field << " must be between " << lo << " and " << hi << " (got " << value << ")";
  throw InputError(s.str());
}

}  // namespace

void validate(const SpectraSettings& s) {
  checkRange("rank_demo.n", s.demo.n, 2, 4096);
  // |c|·max x² stays far below exp's overflow at 709 for every n allowed here.
  checkRange("rank_demo.scale", s.demo.scale, -20.0, 20.0);
  checkRange("rank_demo.sweep_min", s.demo.sweepMin, 1e-6, 20.0);
  checkRange("rank_demo.sweep_max", s.demo.sweepMax, 1e-6, 20.0);
  if (!(s.demo.sweepMax > s.demo.sweepMin))
    throw InputError("params: spectra.rank_demo.sweep_max must be larger than spectra.rank_demo.sweep_min");
  checkRange("rank_demo.sweep_points", s.demo.sweepPoints, 2, 400);
  checkRange("feature_maps.performer_features", s.features.performerFeatures, 0, 4096);
  checkRange("head_size.n", s.headSize.n, 2, 2048);
  checkRange("head_size.max_key_size", s.headSize.maxKeySize, 1, 1024);
}

}  // namespace attnlab
