// The NCCL model against closed forms: channel counts NCCL logs for known systems, the tuner's choices and
// environment knobs, and for ring, tree and all-to-all the messages, bytes and times the algorithms imply
// (2(n-1) steps per ring loop, every tree edge crossed up and down, (n-1)/n of the buffer per all-to-all
// rank), run on the congestion-aware analytical network of a described cluster.
#include <gtest/gtest.h>

#include <numeric>

#include <nlohmann/json.hpp>

#include <cmath>

#include "hardware/gpu-catalogue.h"
#include "network/congestion-aware-network.h"
#include "network/topology-description.h"
#include "network/topology.h"
#include "sim-test-util.h"
#include "system/nccl/nccl-collectives.h"
#include "system/nccl/nccl-device-costs.h"
#include "system/nccl/nccl-tuner.h"
#include "workload/microbenchmarks.h"

namespace mlnet::test {
namespace {

using namespace mlnet::nccl;

constexpr uint64_t kMiB = 1 << 20;

CommShape dgx(Arch arch, uint32_t servers) {
    CommShape s;
    s.nRanks = 8 * servers;
    s.nNodes = servers;
    s.arch = arch;
    s.nvswitch = true;
    s.nvlinkGBps = arch == Arch::Hopper ? 18 * 20.6 : 12 * 20.0;
    s.pcieGBps = arch == Arch::Hopper ? 48 : 24;
    s.nicGBps = arch == Arch::Hopper ? 50 : 25;
    s.nicsPerNode = 8;
    return s;
}

TEST(NcclChannels, MatchTheCountsNcclLogsForKnownSystems) {
    const NcclEnv env;
    // 8 x A100 on NVSwitch: "Channel 23/24"; 8 x H100: 24 coll channels, 16 NVLS channels; H100 servers
    // with 8 x 400G rail NICs: 16 channels (NCCL 2.20+).
    EXPECT_EQ(computeChannels(dgx(Arch::Ampere, 1), env).collChannels, 24u);
    const Channels h1 = computeChannels(dgx(Arch::Hopper, 1), env);
    EXPECT_EQ(h1.collChannels, 24u);
    EXPECT_EQ(h1.nvlsChannels, 16u);
    EXPECT_EQ(h1.nvlsHeads, 8u);
    EXPECT_EQ(computeChannels(dgx(Arch::Hopper, 4), env).collChannels, 16u);
    EXPECT_EQ(computeChannels(dgx(Arch::Hopper, 4), env).ring.nChannels, 8u);  // one per NIC at 48 GB/s
}

TEST(NcclChannels, EnvironmentBoundsApply) {
    NcclEnv env;
    env.maxChannels = 4;
    const Channels capped = computeChannels(dgx(Arch::Ampere, 1), env);
    EXPECT_EQ(capped.collChannels, 4u);
    EXPECT_EQ(capped.ring.nChannels, 2u);  // the search is capped too: two channels' bandwidth, not twelve
    env.maxChannels = 32;
    env.minChannels = 32;
    EXPECT_EQ(computeChannels(dgx(Arch::Ampere, 1), env).collChannels, 32u);
    env = NcclEnv{};
    env.nvls = 0;
    EXPECT_EQ(computeChannels(dgx(Arch::Hopper, 1), env).nvlsChannels, 0u);
}

TEST(NcclEnvLists, ParseNcclSyntax) {
    NcclEnv env;
    std::string bad;
    ASSERT_TRUE(env.setAlgos("ring,Tree", bad));
    EXPECT_TRUE(env.algoAllowed[static_cast<int>(Algo::Ring)]);
    EXPECT_TRUE(env.algoAllowed[static_cast<int>(Algo::Tree)]);
    EXPECT_FALSE(env.algoAllowed[static_cast<int>(Algo::Nvls)]);
    ASSERT_TRUE(env.setProtos("^LL", bad));
    EXPECT_FALSE(env.protoAllowed[static_cast<int>(Proto::LL)]);
    EXPECT_TRUE(env.protoAllowed[static_cast<int>(Proto::LL128)]);
    EXPECT_TRUE(env.protoAllowed[static_cast<int>(Proto::Simple)]);
    EXPECT_FALSE(env.setAlgos("Ring,Butterfly", bad));
    EXPECT_EQ(bad, "Butterfly");
}

TEST(NcclTuner, TimeIsLatencyPlusBytesOverBandwidthAndTheFastestWins) {
    const CommShape shape = dgx(Arch::Ampere, 1);
    NcclEnv env;
    const Channels ch = computeChannels(shape, env);
    for (uint64_t bytes : {uint64_t{8}, 64 * uint64_t{1024}, 16 * kMiB, 1024 * kMiB}) {
        const Choice best = chooseAlgorithm(Func::AllReduce, bytes, shape, ch, env);
        ASSERT_TRUE(best.valid());
        EXPECT_NEAR(best.timeUs, best.latencyUs + static_cast<double>(bytes) / 1e3 / best.algBwGBps, 1e-6);
        // Ring and Tree are the candidates on an Ampere server (no NVLS, no reducing switches).
        for (Algo a : {Algo::Ring, Algo::Tree}) {
            for (int p = 0; p < kNumProtos; ++p) {
                const Choice c = estimate(Func::AllReduce, a, static_cast<Proto>(p), bytes, shape, ch);
                if (c.algBwGBps > 0) {
                    EXPECT_GE(c.timeUs + 1e-9, best.timeUs) << algoName(c.algo) << "/" << protoName(c.proto);
                }
            }
        }
    }
    // Small operations go LL, large ones Simple (the protocol's latency against its bandwidth).
    EXPECT_EQ(chooseAlgorithm(Func::AllReduce, 8, shape, ch, env).proto, Proto::LL);
    EXPECT_EQ(chooseAlgorithm(Func::AllReduce, 1024 * kMiB, shape, ch, env).proto, Proto::Simple);
    // A ring all-reduce's bus bandwidth is its algorithm bandwidth times 2(n-1)/n.
    const Choice ring = estimate(Func::AllReduce, Algo::Ring, Proto::Simple, 256 * kMiB, shape, ch);
    EXPECT_NEAR(ring.busBwGBps, ring.algBwGBps * 2 * 7 / 8, 1e-9);
    std::string bad;
    ASSERT_TRUE(env.setProtos("Simple", bad));
    EXPECT_EQ(chooseAlgorithm(Func::AllReduce, 8, shape, ch, env).proto, Proto::Simple);
}

// A cluster of `servers` x 8 GPUs on NVSwitch with 8 rail NICs per server, as our JSON describes it.
std::shared_ptr<const TopologySpec> cluster(uint32_t servers) {
    const nlohmann::json doc = nlohmann::json::parse(R"({"topology": {"builder": "rail-optimised",
        "servers": )" + std::to_string(servers) + R"(, "nics-per-server": 8, "spines": 2,
        "rate": "200Gbps", "delay": "1us",
        "scale-up": {"npus-per-server": 8, "rate": "2400Gbps", "delay": "250ns"}}})");
    Diagnostics diag;
    auto spec = topologyFromJson(doc, "cluster.json", doc.dump(), diag);
    EXPECT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
    return spec;
}

SystemConfig ncclSystem(std::vector<std::pair<std::string, std::string>> env = {}) {
    SystemConfig c = ringSystem(1);
    for (CollectiveType t :
         {CollectiveType::AllReduce, CollectiveType::AllGather, CollectiveType::ReduceScatter,
          CollectiveType::AllToAll, CollectiveType::Broadcast, CollectiveType::Reduce}) {
        c.ncclFor[static_cast<int>(t)] = true;
    }
    c.ncclGpu = "a100";
    c.ncclEnv = std::move(env);
    return c;
}

// One GPU catalogue for the generator and NCCL: the model tunes every type in it, Ampere with NCCL's Ampere
// figures (PCIe Gen4, 20.0 GB/s per NVLink) and Hopper and Blackwell with Hopper's (NCCL 2.23 has no
// Blackwell class), and refuses a name outside it with the list.
TEST(NcclConfig, TunesForEveryCatalogueGpuAndRefusesOthers) {
    for (const hardware::GpuType& g : hardware::kGpuTypes) {
        SystemConfig c = ncclSystem();
        c.ncclGpu = g.name;
        NcclConfig config;
        Diagnostics diag;
        ASSERT_TRUE(ncclConfigFrom(c, config, diag)) << g.name << diag.format(Severity::Error);
        const bool ampere = std::string(g.name) == "a100";
        EXPECT_EQ(config.platform.arch, ampere ? Arch::Ampere : Arch::Hopper) << g.name;
        EXPECT_EQ(config.platform.pcieGBps, ampere ? 24.0 : 48.0) << g.name;
        EXPECT_EQ(config.platform.nvlinkLinkGBps, ampere ? 20.0 : 20.6) << g.name;
    }
    SystemConfig c = ncclSystem();
    c.ncclGpu = "v100";
    NcclConfig config;
    Diagnostics diag;
    EXPECT_FALSE(ncclConfigFrom(c, config, diag));
    EXPECT_NE(diag.format(Severity::Error).find("'v100'; expected a100, h100, h200, b200 or gb200"),
              std::string::npos)
        << diag.format(Severity::Error);
}

struct NcclRun {
    SimulationOutcome outcome;
    std::string choice;
};

NcclRun runNccl(CollectiveType type, uint64_t bytes, uint32_t servers, const SystemConfig& system) {
    const auto spec = cluster(servers);
    const uint32_t n = 8 * servers;
    SimulationOptions options;
    options.model = NetworkModel::CongestionAware;
    options.physical = spec.get();
    const TraceSet traces = loadBuilt(microbench::collective(type, n, bytes));
    NcclRun r;
    r.outcome = run(traces, system, Topology::fromSpec(spec), options);
    EXPECT_TRUE(r.outcome.completed) << r.outcome.stallReport;
    for (const auto& c : r.outcome.collectives) {
        if (!c.nccl.empty()) {
            r.choice = c.nccl;
        }
    }
    return r;
}

TimeNs lastFinish(const SimulationOutcome& o) {
    TimeNs t = 0;
    for (const auto& r : o.ranks) {
        t = std::max(t, r.finishNs);
    }
    return t;
}

TEST(NcclRing, MessagesAndBytesFollowTheRingAndTheTimeIsTheTunersOnOneServer) {
    const uint32_t n = 8, channels = 4;
    const SystemConfig system = ncclSystem(
        {{"NCCL_ALGO", "Ring"}, {"NCCL_PROTO", "Simple"}, {"NCCL_MAX_NCHANNELS", std::to_string(channels)}});
    for (uint64_t bytes : {64 * kMiB, 256 * kMiB}) {
        const NcclRun r = runNccl(CollectiveType::AllReduce, bytes, 1, system);
        EXPECT_EQ(r.choice.rfind("Ring/Simple", 0), 0u) << r.choice;
        // Per channel, loops of one 2 MiB chunk (4 steps of 512 KiB) per rank; 2(n-1) sends per loop.
        const uint64_t loops = (bytes / channels + n * 2 * kMiB - 1) / (n * 2 * kMiB);
        EXPECT_EQ(r.outcome.messages, n * channels * loops * 2 * (n - 1)) << bytes;
        EXPECT_EQ(r.outcome.bytesDelivered, 2 * (n - 1) * bytes) << bytes;
        // Uncongested NVLink at a rate above the channels' GPU side: the tuner's latency + bytes / bandwidth,
        // and the kernel's fixed cost per Simple step (nccl-device-costs.h) on each of a channel's
        // 2 (n - 1) steps per loop.
        CommShape shape = dgx(Arch::Ampere, 1);
        NcclEnv env;
        env.maxChannels = channels;
        const Choice c =
            estimate(Func::AllReduce, Algo::Ring, Proto::Simple, bytes, shape, computeChannels(shape, env));
        const double stepsUs =
            static_cast<double>(loops * 2 * (n - 1)) * deviceCosts(Arch::Ampere).simpleStepUs;
        ASSERT_GT(stepsUs, 0);
        EXPECT_NEAR(static_cast<double>(lastFinish(r.outcome)) / 1e3, c.timeUs + stepsUs,
                    0.03 * (c.timeUs + stepsUs))
            << bytes;
    }
}

TEST(NcclRing, AllGatherAndReduceScatterMoveNMinusOneShards) {
    const uint32_t n = 16;
    const SystemConfig system = ncclSystem({{"NCCL_ALGO", "Ring"}, {"NCCL_PROTO", "Simple"}});
    const uint64_t shard = 8 * kMiB;
    // All-gather's comm_size is the shard; reduce-scatter's the whole input.
    EXPECT_EQ(runNccl(CollectiveType::AllGather, shard, 2, system).outcome.bytesDelivered,
              n * (n - 1) * shard);
    EXPECT_EQ(runNccl(CollectiveType::ReduceScatter, n * shard, 2, system).outcome.bytesDelivered,
              n * (n - 1) * shard);
}

// NCCL_IB_SPLIT_DATA_ON_QPS=1 cuts each message between servers into one piece per QP: q QPs turn each of the
// k network messages into q, the bytes stay the same, messages inside a server stay whole. Without the split
// the QP count changes nothing (each message has its own QP already).
TEST(NcclQps, SplitDataOnQpsCutsEveryNetworkMessageIntoOnePiecePerQp) {
    const uint64_t shard = 8 * kMiB;
    auto run = [&](const char* qps, const char* split) {
        return runNccl(CollectiveType::AllGather, shard, 2,
                       ncclSystem({{"NCCL_ALGO", "Ring"},
                                   {"NCCL_PROTO", "Simple"},
                                   {"NCCL_IB_QPS_PER_CONNECTION", qps},
                                   {"NCCL_IB_SPLIT_DATA_ON_QPS", split}}))
            .outcome;
    };
    const SimulationOutcome whole = run("1", "0"), unsplit = run("4", "0"), two = run("2", "1"),
                            four = run("4", "1");
    EXPECT_EQ(unsplit.messages, whole.messages);
    EXPECT_EQ(lastFinish(unsplit), lastFinish(whole));
    const uint64_t network = two.messages - whole.messages;
    EXPECT_GT(network, 0u);
    EXPECT_LT(network, whole.messages);  // the NVLink steps stay whole
    EXPECT_EQ(four.messages - whole.messages, 3 * network);
    for (const SimulationOutcome* o : {&unsplit, &two, &four}) {
        EXPECT_EQ(o->bytesDelivered, whole.bytesDelivered);
    }
}

TEST(NcclTree, EveryTreeEdgeCarriesTheBufferUpAndDown) {
    const uint32_t servers = 4, n = 8 * servers;
    const SystemConfig system = ncclSystem({{"NCCL_ALGO", "Tree"}, {"NCCL_PROTO", "Simple"}});
    const uint64_t bytes = 64 * kMiB;
    const NcclRun r = runNccl(CollectiveType::AllReduce, bytes, servers, system);
    EXPECT_EQ(r.choice.rfind("Tree/Simple", 0), 0u) << r.choice;
    // Each channel spans all ranks with a tree of n-1 edges: its share goes up every edge and down again.
    EXPECT_EQ(r.outcome.bytesDelivered, 2 * (n - 1) * bytes);
}

TEST(NcclTree, ManyChunksOnServersOfOneGpuFinish) {
    // 16 servers of one GPU each (no scale-up domain): a 4-level tree, 25 chunks per channel, more than the
    // chunks a member holds at once, so slots are reused while chunks finish out of order.
    const nlohmann::json doc = nlohmann::json::parse(R"({"topology": {"builder": "clos", "leaves": 2,
        "hosts-per-leaf": 8, "spines": 2, "rate": "200Gbps", "delay": "500ns"}})");
    Diagnostics diag;
    const auto spec = topologyFromJson(doc, "clos.json", doc.dump(), diag);
    ASSERT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
    SimulationOptions options;
    options.model = NetworkModel::CongestionAware;
    options.physical = spec.get();
    const uint64_t bytes = 25'000'000;
    const TraceSet traces = loadBuilt(microbench::collective(CollectiveType::AllReduce, 16, bytes));
    const SimulationOutcome o = run(traces, ncclSystem({{"NCCL_ALGO", "Tree"}, {"NCCL_PROTO", "Simple"}}),
                                    Topology::fromSpec(spec), options);
    ASSERT_TRUE(o.completed) << o.stallReport;
    EXPECT_EQ(o.bytesDelivered, 2 * 15 * bytes);
}

TEST(NcclProtocols, LowLatencyProtocolsPayTheirWireOverhead) {
    const uint32_t n = 8;
    const uint64_t bytes = 3 * 16 * 1024 * n;  // whole lines on every channel
    const NcclRun ll = runNccl(CollectiveType::AllReduce, bytes, 1,
                               ncclSystem({{"NCCL_ALGO", "Ring"}, {"NCCL_PROTO", "LL"}}));
    EXPECT_EQ(ll.choice.rfind("Ring/LL", 0), 0u) << ll.choice;
    EXPECT_NEAR(static_cast<double>(ll.outcome.bytesDelivered), 2.0 * 2 * (n - 1) * bytes,
                1e-3 * 2 * 2 * (n - 1) * bytes);
    const NcclRun ll128 = runNccl(CollectiveType::AllReduce, bytes, 1,
                                  ncclSystem({{"NCCL_ALGO", "Ring"}, {"NCCL_PROTO", "LL128"}}));
    EXPECT_NEAR(static_cast<double>(ll128.outcome.bytesDelivered), 128.0 / 120 * 2 * (n - 1) * bytes,
                1e-3 * 2 * (n - 1) * bytes);
}

TEST(NcclAllToAll, EveryRankSendsItsBufferLessItsOwnShare) {
    const uint32_t n = 8;
    const uint64_t bytes = 64 * kMiB;
    const NcclRun r = runNccl(CollectiveType::AllToAll, bytes, 1, ncclSystem());
    EXPECT_EQ(r.outcome.bytesDelivered, n * (n - 1) * (bytes / n));
    // Between servers PXN adds the NVLink hop to the rail GPU for peers off the sender's rail: never fewer
    // bytes than the direct exchange.
    const NcclRun two = runNccl(CollectiveType::AllToAll, bytes, 2, ncclSystem());
    EXPECT_GE(two.outcome.bytesDelivered, 16 * 15 * (bytes / 16));
}

// --- NVLS: one server of 8 H100 whose NVSwitch reduces and multicasts -----------------------------------

std::shared_ptr<const TopologySpec> nvlsServer(bool reduces = true) {
    const nlohmann::json doc = nlohmann::json::parse(std::string(R"({"topology": {"builder": "rail-optimised",
        "servers": 1, "nics-per-server": 8, "spines": 1, "rate": "400Gbps", "delay": "1us",
        "scale-up": {"npus-per-server": 8, "rate": "3600Gbps", "delay": "250ns", "nvls": )") +
                                                     (reduces ? "true" : "false") + "}}}");
    Diagnostics diag;
    auto spec = topologyFromJson(doc, "nvls.json", doc.dump(), diag);
    EXPECT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
    return spec;
}

struct NvlsRun {
    SimulationOutcome outcome;
    std::string choice;
    std::vector<uint64_t> upBytes, downBytes;  // per rank: its link to the scale-up switch, each way
    uint64_t engineLinkBytes = 0;              // both ways
    std::vector<uint64_t> links;               // per link: cable c is 2c (a -> b) and 2c + 1 (b -> a)
};

NvlsRun runOn(const std::shared_ptr<const TopologySpec>& spec, CollectiveType type, uint64_t bytes,
              std::vector<std::pair<std::string, std::string>> env) {
    const uint32_t n = spec->numRanks();
    SystemConfig system = ncclSystem(std::move(env));
    system.ncclGpu = "h100";
    SimulationOptions options;
    options.model = NetworkModel::CongestionAware;
    options.physical = spec.get();
    const Topology topology = Topology::fromSpec(spec);
    const TraceSet traces = loadBuilt(microbench::collective(type, n, bytes));
    EventQueue queue;
    auto network = makeAnalyticalNetwork(topology, options.model, queue);
    Diagnostics diag;
    Simulation simulation(traces, system, logicalTopologyOf(topology), {}, options, *network, diag);
    EXPECT_TRUE(simulation.valid()) << diag.format(Severity::Error);
    NvlsRun r;
    if (!simulation.valid()) {
        return r;
    }
    simulation.start();
    queue.run();
    r.outcome = simulation.outcome(queue.now());
    r.outcome.bytesDelivered = network->bytesDelivered();
    r.outcome.messages = network->messagesDelivered();
    EXPECT_TRUE(r.outcome.completed) << r.outcome.stallReport;
    for (const auto& c : r.outcome.collectives) {
        if (!c.nccl.empty()) {
            r.choice = c.nccl;
        }
    }
    const auto& aware = dynamic_cast<const CongestionAwareNetwork&>(*network);
    r.upBytes.assign(n, 0);
    r.downBytes.assign(n, 0);
    r.links.resize(2 * spec->cables.size());
    for (uint32_t c = 0; c < spec->cables.size(); ++c) {
        r.links[2 * c] = aware.linkBytes(2 * c);
        r.links[2 * c + 1] = aware.linkBytes(2 * c + 1);
        const SpecCable& cable = spec->cables[c];
        for (uint32_t rank = 0; rank < n; ++rank) {
            const uint32_t h = spec->hostOfRank(rank);
            if (cable.a == h && spec->tierName(cable.b) == "scale-up") {
                r.upBytes[rank] = aware.linkBytes(2 * c);
                r.downBytes[rank] = aware.linkBytes(2 * c + 1);
            }
        }
        for (const TopologySpec::ReductionEngine& e : spec->engines) {
            if (cable.a == e.host || cable.b == e.host) {
                r.engineLinkBytes += aware.linkBytes(2 * c) + aware.linkBytes(2 * c + 1);
            }
        }
    }
    return r;
}

NvlsRun runNvls(CollectiveType type, uint64_t bytes,
                std::vector<std::pair<std::string, std::string>> env = {}, bool reduces = true) {
    return runOn(nvlsServer(reduces), type, bytes, std::move(env));
}

// PAT (all-gather and reduce-scatter on servers of one GPU): a Bruck schedule over distances 8, 4, 2, 1
// (all-gather; reduce-scatter the reverse) carrying 1, 2, 4, 8 shards. Closed forms on 16 servers in two
// leaves of 8: every host link carries (n - 1) shards each way, as a ring's; the leaf uplinks carry
// 16 + 8 x 2 + 4 x 4 + 2 x 8 = 64 shards (the members whose 2^d-away peer is in the other leaf), where the
// ring's 0..15 crosses twice per step (30); per chunk a step is one message while its shards fit one buffer
// slot (512 KiB) and a message per shard when the chunk fills one.
std::shared_ptr<const TopologySpec> twoLeaves(uint32_t hostsPerLeaf) {
    const nlohmann::json doc = nlohmann::json::parse(R"({"topology": {"builder": "clos", "leaves": 2,
        "hosts-per-leaf": )" + std::to_string(hostsPerLeaf) +
                                                     R"(, "spines": 4, "rate": "400Gbps", "delay": "1us"}})");
    Diagnostics diag;
    auto spec = topologyFromJson(doc, "clos.json", doc.dump(), diag);
    EXPECT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
    return spec;
}

uint64_t leafUplinkBytes(const TopologySpec& spec, const std::vector<uint64_t>& links) {
    uint64_t bytes = 0;
    for (uint32_t c = 0; c < spec.cables.size(); ++c) {
        const SpecCable& cable = spec.cables[c];
        if (spec.tierName(cable.a) == "leaf" && spec.tierName(cable.b) == "spine") {
            bytes += links[2 * c];
        } else if (spec.tierName(cable.b) == "leaf" && spec.tierName(cable.a) == "spine") {
            bytes += links[2 * c + 1];
        }
    }
    return bytes;
}

TEST(NcclPat, AllGatherAndReduceScatterRunTheBruckStepsOnServersOfOneGpu) {
    const auto spec = twoLeaves(8);
    const uint32_t n = 16;
    const std::vector<std::pair<std::string, std::string>> pat = {
        {"NCCL_ALGO", "PAT"}, {"NCCL_MIN_NCHANNELS", "2"}, {"NCCL_MAX_NCHANNELS", "2"}};
    struct Case {
        uint64_t shard, messagesPerMember;
    };
    // 64 KiB shards: 32 KiB per channel, one chunk, every step one message (4 per channel). 8 MiB: 4 MiB per
    // channel in 8 chunks of 512 KiB, a message per shard (1 + 2 + 4 + 8 per chunk).
    for (const Case& c : {Case{64 * 1024, 2 * 4}, Case{8 * kMiB, 2 * 8 * 15}}) {
        for (CollectiveType type : {CollectiveType::AllGather, CollectiveType::ReduceScatter}) {
            SCOPED_TRACE(std::to_string(c.shard) + (type == CollectiveType::AllGather ? " AG" : " RS"));
            const NvlsRun r =
                runOn(spec, type, type == CollectiveType::AllGather ? c.shard : n * c.shard, pat);
            EXPECT_EQ(r.choice.rfind("PAT/Simple", 0), 0u) << r.choice;
            EXPECT_EQ(r.outcome.bytesDelivered, n * (n - 1) * c.shard);
            EXPECT_EQ(r.outcome.messages, n * c.messagesPerMember);
            EXPECT_EQ(leafUplinkBytes(*spec, r.links), 64 * c.shard);
            for (uint32_t cable = 0; cable < spec->cables.size(); ++cable) {
                if (spec->tierName(spec->cables[cable].a) == "host") {
                    EXPECT_EQ(r.links[2 * cable], (n - 1) * c.shard) << cable;
                    EXPECT_EQ(r.links[2 * cable + 1], (n - 1) * c.shard) << cable;
                }
            }
        }
    }
    const NvlsRun ring = runOn(spec, CollectiveType::AllGather, 8 * kMiB, {{"NCCL_ALGO", "Ring"}});
    EXPECT_EQ(leafUplinkBytes(*spec, ring.links), 2 * (n - 1) * 8 * kMiB);
}

// 12 servers: distances 8, 4, 2, 1 wrap around; the steps carry 1, 1, 3 and 6 shards (each member's shards
// ahead of it as they reach it), 11 in all.
TEST(NcclPat, ACommunicatorOfNoPowerOfTwoGetsEveryShardOnce) {
    const auto spec = twoLeaves(6);
    const uint32_t n = 12;
    const uint64_t shard = 1 * kMiB;
    const NvlsRun r = runOn(spec, CollectiveType::AllGather, shard,
                            {{"NCCL_ALGO", "PAT"}, {"NCCL_MIN_NCHANNELS", "1"}, {"NCCL_MAX_NCHANNELS", "1"}});
    EXPECT_EQ(r.choice.rfind("PAT/Simple", 0), 0u) << r.choice;
    EXPECT_EQ(r.outcome.bytesDelivered, n * (n - 1) * shard);
    // One channel: 12 MiB is under 32 chunks of 512 KiB, so chunks of 256 KiB, four of them, two shards
    // to a buffer slot: 1 + 1 + 2 + 3 messages per chunk.
    EXPECT_EQ(r.outcome.messages, n * 4 * 7);
}

// NCCL runs PAT only with one GPU per server, and the tuner prefers it where its latency (log2 of the
// servers' network hops) beats the ring's n - 1 steps: small and mid sizes; the ring's bandwidth wins large.
TEST(NcclPat, TheTunerTakesItForSmallOperationsOnServersOfOneGpu) {
    const auto spec = twoLeaves(8);
    EXPECT_EQ(runOn(spec, CollectiveType::AllGather, 16 * 1024, {}).choice.rfind("PAT/Simple", 0), 0u);
    EXPECT_EQ(runOn(spec, CollectiveType::AllGather, 64 * kMiB, {}).choice.rfind("Ring/", 0), 0u);
    // Eight GPUs per server: never PAT, even when asked for (nothing else allowed: an error).
    EXPECT_EQ(runOn(cluster(2), CollectiveType::AllGather, 16 * 1024, {}).choice.rfind("PAT", 0),
              std::string::npos);
}

// The description's "nvls" gives each scale-up switch a reduction engine: a host no rank runs on, cabled to
// its switch at the sum of the GPU links, after the GPUs (their hosts, ranks and ids unchanged).
TEST(NcclNvls, AReducingScaleUpSwitchHasAnEngineNoRankRunsOn) {
    const auto plain = nvlsServer(false), spec = nvlsServer(true);
    ASSERT_EQ(spec->engines.size(), 1u);
    EXPECT_TRUE(plain->engines.empty());
    EXPECT_EQ(spec->numRanks(), 8u);
    EXPECT_EQ(spec->numEndpoints(), 9u);
    EXPECT_EQ(spec->numHosts(), plain->numHosts() + 1);
    EXPECT_EQ(spec->numSwitches(), plain->numSwitches());
    const TopologySpec::ReductionEngine e = spec->engines[0];
    EXPECT_EQ(spec->hostOfEndpoint(8), e.host);
    EXPECT_EQ(spec->tierName(e.switchVertex), "scale-up");
    ASSERT_EQ(spec->numPorts(e.host), 1u);
    EXPECT_EQ(spec->portPeer(e.host, 0), e.switchVertex);
    EXPECT_EQ(spec->cables[spec->portCable(e.host, 0)].rateBps, 8 * 3'600'000'000'000ull);
    for (uint32_t r = 0; r < 8; ++r) {
        EXPECT_EQ(spec->hostOfRank(r), plain->hostOfRank(r));
        EXPECT_EQ(spec->vertices[spec->hostOfRank(r)].originalId,
                  plain->vertices[plain->hostOfRank(r)].originalId);
    }
    // A rank list may not name the engine.
    const nlohmann::json doc = nlohmann::json::parse(R"({"topology": {"builder": "rail-optimised",
        "servers": 1, "nics-per-server": 2, "spines": 1, "rate": "400Gbps", "delay": "1us",
        "scale-up": {"npus-per-server": 2, "rate": "3600Gbps", "nvls": true}}, "ranks": [0, 1, 2]})");
    Diagnostics diag;
    EXPECT_EQ(topologyFromJson(doc, "ranks.json", doc.dump(), diag), nullptr);
    EXPECT_NE(diag.format(Severity::Error).find("entry 2"), std::string::npos)
        << diag.format(Severity::Error);
}

// NVLS all-reduce: every GPU sends its whole buffer into the switch and receives its reduced share (1/n),
// then stores that share once and receives every share from the multicast: (1 + 1/n) x the buffer on each
// GPU link each way, against a ring's 2(n-1)/n; the engine takes in and gives out (n+1) x the buffer, one
// sum per channel, head and loop of NCCL's NVLS chunks.
TEST(NcclNvls, AllReduceMovesOnePlusOneNthOfTheBufferOverEachGpuLink) {
    const uint32_t n = 8, channels = 16;
    const uint64_t bytes = 64 * kMiB;
    const NvlsRun r = runNvls(CollectiveType::AllReduce, bytes);
    EXPECT_EQ(r.choice, "NVLS/Simple x16");
    for (uint32_t rank = 0; rank < n; ++rank) {
        EXPECT_EQ(r.upBytes[rank], bytes + bytes / n) << rank;
        EXPECT_EQ(r.downBytes[rank], bytes + bytes / n) << rank;
    }
    const auto& in = r.outcome.inNetworkReduction;
    EXPECT_EQ(in.bytesIn, (n + 1) * bytes);
    EXPECT_EQ(in.bytesOut, (n + 1) * bytes);
    EXPECT_EQ(r.engineLinkBytes, in.bytesIn + in.bytesOut);
    EXPECT_EQ(r.outcome.bytesDelivered, (2 * n + 2) * bytes);
    // 64 MiB over 16 channels x 8 heads: 64 KiB chunks (NCCL 2.23's clamp), 8 loops per channel.
    const uint64_t loops = bytes / channels / (n * 64 * 1024);
    EXPECT_EQ(in.reductions, channels * n * loops);
    // Uncongested: the tuner's latency plus the bytes at its NVLS bandwidth, with the kernel's calibrated
    // side (nccl-device-costs.h: its rate, a cost per loop, the fill in chunk times), and the pipeline's
    // drain (the last loop's reduce, store and multicast), which neither counts: within 3 % at 512 MiB,
    // above it but within 12 % at 64 MiB. Both sizes keep 64 KiB chunks.
    CommShape shape = dgx(Arch::Hopper, 1);
    const DeviceCosts dev = deviceCosts(Arch::Hopper);
    for (uint64_t size : {bytes, 8 * bytes}) {
        const Choice c = estimate(Func::AllReduce, Algo::Nvls, Proto::Simple, size, shape,
                                  computeChannels(shape, NcclEnv{}));
        const double channelBytesPerUs = c.algBwGBps * 1e3 * dev.nvlsRateFactor / channels;
        const double expectedUs = c.latencyUs + dev.nvlsFillChunks * 65536 / channelBytesPerUs +
                                  static_cast<double>(size) / channels / channelBytesPerUs +
                                  static_cast<double>(size / channels / (n * 65536)) * dev.nvlsLoopUs;
        const double us = static_cast<double>(lastFinish(
                              size == bytes ? r.outcome : runNvls(CollectiveType::AllReduce, size).outcome)) /
                          1e3;
        EXPECT_GT(us, expectedUs) << size;
        EXPECT_LT(us, (size == bytes ? 1.12 : 1.03) * expectedUs) << size;
    }
}

// Reduce-scatter is the first half (n shares in, the own share back), all-gather the second (the own share
// in, every share back), and both are the ring's bytes on NCCL's terms only if forced: the tuner prefers
// the ring for them on H100.
TEST(NcclNvls, ReduceScatterAndAllGatherAreItsHalves) {
    const uint32_t n = 8;
    const uint64_t buffer = 16 * kMiB;
    const NvlsRun rs = runNvls(CollectiveType::ReduceScatter, buffer, {{"NCCL_ALGO", "NVLS"}});
    EXPECT_EQ(rs.choice.rfind("NVLS/Simple", 0), 0u) << rs.choice;
    const NvlsRun ag = runNvls(CollectiveType::AllGather, buffer / n, {{"NCCL_ALGO", "NVLS"}});
    EXPECT_EQ(ag.choice.rfind("NVLS/Simple", 0), 0u) << ag.choice;
    for (uint32_t rank = 0; rank < n; ++rank) {
        EXPECT_EQ(rs.upBytes[rank], buffer) << rank;
        EXPECT_EQ(rs.downBytes[rank], buffer / n) << rank;
        EXPECT_EQ(ag.upBytes[rank], buffer / n) << rank;
        EXPECT_EQ(ag.downBytes[rank], buffer) << rank;
    }
    EXPECT_EQ(rs.outcome.inNetworkReduction.bytesIn, n * buffer);
    EXPECT_EQ(rs.outcome.inNetworkReduction.bytesOut, buffer);
    EXPECT_EQ(ag.outcome.inNetworkReduction.bytesIn, buffer);
    EXPECT_EQ(ag.outcome.inNetworkReduction.bytesOut, n * buffer);
    EXPECT_EQ(ag.outcome.inNetworkReduction.reductions, 0u);
    EXPECT_EQ(runNvls(CollectiveType::AllGather, buffer / n).choice.rfind("Ring/", 0), 0u);
}

// Without a reducing switch there is no NVLS (NCCL's NVLS needs NVLink SHARP): the same server runs a ring
// and no switch reduces.
TEST(NcclNvls, NoReducingSwitchNoNvls) {
    const NvlsRun r = runNvls(CollectiveType::AllReduce, 64 * kMiB, {}, false);
    EXPECT_EQ(r.choice.rfind("Ring/", 0), 0u) << r.choice;
    EXPECT_EQ(r.outcome.inNetworkReduction.bytesIn, 0u);
    EXPECT_EQ(r.engineLinkBytes, 0u);
}

// NVLS-Tree: NVLS inside each server and, between the load-reduce and the multicast, every head h's sum up
// and the total down a double binary tree over the servers' heads h, on rail h: each GPU's NVLink carries
// (1 + 1/8) x the buffer each way as in NVLS, the NICs together 2 (servers - 1) buffers each way (every tree
// edge the share up and down), the rails' uplinks nothing; each server's engine takes in and gives out
// (8 + 1) buffers.
TEST(NcclNvlsTree, NvlsInsideEachServerAndATreeOfHeadsBetweenThem) {
    const uint32_t ppn = 8;
    const uint64_t bytes = 64 * kMiB;
    for (uint32_t servers : {2u, 4u}) {
        const nlohmann::json doc =
            nlohmann::json::parse(std::string(R"({"topology": {"builder": "rail-optimised", "servers": )") +
                                  std::to_string(servers) +
                                  R"(, "nics-per-server": 8, "spines": 2, "rate": "400Gbps", "delay": "1us",
            "scale-up": {"npus-per-server": 8, "rate": "3600Gbps", "delay": "250ns", "nvls": true}}})");
        Diagnostics diag;
        const auto spec = topologyFromJson(doc, "nvls-tree.json", doc.dump(), diag);
        ASSERT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
        const NvlsRun r = runOn(spec, CollectiveType::AllReduce, bytes, {{"NCCL_ALGO", "NVLSTree"}});
        EXPECT_EQ(r.choice.rfind("NVLSTree/Simple", 0), 0u) << r.choice;
        for (uint32_t rank = 0; rank < servers * ppn; ++rank) {
            EXPECT_EQ(r.upBytes[rank], bytes + bytes / ppn) << rank;
            EXPECT_EQ(r.downBytes[rank], bytes + bytes / ppn) << rank;
        }
        uint64_t nicUp = 0, nicDown = 0, uplinks = 0;
        for (uint32_t c = 0; c < spec->cables.size(); ++c) {
            const SpecCable& cable = spec->cables[c];
            if (spec->tierName(cable.a) == "host" && spec->tierName(cable.b) == "rail") {
                nicUp += r.links[2 * c];
                nicDown += r.links[2 * c + 1];
            }
            if (spec->tierName(cable.a) == "rail" && spec->tierName(cable.b) == "spine") {
                uplinks += r.links[2 * c] + r.links[2 * c + 1];
            }
        }
        EXPECT_EQ(nicUp, 2 * (servers - 1) * bytes) << servers;
        EXPECT_EQ(nicDown, 2 * (servers - 1) * bytes) << servers;
        EXPECT_EQ(uplinks, 0u) << servers;
        EXPECT_EQ(r.outcome.inNetworkReduction.bytesIn, servers * (ppn + 1) * bytes) << servers;
        EXPECT_EQ(r.outcome.inNetworkReduction.bytesOut, servers * (ppn + 1) * bytes) << servers;
    }
}

// --- CollNet Direct: servers of 8 H100 whose rail switches reduce (SHARP-class) ---------------------------

std::shared_ptr<const TopologySpec> sharpCluster(uint32_t servers, const char* sharp) {
    const nlohmann::json doc = nlohmann::json::parse(
        std::string(R"({"topology": {"builder": "rail-optimised", "servers": )") + std::to_string(servers) +
        R"(, "nics-per-server": 8, "spines": 2, "rate": "400Gbps", "delay": "1us",
        "scale-up": {"npus-per-server": 8, "rate": "3600Gbps", "delay": "250ns"})" +
        (sharp ? std::string(", \"sharp\": \"") + sharp + "\"" : "") + "}}");
    Diagnostics diag;
    auto spec = topologyFromJson(doc, "sharp.json", doc.dump(), diag);
    EXPECT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
    return spec;
}

// Bytes a run put on the GPUs' NICs (per NIC, each way) and on the rail switches' uplinks (both ways).
struct RailBytes {
    std::vector<uint64_t> nicUp, nicDown;
    uint64_t uplinks = 0;
    uint64_t up() const { return std::accumulate(nicUp.begin(), nicUp.end(), uint64_t{0}); }
    uint64_t down() const { return std::accumulate(nicDown.begin(), nicDown.end(), uint64_t{0}); }
};
RailBytes railBytes(const TopologySpec& spec, const NvlsRun& r) {
    RailBytes b;
    for (uint32_t c = 0; c < spec.cables.size(); ++c) {
        const SpecCable& cable = spec.cables[c];
        const bool gpu =
            spec.tierName(cable.a) == "host" &&
            std::none_of(spec.engines.begin(), spec.engines.end(),
                         [&](const TopologySpec::ReductionEngine& e) { return e.host == cable.a; });
        if (gpu && spec.tierName(cable.b) == "rail") {
            b.nicUp.push_back(r.links[2 * c]);
            b.nicDown.push_back(r.links[2 * c + 1]);
        }
        if (spec.tierName(cable.a) == "rail" && spec.tierName(cable.b) == "spine") {
            b.uplinks += r.links[2 * c] + r.links[2 * c + 1];
        }
    }
    return b;
}

// What every CollNet all-reduce moves through the reducing rail switches: each server's buffer once each way
// over its NICs, into and out of the engines, nothing over the uplinks.
void expectABufferPerServerThroughTheSwitches(const RailBytes& rails, const NvlsRun& r, uint64_t servers,
                                              uint64_t bytes) {
    EXPECT_EQ(rails.up(), servers * bytes);
    EXPECT_EQ(rails.down(), servers * bytes);
    EXPECT_EQ(rails.uplinks, 0u);
    EXPECT_EQ(r.outcome.inNetworkReduction.bytesIn, servers * bytes);
    EXPECT_EQ(r.outcome.inNetworkReduction.bytesOut, servers * bytes);
}

// Each GPU (a head: one per NIC) sends the other local heads their shares over NVLink, sends its server's sum
// of its share (1/8 of the buffer) into its rail switch, receives the total of every server and copies it to
// the other local GPUs: each NIC carries the buffer / 8 each way, each NVLink 2 x 7/8 of it, the rail
// switches' uplinks nothing; the engines take in and give out a buffer per server.
TEST(NcclCollNet, EachNicCarriesItsShareOnceEachWayAndTheUplinksNothing) {
    const uint32_t servers = 4, ppn = 8;
    const uint64_t bytes = 64 * kMiB;
    const auto spec = sharpCluster(servers, "rail");
    ASSERT_EQ(spec->engines.size(), 8u);  // one per rail switch
    const NvlsRun r = runOn(spec, CollectiveType::AllReduce, bytes,
                            {{"NCCL_COLLNET_ENABLE", "1"}, {"NCCL_ALGO", "CollNetDirect"}});
    EXPECT_EQ(r.choice.rfind("CollNetDirect/Simple", 0), 0u) << r.choice;
    for (uint32_t rank = 0; rank < servers * ppn; ++rank) {
        EXPECT_EQ(r.upBytes[rank], 2 * (ppn - 1) * (bytes / ppn)) << rank;  // NVLink
        EXPECT_EQ(r.downBytes[rank], 2 * (ppn - 1) * (bytes / ppn)) << rank;
    }
    const RailBytes rails = railBytes(*spec, r);
    ASSERT_EQ(rails.nicUp.size(), servers * ppn);
    for (std::size_t nic = 0; nic < rails.nicUp.size(); ++nic) {
        EXPECT_EQ(rails.nicUp[nic], bytes / ppn) << "NIC " << nic;
        EXPECT_EQ(rails.nicDown[nic], bytes / ppn) << "NIC " << nic;
    }
    expectABufferPerServerThroughTheSwitches(rails, r, servers, bytes);
    const auto& in = r.outcome.inNetworkReduction;
    // One sum per channel, head and loop: 16 channels; NCCL's clamps halve the 512 KiB chunk to 128 KiB
    // (fewer than 2 x 64 chunks per channel and head), then to 32 KiB (fewer than 2 x 8): 16 loops per
    // channel of 8 x 32 KiB.
    EXPECT_EQ(in.reductions, 16u * ppn * 16);
}

// CollNet Chain: per channel a chain through the server's GPUs from GPU c % 8 (its NIC's rail switch
// reduces): each GPU but the head sends its partial sum up the chain over NVLink, the head sends the
// server's sum into the switch, the total comes back and goes down the chain. Per server and channel 7 sends
// up and 7 down of the channel's bytes on NVLink, one each way on the head's NIC; the engines take in and
// give out a buffer per server, one sum per channel and chunk; nothing crosses the spines.
TEST(NcclCollNet, ChainSendsEachChannelUpItsServerAndThroughItsHeadsSwitch) {
    const uint32_t servers = 4, ppn = 8;
    const uint64_t bytes = 64 * kMiB;
    const auto spec = sharpCluster(servers, "rail");
    const NvlsRun r = runOn(spec, CollectiveType::AllReduce, bytes,
                            {{"NCCL_COLLNET_ENABLE", "1"}, {"NCCL_ALGO", "CollNetChain"}});
    ASSERT_EQ(r.choice.rfind("CollNetChain/Simple x", 0), 0u) << r.choice;
    const uint32_t channels = static_cast<uint32_t>(std::stoul(r.choice.substr(r.choice.rfind('x') + 1)));
    ASSERT_GT(channels, 0u);
    std::vector<uint64_t> channelBytes(channels);
    for (uint32_t c = 0; c < channels; ++c) {
        channelBytes[c] = bytes / channels + (c < bytes % channels ? 1 : 0);
    }
    uint64_t nvlinkUp = 0;
    for (uint32_t rank = 0; rank < servers * ppn; ++rank) {
        // GPU j is channel c's head when c % 8 == j (no send up the chain) and its last when
        // (c + 7) % 8 == j (no send down).
        const uint32_t j = rank % ppn;
        uint64_t expected = 0;
        for (uint32_t c = 0; c < channels; ++c) {
            expected += channelBytes[c] * ((c % ppn != j ? 1 : 0) + ((c + ppn - 1) % ppn != j ? 1 : 0));
        }
        EXPECT_EQ(r.upBytes[rank], expected) << rank;
        EXPECT_EQ(r.downBytes[rank], expected) << rank;
        nvlinkUp += r.upBytes[rank];
    }
    EXPECT_EQ(nvlinkUp, servers * 2 * (ppn - 1) * bytes);
    const RailBytes rails = railBytes(*spec, r);
    expectABufferPerServerThroughTheSwitches(rails, r, servers, bytes);
    const auto& in = r.outcome.inNetworkReduction;
    // NCCL's chain chunk: 256 KiB halved while a channel holds fewer than 8 x 64, then 8 x 8, chunks.
    uint64_t chunk = 256 * 1024;
    while (bytes / (channels * chunk) < 8 * 64 && chunk > 128 * 1024) {
        chunk /= 2;
    }
    while (bytes / (channels * chunk) < 8 * 8 && chunk > 64 * 1024) {
        chunk /= 2;
    }
    uint64_t sums = 0;
    for (uint32_t c = 0; c < channels; ++c) {
        sums += (channelBytes[c] + chunk - 1) / chunk;
    }
    EXPECT_EQ(in.reductions, sums);
}

// CollNet needs NCCL_COLLNET_ENABLE=1 and switches that reduce; then NCCL's tuner takes it where it is
// fastest (mid sizes on H100 rails: its latency beats Tree's, its bandwidth is below Ring's). A tier that is
// not there is refused with the tiers there are.
TEST(NcclCollNet, OnlyWithReducingSwitchesAndTheSwitchOn) {
    const uint64_t bytes = 16 * kMiB;
    EXPECT_EQ(runOn(sharpCluster(4, "rail"), CollectiveType::AllReduce, bytes, {}).choice.rfind("CollNet", 0),
              std::string::npos);
    EXPECT_EQ(
        runOn(sharpCluster(4, nullptr), CollectiveType::AllReduce, bytes, {{"NCCL_COLLNET_ENABLE", "1"}})
            .choice.rfind("CollNet", 0),
        std::string::npos);
    EXPECT_EQ(runOn(sharpCluster(4, "rail"), CollectiveType::AllReduce, bytes, {{"NCCL_COLLNET_ENABLE", "1"}})
                  .choice.rfind("CollNetDirect/Simple", 0),
              0u);
    Diagnostics diag;
    const nlohmann::json doc =
        nlohmann::json::parse(R"({"topology": {"builder": "rail-optimised", "servers": 2,
        "nics-per-server": 2, "spines": 1, "rate": "400Gbps", "delay": "1us", "sharp": "leaf"}})");
    EXPECT_EQ(topologyFromJson(doc, "bad.json", doc.dump(), diag), nullptr);
    EXPECT_NE(diag.format(Severity::Error)
                  .find("'leaf' is not a tier of scale-out switches that hosts are cabled "
                        "to; expected 'rail'"),
              std::string::npos)
        << diag.format(Severity::Error);
    // One aggregation level: the spines serve no host, so they cannot be the reducing tier.
    const nlohmann::json spines =
        nlohmann::json::parse(R"({"topology": {"builder": "rail-optimised", "servers": 2,
        "nics-per-server": 2, "spines": 1, "rate": "400Gbps", "delay": "1us", "sharp": "spine"}})");
    Diagnostics spineDiag;
    EXPECT_EQ(topologyFromJson(spines, "spines.json", spines.dump(), spineDiag), nullptr);
    EXPECT_NE(spineDiag.format(Severity::Error).find("'spine' is not a tier"), std::string::npos)
        << spineDiag.format(Severity::Error);
}

// A Clos of two leaves (two servers of 8 GPUs each, their NICs on their leaf) and two spines: every server's
// GPU h is on one of two leaves, so one level of SHARP cannot reduce for them; with the spines reducing too,
// each head's parts meet in its leaf and the two leaves' sums in a spine (the root: spine h % 2), which sends
// the total back. Per leaf-spine link each way: the leaf's sums of the heads that spine serves, so all
// uplinks together carry 2 leaves x the buffer each way; each NIC carries the buffer / 8 each way; the
// engines take in 4 (servers into leaves) + 2 (leaves into spines) + 2 (spines' totals into leaves) buffers;
// a sum per channel, loop and head in each leaf and spine node.
std::shared_ptr<const TopologySpec> twoLeafClos(const char* sharp) {
    const nlohmann::json doc = nlohmann::json::parse(
        std::string(R"({"topology": {"builder": "clos", "leaves": 2, "hosts-per-leaf": 16, "spines": 2,
        "rate": "400Gbps", "delay": "1us", "scale-up": {"npus-per-server": 8, "rate": "3600Gbps",
        "delay": "250ns"}, "sharp": )") +
        sharp + "}}");
    Diagnostics diag;
    auto spec = topologyFromJson(doc, "clos.json", doc.dump(), diag);
    EXPECT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
    return spec;
}

TEST(NcclCollNet, TwoLevelsSumInTheLeavesAndThenInASpine) {
    const uint64_t bytes = 64 * kMiB;
    const std::vector<std::pair<std::string, std::string>> on = {{"NCCL_COLLNET_ENABLE", "1"}};
    // The leaves alone: the heads of one index are on two switches with no reducing switch above.
    EXPECT_EQ(
        runOn(twoLeafClos(R"("leaf")"), CollectiveType::AllReduce, bytes, on).choice.rfind("CollNet", 0),
        std::string::npos);
    const auto spec = twoLeafClos(R"(["leaf", "spine"])");
    for (const char* algo : {"CollNetDirect", "CollNetChain"}) {
        SCOPED_TRACE(algo);
        const NvlsRun r = runOn(spec, CollectiveType::AllReduce, bytes, {on[0], {"NCCL_ALGO", algo}});
        ASSERT_EQ(r.choice.rfind(algo, 0), 0u) << r.choice;
        uint64_t nicUp = 0, nicDown = 0, uplinks = 0;
        for (uint32_t c = 0; c < spec->cables.size(); ++c) {
            const SpecCable& cable = spec->cables[c];
            const bool engine = std::any_of(spec->engines.begin(), spec->engines.end(), [&](const auto& e) {
                return e.host == cable.a || e.host == cable.b;
            });
            if (!engine && spec->tierName(cable.a) == "host" && spec->tierName(cable.b) == "leaf") {
                nicUp += r.links[2 * c];
                nicDown += r.links[2 * c + 1];
            }
            if (spec->tierName(cable.a) == "leaf" && spec->tierName(cable.b) == "spine") {
                uplinks += r.links[2 * c] + r.links[2 * c + 1];
            }
        }
        EXPECT_EQ(nicUp, 4 * bytes);
        EXPECT_EQ(nicDown, 4 * bytes);
        EXPECT_EQ(uplinks, 2 * 2 * bytes);
        EXPECT_EQ(r.outcome.inNetworkReduction.bytesIn, 8 * bytes);
        EXPECT_EQ(r.outcome.inNetworkReduction.bytesOut, 8 * bytes);
        EXPECT_EQ(r.outcome.inNetworkReduction.reductions % 3, 0u);  // two leaves and a root per head
    }
    // Bad values name the key and what was expected.
    for (const auto& [sharp, expected] : std::vector<std::pair<std::string, std::string>>{
             {R"(["spine"])", "'spine' is not a tier of scale-out switches that hosts are cabled to"},
             {R"(["leaf", "leaf"])", "'leaf' is not a tier of switches above 'leaf'; expected 'spine'"},
             {R"(["leaf", "core"])", "'core' is not a tier of switches above 'leaf'"},
             {R"(["leaf", "spine", "core"])", "a list of one or two tier names"},
             {"5", "expected a tier name or a list"}}) {
        const nlohmann::json doc = nlohmann::json::parse(
            std::string(R"({"topology": {"builder": "clos", "leaves": 2, "hosts-per-leaf": 4, "spines": 2,
            "rate": "400Gbps", "delay": "1us", "sharp": )") +
            sharp + "}}");
        Diagnostics diag;
        EXPECT_EQ(topologyFromJson(doc, "bad.json", doc.dump(), diag), nullptr) << sharp;
        EXPECT_NE(diag.format(Severity::Error).find("sharp"), std::string::npos)
            << diag.format(Severity::Error);
        EXPECT_NE(diag.format(Severity::Error).find(expected), std::string::npos)
            << diag.format(Severity::Error);
    }
}

TEST(NcclModel, ANameOutsideNcclsListsIsRefusedWithTheKey) {
    const auto spec = cluster(1);
    SimulationOptions options;
    options.physical = spec.get();
    const TraceSet traces = loadBuilt(microbench::collective(CollectiveType::AllReduce, 8, kMiB));
    Diagnostics diag;
    simulate(traces, ncclSystem({{"NCCL_ALGO", "Butterfly"}}), Topology::fromSpec(spec), {}, options, diag);
    ASSERT_TRUE(diag.hasErrors());
    EXPECT_NE(diag.format(Severity::Error).find("NCCL_ALGO"), std::string::npos)
        << diag.format(Severity::Error);
}

}  // namespace
}  // namespace mlnet::test
