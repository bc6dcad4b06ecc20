// mlnet-analytical: runs Chakra traces on the analytical network with ASTRA-sim's command-line flags and
// files. Prints one ASTRA-sim result line per rank; --report writes per-rank times and per-collective records
// as JSON. --workload-configuration also takes a SimAI or ASTRA-sim 1.0 text workload, imported in memory
// (astra-core/workload/importers/). Exit status: 0 finished, 1 usage error, 2 invalid input, 3 the
// simulation could not finish (reported).
#include <google/protobuf/stubs/logging.h>
#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>

#include "network/topology-description.h"
#include "system/collective-report.h"
#include "system/simulation.h"
#include "util/atomic-file.h"
#include "util/cli-options.h"
#include "util/memory-limit.h"
#include "util/tool-main.h"
#include "workload/importers/workload-importer.h"
#include "workload/trace-set.h"

namespace po = boost::program_options;
using namespace mlnet;

namespace {

std::string reportJson(const SimulationOutcome& o, const std::string& model) {
    nlohmann::ordered_json j;
    j["completed"] = o.completed;
    j["end_ns"] = o.endNs;
    j["network_model"] = model;
    nlohmann::ordered_json ranks = nlohmann::ordered_json::array();
    for (std::size_t r = 0; r < o.ranks.size(); ++r) {
        const auto& rr = o.ranks[r];
        ranks.push_back(
            {{"rank", r},
             {"finished", rr.finished},
             {"finish_ns", rr.finishNs},
             {"gpu_compute_ns", rr.gpuComputeNs},
             {"exposed_comm_ns", rr.finished ? rr.finishNs - std::min(rr.finishNs, rr.gpuComputeNs) : 0},
             {"nodes_done", rr.nodesDone}});
    }
    j["ranks"] = ranks;
    j["collectives"] = collectivesPlaceholder();
    j["stats"] = {{"events", o.events},
                  {"messages", o.messages},
                  {"bytes_delivered", o.bytesDelivered},
                  {"wall_seconds", o.wallSeconds}};
    addInNetworkReduction(j, o.inNetworkReduction.reductions, o.inNetworkReduction.bytesIn,
                          o.inNetworkReduction.bytesOut);
    if (!o.completed) {
        j["stall_report"] = o.stallReport;
    }
    return dumpReport(j, o.collectives) + "\n";
}

}  // namespace

namespace {

int run(int argc, char** argv) {
    google::protobuf::SetLogHandler(nullptr);
    std::string workload, systemPath, networkPath, memoryPath, groupsPath, model = "unaware", report, routing;
    std::string loggingConfig, loggingFolder;
    SimulationOptions options;
    TraceSetOptions traceOptions;
    std::string queuesText = "1", injectionText = "1", commScaleText = "1", computeScaleText = "1";
    std::string workloadFormat, passesText, maxMemoryText;
    bool rendezvous = false;
    po::options_description visible(
        "Usage: mlnet-analytical --workload-configuration=PREFIX --system-configuration=SYSTEM.json "
        "--network-configuration=NETWORK.yml [options]\n\nOptions");
    visible.add_options()("help,h", "show this help")(
        "workload-configuration", po::value(&workload),
        "Chakra trace prefix PREFIX.<rank>.et, or a SimAI / ASTRA-sim 1.0 text workload FILE")(
        "workload-format", po::value(&workloadFormat),
        "a text workload's tool: simai or astra1 (default: from its content; ASTRA-sim 1.0 when either "
        "fits)")("num-passes", po::value(&passesText),
                 "a text workload's training passes (ASTRA-sim 1.0's; default 1)")(
        "max-memory", po::value(&maxMemoryText),
        "refuse an imported workload that would need more (e.g. 16GB; default: this machine's memory)")(
        "system-configuration", po::value(&systemPath), "ASTRA-sim system JSON")(
        "network-configuration", po::value(&networkPath),
        "ASTRA-sim network YAML, or JSON (also FatTree / topology-file)")(
        "remote-memory-configuration", po::value(&memoryPath),
        "ASTRA-sim remote-memory JSON (default: NO_MEMORY_EXPANSION)")(
        "comm-group-configuration", po::value(&groupsPath), "communicator groups JSON ('empty' means none)")(
        "network-model", po::value(&model)->default_value("unaware"),
        "unaware (ASTRA-sim's formula, no link sharing) or aware (max-min fair flows on every link)")(
        "unaware-routing", po::value(&routing)->default_value("lowest-dim"),
        "lowest-dim (ASTRA-sim: charge only the lowest differing dimension) or all-dims")(
        "report", po::value(&report), "write per-rank and per-collective results as JSON")(
        "num-queues-per-dim", po::value(&queuesText), "queues per dimension, 1..1024 (default 1)")(
        "injection-scale", po::value(&injectionText), "multiplies endpoint-delay, 0..1e6 (default 1)")(
        "overlap-collectives", po::bool_switch(&options.executor.overlapCollectives),
        "let a rank run several collectives at once (ASTRA-sim: one)")(
        "strict", po::bool_switch(&traceOptions.read.strict), "ASTRA-sim parity checks on the traces")(
        "comm-scale", po::value(&commScaleText), "accepted for compatibility; must be 1")(
        "compute-scale", po::value(&computeScaleText), "accepted for compatibility; must be 1")(
        "rendezvous-protocol", po::value(&rendezvous)->default_value(false), "not supported; must be false")(
        "logging-configuration", po::value(&loggingConfig), "accepted for compatibility; ignored")(
        "logging-folder", po::value(&loggingFolder), "accepted for compatibility; ignored");
    po::variables_map vm;
    try {
        po::store(po::parse_command_line(argc, argv, visible), vm);
        po::notify(vm);
    } catch (const po::error& e) {
        std::cerr << "mlnet-analytical: " << e.what() << "\n" << visible << "\n";
        return 1;
    }
    if (vm.count("help")) {
        std::cout << visible << "\n";
        return 0;
    }
    CliNumbers numbers("mlnet-analytical");
    uint64_t queues = 1;
    double commScale = 1, computeScale = 1;
    if (!numbers.count("num-queues-per-dim", queuesText, 1, 1024, queues) ||
        !numbers.real("injection-scale", injectionText, 0, 1e6, options.injectionScale) ||
        !numbers.real("comm-scale", commScaleText, 1, 1, commScale) ||
        !numbers.real("compute-scale", computeScaleText, 1, 1, computeScale)) {
        std::cerr << numbers.error() << "\n";
        return 1;
    }
    options.queuesPerDimension = static_cast<uint32_t>(queues);
    uint64_t passes = 1, maxMemoryBytes = availableMemoryBytes();
    if ((!passesText.empty() && !numbers.count("num-passes", passesText, 1, 1000, passes)) ||
        (!maxMemoryText.empty() && !numbers.bytes("max-memory", maxMemoryText, maxMemoryBytes))) {
        std::cerr << numbers.error() << "\n";
        return 1;
    }
    const bool textWorkload = !workload.empty() && importers::looksLikeTextWorkload(workload);
    std::optional<importers::WorkloadFormat> format;
    if (!workloadFormat.empty()) {
        if (workloadFormat != "simai" && workloadFormat != "astra1") {
            std::cerr << "mlnet-analytical: --workload-format must be 'simai' or 'astra1', not '"
                      << workloadFormat << "'\n";
            return 1;
        }
        format =
            workloadFormat == "simai" ? importers::WorkloadFormat::SimAI : importers::WorkloadFormat::Astra1;
    }
    if (!textWorkload && (format || !passesText.empty())) {
        std::cerr
            << "mlnet-analytical: --workload-format and --num-passes apply to text workloads (a SimAI or "
               "ASTRA-sim 1.0 file); '"
            << workload << "' is a Chakra trace prefix\n";
        return 1;
    }
    for (const auto& [flag, value] :
         {std::pair<const char*, std::string*>{"workload-configuration", &workload},
          {"network-configuration", &networkPath}}) {
        if (value->empty()) {
            std::cerr << "mlnet-analytical: --" << flag << " is required\n" << visible << "\n";
            return 1;
        }
    }
    const bool simaiText =
        textWorkload &&
        format.value_or(importers::detectFileFormat(workload).value_or(importers::WorkloadFormat::Astra1)) ==
            importers::WorkloadFormat::SimAI;
    if (systemPath.empty() && !simaiText) {
        std::cerr << "mlnet-analytical: --system-configuration is required (only a SimAI text workload runs "
                     "without one)\n"
                  << visible << "\n";
        return 1;
    }
    if (model == "unaware") {
        options.model = NetworkModel::CongestionUnaware;
    } else if (model == "aware") {
        options.model = NetworkModel::CongestionAware;
    } else {
        std::cerr << "mlnet-analytical: --network-model must be 'unaware' or 'aware', not '" << model
                  << "'\n";
        return 1;
    }
    if (routing == "lowest-dim") {
        options.routing = UnawareRouting::LowestDimension;
    } else if (routing == "all-dims") {
        options.routing = UnawareRouting::AllDimensions;
    } else {
        std::cerr << "mlnet-analytical: --unaware-routing must be 'lowest-dim' or 'all-dims'\n";
        return 1;
    }
    if (commScale != 1 || computeScale != 1 || rendezvous || options.queuesPerDimension == 0 ||
        options.injectionScale < 0) {
        std::cerr
            << "mlnet-analytical: --comm-scale and --compute-scale must be 1, --rendezvous-protocol false, "
               "--num-queues-per-dim at least 1 and --injection-scale non-negative\n";
        return 1;
    }

    Diagnostics diag;
    std::shared_ptr<const TopologySpec> network = loadTopologyDescription(networkPath, diag);
    std::string importReport;
    if (textWorkload && systemPath.empty()) {
        // A SimAI user has no system file: SimAI's collectives as ours (simaiSystemJson).
        importReport =
            "system: SimAI's collectives (ring, direct all-to-all, one chunk, 6 us send latency as "
            "endpoint-delay; give --system-configuration to change them)\n";
    }
    SystemConfig system =
        systemPath.empty()
            ? parseSystemConfig(importers::simaiSystemJson(network ? network->dimensions.size() : 1),
                                "built-in SimAI system", diag)
            : loadSystemConfig(systemPath, diag);
    // SimAI's 6 us send latency delays every flow, on a TP or DP group as on the whole machine.
    system.endpointDelayOnSubCommunicators = systemPath.empty();
    RemoteMemoryConfig memory;
    if (!memoryPath.empty()) {
        memory = loadRemoteMemoryConfig(memoryPath, diag);
    }
    if (!groupsPath.empty() && groupsPath != "empty") {
        traceOptions.commGroupFile = groupsPath;
    }
    TraceSet traces;
    if (!diag.hasErrors() && textWorkload) {
        std::vector<uint32_t> dims;
        for (const Dimension& d : network->dimensions) {
            dims.push_back(d.npus);
        }
        std::string imported;
        traces = importers::importForSimulator(workload, format, static_cast<uint32_t>(passes),
                                               network->numRanks(), dims, traceOptions, maxMemoryBytes, diag,
                                               imported);
        importReport += imported;
        // Both tools run a rank's collectives concurrently: a non-blocking one overlaps what follows.
        options.executor.overlapCollectives = true;
        if (!diag.hasErrors()) {
            importReport +=
                "collectives overlap, as both tools run a rank's collectives (--overlap-collectives)\n";
        }
    } else if (!diag.hasErrors()) {
        traces = loadTraceSet(workload, traceOptions, diag);
    }
    std::cout << importReport;
    SimulationOutcome outcome;
    if (!diag.hasErrors()) {
        const Topology topology = Topology::fromSpec(network);
        options.physical = network.get();
        outcome = simulate(traces, system, topology, memory, options, diag);
    }
    std::cerr << diag.format(Severity::Warning);
    if (diag.hasErrors()) {
        std::cerr << diag.format(Severity::Error);
        return 2;
    }
    for (std::size_t r = 0; r < outcome.ranks.size(); ++r) {
        const auto& rr = outcome.ranks[r];
        if (rr.finished) {
            std::printf(
                "sys[%zu] finished, %llu cycles, exposed communication %llu cycles.\n", r,
                static_cast<unsigned long long>(rr.finishNs),
                static_cast<unsigned long long>(rr.finishNs - std::min(rr.finishNs, rr.gpuComputeNs)));
        }
    }
    std::printf("simulated %llu ns; %llu events, %llu messages, %.3f s wall\n",
                static_cast<unsigned long long>(outcome.endNs),
                static_cast<unsigned long long>(outcome.events),
                static_cast<unsigned long long>(outcome.messages), outcome.wallSeconds);
    if (!report.empty() && !writeFileAtomically(report, reportJson(outcome, model), diag)) {
        std::cerr << "mlnet-analytical: cannot write the report: " << diag.firstError() << "\n";
        return 2;
    }
    if (!outcome.completed) {
        std::cerr
            << "mlnet-analytical: the simulation cannot make progress: no events are left but some ranks "
               "have unfinished nodes\n"
            << outcome.stallReport;
        return 3;
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    return mlnet::runTool("mlnet-analytical", [&] { return run(argc, argv); });
}
