// Incast study: N senders to one receiver through one 100 Gb/s switch, once per congestion-control mode,
// printed as one table (PFC pauses, bottleneck queue, FCT percentiles, goodput, fairness).
#include <cstdio>
#include <string>

#include "ns3/command-line.h"

#include "incast-experiment.h"
#include "roce-fabric.h"
#include "tool-command-line.h"
#include "util/cli-options.h"

using namespace mlnet::roce;

int main(int argc, char** argv) {
    UsePicosecondTime();
    IncastSetup setup;
    std::string preset = "hpcc-paper";
    bool verbose = false;
    std::string senders = std::to_string(setup.senders), flowBytes = std::to_string(setup.flowBytes),
                seed = std::to_string(setup.seed);
    mlnet::roce::ToolCommandLine tool("mlnet-incast-study");
    if (!tool.TakeAttributes(argc, argv) || !tool.CheckFlags(argc, argv, {"verbose"})) {
        std::fprintf(stderr, "%s\n", tool.error().c_str());
        return 1;
    }
    ns3::CommandLine cmd(__FILE__);
    tool.AddText(cmd, "senders", "number of senders, 1..1024", senders);
    tool.AddText(cmd, "flowBytes", "bytes per sender (e.g. 1000000 or 1MB)", flowBytes);
    tool.AddText(cmd, "preset", "CC parameter preset: hpcc-paper or paper", preset);
    tool.AddText(cmd, "seed", "random seed 1.." + std::to_string(mlnet::roce::kMaxSeed), seed);
    cmd.AddValue("verbose", "also print each sender's goodput (Gb/s) over the second half", verbose);
    mlnet::CliNumbers numbers("mlnet-incast-study");
    uint64_t sendersValue = 0, seedValue = 0;
    if (!tool.Parse(cmd, argc, argv)) {
        std::fprintf(stderr, "%s\n", tool.error().c_str());
        return 1;
    }
    if (!numbers.count("senders", senders, 1, 1024, sendersValue) ||
        !numbers.bytes("flowBytes", flowBytes, setup.flowBytes) ||
        !numbers.count("seed", seed, 1, mlnet::roce::kMaxSeed, seedValue)) {
        std::fprintf(stderr, "%s\n", numbers.error().c_str());
        return 1;
    }
    if (preset != "hpcc-paper" && preset != "paper") {
        std::fprintf(stderr, "mlnet-incast-study: --preset=%s: expected hpcc-paper or paper\n",
                     preset.c_str());
        return 1;
    }
    setup.senders = static_cast<uint32_t>(sendersValue);
    setup.seed = seedValue;
    setup.preset = preset;
    std::printf("%u:1 incast, %llu B per sender, 100 Gb/s, 1 us links, 32 MB buffer, preset %s\n",
                setup.senders, static_cast<unsigned long long>(setup.flowBytes), preset.c_str());
    std::printf("%-8s %8s %6s %10s %10s %10s %10s %9s %6s\n", "cc", "pauses", "drops", "maxQ(KB)", "p99Q(KB)",
                "FCTp50(us)", "FCTp99(us)", "Gb/s", "Jain");
    int failures = 0;
    for (const char* cc : {"none", "dcqcn", "dctcp", "timely", "hpcc"}) {
        setup.cc = cc;
        const IncastResult r = runIncast(setup);
        failures += !r.finished;
        std::printf("%-8s %8llu %6llu %10.1f %10.1f %10.1f %10.1f %9.2f %6.3f%s\n", cc,
                    static_cast<unsigned long long>(r.pauses), static_cast<unsigned long long>(r.drops),
                    r.maxQueueBytes / 1000, r.p99QueueBytes / 1000, r.fctP50Us, r.fctP99Us, r.goodputGbps,
                    r.jainSecondHalf, r.finished ? "" : "  (unfinished)");
        if (verbose) {
            for (double g : r.senderGbpsSecondHalf) {
                std::printf(" %.2f", g);
            }
            std::printf("\n");
        }
    }
    return failures ? 3 : 0;
}
