// The mlnet-check command line: exit status, summary on stdout, errors on stderr, JSON output.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/wait.h>
#include <cstdlib>

#include "raw-trace.h"
#include "trace-test-util.h"

namespace mlnet::test {
namespace {

using ::testing::HasSubstr;

struct CheckRun {
    int status;
    std::string out, err;
};

CheckRun check(const std::string& dir, const std::string& args) {
    const std::string cmd =
        std::string(MLNET_BIN_DIR) + "/mlnet-check " + args + " > " + dir + "/out.txt 2> " + dir + "/err.txt";
    int raw = std::system(cmd.c_str());
    return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, readFileBytes(dir + "/out.txt"),
            readFileBytes(dir + "/err.txt")};
}

class MlnetCheck : public ::testing::Test {
protected:
    void SetUp() override {
        m_dir = makeTempDir("check");
        for (Rank r = 0; r < 2; ++r) {
            writeFileBytes(m_dir + "/ok." + std::to_string(r) + ".et",
                           file({comp(1, 40 + r), coll(2, CollectiveType::AllReduce, 4096, {1}),
                                 r == 0 ? send(3, 0, 1, 100, 1, {2}) : recv(3, 0, 1, 100, 1, {2})}));
        }
        writeFileBytes(m_dir + "/bad.0.et", file({comp(1, 1, {9})}));
    }
    std::string m_dir;
};

TEST_F(MlnetCheck, ValidSetPrintsSummaryAndExitsZero) {
    CheckRun run = check(m_dir, m_dir + "/ok");
    EXPECT_EQ(run.status, 0) << run.err;
    EXPECT_THAT(run.out, HasSubstr("ranks: 2"));
    EXPECT_THAT(run.out, HasSubstr("ALL_REDUCE: 2 calls, 8192 bytes"));
    EXPECT_THAT(run.out, HasSubstr("point-to-point: 1 messages, 100 bytes"));
    EXPECT_THAT(run.out, HasSubstr("rank 1: 41 us"));
}

TEST_F(MlnetCheck, JsonSummary) {
    CheckRun run = check(m_dir, m_dir + "/ok --json");
    ASSERT_EQ(run.status, 0) << run.err;
    auto j = nlohmann::json::parse(run.out);
    EXPECT_TRUE(j["valid"].get<bool>());
    EXPECT_EQ(j["ranks"], 2);
    EXPECT_EQ(j["collectives"]["ALL_REDUCE"]["bytes"], 8192);
    EXPECT_EQ(j["compute_micros_per_rank"], nlohmann::json::array({40, 41}));
}

TEST_F(MlnetCheck, InvalidSetExitsTwoWithLocatedError) {
    CheckRun run = check(m_dir, m_dir + "/bad");
    EXPECT_EQ(run.status, 2);
    EXPECT_THAT(run.err, HasSubstr("bad.0.et: node 1: data_deps names node 9, which is not in the file"));
    CheckRun json = check(m_dir, m_dir + "/bad --json");
    EXPECT_EQ(json.status, 2);
    EXPECT_FALSE(nlohmann::json::parse(json.out)["valid"].get<bool>());
}

TEST_F(MlnetCheck, NpusBeyondFilesIsInvalid) {
    CheckRun run = check(m_dir, m_dir + "/ok --npus 3");
    EXPECT_EQ(run.status, 2);
    EXPECT_THAT(run.err, HasSubstr("ok.2.et: missing trace file for rank 2 of 3"));
}

TEST_F(MlnetCheck, CommGroupFileIsRead) {
    writeFileBytes(m_dir + "/g.json", "{\"1\": [0, 5]}");
    CheckRun run = check(m_dir, m_dir + "/ok --comm-group-configuration " + m_dir + "/g.json");
    EXPECT_EQ(run.status, 2);
    EXPECT_THAT(run.err, HasSubstr("g.json: group \"1\": member rank 5 does not exist"));
}

TEST_F(MlnetCheck, UsageErrors) {
    EXPECT_EQ(check(m_dir, "").status, 1);
    CheckRun unknown = check(m_dir, m_dir + "/ok --frobnicate");
    EXPECT_EQ(unknown.status, 1);
    EXPECT_THAT(unknown.err, HasSubstr("frobnicate"));
    EXPECT_EQ(check(m_dir, "--help").status, 0);
}

TEST_F(MlnetCheck, DiscoveryNamesTheFileThatDoesNotFit) {
    const std::string one = readFileBytes(m_dir + "/ok.0.et");
    // A gap: ranks 0, 1 and 3 exist.
    for (const char* r : {"0", "1", "3"}) {
        writeFileBytes(m_dir + "/gap." + std::string(r) + ".et", one);
    }
    CheckRun gap = check(m_dir, m_dir + "/gap");
    EXPECT_EQ(gap.status, 2);
    EXPECT_THAT(gap.err, HasSubstr("gap.2.et: missing, but files up to rank 3 exist"));
    // A directory named like a rank file.
    writeFileBytes(m_dir + "/dir.0.et", one);
    ASSERT_EQ(std::system(("mkdir " + m_dir + "/dir.1.et").c_str()), 0);
    CheckRun dir = check(m_dir, m_dir + "/dir");
    EXPECT_EQ(dir.status, 2);
    EXPECT_THAT(dir.err, HasSubstr("dir.1.et: named like the trace file of rank 1 but is a directory"));
    // Both forms of one rank.
    writeFileBytes(m_dir + "/both.0.et", one);
    writeFileBytes(m_dir + "/both.1.et", one);
    writeFileBytes(m_dir + "/both.1.et.gz", "not the same");
    CheckRun both = check(m_dir, m_dir + "/both");
    EXPECT_EQ(both.status, 2);
    EXPECT_THAT(both.err, HasSubstr("rank 1 has both a .et and a .et.gz file"));
}

TEST_F(MlnetCheck, MissingAndUnreadableInputs) {
    EXPECT_EQ(check(m_dir, m_dir + "/nothing").status, 2);
    // A directory where a file is expected must be an error, not a crash.
    std::string dirPrefix = m_dir + "/d";
    ASSERT_EQ(std::system(("mkdir -p " + dirPrefix + ".0.et").c_str()), 0);
    EXPECT_EQ(check(m_dir, dirPrefix + " --npus 1").status, 2);
}

}  // namespace
}  // namespace mlnet::test
