// The heap is advised for huge pages once per process, and what is allocated afterwards lands in the advised
// mapping, blocks that glibc would otherwise map on their own included. Its own executable: the first call
// of the process must be this test's.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "util/huge-page-heap.h"

namespace mlnet {
namespace {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kOwnAllocator = true;  // the sanitizer's allocator, not glibc's heap
#else
constexpr bool kOwnAllocator = false;
#endif

// The VmFlags of the mapping that holds `address`, from /proc/self/smaps ("" when none does).
std::string mappingFlags(const void* address) {
    const auto a = reinterpret_cast<std::uintptr_t>(address);
    std::ifstream smaps("/proc/self/smaps");
    std::string line;
    bool inside = false;
    while (std::getline(smaps, line)) {
        std::uintptr_t lo = 0, hi = 0;
        char dash = 0;
        std::istringstream head(line);
        if (head >> std::hex >> lo >> dash >> hi && dash == '-') {
            inside = lo <= a && a < hi;
        } else if (inside && line.rfind("VmFlags:", 0) == 0) {
            return line;
        }
    }
    return "";
}

TEST(HugePageHeap, LaterAllocationsLandInTheAdvisedHeap) {
    if (kOwnAllocator) {
        GTEST_SKIP() << "a sanitizer's allocator: nothing to advise";
    }
    const std::size_t advised = adviseHugePagesForHeap();
    ASSERT_GE(advised, std::size_t{16} << 20) << "the heap's reserve was not advised";
    EXPECT_EQ(advised % (std::size_t{2} << 20), 0u);
    EXPECT_EQ(adviseHugePagesForHeap(), 0u) << "a second call must do nothing";

    // A block from the heap's end, and 1 MB that glibc would have mapped on its own (over its 128 KB
    // threshold).
    auto small = std::make_unique<char[]>(std::size_t{64} << 10);
    std::vector<uint64_t> large(std::size_t{1} << 17, 7);
    for (const void* p : {static_cast<const void*>(small.get()), static_cast<const void*>(large.data())}) {
        const std::string flags = mappingFlags(p);
        ASSERT_FALSE(flags.empty()) << "no mapping holds " << p;
        EXPECT_NE(flags.find(" hg"), std::string::npos) << "block at " << p << ": " << flags;
    }
    EXPECT_EQ(large[12345], 7u);
}

}  // namespace
}  // namespace mlnet
