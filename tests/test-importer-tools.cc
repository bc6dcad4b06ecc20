// The importers from the command line: mlnet-workload --from writes traces that mlnet-check --strict accepts,
// mlnet-analytical and mlnet-ns3 take a SimAI text workload as --workload-configuration=FILE (an 8-GPU
// all-reduce to the nanosecond of the closed form), and mlnet-ns3 runs SimAI's own flags and files
// (-w workload -n topology -c SimAI.conf).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <regex>

#include "sim-test-util.h"
#include "simai-test-files.h"
#include "trace-test-util.h"

namespace mlnet::test {
namespace {

using ::testing::HasSubstr;

struct CliRun {
    int status;
    std::string out, err;
};

class ImporterTools : public ::testing::Test {
protected:
    void SetUp() override { m_dir = makeTempDir("importer-tools"); }
    CliRun cli(const std::string& tool, const std::string& args) {
        const std::string cmd = "cd " + m_dir + " && " + std::string(MLNET_BIN_DIR) + "/" + tool + " " +
                                args + " > " + m_dir + "/out.txt 2> " + m_dir + "/err.txt";
        const int raw = std::system(cmd.c_str());
        return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, readFileBytes(m_dir + "/out.txt"),
                readFileBytes(m_dir + "/err.txt")};
    }
    std::string file(const std::string& name, const std::string& text) {
        writeFileBytes(m_dir + "/" + name, text);
        return m_dir + "/" + name;
    }
    // Finish times from ASTRA-sim's result lines.
    static std::vector<uint64_t> finishes(const std::string& out) {
        std::vector<uint64_t> t;
        const std::regex line("sys\\[([0-9]+)\\] finished, ([0-9]+) cycles");
        for (auto it = std::sregex_iterator(out.begin(), out.end(), line); it != std::sregex_iterator();
             ++it) {
            t.push_back(std::stoull((*it)[2]));
        }
        return t;
    }
    std::string m_dir;
};

// Our 8-GPU all-reduce in SimAI's format: 10 us of compute, then a TP all-reduce of 1 MiB over all 8 GPUs.
const std::string kAllReduce8 =
    "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 8 ep: 1 pp: 1 vpp: 1 ga: 1 all_gpus: 8 "
    "checkpoints: 0 checkpoint_initiates: 0\n1\n"
    "allreduce\t-1\t10000\tALLREDUCE\t1048576\t1\tNONE\t0\t1\tNONE\t0\t1\n";

TEST_F(ImporterTools, MlnetWorkloadFromSimaiWritesTracesTheStrictCheckerAccepts) {
    const std::string workload = file("ar8.txt", kAllReduce8);
    CliRun w = cli("mlnet-workload", "--from=simai " + workload + " --output traces/ar8");
    ASSERT_EQ(w.status, 0) << w.err;
    EXPECT_THAT(w.out, HasSubstr("imported " + workload + " as a SimAI workload"));
    EXPECT_THAT(w.out, HasSubstr("ALL_REDUCE tp"));
    EXPECT_THAT(w.out, HasSubstr("wrote 8 traces traces/ar8.<rank>.et"));
    CliRun c = cli("mlnet-check", "traces/ar8 --strict");
    EXPECT_EQ(c.status, 0) << c.err;
    EXPECT_THAT(c.out, HasSubstr("ALL_REDUCE"));

    // The file's problems: exit 2, the file, line and field named.
    CliRun bad = cli("mlnet-workload", "--from=simai " +
                                           file("bad.txt", "DATA\n1\nl -1 x NONE 0 1 NONE 0 1 NONE 0 1\n") +
                                           " --output traces/bad");
    EXPECT_EQ(bad.status, 2);
    EXPECT_THAT(bad.err, HasSubstr("bad.txt: line 3: layer 1 'l' fwd compute time (ns): 'x'"));
    // Usage: an unknown tool, no file, generator options.
    EXPECT_EQ(cli("mlnet-workload", "--from=simai2 " + workload + " --output t/x").status, 1);
    EXPECT_THAT(cli("mlnet-workload", "--from=simai --output t/x").err, HasSubstr("needs the workload file"));
    EXPECT_THAT(cli("mlnet-workload", "--from=simai " + workload + " --model gpt3-175b --output t/x").err,
                HasSubstr("--model belongs to the model-driven generator"));
    EXPECT_THAT(cli("mlnet-workload", workload + " --model gpt3-175b --gpus 8 --output t/x").err,
                HasSubstr("a file is taken only with --from"));
}

TEST_F(ImporterTools, MlnetWorkloadFromAstra1NeedsTheGpuCount) {
    const std::string workload =
        file("resnet.txt",
             "DATA\n2\nconv1 -1 13003 NONE 0 12864 NONE 0 32291 ALLREDUCE 37632 3229\n"
             "fc -1 16416 NONE 0 27708 NONE 0 9220 ALLREDUCE 8192000 922\n");
    CliRun none = cli("mlnet-workload", "--from=astra1 " + workload + " --output t/r");
    EXPECT_EQ(none.status, 2);
    EXPECT_THAT(none.err, HasSubstr("the GPU count is not given"));
    CliRun w = cli("mlnet-workload", "--from=astra1 " + workload + " --gpus 4 --passes 2 --output t/r");
    ASSERT_EQ(w.status, 0) << w.err;
    EXPECT_THAT(w.out, HasSubstr("DATA, 2 layer lines, 2 passes"));
    EXPECT_EQ(cli("mlnet-check", "t/r --strict").status, 0);
}

TEST_F(ImporterTools, MlnetAnalyticalRunsASimaiAllReduceToTheClosedForm) {
    const std::string network =
        file("ring8.yml", "topology: [ Ring ]\nnpus_count: [ 8 ]\nbandwidth: [ 50.0 ]\nlatency: [ 500.0 ]\n");
    // No system file: SimAI's collectives (ring, one chunk, 6000 ns endpoint delay, no reduction cost).
    CliRun r = cli("mlnet-analytical", "--workload-configuration=" + file("ar8.txt", kAllReduce8) +
                                           " --network-configuration=" + network);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("read as a SimAI text workload (line 1 has SimAI's label 'ep:')"));
    const uint32_t n = 8;
    const uint64_t m = (1u << 20) / n, d = 6000;
    const uint64_t allReduce = 2 * (n - 1) * netNs(m) + 2 * (n - 1) * d + d;
    const std::vector<uint64_t> t = finishes(r.out);
    ASSERT_EQ(t.size(), 8u) << r.out;
    for (uint64_t finish : t) {
        EXPECT_EQ(finish, 10000 + allReduce);
    }
    // On 16 GPUs the TP group is half the machine, a sub-communicator: ASTRA-sim's flat ring would take 10 ns
    // per step, SimAI's send latency is paid there too. Every pair of GPUs is two hops apart on a switch.
    const std::string switch16 = file("switch16.yml",
                                      "topology: [ Switch ]\nnpus_count: [ 16 ]\nbandwidth: [ 50.0 ]\n"
                                      "latency: [ 500.0 ]\n");
    std::string half = kAllReduce8;
    half.replace(half.find("all_gpus: 8"), 11, "all_gpus: 16");
    CliRun sub = cli("mlnet-analytical", "--workload-configuration=" + file("ar8of16.txt", half) +
                                             " --network-configuration=" + switch16);
    ASSERT_EQ(sub.status, 0) << sub.err;
    const std::vector<uint64_t> halves = finishes(sub.out);
    ASSERT_EQ(halves.size(), 16u) << sub.out;
    for (uint64_t finish : halves) {
        EXPECT_EQ(finish, 10000 + 2 * (n - 1) * netNs(m, 50, 500, 2) + 2 * (n - 1) * d + d);
    }

    // On a two-dimensional network the built-in system names an algorithm per dimension; the TP group is the
    // first dimension's ring, one hop per step.
    CliRun twoDims =
        cli("mlnet-analytical",
            "--workload-configuration=" + m_dir + "/ar8of16.txt --network-configuration=" +
                file("ring8x2.yml",
                     "topology: [ Ring, Switch ]\nnpus_count: [ 8, 2 ]\nbandwidth: [ 50.0, 25.0 ]\n"
                     "latency: [ 500.0, 1000.0 ]\n"));
    ASSERT_EQ(twoDims.status, 0) << twoDims.err;
    for (uint64_t finish : finishes(twoDims.out)) {
        EXPECT_EQ(finish, 10000 + allReduce);
    }

    // The same collective as a MICRO workload (no compute), and read as ASTRA-sim 1.0's by default.
    CliRun micro = cli("mlnet-analytical", "--workload-configuration=" +
                                               file("micro.txt",
                                                    "MICRO\n1\nar -1 5 NONE 0 5 NONE 0 5 ALLREDUCE "
                                                    "1048576 5\n") +
                                               " --network-configuration=" + network +
                                               " --system-configuration=" + file("sys.json", R"({
    "scheduling-policy": "FIFO", "endpoint-delay": 6000, "active-chunks-per-dimension": 1,
    "preferred-dataset-splits": 1, "all-reduce-implementation": ["ring"], "all-gather-implementation": ["ring"],
    "reduce-scatter-implementation": ["ring"], "all-to-all-implementation": ["direct"]})"));
    ASSERT_EQ(micro.status, 0) << micro.err;
    EXPECT_THAT(micro.out, HasSubstr("read as an ASTRA-sim 1.0 text workload"));
    for (uint64_t finish : finishes(micro.out)) {
        EXPECT_EQ(finish, allReduce);
    }
    // An ASTRA-sim 1.0 file needs a system configuration; a bad file is an input error.
    EXPECT_EQ(cli("mlnet-analytical",
                  "--workload-configuration=" + m_dir + "/micro.txt --network-configuration=" + network)
                  .status,
              1);
    CliRun bad =
        cli("mlnet-analytical",
            "--workload-configuration=" + file("bad.txt", "MICRO\n1\nar -1 5 NONE 0 5 NONE 0 5 ALLREDUCE\n") +
                " --network-configuration=" + network + " --system-configuration=" + m_dir + "/sys.json");
    EXPECT_EQ(bad.status, 2);
    EXPECT_THAT(bad.err, HasSubstr("bad.txt: line 3: layer 1: the file ends after 0 of the 1 layers"));
}

TEST_F(ImporterTools, MlnetNs3RunsSimaiFilesWithSimaiFlags) {
    const std::string topology = file("Spectrum-X_16g_8gps_100Gbps_A100", spectrumXTopology());
    const std::string conf = file("SimAI.conf", simaiConf(m_dir));
    // TP 8 inside each server, then DP pairs across the two servers on one rail.
    const std::string workload = file(
        "tp8dp2.txt",
        "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 8 ep: 1 pp: 1 vpp: 1 ga: 1 all_gpus: 16 "
        "checkpoints: 0 checkpoint_initiates: 0\n1\n"
        "layer\t-1\t5000\tALLREDUCE\t262144\t5000\tNONE\t0\t5000\tALLREDUCE\t262144\t100\n");
    CliRun r = cli("mlnet-ns3", "-w " + workload + " -n " + topology + " -c " + conf + " -t 8 --quiet");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_THAT(r.err, HasSubstr("-t 8 accepted without effect"));
    EXPECT_THAT(r.err, HasSubstr("key 'GLOBAL_T' 0 is read as 1"));
    EXPECT_THAT(r.out, HasSubstr("system: SimAI's collectives"));
    EXPECT_THAT(r.out, HasSubstr("ALL_REDUCE dp"));
    const std::vector<uint64_t> t = finishes(r.out);
    ASSERT_EQ(t.size(), 16u) << r.out;
    // NVLink all-reduce, then the cross-server one over 100 Gb/s NICs: at least the serialization of its
    // bytes.
    for (uint64_t finish : t) {
        EXPECT_GT(finish, 15000u + 2 * 262144 / 2 * 8 / 100);
    }
    const auto summary = nlohmann::json::parse(readFileBytes(m_dir + "/summary.json"));
    EXPECT_EQ(summary["inputs"]["network_form"], "simai");
    EXPECT_TRUE(std::filesystem::exists(m_dir + "/fct.txt"));
    EXPECT_FALSE(std::filesystem::exists(m_dir + "/qlen.txt"));

    // The same inputs with mlnet-ns3's own flags, the topology by --topology.
    CliRun own =
        cli("mlnet-ns3", "--workload-configuration=" + workload + " --network-configuration=" + conf +
                             " --topology=" + topology + " --workload-format=simai --quiet");
    ASSERT_EQ(own.status, 0) << own.err;
    EXPECT_EQ(finishes(own.out), t);
    // A SimAI.conf names no TOPOLOGY_FILE: without --topology it is an input error that says so.
    CliRun missing = cli("mlnet-ns3", "-w " + workload + " -c " + conf);
    EXPECT_EQ(missing.status, 2);
    EXPECT_THAT(missing.err, HasSubstr("TOPOLOGY_FILE is missing; expected the physical topology file (or "
                                       "--topology=FILE)"));
}

}  // namespace
}  // namespace mlnet::test
