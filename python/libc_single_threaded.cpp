// The module's own copy of glibc's __libc_single_threaded, kept local by exports.map (python/CMakeLists.txt says
// why). The core rooms are compiled for an executable (-fPIE), which reads this libc variable directly, as if copied
// into the program; a shared object cannot copy it. libstdc++ reads it only to skip atomic reference counts in a
// process without threads: 0 ("there may be threads") makes it always use them, which is correct everywhere.
extern "C" {
char __libc_single_threaded = 0;  // NOLINT: glibc's name
}
