// The scenario of docs/scenario-scripts.md, which explains it step by step: a two-tier Clos of RoCE hosts
// with PFC, ECN and DCQCN; first an incast of flows started by hand, then a data-parallel training step
// replayed from a Chakra trace through the bridge; trace sources connected by Config paths count pauses,
// marks and rate changes; the results are printed at the end. Built here as build/bin/tutorial, and outside
// this tree against an installed mlnet (scenarios/tutorial/CMakeLists.txt).
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "ns3/core-module.h"

#include "mlnet/astra-core-module.h"
#include "mlnet/roce-module.h"

using namespace mlnet;
using namespace mlnet::roce;

namespace {

// What the trace sinks below see.
struct Counts {
    uint64_t pauses = 0, resumes = 0, ecnMarks = 0, rateChanges = 0;
    uint64_t largestMarkedQueueBytes = 0;
    uint64_t lowestRateBps = UINT64_MAX;
};
Counts counts;

// Config::Connect passes each sink the path of the object that fired, e.g. "/NodeList/17/DeviceList/2/...".
void OnPause(std::string context, uint32_t port, uint8_t priority, bool pause, uint64_t quanta) {
    ++(pause ? counts.pauses : counts.resumes);
    if (counts.pauses == 1 && pause) {
        std::printf("first PFC pause at %.3f us: %s (port %u, class %u, %llu quanta)\n",
                    ns3::Simulator::Now().GetNanoSeconds() / 1e3, context.c_str(), port, priority,
                    static_cast<unsigned long long>(quanta));
    }
}

void OnEcnMark(std::string /* context */, uint32_t /* node */, uint32_t /* egressPort */,
               const RocePacket* /* packet */, uint64_t queueBytes) {
    ++counts.ecnMarks;
    counts.largestMarkedQueueBytes = std::max(counts.largestMarkedQueueBytes, queueBytes);
}

void OnRate(std::string /* context */, uint64_t /* flowId */, uint64_t rateBps, uint64_t /* windowBytes */) {
    ++counts.rateChanges;
    counts.lowestRateBps = std::min(counts.lowestRateBps, rateBps);
}

void StopWhenDrained(void* api, uint64_t) {
    static_cast<RoceNetworkApi*>(api)->StopWhenDrained();
}

}  // namespace

int main(int argc, char** argv) {
    // 1. Attributes: defaults in code, then the command line, which also takes any attribute as
    //    --mlnet::roce::RoceCcConfig::DcqcnG=0.0625.
    ns3::Config::SetDefault("mlnet::roce::RoceCcConfig::DcqcnG", ns3::DoubleValue(1.0 / 16));
    uint32_t leaves = 2, hostsPerLeaf = 8, spines = 2, senders = 7;
    uint64_t flowBytes = 1'000'000, gradientBytes = 4 << 20;
    std::string trace;
    ns3::CommandLine cmd(__FILE__);
    cmd.AddValue("leaves", "leaf switches", leaves);
    cmd.AddValue("hostsPerLeaf", "hosts on each leaf", hostsPerLeaf);
    cmd.AddValue("spines", "spine switches", spines);
    cmd.AddValue("senders", "hosts of the incast into host 0", senders);
    cmd.AddValue("flowBytes", "bytes each incast sender sends", flowBytes);
    cmd.AddValue("gradientBytes", "bytes all-reduced per layer by the generated training step",
                 gradientBytes);
    cmd.AddValue("trace", "Chakra trace prefix to replay instead (PREFIX.<rank>.et)", trace);
    cmd.Parse(argc, argv);

    // 2. The training step: a Chakra trace from a file, or one written here by the trace writer.
    SimulatorSession session;  // picosecond time and the model's scheduler, before any ns3::Time exists
    Diagnostics diag;
    TraceSet traces;
    if (!trace.empty()) {
        traces = loadTraceSet(trace, {}, diag);
    } else {
        const uint32_t ranks = leaves * hostsPerLeaf;
        const TraceSetBuilder step = microbench::dataParallelStep(ranks, 4, gradientBytes, 50, 100);
        std::vector<std::string> files;
        for (Rank r = 0; r < ranks; ++r) {
            files.push_back(step.rank(r).serialize());
        }
        traces = loadTraceSetFromMemory("data-parallel step", files, {}, diag);
    }

    // 3. The network: a leaf-spine Clos of 100 Gb/s links (1 us each), its ranks on the first hosts.
    ClosShape shape;
    shape.leavesPerPod = leaves;
    shape.hostsPerLeaf = hostsPerLeaf;
    shape.spinesPerPod = spines;
    TrainingSetup setup;
    if (diag.hasErrors() || !prepareTraining(traces, buildClos(shape), std::nullopt, setup, diag)) {
        std::fprintf(stderr, "%s", diag.format(Severity::Error).c_str());
        return 2;
    }

    // 4. The packet model: 4 KB payloads, cut-through switches with 4 MB of buffer, PFC, ECN from 100 KB to
    //    400 KB per 25 Gb/s of port rate, DCQCN with the RoceCcConfig attributes' values.
    FabricSettings settings;
    settings.nic.mtuPayloadBytes = 4096;
    settings.switches.cutThrough = true;
    settings.bufferBytes = 4 << 20;
    settings.ecnPer25Gbps = EcnRule{25'000'000'000ull, 100'000, 400'000, 0.2};
    applyCongestionControl(settings, selectCongestionControl(HpccConfig{}, "dcqcn", "attributes", diag));
    RoceFabric fabric(setup.topology, settings, diag);
    if (diag.hasErrors()) {
        std::fprintf(stderr, "%s", diag.format(Severity::Error).c_str());
        return 2;
    }

    // 5. Trace sources, by the paths of ns-3's object tree: every port, every switch, every NIC.
    ns3::Config::Connect("/NodeList/*/DeviceList/*/$mlnet::roce::RoceNetDevice/Pause",
                         ns3::MakeCallback(&OnPause));
    ns3::Config::Connect("/NodeList/*/$mlnet::roce::RoceSwitch/EcnMark", ns3::MakeCallback(&OnEcnMark));
    ns3::Config::Connect("/NodeList/*/$mlnet::roce::RoceNic/Rate", ns3::MakeCallback(&OnRate));

    // 6. Flows: hosts 1..senders each send flowBytes to host 0 at once; run until the last is acknowledged.
    uint32_t unfinished = senders;
    TimePs lastFinishPs = 0;
    for (uint32_t h = 1; h <= senders; ++h) {
        fabric.StartMessage(uint64_t{1} << 40 | h, h, 0, flowBytes, 3, [&](const FlowCompletion& done) {
            lastFinishPs = std::max(lastFinishPs, done.finishPs);
            if (--unfinished == 0) {
                ns3::Simulator::Stop();
            }
        });
    }
    ns3::Simulator::Run();
    std::printf(
        "incast: %u x %llu B into host 0 in %.1f us; %llu pauses, %llu ECN marks, %llu rate changes\n",
        senders, static_cast<unsigned long long>(flowBytes), lastFinishPs / 1e6,
        static_cast<unsigned long long>(counts.pauses), static_cast<unsigned long long>(counts.ecnMarks),
        static_cast<unsigned long long>(counts.rateChanges));

    // 7. Messages: the training step, through the bridge from the trace's collectives to RoCE messages.
    const SystemConfig system = parseSystemConfig(
        R"({"scheduling-policy": "LIFO", "endpoint-delay": 10, "active-chunks-per-dimension": 1,
            "preferred-dataset-splits": 4, "all-reduce-implementation": ["ring"], "local-mem-bw": 1600})",
        "the system configuration", diag);
    RoceNetworkApi api(fabric, traces.numRanks(), {3});
    Simulation simulation(traces, system, setup.logical, RemoteMemoryConfig{}, SimulationOptions{}, api,
                          diag);
    if (diag.hasErrors() || !simulation.valid()) {
        std::fprintf(stderr, "%s", diag.format(Severity::Error).c_str());
        return 2;
    }
    const TimeNs stepStartNs = api.now();
    simulation.start(Callback{&StopWhenDrained, &api, 0});
    ns3::Simulator::Run();

    // 8. Results: the step's time from the training core, the network's totals from the fabric.
    const SimulationOutcome outcome = simulation.outcome(api.now());
    TimeNs lastRankNs = 0;
    for (const auto& rank : outcome.ranks) {
        lastRankNs = std::max(lastRankNs, rank.finishNs);
    }
    const NetworkTotals totals = networkTotals(fabric);
    std::printf("training step: %u ranks %s in %.1f us\n", traces.numRanks(),
                outcome.completed ? "finished" : "did NOT finish", (lastRankNs - stepStartNs) / 1e3);
    std::printf("network: %llu pause frames, %llu ECN marks (largest queue marked %llu B), %llu drops\n",
                static_cast<unsigned long long>(totals.pauseFrames),
                static_cast<unsigned long long>(totals.ecnMarks),
                static_cast<unsigned long long>(counts.largestMarkedQueueBytes),
                static_cast<unsigned long long>(totals.drops));
    std::printf(
        "trace sinks: %llu pauses, %llu resumes, %llu marks, %llu rate changes (lowest %.1f Gb/s)\n",
        static_cast<unsigned long long>(counts.pauses), static_cast<unsigned long long>(counts.resumes),
        static_cast<unsigned long long>(counts.ecnMarks), static_cast<unsigned long long>(counts.rateChanges),
        counts.rateChanges ? counts.lowestRateBps / 1e9 : 0.0);
    return outcome.completed && counts.ecnMarks == totals.ecnMarks ? 0 : 1;
}
