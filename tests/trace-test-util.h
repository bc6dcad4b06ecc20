// File helpers shared by the trace test suites.
#ifndef MLNET_TESTS_TRACE_TEST_UTIL_H
#define MLNET_TESTS_TRACE_TEST_UTIL_H

#include <string>

namespace mlnet {

// A new, empty directory under the system temp directory whose name contains tag; never reused, so tests may
// run in parallel. Removed with its contents when the test program exits (each CTest test is a process of
// its own), unless MLNET_KEEP_TEST_DIRS is set, to look at what a failing test wrote. Throws
// std::runtime_error on failure.
std::string makeTempDir(const std::string& tag);

// Whole-file binary I/O; both throw std::runtime_error naming the path on failure.
std::string readFileBytes(const std::string& path);
void writeFileBytes(const std::string& path, const std::string& bytes);

}  // namespace mlnet

#endif
