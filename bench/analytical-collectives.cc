// Cost of the analytical simulation at scale: CPU seconds, peak memory and message rate for large
// collectives. Usage: mlnet-bench-analytical [ring4096|2d64x64|3d65536|all] [--model unaware|aware]
// ASTRA-sim's figures for the first two (issue 3): about 145 CPU-s / 5.45 GB and 17 CPU-s / 300 MB.
#include <google/protobuf/stubs/logging.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "network/topology.h"
#include "system/simulation.h"
#include "util/process-usage.h"
#include "workload/microbenchmarks.h"
#include "workload/trace-set.h"

using namespace mlnet;

namespace {

void run(const char* name, std::vector<Dimension> dims, uint64_t sizeBytes, NetworkModel model) {
    const double cpu0 = processCpuSeconds();
    Topology topology = Topology::multiDimensional(dims);
    const uint32_t n = topology.numNpus();
    TraceSetBuilder builder = microbench::collective(CollectiveType::AllReduce, n, sizeBytes);
    std::vector<std::string> files;
    files.reserve(n);
    for (Rank r = 0; r < n; ++r) {
        files.push_back(builder.rank(r).serialize());
    }
    Diagnostics diag;
    TraceSet traces = loadTraceSetFromMemory(name, files, {}, diag);
    files.clear();
    files.shrink_to_fit();
    SystemConfig system;
    system.preferredDatasetSplits = 1;
    system.endpointDelayNs = 10;
    system.localMemBwGBps = 1600;
    system.collectiveOptimization = CollectiveOptimization::LocalBwAware;
    system.allReduce = system.reduceScatter = system.allGather = system.allToAll =
        std::vector<AlgorithmChoice>(dims.size(), AlgorithmChoice{});
    SimulationOptions options;
    options.model = model;
    const double setupCpu = processCpuSeconds() - cpu0;
    SimulationOutcome o = simulate(traces, system, topology, {}, options, diag);
    const double cpu = processCpuSeconds() - cpu0;
    if (diag.hasErrors() || !o.completed) {
        std::printf("%s: FAILED\n%s%s", name, diag.format(Severity::Error).c_str(), o.stallReport.c_str());
        return;
    }
    std::printf(
        "%-9s %6u NPUs %s  %llu B all-reduce: simulated %.3f ms | %.2f CPU-s (setup %.2f, run %.2f wall) | "
        "peak %.0f MB | %.1f M messages, %.1f M events, %.2f M messages per CPU-s\n",
        name, n, model == NetworkModel::CongestionAware ? "aware  " : "unaware",
        static_cast<unsigned long long>(sizeBytes), o.endNs / 1e6, cpu, setupCpu, o.wallSeconds,
        peakResidentMb(), o.messages / 1e6, o.events / 1e6, o.messages / 1e6 / (cpu - setupCpu));
}

}  // namespace

int main(int argc, char** argv) {
    google::protobuf::SetLogHandler(nullptr);
    std::string which = "all";
    NetworkModel model = NetworkModel::CongestionUnaware;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--model") == 0 && i + 1 < argc) {
            model = std::strcmp(argv[++i], "aware") == 0 ? NetworkModel::CongestionAware
                                                         : NetworkModel::CongestionUnaware;
        } else {
            which = argv[i];
        }
    }
    const double bw = gigabytesPerSecondToBytesPerNs(50);
    const uint64_t gib = uint64_t{1} << 30;
    if (which == "all" || which == "ring4096") {
        run("ring4096", {{DimensionKind::Ring, 4096, bw, 500}}, gib, model);
    }
    if (which == "all" || which == "2d64x64") {
        run("2d64x64", {{DimensionKind::Ring, 64, bw, 500}, {DimensionKind::Ring, 64, bw, 500}}, gib, model);
    }
    if (which == "all" || which == "3d65536") {
        run("3d65536",
            {{DimensionKind::Ring, 16, bw, 500},
             {DimensionKind::Ring, 64, bw, 500},
             {DimensionKind::Ring, 64, bw, 500}},
            gib, model);
    }
    return 0;
}
