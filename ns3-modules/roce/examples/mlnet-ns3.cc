// mlnet-ns3: Chakra traces at packet level. ASTRA-sim's flags and files (its ns-3 backend's config.txt or
// config.json with --logical-topology-configuration, its analytical YAML, or our JSON network description)
// in; ASTRA-sim's result lines on stdout, and in --output-dir a summary.json (iteration time, per-rank and
// per-collective times, the network's congestion picture and the run's cost), fct.txt, pfc.txt, queue samples
// and a timeline.json that Perfetto opens. SimAI's inputs too: its text workload (imported in memory), its
// SimAI.conf with its topology file (--topology), and its simulator's flags -w, -n, -c (-t, -g, -s accepted).
// Exit status: 0 finished, 1 usage, 2 invalid input, 3 the run could not finish (no progress, a PFC
// deadlock, the time limit), with a report of what every rank waits for.
#include <google/protobuf/stubs/logging.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>

#include "ns3/command-line.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"

#include "astra-ns3-inputs.h"
#include "background-traffic.h"
#include "cc-selection.h"
#include "model-rules.h"
#include "network-description.h"
#include "rate-trace.h"
#include "result-writers.h"
#include "roce-fabric.h"
#include "roce-network-api.h"
#include "roce-timing.h"
#include "run-report.h"
#include "system/simulation.h"
#include "system/timeline.h"
#include "tool-command-line.h"
#include "trace-run.h"
#include "training-report.h"
#include "util/atomic-file.h"
#include "util/cli-options.h"
#include "util/memory-limit.h"
#include "util/process-usage.h"
#include "util/tool-main.h"
#include "workload/importers/workload-importer.h"
#include "workload/trace-set.h"

using namespace mlnet;
using namespace mlnet::roce;
namespace fs = std::filesystem;

namespace {

struct Options {
    std::string workload, system, network, memory, groups = "empty", logical, outputDir, pcap, cc, ccPreset;
    std::string rateTrace, rateTracePortText;
    std::optional<SwitchPort> rateTracePort;
    std::string logging, loggingFolder, topology, workloadFormat, passesText;
    // Numbers and flags as typed; read through CliNumbers after parsing.
    std::string queuesPerDimText = "1", injectionScaleText = "1", commScaleText = "1", computeScaleText = "1";
    std::string seedText = "0", maxMemoryText, fastForwardWindowText, scaleUp = "fluid";
    std::string linkDelayOffsetText = "0";
    uint64_t queuesPerDim = 1;
    double injectionScale = 1, commScale = 1, computeScale = 1;
    bool rendezvous = false, overlap = false, strict = false, quiet = false, compareAnalytical = false;
    bool fastForward = false, memoize = false, fluidUncontended = false, memoizeCollectives = false;
    double fastForwardWindowUs = 0;  // 0: the congestion control's
    uint64_t seed = 0;               // 0: the description's
    uint64_t linkDelayOffsetPs = 0;
    uint64_t maxMemoryBytes = availableMemoryBytes();
    ModelRuleOptions rules;

    // Reads the texts; false with the first bad option reported.
    bool read(CliNumbers& n) {
        return n.count("num-queues-per-dim", queuesPerDimText, 1, 1024, queuesPerDim) &&
               n.real("injection-scale", injectionScaleText, 0, 1e6, injectionScale) &&
               n.real("comm-scale", commScaleText, 1, 1, commScale) &&
               n.real("compute-scale", computeScaleText, 1, 1, computeScale) &&
               n.count("seed", seedText, 0, kMaxSeed, seed) &&
               n.count("link-delay-offset-ps", linkDelayOffsetText, 0, 1'000'000, linkDelayOffsetPs) &&
               (maxMemoryText.empty() || n.bytes("max-memory", maxMemoryText, maxMemoryBytes)) &&
               (fastForwardWindowText.empty() ||
                n.real("fast-forward-window-us", fastForwardWindowText, 0.1, 1e6, fastForwardWindowUs)) &&
               readPort();
    }
    bool readPort() {
        if (!fastForwardWindowText.empty() && !fastForward) {
            portError = "--fast-forward-window-us needs --fast-forward";
            return false;
        }
        if (memoize && fastForward) {
            portError = "--memoize-episodes and --fast-forward cannot be combined yet";
            return false;
        }
        if (fluidUncontended && (fastForward || memoize)) {
            portError =
                "--fluid-uncontended cannot be combined with --fast-forward or --memoize-episodes yet";
            return false;
        }
        if (!parseScaleUp(scaleUp)) {
            portError = "--scale-up=" + scaleUp +
                        ": expected fluid (NVLink: lossless, shared max-min) or packet (RoCE links with PFC)";
            return false;
        }
        if (rateTracePortText.empty()) {
            return true;
        }
        rateTracePort = parseSwitchPort(rateTracePortText);
        portError = !rateTracePort ? "--rate-trace-port=" + rateTracePortText +
                                         ": expected NODE:PORT, a switch's node id and its egress port"
                    : rateTrace.empty() ? "--rate-trace-port needs --rate-trace=FILE"
                                        : "";
        return portError.empty();
    }
    std::string portError;
};

// Timeline rows and fct.txt lines for every message of the trace.
class MessageLog : public MessageObserver {
public:
    MessageLog(RoceFabric& fabric, FctStream& fct, Timeline* timeline)
        : m_fabric(fabric), m_fct(fct), m_timeline(timeline) {}
    void messageFinished(Rank src, Rank dst, const FlowCompletion& c) override {
        m_fct.add({m_fabric.NodeIdOfHost(c.srcHost), m_fabric.NodeIdOfHost(c.dstHost), c.udpSrcPort, 100,
                   c.sizeBytes, psToNs(c.startPs), psToNs(c.finishPs - c.startPs),
                   psToNs(m_fabric.IdealFctPs(c.srcHost, c.dstHost, c.sizeBytes))});
        if (m_timeline) {
            m_timeline->message(src, dst, c.sizeBytes, psToNs(c.startPs), psToNs(c.finishPs));
        }
    }

private:
    RoceFabric& m_fabric;
    FctStream& m_fct;
    Timeline* m_timeline;
};

// Simulated time, ranks finished and events per second on stderr, every two seconds of wall time.
class Progress {
public:
    Progress(const Simulation& simulation, uint32_t ranks) : m_simulation(simulation), m_ranks(ranks) {}
    void Start() { ns3::Simulator::Schedule(ns3::MicroSeconds(10), &Progress::Tick, this); }

private:
    void Tick() {
        const auto now = std::chrono::steady_clock::now();
        const double sinceLast = std::chrono::duration<double>(now - m_last).count();
        if (sinceLast >= 2) {
            const uint64_t events = ns3::Simulator::GetEventCount();
            const TimePs simulated = nowPs();
            // The simulated-time rate tells a user how long the rest of the run will take.
            std::fprintf(stderr,
                         "mlnet-ns3: %.6f s simulated (%.1f us per wall second), %u of %u ranks finished, "
                         "%.2f M events/s\n",
                         static_cast<double>(simulated) / 1e12,
                         static_cast<double>(simulated - m_simulatedPs) / 1e6 / sinceLast,
                         m_simulation.ranksFinished(), m_ranks,
                         static_cast<double>(events - m_events) / sinceLast / 1e6);
            m_last = now;
            m_events = events;
            m_simulatedPs = simulated;
        }
        ns3::Simulator::Schedule(ns3::MicroSeconds(10), &Progress::Tick, this);
    }
    const Simulation& m_simulation;
    uint32_t m_ranks;
    std::chrono::steady_clock::time_point m_last = std::chrono::steady_clock::now();
    uint64_t m_events = 0;
    TimePs m_simulatedPs = 0;
};

int usage(ns3::CommandLine& cmd, const std::string& why) {
    std::cerr << "mlnet-ns3: " << why << "\n";
    cmd.PrintHelp(std::cerr);
    return 1;
}

// SimAI's simulator takes -w WORKLOAD -n TOPOLOGY -c SimAI.conf (and -t THREADS; -g and -s it ignores): the
// same as --workload-configuration, --topology and --network-configuration, so its users change only the
// binary's name. Returns the arguments with those rewritten; `notes` says what was accepted without effect.
std::vector<std::string> simaiArguments(int argc, char** argv, bool& simaiWorkload, std::string& notes) {
    std::vector<std::string> out;
    for (int i = 0; i < argc; ++i) {
        const std::string a = argv[i];
        static const std::map<std::string, std::string> kFlags = {
            {"-w", "--workload-configuration="}, {"-n", "--topology="}, {"-c", "--network-configuration="}};
        const auto flag = kFlags.find(a);
        if (i > 0 && i + 1 < argc && flag != kFlags.end()) {
            out.push_back(flag->second + argv[++i]);
            simaiWorkload |= a == "-w";
        } else if (i > 0 && i + 1 < argc && (a == "-t" || a == "-g" || a == "-s")) {
            notes += "mlnet-ns3: " + a + " " + argv[++i] + " accepted without effect (" +
                     (a == "-t" ? "SimAI's thread count: this run is single-threaded"
                                : "SimAI's simulator ignores it too") +
                     ")\n";
        } else {
            out.push_back(a);
        }
    }
    return out;
}

}  // namespace

namespace {

int run(int argcGiven, char** argvGiven) {
    google::protobuf::SetLogHandler(nullptr);
    SimulatorSession session;
    Options o;
    bool simaiFlags = false;
    std::string simaiNotes;
    std::vector<std::string> arguments = simaiArguments(argcGiven, argvGiven, simaiFlags, simaiNotes);
    std::vector<char*> argvStore;
    for (std::string& a : arguments) {
        argvStore.push_back(a.data());
    }
    argvStore.push_back(nullptr);
    int argc = static_cast<int>(arguments.size());
    char** argv = argvStore.data();
    std::cerr << simaiNotes;
    ToolCommandLine tool("mlnet-ns3");
    if (!tool.TakeAttributes(argc, argv) ||
        !tool.CheckFlags(
            argc, argv,
            {"rendezvous-protocol", "overlap-collectives", "strict", "quiet", "compare-analytical",
             "fast-forward", "memoize-episodes", "fluid-uncontended", "memoize-collectives"})) {
        std::cerr << tool.error() << "\n";
        return 1;
    }
    ns3::CommandLine cmd(__FILE__);
    cmd.Usage(
        "mlnet-ns3 --workload-configuration=PREFIX|FILE --system-configuration=SYSTEM.json "
        "--network-configuration=NETWORK [--topology=FILE] [options]\n"
        "       mlnet-ns3 -w WORKLOAD.txt -n TOPOLOGY -c SimAI.conf   (SimAI's flags)\n"
        "Runs Chakra traces (or a SimAI / ASTRA-sim 1.0 text workload) on the packet-level RoCE network. "
        "NETWORK: our JSON network description, ASTRA-sim's ns-3 config.txt / config.json (with "
        "--logical-topology-configuration), SimAI.conf with a SimAI topology file, or an ASTRA-sim "
        "analytical "
        "YAML.");
    tool.AddText(cmd, "workload-configuration",
                 "Chakra trace prefix PREFIX.<rank>.et, or a SimAI / ASTRA-sim 1.0 text workload FILE",
                 o.workload);
    tool.AddText(
        cmd, "workload-format",
        "a text workload's tool: simai or astra1 (default: from its content; ASTRA-sim 1.0 when either "
        "fits, SimAI with -w)",
        o.workloadFormat);
    tool.AddText(cmd, "num-passes", "a text workload's training passes (ASTRA-sim 1.0's; default 1)",
                 o.passesText);
    tool.AddText(cmd, "topology",
                 "the topology file of a config.txt-style NETWORK (SimAI's -n), instead of its TOPOLOGY_FILE",
                 o.topology);
    tool.AddText(cmd, "system-configuration", "ASTRA-sim system JSON", o.system);
    tool.AddText(cmd, "network-configuration", "network description (see above)", o.network);
    tool.AddText(cmd, "remote-memory-configuration",
                 "ASTRA-sim remote-memory JSON (default: NO_MEMORY_EXPANSION)", o.memory);
    tool.AddText(cmd, "comm-group-configuration", "communicator groups JSON ('empty' means none)", o.groups);
    tool.AddText(cmd, "logical-topology-configuration",
                 "ASTRA-sim's {\"logical-dims\": [...]} for the collectives", o.logical);
    tool.AddText(cmd, "num-queues-per-dim", "queues per dimension, 1..1024", o.queuesPerDimText);
    tool.AddText(cmd, "injection-scale", "multiplies endpoint-delay, 0..1e6", o.injectionScaleText);
    tool.AddText(cmd, "comm-scale", "accepted for compatibility; must be 1", o.commScaleText);
    tool.AddText(cmd, "compute-scale", "accepted for compatibility; must be 1", o.computeScaleText);
    cmd.AddValue("rendezvous-protocol", "not supported; must be false", o.rendezvous);
    tool.AddText(cmd, "logging-configuration", "accepted for compatibility; ignored", o.logging);
    tool.AddText(cmd, "logging-folder", "accepted for compatibility; ignored", o.loggingFolder);
    cmd.AddValue("overlap-collectives", "let a rank run several collectives at once (ASTRA-sim: one)",
                 o.overlap);
    cmd.AddValue("strict", "ASTRA-sim parity checks on the traces", o.strict);
    tool.AddText(cmd, "cc", "congestion control: none, dcqcn, dctcp, timely or hpcc (default: the network's)",
                 o.cc);
    tool.AddText(cmd, "cc-preset", "config, paper, hpcc-paper or attributes (default: the network's)",
                 o.ccPreset);
    tool.AddText(cmd, "seed",
                 "random seed 1.." + std::to_string(kMaxSeed) +
                     " (ECN marking, losses, ECMP salt, background traffic)",
                 o.seedText);
    tool.AddText(cmd, "link-delay-offset-ps",
                 "add this many picoseconds (0..1000000) to every cable's delay: a change no user chose, to "
                 "see how far the model itself moves (check-fast-forward --ensemble N --perturb delay)",
                 o.linkDelayOffsetText);
    tool.AddText(cmd, "output-dir", "where summary.json, fct.txt, pfc.txt, qlen.txt and timeline.json go",
                 o.outputDir);
    tool.AddText(
        cmd, "max-memory",
        "refuse a run whose packet fabric would need more (e.g. 16GB; default: this machine's memory)",
        o.maxMemoryText);
    tool.AddText(cmd, "pcap", "also write every frame to this pcap file", o.pcap);
    tool.AddText(cmd, "rate-trace",
                 "write every QP rate/window change: time_ns src_node flow rate_bps window_bytes",
                 o.rateTrace);
    tool.AddText(
        cmd, "rate-trace-port",
        "with --rate-trace, only the flows through this switch egress port (NODE:PORT, as in qlen.txt), "
        "each also at its first and last frame there",
        o.rateTracePortText);
    cmd.AddValue("quiet", "no progress lines on stderr", o.quiet);
    cmd.AddValue("compare-analytical", "also run the congestion-aware analytical model and compare",
                 o.compareAnalytical);
    cmd.AddValue(
        "fast-forward",
        "skip network time through steady states (flows at stable rates, queues stable): every message "
        "end, new flow and transient still runs packet by packet; summary.json tells what was skipped",
        o.fastForward);
    cmd.AddValue("memoize-episodes",
                 "replay an episode (messages on cables that were idle, until they are done) that repeats a "
                 "recorded one exactly, instead of simulating its packets; summary.json tells what was "
                 "replayed",
                 o.memoize);
    cmd.AddValue("fluid-uncontended",
                 "carry a message that meets no other flow at any switch queue as a fluid flow at its line "
                 "rate (HPCC: at the rate it sets on the fluid's telemetry) instead of packets; where flows "
                 "meet, packets; summary.json tells how much",
                 o.fluidUncontended);
    cmd.AddValue("memoize-collectives",
                 "NCCL collectives inside one scale-up domain (NVLink) that repeat a recorded one exactly "
                 "(same bytes and GPUs, same start offsets, the domain idle) take its outcome instead of "
                 "being simulated again; summary.json tells how many",
                 o.memoizeCollectives);
    tool.AddText(cmd, "scale-up",
                 "how the scale-up domains (NVLink) carry the messages inside them: fluid (lossless, max-min "
                 "shared, the default) or packet (RoCE links with PFC)",
                 o.scaleUp);
    tool.AddText(
        cmd, "fast-forward-window-us",
        "with --fast-forward, the sampling window in microseconds (default: 10 none, 20 hpcc, 40 dctcp "
        "and timely, 100 dcqcn)",
        o.fastForwardWindowText);
    AddModelRuleOptions(tool, cmd, o.rules);
    if (!tool.Parse(cmd, argc, argv)) {
        std::cerr << tool.error() << "\n";
        return 1;
    }
    CliNumbers numbers("mlnet-ns3");
    if (!o.read(numbers)) {
        std::cerr << (o.portError.empty() ? numbers.error() : "mlnet-ns3: " + o.portError) << "\n";
        return 1;
    }
    ModelRules rules;
    ModelRuleError rulesError;
    if (!parseModelRules(o.rules, rules, rulesError)) {  // the command line alone, for its usage errors
        return usage(cmd, rulesError.message());
    }
    for (const auto& [flag, value] :
         {std::pair<const char*, std::string*>{"workload-configuration", &o.workload},
          {"network-configuration", &o.network}}) {
        if (value->empty()) {
            return usage(cmd, std::string("--") + flag + " is required");
        }
    }
    const bool textWorkload = importers::looksLikeTextWorkload(o.workload);
    std::optional<importers::WorkloadFormat> format;
    if (!o.workloadFormat.empty()) {
        if (o.workloadFormat != "simai" && o.workloadFormat != "astra1") {
            return usage(cmd,
                         "--workload-format must be 'simai' or 'astra1', not '" + o.workloadFormat + "'");
        }
        format = o.workloadFormat == "simai" ? importers::WorkloadFormat::SimAI
                                             : importers::WorkloadFormat::Astra1;
    } else if (simaiFlags) {
        format = importers::WorkloadFormat::SimAI;  // given as SimAI's -w
    }
    uint64_t passes = 1;
    if (!o.passesText.empty() && !numbers.count("num-passes", o.passesText, 1, 1000, passes)) {
        std::cerr << numbers.error() << "\n";
        return 1;
    }
    if (!textWorkload && (!o.workloadFormat.empty() || !o.passesText.empty())) {
        return usage(cmd,
                     "--workload-format and --num-passes apply to text workloads (a SimAI or ASTRA-sim 1.0 "
                     "file); '" +
                         o.workload + "' is a Chakra trace prefix");
    }
    const bool simaiText =
        textWorkload &&
        format.value_or(
            importers::detectFileFormat(o.workload).value_or(importers::WorkloadFormat::Astra1)) ==
            importers::WorkloadFormat::SimAI;
    if (o.system.empty() && !simaiText) {
        return usage(cmd, "--system-configuration is required (only a SimAI text workload runs without one)");
    }
    if (o.rendezvous) {
        return usage(cmd, "--rendezvous-protocol is not supported; leave it false");
    }

    Diagnostics diag;
    std::optional<NetworkDescription> network = loadNetworkDescription(o.network, diag, o.topology);
    if (network && o.linkDelayOffsetPs > 0) {
        auto perturbed = std::make_shared<TopologySpec>(*network->topology);
        for (SpecCable& cable : perturbed->cables) {
            cable.delayPs += static_cast<TimePs>(o.linkDelayOffsetPs);
        }
        network->topology = std::move(perturbed);
    }
    std::optional<std::vector<uint32_t>> logicalDims;
    if (!o.logical.empty()) {
        logicalDims = loadLogicalTopology(o.logical, diag);
    }
    // A SimAI user has no system file: SimAI's collectives as ours (simaiSystemJson), one algorithm per
    // logical dimension.
    const std::size_t logicalCount = logicalDims ? logicalDims->size()
                                     : network   ? network->topology->dimensions.size()
                                                 : 1;
    SystemConfig system = o.system.empty() ? parseSystemConfig(importers::simaiSystemJson(logicalCount),
                                                               "built-in SimAI system", diag)
                                           : loadSystemConfig(o.system, diag);
    // SimAI's 6 us send latency delays every flow, on a TP or DP group as on the whole machine.
    system.endpointDelayOnSubCommunicators = o.system.empty();
    if (o.system.empty()) {
        std::cout << "system: SimAI's collectives (ring, direct all-to-all, one chunk, 6 us send latency as "
                     "endpoint-delay; give --system-configuration to change them)\n";
    }
    RemoteMemoryConfig memory;
    if (!o.memory.empty()) {
        memory = loadRemoteMemoryConfig(o.memory, diag);
    }
    TraceSetOptions traceOptions;
    traceOptions.read.strict = o.strict;
    // "empty" means no groups, as in mlnet-analytical. ASTRA-sim ignores any path containing "empty"; here a
    // path is a path, so a file such as nonempty-groups.json is read, not silently dropped.
    if (o.groups != "empty") {
        traceOptions.commGroupFile = o.groups;
    }
    TraceSet traces;
    bool overlap = o.overlap;
    if (!diag.hasErrors() && textWorkload) {
        std::vector<uint32_t> dims;
        for (const Dimension& d : network->topology->dimensions) {
            dims.push_back(d.npus);
        }
        if (logicalDims) {
            dims = *logicalDims;
        }
        std::string report;
        traces = importers::importForSimulator(o.workload, format, static_cast<uint32_t>(passes),
                                               network->topology->numRanks(), dims, traceOptions,
                                               o.maxMemoryBytes, diag, report);
        std::cout << report;
        if (!diag.hasErrors()) {
            std::cout
                << "collectives overlap, as both tools run a rank's collectives (--overlap-collectives)\n";
        }
        overlap = true;
    } else if (!diag.hasErrors()) {
        traces = loadTraceSet(o.workload, traceOptions, diag);
    }
    if (diag.hasErrors()) {
        std::cerr << diag.format(Severity::Warning) << diag.format(Severity::Error);
        return 2;
    }
    PacketModelSettings& settings = network->settings;
    TrainingSetup setup;
    if (!prepareTraining(traces, *network->topology, logicalDims, setup, diag)) {
        std::cerr << diag.format(Severity::Warning) << diag.format(Severity::Error);
        return 2;
    }

    // Model rules: the description's, with the command line's on top (both checked already).
    parseModelRules(mergeModelRuleOptions(settings.ruleOptions, o.rules), rules, rulesError);
    // Congestion control: the network's choice unless the command line names one.
    const std::string ccName = o.cc.empty() ? settings.cc : o.cc;
    const std::string preset = o.ccPreset.empty() ? settings.ccPreset : o.ccPreset;
    if (tool.AnyAttributeOf("mlnet::roce::RoceCcConfig") && preset != "attributes") {
        std::cerr << "mlnet-ns3: RoceCcConfig attributes take effect only with --cc-preset=attributes (the "
                     "network description's preset is '"
                  << preset << "')\n";
        return 1;
    }
    const CcSelection selection = applyPacketModel(settings, rules, ccName, preset, settings.fabric, diag);
    if (ccName.empty() && settings.ccParameters.ccMode == 12) {
        std::cerr
            << "mlnet-ns3: CC_MODE 12 (astra-network-ns3's default) is no HPCC-lineage algorithm: flows run "
               "at line rate within their window, with no congestion-control reaction\n";
    }
    settings.fabric.seed = o.seed ? o.seed : settings.seed;
    settings.fabric.pcapPath = o.pcap;
    settings.fabric.switches.queueHistograms = true;
    settings.fabric.memoizeEpisodes = o.memoize;
    settings.fabric.fluidUncontended = o.fluidUncontended;
    settings.fabric.scaleUp = *parseScaleUp(o.scaleUp);
    if (o.fastForward) {
        settings.fabric.fastForward.enabled = true;
        settings.fabric.fastForward.windowPs = o.fastForwardWindowUs > 0
                                                   ? static_cast<TimePs>(o.fastForwardWindowUs * 1e6)
                                                   : fastForwardWindowPs(selection.algorithm);
    }
    const OutputPaths out = outputPaths(o.outputDir, settings, diag);
    if (!out.queues.empty()) {
        settings.fabric.switches.queueSampleIntervalPs = settings.queueIntervalPs;
        settings.fabric.switches.queueSampleStartPs = settings.queueStartPs;
        settings.fabric.switches.queueSampleEndPs = settings.queueEndPs;
    }
    ns3::RngSeedManager::SetSeed(static_cast<uint32_t>(settings.fabric.seed));
    checkOutputPath(out.summary, "summary", diag);  // the streams below check their own paths
    std::vector<NamedPath> read = {
        {o.system, "system configuration"},        {o.network, "network configuration"},
        {o.memory, "remote-memory configuration"}, {traceOptions.commGroupFile, "communicator groups"},
        {o.logical, "logical topology"},           {network->topology->source, "topology"},
        {o.topology, "topology (--topology)"}};
    if (textWorkload) {
        read.push_back({o.workload, "workload file"});
    } else {
        for (const RankTrace& rank : traces.ranks) {
            read.push_back({rank.path, "trace of rank " + std::to_string(rank.rank)});
        }
    }
    if (settings.background) {
        read.push_back({settings.background->flowSizeCdf, "background flow-size CDF"});
    }
    checkDistinctPaths({{out.summary, "summary"},
                        {out.fct, "FCT output"},
                        {out.pfc, "PFC output"},
                        {out.queues, "queue samples"},
                        {out.timeline, "timeline"},
                        {o.pcap, "pcap (--pcap)"},
                        {o.rateTrace, "rate trace (--rate-trace)"}},
                       read, diag);
    if (diag.hasErrors()) {
        std::cerr << diag.format(Severity::Warning) << diag.format(Severity::Error);
        return 2;
    }

    const TopologySpec& spec = *setup.topology;
    if (!checkMemoryNeed(RoceFabric::EstimateMemoryBytes(spec), o.maxMemoryBytes,
                         o.network + ": the packet fabric (" + std::to_string(spec.numHosts()) + " hosts, " +
                             std::to_string(2 * spec.cables.size()) + " ports)",
                         // Built whole even when the run uses a corner of it: every switch's buffer budget,
                         // ECMP groups and random streams are those of the whole network, so a part would not
                         // run the same.
                         "a network of the size the run needs (its " + std::to_string(traces.numRanks()) +
                             " ranks use " + std::to_string(traces.numRanks()) + " of the " +
                             std::to_string(spec.numHosts()) +
                             " hosts; the fabric is built whole, as every switch's buffer, ECMP groups and "
                             "random draws are the whole network's)",
                         diag)) {
        std::cerr << diag.format(Severity::Error);
        return 2;
    }
    const double cpuStart = processCpuSeconds();
    const auto wallStart = std::chrono::steady_clock::now();
    RoceFabric fabric(setup.topology, settings.fabric, diag);
    if (diag.hasErrors()) {
        std::cerr << diag.format(Severity::Error);
        return 2;
    }
    if (settings.linkDown && !fabric.ScheduleLinkDown(settings.linkDown->nodeA, settings.linkDown->nodeB,
                                                      nsToPs(settings.linkDown->timeNs))) {
        diag.error(settings.source + ": LINK_DOWN names nodes that share no cable");
    }
    RoceNetworkApi api(fabric, traces.numRanks(), trafficClassesOf(settings));
    api.SetDeliveryAtAck(rules.deliveryAtAck);
    SimulationOptions simOptions;
    simOptions.physical = setup.topology.get();
    simOptions.executor.overlapCollectives = overlap;
    simOptions.queuesPerDimension = o.queuesPerDim;
    simOptions.injectionScale = o.injectionScale;
    simOptions.memoizeCollectives = o.memoizeCollectives;
    Simulation simulation(traces, system, setup.logical, memory, simOptions, api, diag);
    FctStream fct(out.fct, diag);
    MonitorFiles monitors(fabric, out.pfc, out.queues, diag);
    std::unique_ptr<Timeline> timeline;
    if (!out.timeline.empty()) {
        timeline = std::make_unique<Timeline>(out.timeline, traces, settings.timelineFlows, diag);
        simulation.setObserver(timeline.get());
    }
    if (diag.hasErrors() || !simulation.valid()) {
        std::cerr << diag.format(Severity::Warning) << diag.format(Severity::Error);
        return 2;
    }
    std::unique_ptr<RateTrace> rates;
    if (!o.rateTrace.empty()) {
        rates = std::make_unique<RateTrace>(fabric, o.rateTrace, o.rateTracePort, "--rate-trace-port", diag);
        if (diag.hasErrors()) {
            std::cerr << diag.format(Severity::Error);
            return 2;
        }
    }
    MessageLog log(fabric, fct, timeline.get());
    api.setObserver(&log);
    std::unique_ptr<BackgroundTraffic> background;
    if (settings.background) {
        background = std::make_unique<BackgroundTraffic>(fabric, *settings.background, diag);
        background->AssignStreams(fabric.StreamsUsed());
        if (diag.hasErrors()) {
            std::cerr << diag.format(Severity::Error);
            return 2;
        }
    }
    TraceRunWatch watch(fabric, api, simulation, settings.hangCheckPs);
    Progress progress(simulation, traces.numRanks());
    watch.Start();
    if (!o.quiet) {
        progress.Start();
    }
    if (background) {
        background->Start();
    }
    if (settings.timeLimitPs != UINT64_MAX) {
        ns3::Simulator::Stop(ns3::PicoSeconds(settings.timeLimitPs));
    }
    ns3::Simulator::Run();
    fabric.FinishFastForward();

    TrainingRun run;
    run.outcome = simulation.outcome(api.now());
    run.outcome.events = ns3::Simulator::GetEventCount();
    run.outcome.messages = api.messagesDelivered();
    run.outcome.bytesDelivered = api.bytesDelivered();
    if (o.memoizeCollectives && !run.outcome.collectiveMemo) {
        std::cerr << "mlnet-ns3: --memoize-collectives had no effect: the system configuration does not run "
                     "collectives with the NCCL model (\"collective-library\": \"nccl\")\n";
    } else if (o.memoizeCollectives && run.outcome.collectiveMemo->candidates == 0) {
        std::cerr
            << "mlnet-ns3: --memoize-collectives had no effect: no collective had all its members in one "
               "scale-up domain modelled as fluid (--scale-up=fluid), idle, started within the "
               "tuner's base latency of each other and reducing on the GPUs, not in a switch "
               "(docs/fast-forward.md)\n";
    }
    run.cpuSeconds = processCpuSeconds() - cpuStart;
    run.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    run.hangReport = watch.Hang().Hung() ? watch.Hang().Report() : "";
    run.timeLimited = !run.outcome.completed && !watch.Hang().Hung();
    run.network = networkTotals(fabric);
    warnOverfullBuffers(run.network, diag);
    run.bytesSent = api.bytesSent();
    run.messagesSent = api.messagesSent();
    run.peakMessageRecords = api.peakRecords();
    if (background) {
        run.background = background->Summary();
    }
    if (timeline) {
        run.timelineMessagesLeftOut = timeline->messagesLeftOut();
    }
    if (o.compareAnalytical) {
        run.analytical = compareAnalytical(traces, system, memory, simOptions, setup, diag);
    }

    printResultLines(run.outcome);
    fct.commit();
    monitors.commit();
    if (rates) {
        rates->Commit();
    }
    fabric.FinishCapture();
    if (timeline) {
        if (const FastForwardStats* ff = fabric.FastForwardResult()) {
            for (const FastForwardStats::Span& span : ff->spans) {
                timeline->networkSpan("fast-forward", psToNs(span.startPs), psToNs(span.endPs),
                                      "\"skipped\": \"network time at steady rates\"");
            }
        }
        if (const EpisodeMemoStats* memo = fabric.EpisodeMemoResult()) {
            for (const EpisodeMemoStats::Span& span : memo->spans) {
                timeline->networkSpan("replayed episode", psToNs(span.startPs), psToNs(span.endPs),
                                      "\"messages\": " + std::to_string(span.messages));
            }
        }
        timeline->close();
    }
    RunInputs inputs{o.workload,
                     o.system,
                     o.network,
                     settings.form,
                     selection.Name(),
                     preset,
                     describeModelRules(rules),
                     static_cast<TimePs>(o.linkDelayOffsetPs),
                     setup,
                     fabric};
    writeSummary(out.summary, inputs, run, diag);
    removeStaleOutputs(out, diag);
    printNetworkSummary(run, selection.Name(), out.summary);
    std::cerr << diag.format(Severity::Warning);
    if (diag.hasErrors()) {
        std::cerr << diag.format(Severity::Error);
        return 2;
    }
    if (!run.outcome.completed) {
        std::cerr << "mlnet-ns3: the run could not finish: "
                  << (run.timeLimited ? "the time limit was reached\n" : run.hangReport)
                  << (run.timeLimited ? run.outcome.stallReport : "");
        return 3;
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    return mlnet::runTool("mlnet-ns3", [&] { return run(argc, argv); });
}
