// The outermost frame of every tool: an exception that escapes the tool's body (memory exhausted past every
// estimate, a library's throw) becomes one line naming the tool and what happened, and exit status 2, instead
// of std::terminate's abort. Unwinding runs the destructors, so an AtomicFile's temporary is removed rather
// than left beside the output it would have replaced.
#ifndef MLNET_UTIL_TOOL_MAIN_H
#define MLNET_UTIL_TOOL_MAIN_H

#include <cstdio>
#include <exception>
#include <new>

#include "memory-limit.h"
#include "process-usage.h"

namespace mlnet {

template <typename Body>
int runTool(const char* tool, Body body) {
    try {
        return body();
    } catch (const std::bad_alloc&) {
        std::fprintf(
            stderr,
            "%s: ran out of memory (peak %.0f MB of the %s this process may use); expected a smaller "
            "input, or more memory\n",
            tool, peakResidentMb(), describeBytes(availableMemoryBytes()).c_str());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: stopped: %s\n", tool, e.what());
    }
    return 2;
}

}  // namespace mlnet

#endif
