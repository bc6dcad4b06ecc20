// The memory a run may use, and the one check every tool makes before it allocates something large (a packet
// fabric, generated flows, a workload): the estimate against the limit, refused with both numbers, instead of
// dying of bad_alloc half way with temporary files left behind. The limit is --max-memory, or by default the
// memory this process can have: the machine's, its cgroup's or its address-space limit, whichever is least.
#ifndef MLNET_UTIL_MEMORY_LIMIT_H
#define MLNET_UTIL_MEMORY_LIMIT_H

#include <cstdint>
#include <string>

#include "diagnostics.h"

namespace mlnet {

// MemTotal, capped by the cgroup (v2 memory.max, v1 memory.limit_in_bytes) and RLIMIT_AS when they are set.
uint64_t availableMemoryBytes();

// "1.7 GB", "350 MB", "12 KB": for messages.
std::string describeBytes(uint64_t bytes);

// False (an error naming `what`, both numbers and the option) when needBytes exceeds limitBytes.
// `remedy` says what would make it fit ("fewer hosts or a shorter --duration").
bool checkMemoryNeed(uint64_t needBytes, uint64_t limitBytes, const std::string& what,
                     const std::string& remedy, Diagnostics& diag);

}  // namespace mlnet

#endif
