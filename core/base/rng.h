#pragma once
// A small deterministic generator (xoshiro256**, seeded by splitmix64) and a Box–Muller normal.
// std::normal_distribution is implementation-defined; ours gives the same numbers everywhere, so a
// seed in a saved session or a paper figure reproduces exactly.
#include <cmath>
#include <cstdint>
#include <string_view>

namespace attnlab {

inline uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// FNV-1a 64-bit hash: stable across runs and platforms (std::hash is not).
inline uint64_t fnv1a64(std::string_view s) {
  uint64_t h = 0xCBF29CE484222325ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001B3ull;
  }
  return h;
}

/// Mixes several integers into one seed, order-sensitive.
inline uint64_t mixSeed(uint64_t a, uint64_t b, uint64_t c = 0) {
  uint64_t s = a;
  uint64_t r = splitmix64(s) ^ (b * 0xD1B54A32D192ED03ull);
  s = r;
  r = splitmix64(s) ^ (c * 0x8CB92BA72F3D8DD7ull);
  s = r;
  return splitmix64(s);
}

class Rng {
 public:
  explicit Rng(uint64_t seed) {
    uint64_t s = seed;
    for (auto& w : state_) w = splitmix64(s);
  }
  uint64_t next() {
    const uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }
  /// Uniform in (0, 1): never exactly 0, so log() below is safe.
  double uniform() { return (static_cast<double>(next() >> 11) + 0.5) * (1.0 / 9007199254740992.0); }
  double normal() {
    if (hasSpare_) {
      hasSpare_ = false;
      return spare_;
    }
    const double u1 = uniform(), u2 = uniform();
    const double r = std::sqrt(-2.0 * std::log(u1));
    spare_ = r * std::sin(2.0 * M_PI * u2);
    hasSpare_ = true;
    return r * std::cos(2.0 * M_PI * u2);
  }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t state_[4];
  double spare_ = 0;
  bool hasSpare_ = false;
};

}  // namespace attnlab
