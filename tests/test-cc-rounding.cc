// roundToUint, the rounding of every published rate, against std::llround: the two must agree wherever a rate
// can be (non-negative doubles), since hpcc-bench's outputs were made with llround.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>

#include "rounding.h"

namespace mlnet::cc {
namespace {

constexpr double kTwoTo52 = 4503599627370496.0;

TEST(RoundToUint, HalvesRoundAwayFromZero) {
    EXPECT_EQ(roundToUint(0.5), 1u);
    EXPECT_EQ(roundToUint(1.5), 2u);
    EXPECT_EQ(roundToUint(2.5), 3u);
    EXPECT_EQ(roundToUint(1e9 + 0.5), 1'000'000'001u);
    // The largest half below 2^52 (the spacing of doubles there is 0.5): the fast path's last case.
    EXPECT_EQ(roundToUint(kTwoTo52 - 0.5), 4503599627370496u);
}

TEST(RoundToUint, JustBelowAHalfRoundsDown) {
    EXPECT_EQ(roundToUint(std::nextafter(0.5, 0.0)), 0u);
    EXPECT_EQ(roundToUint(std::nextafter(2.5, 0.0)), 2u);
    EXPECT_EQ(roundToUint(std::nextafter(1e9 + 0.5, 0.0)), 1'000'000'000u);
    EXPECT_EQ(roundToUint(std::nextafter(kTwoTo52 - 0.5, 0.0)), 4503599627370495u);
}

TEST(RoundToUint, WholeNumbersOnBothSidesOfTwoTo52AreKept) {
    EXPECT_EQ(roundToUint(0.0), 0u);
    EXPECT_EQ(roundToUint(kTwoTo52 - 1), 4503599627370495u);
    EXPECT_EQ(roundToUint(kTwoTo52), 4503599627370496u);  // llround's side from here on
    EXPECT_EQ(roundToUint(kTwoTo52 + 2), 4503599627370498u);
    EXPECT_EQ(roundToUint(1e18), 1'000'000'000'000'000'000u);
}

TEST(RoundToUint, AgreesWithLlroundOverTheRangeOfRates) {
    // Log-uniform over [2^-4, 2^56], half of them moved onto an exact half, so both paths and the boundary
    // between them are covered.
    std::mt19937_64 gen(12345);
    std::uniform_real_distribution<double> exponent(-4, 56);
    for (int i = 0; i < 200'000; ++i) {
        double x = std::exp2(exponent(gen));
        if (i % 2 == 1 && x < kTwoTo52) {
            x = std::floor(x) + 0.5;
        }
        ASSERT_EQ(roundToUint(x), static_cast<uint64_t>(std::llround(x))) << std::hexfloat << x;
    }
}

}  // namespace
}  // namespace mlnet::cc
