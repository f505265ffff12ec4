// Prints this core's clock in GHz, measured: 8 dependent integer adds per loop turn take 8 cycles whatever the
// loop's own instructions (they run beside the chain). /proc/cpuinfo shows a fixed nominal value on this VM, while the
// real clock wanders between 2.5 and 3.1 GHz; scripts/build-times prints this beside every time it takes.
#include <chrono>
#include <cstdio>

int main() {
  const long turns = 200'000'000;
  long x = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < turns; ++i)
    asm volatile(
        "add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\t"
        "add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0"
        : "+r"(x)
        : "r"(i));
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%.2f GHz\n", 8.0 * static_cast<double>(turns) / s / 1e9);
  return x == 42 ? 1 : 0;
}
