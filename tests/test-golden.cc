// Golden outputs of the packet model: every case of golden/cases.txt is run through mlnet-flows and its
// fct.txt and pfc.txt must equal golden/expected/<case>/ byte for byte. A change that is meant to alter
// results regenerates them with scripts/update-golden and says why in its commit; any other difference is a
// regression.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "trace-test-util.h"

namespace mlnet {
namespace {

struct GoldenCase {
    std::string name, config, topology, flows, options;
};

// Names the case in test listings instead of gtest's byte dump.
void PrintTo(const GoldenCase& c, std::ostream* os) {
    *os << c.name;
}

std::string goldenDir() {
    return std::string(MLNET_SOURCE_DIR) + "/tests/golden";
}

std::vector<GoldenCase> loadCases() {
    std::vector<GoldenCase> cases;
    std::ifstream in(goldenDir() + "/cases.txt");
    for (std::string line; std::getline(in, line);) {
        std::istringstream words(line);
        GoldenCase c;
        if (!(words >> c.name) || c.name[0] == '#' || !(words >> c.config >> c.topology >> c.flows)) {
            continue;
        }
        for (std::string w; words >> w;) {
            c.options += " " + w;
        }
        cases.push_back(c);
    }
    return cases;
}

class Golden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(Golden, OutputsMatchByteForByte) {
    const GoldenCase& c = GetParam();
    const std::string dir = makeTempDir("golden-" + c.name);
    const std::string g = goldenDir();
    const std::string cmd = std::string(MLNET_BIN_DIR) + "/mlnet-flows " + g + "/" + c.config +
                            " --topology=" + g + "/" + c.topology + " --flows=" + g + "/" + c.flows +
                            " --fct=" + dir + "/fct.txt --pfc-output=" + dir + "/pfc.txt" + c.options +
                            " > " + dir + "/out.txt 2> " + dir + "/err.txt";
    const int raw = std::system(cmd.c_str());
    ASSERT_TRUE(WIFEXITED(raw) && WEXITSTATUS(raw) == 0) << cmd << "\n" << readFileBytes(dir + "/err.txt");
    for (const char* file : {"fct.txt", "pfc.txt"}) {
        const std::string expected = readFileBytes(g + "/expected/" + c.name + "/" + file);
        const std::string actual = readFileBytes(dir + "/" + file);
        EXPECT_FALSE(expected.empty() && std::string(file) == "fct.txt")
            << "no golden fct.txt for " << c.name;
        EXPECT_TRUE(actual == expected) << c.name << "/" << file << " differs from the golden output ("
                                        << actual.size() << " vs " << expected.size()
                                        << " bytes); if the change is meant to alter results, run "
                                           "scripts/update-golden and explain it in the commit";
    }
}

INSTANTIATE_TEST_SUITE_P(PacketModel, Golden, ::testing::ValuesIn(loadCases()),
                         [](const ::testing::TestParamInfo<GoldenCase>& param) {
                             std::string name = param.param.name;
                             for (char& ch : name) {
                                 ch = std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
                             }
                             return name;
                         });

TEST(GoldenCases, AreListed) {
    EXPECT_GE(loadCases().size(), 15u);
}

}  // namespace
}  // namespace mlnet
