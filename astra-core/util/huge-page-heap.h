// Puts the heap a simulation grows into on transparent huge pages. A packet-level run reads its ports,
// queue pairs, congestion-control states and packets all over tens of megabytes of heap, a few lines at a
// time; with 4 KB pages most of those reads also miss the TLB (the k=8 all-to-all: about 0.88x the CPU on
// huge pages). Most kernels give huge pages only to memory that asks for them (THP "madvise" mode), and
// glibc's malloc never asks unless a tunable is set when the process starts.
#ifndef MLNET_UTIL_HUGE_PAGE_HEAP_H
#define MLNET_UTIL_HUGE_PAGE_HEAP_H

#include <cstddef>

namespace mlnet {

// Process-wide and once (the packet-level fabric calls it before it builds a large network).
// Extends glibc's main heap by a fixed reserve at once (M_TOP_PAD; virtual until touched, about 1 GB or an
// eighth of the machine's memory) and advises that reserve for huge pages, so that what the process
// allocates from then on lands on them; allocations up to 32 MB come from the heap instead of their own
// mappings, and the reserve is never trimmed. Returns the bytes advised: 0 where that cannot be done (not
// Linux with glibc's allocator, e.g. under a sanitizer or valgrind; the heap did not grow where expected; the
// kernel refused) or on every call after the first. Results do not depend on it, only speed and the
// granularity of resident memory (2 MB).
std::size_t adviseHugePagesForHeap();

}  // namespace mlnet

#endif
