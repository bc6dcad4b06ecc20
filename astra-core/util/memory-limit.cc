#include "memory-limit.h"

#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <fstream>

namespace mlnet {

namespace {

// The first number of a file such as memory.max ("max" and unreadable files give UINT64_MAX).
uint64_t numberIn(const char* path) {
    std::ifstream in(path);
    uint64_t value = 0;
    return in >> value ? value : UINT64_MAX;
}

uint64_t memTotalBytes() {
    std::ifstream in("/proc/meminfo");
    for (std::string key; in >> key;) {
        uint64_t kib = 0;
        if (key == "MemTotal:" && in >> kib) {
            return kib * 1024;
        }
        in.ignore(1 << 10, '\n');
    }
    return UINT64_MAX;
}

}  // namespace

uint64_t availableMemoryBytes() {
    uint64_t bytes = std::min({memTotalBytes(), numberIn("/sys/fs/cgroup/memory.max"),
                               numberIn("/sys/fs/cgroup/memory/memory.limit_in_bytes")});
    rlimit limit{};
    if (getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
        bytes = std::min<uint64_t>(bytes, limit.rlim_cur);
    }
    return bytes;
}

std::string describeBytes(uint64_t bytes) {
    char text[32];
    if (bytes >= 1'000'000'000ull) {
        std::snprintf(text, sizeof text, "%.1f GB", static_cast<double>(bytes) / 1e9);
    } else if (bytes >= 1'000'000) {
        std::snprintf(text, sizeof text, "%.0f MB", static_cast<double>(bytes) / 1e6);
    } else {
        std::snprintf(text, sizeof text, "%.0f KB", static_cast<double>(bytes) / 1e3);
    }
    return text;
}

bool checkMemoryNeed(uint64_t needBytes, uint64_t limitBytes, const std::string& what,
                     const std::string& remedy, Diagnostics& diag) {
    if (needBytes <= limitBytes) {
        return true;
    }
    diag.error(what + " needs about " + describeBytes(needBytes) + ", above the memory limit of " +
               describeBytes(limitBytes) +
               " (--max-memory; by default what this machine gives the process); " + "expected " + remedy +
               ", or a higher --max-memory");
    return false;
}

}  // namespace mlnet
