#include "util/huge-page-heap.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#if defined(__linux__) && defined(__GLIBC__)
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace mlnet {

std::size_t adviseHugePagesForHeap() {
#if defined(__linux__) && defined(__GLIBC__)
    static bool done = false;
    if (done) {
        return 0;
    }
    done = true;
    constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;
    const long pages = sysconf(_SC_PHYS_PAGES), pageBytes = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || pageBytes <= 0) {
        return 0;
    }
    std::size_t reserve = std::min<std::size_t>(std::size_t{1} << 30, std::size_t(pages) * pageBytes / 8);
    reserve -= reserve % kHugePageBytes;
    if (reserve < 8 * kHugePageBytes) {
        return 0;
    }
    // glibc serves blocks from 128 KB up from mappings of their own, which no advice reaches (32 MB is the
    // largest threshold it accepts). The heap grows by the reserve at its next extension, and keeps it:
    // trimming would end the advised mapping, and brk cannot extend a mapping with advice.
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, static_cast<int>(2 * reserve));
    mallopt(M_TOP_PAD, static_cast<int>(reserve));
    // A block larger than what the heap has left makes it grow now (by the block and the reserve).
    const char* before = static_cast<const char*>(sbrk(0));
    void* probe = std::malloc(4 * kHugePageBytes);
    const char* end = static_cast<const char*>(sbrk(0));
    std::size_t advised = 0;
    if (probe != nullptr && end >= before + reserve) {
        // Blocks are carved from the heap's end upwards: from the probe on, the memory is new, and the
        // blocks after the probe start where it did once it is freed. From the huge page the probe starts
        // in, unless that page starts before the heap (the advice is refused for a range with a hole).
        const auto probeAt = reinterpret_cast<std::uintptr_t>(probe);
        const auto stop = reinterpret_cast<std::uintptr_t>(end) & ~(kHugePageBytes - 1);
        for (const std::uintptr_t start :
             {probeAt & ~(kHugePageBytes - 1), (probeAt + kHugePageBytes - 1) & ~(kHugePageBytes - 1)}) {
            if (stop > start && madvise(reinterpret_cast<void*>(start), stop - start, MADV_HUGEPAGE) == 0) {
                advised = stop - start;
                break;
            }
        }
    }
    std::free(probe);
    if (advised == 0) {
        // Nothing advised: glibc's defaults back (its thresholds then stay fixed instead of adapting).
        mallopt(M_TOP_PAD, 128 << 10);
        mallopt(M_TRIM_THRESHOLD, 128 << 10);
        mallopt(M_MMAP_THRESHOLD, 128 << 10);
    }
    return advised;
#else
    return 0;
#endif
}

}  // namespace mlnet
