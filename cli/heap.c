/*
 * heap.c - the program's heap, set up once before a command runs: one large region that
 * malloc reuses and never returns, in transparent huge pages where the kernel allows them.
 *
 * Why: a grid model's solve touches ~10 MB of fresh memory once (the network, the sparse
 * matrix, the edge system), and on a virtual machine each first-touched 4-KiB page costs a
 * fault of several microseconds: the 64 x 64 ev6 steady state spent about half its wall time
 * in ~2,100 page faults (perf, bench/hotspot.sh). glibc's own switch for this is the
 * glibc.malloc.hugetlb tunable, an environment variable a program cannot set for itself; this
 * does what it does for the main heap through the documented calls: mallopt keeps large
 * blocks on the heap (M_MMAP_THRESHOLD at its 32-MiB maximum) and the heap's top untrimmed,
 * and grows the heap in steps of HEAP_PAD; madvise(MADV_HUGEPAGE) marks the grown part, so
 * its faults map 2-MiB pages (the kernel's "madvise" mode, Debian's default; with THP off
 * the advice is ignored). Untouched pages cost no memory, but freed memory is not returned to
 * the system before the process ends (its peak stays: a sweep's jobs are processes of their
 * own). The heap grown later, past the first ~80 MiB, is not advised. SITS_HUGEPAGES=0 turns
 * it off.
 * Only the program does this: the library never changes the allocator of its host.
 */
#define _DEFAULT_SOURCE
#include "cli.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GLIBC__)
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

#define HEAP_PAD ((size_t)64 << 20)
#define HUGE_PAGE ((uintptr_t)2 << 20)

void cli_heap_setup(void) {
#if defined(__GLIBC__) && defined(MADV_HUGEPAGE) && defined(M_TOP_PAD)
  const char *off = getenv("SITS_HUGEPAGES");
  if (off && strcmp(off, "0") == 0)
    return;
  /* glibc's mallopt returns 1 on success (some sanitizer runtimes' -1 or 0: then nothing is
   * done; a setting already made stays, which is harmless) */
  if (mallopt(M_MMAP_THRESHOLD, 32 << 20) != 1 || mallopt(M_TRIM_THRESHOLD, INT32_MAX) != 1 ||
      mallopt(M_TOP_PAD, (int)HEAP_PAD) != 1)
    return;
  /* a block the heap's top must grow for, freed at once: the top then spans HEAP_PAD more.
   * Only what brk added is advised (a block that glibc had to take by mmap, brk failing, or
   * an allocator that is not glibc's, as valgrind's, adds none): never memory of others. */
  uintptr_t before = (uintptr_t)sbrk(0);
  void *grow = malloc(16 << 20);
  if (!grow)
    return;
  uintptr_t after = (uintptr_t)sbrk(0);
  free(grow);
  uintptr_t lo = (before + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1), hi = after & ~(HUGE_PAGE - 1);
  if (before != (uintptr_t)-1 && after > before && hi > lo)
    (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#endif
}
