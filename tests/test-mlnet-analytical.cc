// The mlnet-analytical command line: ASTRA-sim result lines, the JSON report, and exit status on bad input
// and on a simulation that cannot finish.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>

#include "raw-trace.h"
#include "trace-test-util.h"
#include "workload/microbenchmarks.h"

namespace mlnet::test {
namespace {

using ::testing::HasSubstr;

const std::string kScenario = std::string(MLNET_SOURCE_DIR) + "/scenarios/analytical/";

struct CliRun {
    int status;
    std::string out, err;
};

class MlnetAnalytical : public ::testing::Test {
protected:
    void SetUp() override {
        m_dir = makeTempDir("analytical");
        microbench::collective(CollectiveType::AllReduce, 8, 1 << 20).write(m_dir + "/ar");
    }
    CliRun cli(const std::string& args) {
        const std::string cmd = std::string(MLNET_BIN_DIR) + "/mlnet-analytical " + args + " > " + m_dir +
                                "/out.txt 2> " + m_dir + "/err.txt";
        const int raw = std::system(cmd.c_str());
        return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, readFileBytes(m_dir + "/out.txt"),
                readFileBytes(m_dir + "/err.txt")};
    }
    std::string configs(const std::string& workload) {
        return "--workload-configuration=" + workload + " --system-configuration=" + kScenario +
               "system.json --network-configuration=" + kScenario +
               "network-4x2.yml --remote-memory-configuration=" + kScenario + "remote-memory.json";
    }
    std::string m_dir;
};

TEST_F(MlnetAnalytical, PrintsAstraSimLinesAndWritesTheReport) {
    CliRun r = cli(configs(m_dir + "/ar") + " --report=" + m_dir + "/report.json");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_THAT(r.out,
                ::testing::ContainsRegex("sys\\[7\\] finished, [0-9]+ cycles, exposed communication [0-9]+ "
                                         "cycles\\."));
    auto report = nlohmann::json::parse(readFileBytes(m_dir + "/report.json"));
    EXPECT_TRUE(report["completed"].get<bool>());
    ASSERT_EQ(report["ranks"].size(), 8u);
    ASSERT_EQ(report["collectives"].size(), 8u);
    const auto& c = report["collectives"][0];
    EXPECT_EQ(c["type"], "ALL_REDUCE");
    EXPECT_EQ(c["chunks"], 4);
    // localBWAware on 4 x 2: per chunk, reduce-scatter + all-gather in dimension 0 and an all-reduce in
    // dimension 1.
    const uint64_t chunk = (1 << 20) / 4;
    EXPECT_EQ(c["bytes_sent_per_dim"][0].get<uint64_t>(), 4 * 2 * 3 * (chunk / 4));
    EXPECT_EQ(c["bytes_sent_per_dim"][1].get<uint64_t>(), 4 * 2 * 1 * (chunk / 4 / 2));
    EXPECT_EQ(report["ranks"][0]["finish_ns"], c["end_ns"]);
}

TEST_F(MlnetAnalytical, AwareModelRunsTheSameWorkload) {
    CliRun r = cli(configs(m_dir + "/ar") + " --network-model=aware");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("sys[0] finished"));
}

TEST_F(MlnetAnalytical, UnmatchedReceiveStopsWithAReportAndExitThree) {
    // Statically matched, but each rank receives before it sends: nothing can move.
    TraceSetBuilder b(8);
    for (Rank r = 0; r < 8; ++r) {
        const Rank peer = r ^ 1;
        uint64_t rx = b.rank(r).addRecv("rx", peer, 64, 100 + peer);
        b.rank(r).addSend("tx", peer, 64, 100 + r, {rx});
    }
    b.write(m_dir + "/stuck");
    CliRun r = cli(configs(m_dir + "/stuck") + " --report=" + m_dir + "/stuck.json");
    EXPECT_EQ(r.status, 3);
    EXPECT_THAT(r.err, HasSubstr("cannot make progress"));
    EXPECT_THAT(r.err, HasSubstr("COMM_RECV_NODE: waiting for 64 B from rank 1 with tag 101"));
    auto report = nlohmann::json::parse(readFileBytes(m_dir + "/stuck.json"));
    EXPECT_FALSE(report["completed"].get<bool>());
}

TEST_F(MlnetAnalytical, TopologyThatDoesNotMatchTheTrace) {
    microbench::collective(CollectiveType::AllReduce, 4, 1 << 20).write(m_dir + "/four");
    CliRun r = cli(configs(m_dir + "/four"));
    EXPECT_EQ(r.status, 2);
    EXPECT_THAT(r.err, HasSubstr("the trace set has 4 ranks but the network has 8 NPUs"));
}

TEST_F(MlnetAnalytical, UnknownSystemKeyIsAnError) {
    writeFileBytes(m_dir + "/system.json",
                   "{\"preferred-dataset-splits\": 4, \"all-reduce-implementation\": [\"ring\", \"ring\"], "
                   "\"active-chunks-per-dimensoin\": 2}");
    CliRun r = cli("--workload-configuration=" + m_dir + "/ar --system-configuration=" + m_dir +
                   "/system.json --network-configuration=" + kScenario + "network-4x2.yml");
    EXPECT_EQ(r.status, 2);
    EXPECT_THAT(r.err, HasSubstr("system.json: unknown key 'active-chunks-per-dimensoin'"));
}

TEST_F(MlnetAnalytical, RepeatedSystemKeyIsAnError) {
    // nlohmann alone would keep the last value and run with 2 splits; the user wrote two different values.
    writeFileBytes(m_dir + "/system.json",
                   "{\"preferred-dataset-splits\": 4,\n\"all-reduce-implementation\": [\"ring\", \"ring\"],\n"
                   "\"preferred-dataset-splits\": 2}");
    CliRun r = cli("--workload-configuration=" + m_dir + "/ar --system-configuration=" + m_dir +
                   "/system.json --network-configuration=" + kScenario + "network-4x2.yml");
    EXPECT_EQ(r.status, 2);
    EXPECT_THAT(r.err,
                HasSubstr("system.json: line 3: key 'preferred-dataset-splits' appears more than once"));
}

TEST_F(MlnetAnalytical, ReportIsWrittenWholeOrNotAtAll) {
    CliRun r = cli(configs(m_dir + "/ar") + " --report=" + m_dir + "/no/such/dir/report.json");
    EXPECT_EQ(r.status, 2);
    EXPECT_THAT(r.err, HasSubstr("cannot write the report"));
    EXPECT_FALSE(std::filesystem::exists(m_dir + "/no/such/dir"));
}

TEST_F(MlnetAnalytical, UsageErrors) {
    EXPECT_EQ(cli("").status, 1);
    EXPECT_EQ(cli(configs(m_dir + "/ar") + " --network-model=magic").status, 1);
    EXPECT_EQ(cli(configs(m_dir + "/ar") + " --bogus").status, 1);
}

}  // namespace
}  // namespace mlnet::test
