// mlnet-flows CONFIG: a flow-driven RoCE experiment from an HPCC-format config.txt (or our JSON form) with
// its topology and flow files. Writes FCT_OUTPUT_FILE and PFC_OUTPUT_FILE in the reference's column formats
// and prints the run's cost (CPU seconds, peak memory, events, data packet-hops per CPU second). Exit status:
// 0 every flow finished, 1 usage, 2 invalid input, 3 the run stopped with unfinished flows (reported).

#include <cstdio>
#include <ctime>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "ns3/command-line.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"

#include "cc-parameters.h"
#include "cc-selection.h"
#include "fabric-settings.h"
#include "flow-file.h"
#include "hpcc-config.h"
#include "hpcc-flow-runner.h"
#include "model-rules.h"
#include "network-description.h"
#include "network/topology-description.h"
#include "rate-trace.h"
#include "result-writers.h"
#include "roce-fabric.h"
#include "roce-timing.h"
#include "run-report.h"
#include "tool-command-line.h"
#include "util/atomic-file.h"
#include "util/cli-options.h"
#include "util/memory-limit.h"
#include "util/process-usage.h"
#include "util/tool-main.h"

using namespace mlnet;
using namespace mlnet::roce;

namespace {

bool endsWith(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

namespace {

int run(int argc, char** argv) {
    SimulatorSession session;
    std::string configPath, topologyOverride, flowOverride, fctOverride, pfcOverride, qlenOverride, cc,
        ccPreset = "config", pcap, report;
    std::string rateTrace;
    ModelRuleOptions ruleOptions;
    std::string seedText = "1", rtoUsText;  // no --rto-us: 1000 us, or none under --retransmit=hpcc
    bool pfc = true;
    ToolCommandLine tool("mlnet-flows");
    if (!tool.TakeAttributes(argc, argv) || !tool.CheckFlags(argc, argv, {"pfc", "cc-parameters"})) {
        std::cerr << tool.error() << "\n";
        return 1;
    }
    ns3::CommandLine cmd(__FILE__);
    cmd.Usage(
        "mlnet-flows CONFIG [--topology=FILE] [--flows=FILE] [--cc=none] ...\n"
        "Runs the flows of an HPCC-format config.txt (or JSON) on the RoCE model.");
    tool.AddTextNonOption(cmd, "config", "config.txt or .json (HPCC keys)", configPath);
    tool.AddText(cmd, "topology",
                 "topology (overrides TOPOLOGY_FILE): an HPCC topology file, or a JSON network description "
                 "(net.json with a \"topology\" builder or file)",
                 topologyOverride);
    tool.AddText(cmd, "flows", "flow file (overrides FLOW_FILE)", flowOverride);
    tool.AddText(cmd, "fct", "FCT output (overrides FCT_OUTPUT_FILE)", fctOverride);
    tool.AddText(cmd, "pfc-output", "PFC output (overrides PFC_OUTPUT_FILE)", pfcOverride);
    tool.AddText(cmd, "qlen-output", "queue samples (overrides QLEN_MON_FILE)", qlenOverride);
    const std::string ccHelp = "congestion control overriding CC_MODE: " + ccAlgorithmChoices();
    tool.AddText(cmd, "cc", ccHelp, cc);
    tool.AddText(
        cmd, "cc-preset",
        "config (parameters from the file, HPCC-compatible), paper (each algorithm's own defaults) or "
        "hpcc-paper (the HPCC paper's settings)",
        ccPreset);
    cmd.AddValue("pfc",
                 "PFC on (1) or off (0, lossy: drops are recovered by go-back-N on a NAK and, unless "
                 "--retransmit=hpcc, after --rto-us without progress)",
                 pfc);
    tool.AddText(cmd, "pcap", "write every frame sent by every port to this pcap file (RoCEv2 and PFC bytes)",
                 pcap);
    tool.AddText(cmd, "report", "write a JSON summary of the run", report);
    tool.AddText(cmd, "rate-trace",
                 "write every QP rate/window change: time_ns src_node flow rate_bps window_bytes", rateTrace);
    tool.AddText(cmd, "seed",
                 "random seed 1.." + std::to_string(kMaxSeed) + " (ECN marking, link loss, ECMP salt)",
                 seedText);
    std::string maxMemoryText;
    tool.AddText(
        cmd, "max-memory",
        "refuse a run whose packet fabric would need more (e.g. 16GB; default: this machine's memory)",
        maxMemoryText);
    tool.AddText(cmd, "rto-us",
                 "retransmission timeout in microseconds, at least 1 (default 1000; --retransmit=hpcc: none)",
                 rtoUsText);
    AddModelRuleOptions(tool, cmd, ruleOptions);
    bool listParameters = false;
    cmd.AddValue("cc-parameters", "print every congestion-control parameter (markdown) and exit",
                 listParameters);
    if (!tool.Parse(cmd, argc, argv)) {
        std::cerr << tool.error() << "\n";
        return 1;
    }
    ModelRules rules;
    ModelRuleError rulesError;
    if (!parseModelRules(ruleOptions, rules, rulesError)) {
        std::cerr << "mlnet-flows: " << rulesError.message() << "\n";
        return 1;
    }
    CliNumbers numbers("mlnet-flows");
    uint64_t seed = 1;
    double rtoUs = 1000;
    // ns-3's generator takes seeds below its modulus 4294967087.
    uint64_t maxMemoryBytes = availableMemoryBytes();
    if (!numbers.count("seed", seedText, 1, kMaxSeed, seed) ||
        (!maxMemoryText.empty() && !numbers.bytes("max-memory", maxMemoryText, maxMemoryBytes)) ||
        (!rtoUsText.empty() && !numbers.real("rto-us", rtoUsText, 1, 1e9, rtoUs, false))) {
        std::cerr << numbers.error() << "\n";
        return 1;
    }
    if (rules.referenceRetransmit && !rtoUsText.empty()) {
        std::cerr << "mlnet-flows: --rto-us=" << rtoUsText
                  << " has no effect with --retransmit=hpcc (part of --compat=hpcc): the reference has no "
                     "timeout; add --retransmit=timeout to keep one\n";
        return 1;
    }
    if (tool.AnyAttributeOf("mlnet::roce::RoceCcConfig") && ccPreset != "attributes") {
        std::cerr << "mlnet-flows: RoceCcConfig attributes take effect only with --cc-preset=attributes\n";
        return 1;
    }
    if (listParameters) {
        std::cout << "## Parameters (ns-3 attributes `mlnet::roce::RoceCcConfig::<Algorithm><parameter>`)\n\n"
                  << cc::describeParameters() << "\n## config.txt keys\n\n"
                  << describeCcKeys();
        return 0;
    }
    if (configPath.empty()) {
        std::cerr << "mlnet-flows: missing CONFIG\n";
        cmd.PrintHelp(std::cerr);
        return 1;
    }
    ns3::RngSeedManager::SetSeed(static_cast<uint32_t>(seed));

    Diagnostics diag;
    HpccConfig config =
        endsWith(configPath, ".json") ? loadJsonConfig(configPath, diag) : loadHpccConfig(configPath, diag);
    // Files named on the command line are the user's paths; those named in the configuration are looked up as
    // the reference does, then beside the configuration.
    if (!diag.hasErrors()) {
        config.topologyFile = topologyOverride.empty()
                                  ? locateConfigInput(config, "TOPOLOGY_FILE", config.topologyFile, diag)
                                  : topologyOverride;
        config.flowFile = flowOverride.empty() ? locateConfigInput(config, "FLOW_FILE", config.flowFile, diag)
                                               : flowOverride;
    }
    if (!fctOverride.empty()) {
        config.fctOutputFile = fctOverride;
    }
    if (!pfcOverride.empty()) {
        config.pfcOutputFile = pfcOverride;
    }
    if (!qlenOverride.empty()) {
        config.qlenMonFile = qlenOverride;
    }
    if (!diag.hasErrors()) {
        requireFlowInputs(config, diag);
    }
    std::shared_ptr<const TopologySpec> topology;
    std::vector<FlowSpec> flows;
    if (!diag.hasErrors()) {
        // A JSON network description as the topology: its model rules join the command line's; its other
        // packet-model sections would be ignored here (CONFIG sets the switches, NICs and congestion
        // control), so they are refused.
        std::optional<PacketModelSettings> described;
        topology = loadTopologyOfNetwork(config.topologyFile, diag, &described);
        for (const std::string& section : described ? described->sectionsGiven : std::vector<std::string>{}) {
            if (section != "model-rules") {
                diag.error(config.topologyFile + ": section '" + section +
                           "' is not used by mlnet-flows, which takes the switches, NICs, congestion control "
                           "and run settings from " +
                           configPath + "; remove it from the description (mlnet-ns3 runs it as written)");
            }
        }
        if (described && !diag.hasErrors() &&
            !parseModelRules(mergeModelRuleOptions(described->ruleOptions, ruleOptions), rules, rulesError)) {
            diag.error(config.topologyFile + ": key 'model-rules': " + rulesError.message());
        }
    }
    const CcSelection selection = selectCongestionControl(config, cc, ccPreset, diag, rules);
    if (topology) {
        checkConfigAgainstTopology(config, *topology, diag);
        flows = loadFlowFile(config.flowFile, *topology, diag, rules.referenceFlowStarts);
    }
    // Every output is checked before the run, not found unwritable after it.
    for (const auto& [path, what] :
         {std::pair<const std::string&, const char*>{config.fctOutputFile, "FCT output"},
          {config.pfcOutputFile, "PFC output"},
          {config.qlenMonFile, "queue samples"},
          {pcap, "pcap"},
          {report, "report"},
          {rateTrace, "rate trace"}}) {
        if (!path.empty()) {
            checkOutputPath(path, what, diag);
        }
    }
    checkDistinctPaths(
        {{config.fctOutputFile, "FCT output"},
         {config.pfcOutputFile, "PFC output"},
         {config.qlenMonFile, "queue samples"},
         {pcap, "pcap"},
         {report, "report"},
         {rateTrace, "rate trace"}},
        {{configPath, "configuration"}, {config.topologyFile, "topology"}, {config.flowFile, "flow file"}},
        diag);
    if (diag.hasErrors()) {
        std::cerr << diag.format(Severity::Warning) << diag.format(Severity::Error);
        return 2;
    }

    FabricSettings net = fabricSettingsFromHpccConfig(config, selection);
    net.nic.rtoPs = static_cast<TimePs>(rtoUs * 1e6);
    net.pfcEnabled = pfc;
    net.seed = seed;
    net.pcapPath = pcap;
    rules.ApplyTo(net, selection.algorithm);

    if (!checkMemoryNeed(RoceFabric::EstimateMemoryBytes(*topology), maxMemoryBytes,
                         config.topologyFile + ": the packet fabric (" +
                             std::to_string(topology->numHosts()) + " hosts, " +
                             std::to_string(2 * topology->cables.size()) + " ports)",
                         "a smaller network", diag)) {
        std::cerr << diag.format(Severity::Error);
        return 2;
    }
    const double cpuStart = processCpuSeconds();
    RoceFabric network(topology, net, diag);
    if (diag.hasErrors()) {
        std::cerr << diag.format(Severity::Error);
        return 2;
    }
    HpccFlowRunner runner(network);
    runner.SetReferenceStartOrder(rules.referenceFlowStarts);
    // Every output is streamed while the run goes; each appears whole at its commit() below.
    FctStream fct(config.fctOutputFile, diag);
    runner.SetFctSink([&fct](const FctRecordPs& r) {
        fct.add({r.srcNode, r.dstNode, r.sport, r.dport, r.sizeBytes, psToNs(r.startPs),
                 psToNs(r.finishPs - r.startPs), psToNs(r.idealPs)});
    });
    MonitorFiles monitors(network, config.pfcOutputFile, config.qlenMonFile, diag);
    std::unique_ptr<RateTrace> rates;
    if (!rateTrace.empty()) {
        rates = std::make_unique<RateTrace>(network, rateTrace, std::nullopt, "--rate-trace", diag);
    }
    if (diag.hasErrors()) {
        std::cerr << diag.format(Severity::Error);
        return 2;
    }
    for (const FlowSpec& f : flows) {
        runner.AddFlow(f.srcNode, f.dstNode, f.sizeBytes, f.priority, f.dport, nsToPs(f.startNs));
    }
    if (config.linkDown) {
        network.ScheduleLinkDown(config.linkDown->nodeA, config.linkDown->nodeB,
                                 nsToPs(config.linkDown->timeNs));
    }
    const bool finished = runner.Run(nsToPs(config.stopTimeNs));
    const double cpu = processCpuSeconds() - cpuStart;
    const uint64_t events = ns3::Simulator::GetEventCount();

    fct.commit();
    monitors.commit();
    if (rates) {
        rates->Commit();
    }
    network.FinishCapture();

    const NetworkTotals totals = networkTotals(network);
    warnOverfullBuffers(totals, diag);
    std::printf("congestion control: %s (%s)\n", selection.Name(), ccPreset.c_str());
    std::printf("model rules: %s\n", describeModelRules(rules).c_str());
    std::printf("flows: %llu of %zu finished; drops %llu; PFC pause frames received %llu\n",
                static_cast<unsigned long long>(runner.FlowsFinished()), flows.size(),
                static_cast<unsigned long long>(totals.drops),
                static_cast<unsigned long long>(totals.pauseFrames));
    std::printf(
        "cost: %.2f CPU-s, peak %.0f MB, %llu events, %llu data packet-hops, %.2f M packet-hops per CPU-s\n",
        cpu, peakResidentMb(), static_cast<unsigned long long>(events),
        static_cast<unsigned long long>(totals.dataPacketHops),
        static_cast<double>(totals.dataPacketHops) / 1e6 / std::max(cpu, 1e-9));
    if (!report.empty()) {
        nlohmann::ordered_json j;
        j["flows"] = flows.size();
        j["finished"] = runner.FlowsFinished();
        const nlohmann::ordered_json totalsJson = toJson(totals);
        for (auto& [key, value] : totalsJson.items()) {
            j[key] = value;
        }
        j["cpu_seconds"] = cpu;
        j["peak_mb"] = peakResidentMb();
        j["events"] = events;
        j["switches"] = switchesJson(network);
        writeJsonAtomically(report, j.dump(1), diag);
    }
    if (diag.hasErrors()) {
        std::cerr << diag.format(Severity::Error);
        return 2;
    }
    std::cerr << diag.format(Severity::Warning);
    if (!finished) {
        std::cerr << "mlnet-flows: " << runner.HangReport();
        // Flows start in file order, so the unstarted ones are the tail; the first of them says why.
        if (runner.FlowsStarted() < flows.size()) {
            const FlowSpec& first = flows[runner.FlowsStarted()];
            std::cerr << "mlnet-flows: " << atLine(config.flowFile, first.line) << ": this flow and "
                      << flows.size() - runner.FlowsStarted() - 1 << " after it never started: it starts at "
                      << static_cast<double>(first.startNs) / 1e9 << " s, after SIMULATOR_STOP_TIME ("
                      << static_cast<double>(config.stopTimeNs) / 1e9 << " s)\n";
        }
        return 3;
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    return mlnet::runTool("mlnet-flows", [&] { return run(argc, argv); });
}
