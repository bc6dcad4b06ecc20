// Replays every input the fuzzers found (tests/fuzz/regressions/<target>/<input>) through the same harness as
// its libFuzzer target: each must now end in an error or a result. A crash or an uncaught exception fails.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>

#include "fuzz/harnesses.h"

namespace mlnet {
namespace {

TEST(FuzzRegressions, EveryFoundInputIsHandled) {
    const std::map<std::string, std::function<void(const uint8_t*, std::size_t)>> harnesses = {
        {"fuzz-trace-record", fuzz::traceRecord},
        {"fuzz-hpcc-config", fuzz::hpccConfig},
        {"fuzz-topology", fuzz::topology},
        {"fuzz-flow-file", fuzz::flowFile},
        {"fuzz-system-config", fuzz::systemConfig},
        {"fuzz-small-inputs", fuzz::smallInputs},
        {"fuzz-network-description", fuzz::networkDescription}};
    const std::filesystem::path root = std::filesystem::path(MLNET_SOURCE_DIR) / "tests/fuzz/regressions";
    std::size_t replayed = 0;
    for (const auto& target : std::filesystem::directory_iterator(root)) {
        const auto harness = harnesses.find(target.path().filename().string());
        ASSERT_NE(harness, harnesses.end()) << "no harness for " << target.path();
        for (const auto& input : std::filesystem::directory_iterator(target.path())) {
            std::ifstream in(input.path(), std::ios::binary);
            const std::string bytes((std::istreambuf_iterator<char>(in)), {});
            SCOPED_TRACE(input.path().string());
            EXPECT_NO_THROW(harness->second(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
            ++replayed;
        }
    }
    EXPECT_GE(replayed, 1u);
}

}  // namespace
}  // namespace mlnet
