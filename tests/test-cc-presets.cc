// The DCQCN and DCTCP presets: the HPCC paper's settings checked against its configuration files (the golden
// config-dcqcn.txt and config-dctcp.txt hold hpcc-bench's keys and values), and the algorithms' own papers'
// configurations.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>

#include "cc-dcqcn-dctcp-test-util.h"
#include "dcqcn.h"
#include "dctcp.h"

namespace mlnet::cc {
namespace {

// "KEY value" lines of an HPCC config file; rates like "20Mb/s" become bit/s. The golden configurations hold
// the HPCC benchmark's keys and values (tests/hpcc-bench-inputs.h makes its config-<cc>.txt from them).
std::map<std::string, double> readHpccConfig(const std::string& name) {
    std::map<std::string, double> values;
    std::ifstream in(std::string(MLNET_SOURCE_DIR) + "/tests/golden/" + name);
    std::string key, value;
    while (in >> key) {
        std::getline(in, value);
        const size_t start = value.find_first_not_of(' ');
        if (start == std::string::npos) {
            continue;
        }
        value = value.substr(start);
        try {
            size_t used = 0;
            double v = std::stod(value, &used);
            if (value.compare(used, std::string::npos, "Mb/s") == 0) {
                v *= 1e6;
            }
            values[key] = v;
        } catch (const std::invalid_argument&) {
        }
    }
    if (values.empty()) {
        throw std::runtime_error("tests/golden/" + name + ": no keys");
    }
    return values;
}

TEST(CcPresets, DcqcnHpccPaperMatchesConfigDcqcn) {
    const auto cfg = readHpccConfig("config-dcqcn.txt");
    const DcqcnParams p = dcqcnHpccPaper(kLine);  // the configs are for 100 Gb/s hosts
    EXPECT_EQ(cfg.at("CC_MODE"), 1);
    EXPECT_EQ(p.g, cfg.at("EWMA_GAIN"));
    EXPECT_EQ(p.alphaIntervalNs, static_cast<TimeNs>(cfg.at("ALPHA_RESUME_INTERVAL") * 1000));
    EXPECT_EQ(p.decreaseIntervalNs, static_cast<TimeNs>(cfg.at("RATE_DECREASE_INTERVAL") * 1000));
    EXPECT_EQ(p.increaseIntervalNs, static_cast<TimeNs>(cfg.at("RP_TIMER") * 1000));
    EXPECT_EQ(p.fastRecoverySteps, cfg.at("FAST_RECOVERY_TIMES"));
    EXPECT_EQ(p.additiveIncreaseBps, cfg.at("RATE_AI"));
    EXPECT_EQ(p.hyperIncreaseBps, cfg.at("RATE_HAI"));
    EXPECT_EQ(p.minRateBps, cfg.at("MIN_RATE"));
    EXPECT_EQ(p.clampTargetRate, cfg.at("CLAMP_TARGET_RATE") != 0);
    EXPECT_EQ(p.window, !cfg.at("HAS_WIN")  ? WindowMode::None
                        : cfg.at("VAR_WIN") ? WindowMode::FollowsRate
                                            : WindowMode::Bdp);
    EXPECT_EQ(p.byteCounterBytes, 0u);
    EXPECT_EQ(p.rateOnFirstCnp, 1.0);
    EXPECT_TRUE(p.ackEcnIsCnp);
}

TEST(CcPresets, DcqcnHpccPaperScalesStepsWithLineRate) {
    // run.py: RATE_AI 5·bw/25 and RATE_HAI 50·bw/25 Mb/s for bw Gb/s hosts.
    const DcqcnParams p = dcqcnHpccPaper(25'000'000'000ull);
    EXPECT_EQ(p.additiveIncreaseBps, 5'000'000u);
    EXPECT_EQ(p.hyperIncreaseBps, 50'000'000u);
}

TEST(CcPresets, DcqcnPaperIsTheSigcommConfiguration) {
    const DcqcnParams p = dcqcnPaper(40'000'000'000ull);  // the paper's testbed speed
    EXPECT_EQ(p.g, 1.0 / 256);
    EXPECT_EQ(p.alphaIntervalNs, 55 * kUs);
    EXPECT_EQ(p.decreaseIntervalNs, 50 * kUs);
    EXPECT_EQ(p.increaseIntervalNs, 55 * kUs);
    EXPECT_EQ(p.byteCounterBytes, 10'000'000u);
    EXPECT_EQ(p.fastRecoverySteps, 5u);
    EXPECT_EQ(p.additiveIncreaseBps, 40'000'000u);
    EXPECT_EQ(p.hyperIncreaseBps, 400'000'000u);
    EXPECT_FALSE(p.clampTargetRate);
    EXPECT_EQ(p.rateOnFirstCnp, 1.0);
    EXPECT_FALSE(p.ackEcnIsCnp);
    EXPECT_EQ(dcqcnPaper(kLine).additiveIncreaseBps, 100'000'000u);
}

TEST(CcPresets, DctcpHpccPaperMatchesConfigDctcp) {
    const auto cfg = readHpccConfig("config-dctcp.txt");
    const DctcpParams p = dctcpHpccPaper();
    EXPECT_EQ(cfg.at("CC_MODE"), 8);
    EXPECT_TRUE(p.rateBased);
    EXPECT_EQ(p.g, cfg.at("EWMA_GAIN"));
    EXPECT_EQ(p.rateAiBps, cfg.at("DCTCP_RATE_AI"));
    EXPECT_EQ(p.minRateBps, cfg.at("MIN_RATE"));
    EXPECT_EQ(p.window, !cfg.at("HAS_WIN")  ? WindowMode::None
                        : cfg.at("VAR_WIN") ? WindowMode::FollowsRate
                                            : WindowMode::Bdp);
    EXPECT_EQ(p.initialAlpha, 1.0);
}

TEST(CcPresets, DctcpWindowIsWindowMode) {
    const DctcpParams p = dctcpWindow();
    EXPECT_FALSE(p.rateBased);
    EXPECT_EQ(p.g, 1.0 / 16);
    EXPECT_EQ(p.initialAlpha, 1.0);
    EXPECT_EQ(p.initialWindowBytes, 0u);
}

}  // namespace
}  // namespace mlnet::cc
