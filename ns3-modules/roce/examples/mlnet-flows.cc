// mlnet-flows CONFIG: a flow-driven RoCE experiment from an HPCC-format config.txt (or our JSON form) with
// its topology and flow files. Writes FCT_OUTPUT_FILE and PFC_OUTPUT_FILE in the reference's column formats
// and prints the run's cost (CPU seconds, peak memory, events, data packet-hops per CPU second). Exit status:
// 0 every flow finished, 1 usage, 2 invalid input, 3 the run stopped with unfinished flows (reported).

#include <cstdio>
#include <ctime>
#include <iostream>

#include "ns3/command-line.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"

#include "cc-selection.h"
#include "util/process-usage.h"
#include "flow-file.h"
#include "hpcc-config.h"
#include "result-writers.h"
#include "roce-network.h"

using namespace mlnet;
using namespace mlnet::roce;

namespace {

bool endsWith(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

int main(int argc, char** argv) {
    UsePicosecondTime();
    std::string configPath, topologyOverride, flowOverride, fctOverride, pfcOverride, cc, ccPreset = "config",
                                                                                          pcap, report;
    std::string rateTrace;
    bool pfc = true;
    uint32_t seed = 1;
    double rtoUs = 1000;
    ns3::CommandLine cmd(__FILE__);
    cmd.Usage(
        "mlnet-flows CONFIG [--topology=FILE] [--flows=FILE] [--cc=none] ...\n"
        "Runs the flows of an HPCC-format config.txt (or JSON) on the RoCE model.");
    cmd.AddNonOption("config", "config.txt or .json (HPCC keys)", configPath);
    cmd.AddValue("topology", "topology file (overrides TOPOLOGY_FILE)", topologyOverride);
    cmd.AddValue("flows", "flow file (overrides FLOW_FILE)", flowOverride);
    cmd.AddValue("fct", "FCT output (overrides FCT_OUTPUT_FILE)", fctOverride);
    cmd.AddValue("pfc-output", "PFC output (overrides PFC_OUTPUT_FILE)", pfcOverride);
    cmd.AddValue("cc", "congestion control overriding CC_MODE: none, dcqcn, hpcc, timely or dctcp", cc);
    cmd.AddValue(
        "cc-preset",
        "config (parameters from the file, HPCC-compatible), paper (each algorithm's own defaults) or "
        "hpcc-paper (the HPCC paper's settings)",
        ccPreset);
    cmd.AddValue("pfc", "PFC on (1) or off (0, lossy: drops are recovered by go-back-N and timeouts)", pfc);
    cmd.AddValue("pcap", "write every frame sent by every port to this pcap file (RoCEv2 and PFC bytes)",
                 pcap);
    cmd.AddValue("report", "write a JSON summary of the run", report);
    cmd.AddValue("rate-trace",
                 "write every QP rate/window change: time_ns src_node flow rate_bps window_bytes", rateTrace);
    cmd.AddValue("seed", "random seed (ECN marking, link loss, ECMP salt)", seed);
    cmd.AddValue("rto-us", "retransmission timeout in microseconds", rtoUs);
    cmd.Parse(argc, argv);
    if (configPath.empty()) {
        std::cerr << "mlnet-flows: missing CONFIG\n";
        cmd.PrintHelp(std::cerr);
        return 1;
    }
    ns3::RngSeedManager::SetSeed(seed);

    Diagnostics diag;
    HpccConfig config =
        endsWith(configPath, ".json") ? loadJsonConfig(configPath, diag) : loadHpccConfig(configPath, diag);
    if (!topologyOverride.empty()) {
        config.topologyFile = topologyOverride;
    }
    if (!flowOverride.empty()) {
        config.flowFile = flowOverride;
    }
    if (!fctOverride.empty()) {
        config.fctOutputFile = fctOverride;
    }
    if (!pfcOverride.empty()) {
        config.pfcOutputFile = pfcOverride;
    }
    requireFlowInputs(config, diag);
    const CcSelection selection = selectCongestionControl(config, cc, ccPreset, diag);
    HpccTopologyFile topology;
    std::vector<FlowSpec> flows;
    if (!diag.hasErrors()) {
        topology = loadHpccTopologyFile(config.topologyFile, diag);
    }
    if (!diag.hasErrors()) {
        checkConfigAgainstTopology(config, topology, diag);
        flows = loadFlowFile(config.flowFile, topology.isHost, diag);
    }
    if (diag.hasErrors()) {
        std::cerr << diag.format(Severity::Warning) << diag.format(Severity::Error);
        return 2;
    }
    for (auto& cable : topology.cables) {
        if (cable.errorRate == 0) {
            cable.errorRate = config.errorRatePerLink;
        }
    }

    RoceNetworkConfig net;
    net.nic.mtuPayloadBytes = config.payloadBytes;
    net.nic.ackIntervalBytes = config.l2AckIntervalBytes;
    net.nic.ackChunkBytes = config.l2ChunkBytes;
    net.nic.ackPriority = config.ackHighPriority ? 0 : 3;
    net.nic.rtoPs = static_cast<TimePs>(rtoUs * 1e6);
    net.bufferBytes = config.bufferBytes;
    net.pfcEnabled = pfc;
    net.ecnEnabled = config.ecnEnabled;
    for (const auto& [rate, kmax] : config.kmaxBytesByRateBps) {
        if (auto t = config.ecnFor(rate)) {
            net.ecn.push_back({rate, t->kminBytes, t->kmaxBytes, t->pmax});
        }
    }
    net.globalBaseRtt = config.globalT;
    net.ccFactory = selection.factory;
    net.nic.ecnEchoOnAck = selection.ecnEchoOnAck;
    net.nic.intEnabled = selection.intEnabled;
    net.seed = seed;
    net.pcapPath = pcap;
    net.hangCheckPs = 10'000'000'000ull;
    if (!config.qlenMonFile.empty()) {
        // Sampled when queues change, at most once per interval per port: no sweep over idle ports.
        net.switches.queueSampleIntervalPs = std::max<uint64_t>(config.qlenMonIntervalNs, 1) * 1000;
        net.switches.queueSampleStartPs = config.qlenMonStartNs * 1000;
        net.switches.queueSampleEndPs = config.qlenMonEndNs * 1000;
    }

    const double cpuStart = processCpuSeconds();
    RoceNetwork network(topology, net, diag);
    if (diag.hasErrors()) {
        std::cerr << diag.format(Severity::Error);
        return 2;
    }
    // Rate changes are rare next to packets (CC updates), so collecting them as text lines is cheap enough.
    std::string rateLines;
    std::vector<std::pair<std::string*, uint32_t>> rateContexts;  // one per NIC; outlives the run
    if (!rateTrace.empty()) {
        rateContexts.reserve(network.NumHosts());
        for (uint32_t h = 0; h < network.NumHosts(); ++h) {
            rateContexts.emplace_back(&rateLines, network.NodeOfHost(h));
            network.Nic(h).TraceConnectWithoutContext(
                "Rate", ns3::MakeBoundCallback(
                            +[](std::pair<std::string*, uint32_t>* ctx, uint64_t flow, uint64_t rateBps,
                                uint64_t windowBytes) {
                                *ctx->first += std::to_string(ns3::Simulator::Now().GetNanoSeconds()) + " " +
                                               std::to_string(ctx->second) + " " + std::to_string(flow) +
                                               " " + std::to_string(rateBps) + " " +
                                               std::to_string(windowBytes) + "\n";
                            },
                            &rateContexts.back()));
        }
    }
    for (const FlowSpec& f : flows) {
        network.AddFlow(f.srcNode, f.dstNode, f.sizeBytes, f.priority, f.dport, f.startNs * 1000);
    }
    if (config.linkDown) {
        network.ScheduleLinkDown(config.linkDown->nodeA, config.linkDown->nodeB,
                                 config.linkDown->timeNs * 1000);
    }
    const bool finished = network.Run(config.stopTimeNs * 1000);
    const double cpu = processCpuSeconds() - cpuStart;
    const uint64_t events = ns3::Simulator::GetEventCount();

    FctWriter fct;
    for (const FctRecordPs& r : network.Fct()) {
        fct.add({r.srcNode, r.dstNode, r.sport, r.dport, r.sizeBytes, r.startPs / 1000,
                 (r.finishPs - r.startPs) / 1000, r.idealPs / 1000});
    }
    PfcWriter pfcOut;
    for (const PfcEvent& e : network.Pfc()) {
        pfcOut.add({e.timePs / 1000, e.nodeId, static_cast<uint8_t>(e.isSwitch ? 1 : 0), e.port, e.pause});
    }
    fct.write(config.fctOutputFile, diag);
    if (!rateTrace.empty()) {
        writeFileAtomically(rateTrace, rateLines, diag);
    }
    pfcOut.write(config.pfcOutputFile, diag);

    if (!config.qlenMonFile.empty()) {
        std::string text;
        for (const auto& sw : network.Switches()) {
            for (const auto& q : sw->QueueSamples()) {
                const uint64_t ns = q.timePs / 1000;
                if (ns >= config.qlenMonStartNs && ns <= config.qlenMonEndNs) {
                    text += std::to_string(ns) + " " + std::to_string(sw->NodeId()) + " " +
                            std::to_string(q.port) + " " + std::to_string(q.bytes) + "\n";
                }
            }
        }
        writeFileAtomically(config.qlenMonFile, text, diag);
    }

    uint64_t pauses = 0;
    for (const PfcEvent& e : network.Pfc()) {
        pauses += e.pause;
    }
    const uint64_t hops = network.DataPacketHops();
    std::printf("congestion control: %s (%s)\n", selection.name.c_str(), ccPreset.c_str());
    std::printf("flows: %llu of %zu finished; drops %llu; PFC pause frames received %llu\n",
                static_cast<unsigned long long>(network.FlowsFinished()), flows.size(),
                static_cast<unsigned long long>(network.TotalDrops()),
                static_cast<unsigned long long>(pauses));
    std::printf(
        "cost: %.2f CPU-s, peak %.0f MB, %llu events, %llu data packet-hops, %.2f M packet-hops per CPU-s\n",
        cpu, peakResidentMb(), static_cast<unsigned long long>(events), static_cast<unsigned long long>(hops),
        hops / 1e6 / std::max(cpu, 1e-9));
    if (!report.empty()) {
        // Per switch: drops, ECN marks, pauses sent, peak buffer; per port: bytes sent and the largest queue.
        std::string switches;
        for (const auto& sw : network.Switches()) {
            std::string ports;
            for (uint32_t p = 0; p < sw->NumPorts(); ++p) {
                ports += (p ? ", " : "") + std::string("{\"tx_bytes\": ") +
                         std::to_string(sw->PortDevice(p)->TxBytes()) +
                         ", \"max_queue_bytes\": " + std::to_string(sw->MaxQueueBytes(p)) + "}";
            }
            switches += (switches.empty() ? "" : ", ") + std::string("{\"node\": ") +
                        std::to_string(sw->NodeId()) + ", \"drops\": " + std::to_string(sw->Drops()) +
                        ", \"ecn_marks\": " + std::to_string(sw->EcnMarks()) +
                        ", \"pauses_sent\": " + std::to_string(sw->PausesSent()) +
                        ", \"peak_buffer_bytes\": " + std::to_string(sw->Mmu().peakBytes()) +
                        ", \"ports\": [" + ports + "]}";
        }
        uint64_t cnps = 0, timeouts = 0, nacks = 0, retransmitted = 0;
        for (uint32_t h = 0; h < network.NumHosts(); ++h) {
            cnps += network.Nic(h).CnpsSent();
            timeouts += network.Nic(h).Timeouts();
            nacks += network.Nic(h).NacksSent();
            retransmitted += network.Nic(h).RetransmittedBytes();
        }
        std::string json =
            "{\"flows\": " + std::to_string(flows.size()) +
            ", \"finished\": " + std::to_string(network.FlowsFinished()) +
            ", \"drops\": " + std::to_string(network.TotalDrops()) +
            ", \"pause_frames\": " + std::to_string(pauses) + ", \"cnps\": " + std::to_string(cnps) +
            ", \"nacks\": " + std::to_string(nacks) + ", \"timeouts\": " + std::to_string(timeouts) +
            ", \"retransmitted_bytes\": " + std::to_string(retransmitted) +
            ", \"cpu_seconds\": " + std::to_string(cpu) +
            ", \"peak_mb\": " + std::to_string(peakResidentMb()) + ", \"events\": " + std::to_string(events) +
            ", \"data_packet_hops\": " + std::to_string(hops) + ", \"switches\": [" + switches + "]}";
        writeJsonAtomically(report, json, diag);
    }
    if (diag.hasErrors()) {
        std::cerr << diag.format(Severity::Error);
        return 2;
    }
    std::cerr << diag.format(Severity::Warning);
    if (!finished) {
        std::cerr << "mlnet-flows: " << network.HangReport();
        return 3;
    }
    return 0;
}
