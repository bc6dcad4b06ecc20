// mlnet-nccl-tests: nccl-tests (all_reduce_perf and its siblings) on a simulated cluster. The same command
// line (-b -e -f -i -g -n -w -d -o -r) and the same table (size, count, type, redop, root, time, algbw,
// busbw for out-of-place and in-place, the "Avg bus bandwidth" line, busbw by nccl-tests' factors), so a
// user puts our numbers beside their cluster's. Every size is one run of warm-up and timed operations,
// chained on every rank as a CUDA stream runs them, over our NCCL model on the congestion-aware analytical
// network or at packet level on the description's RoCE fabric. The time of a size is the average of the
// timed operations: from the last rank's end of the warm-up to the last rank's end of the last operation.
// In-place and out-of-place are one operation in the model (no copies are modelled), so both groups show
// the same time; data are not checked (#wrong is N/A). Exit status: 0 done, 1 usage, 2 invalid input, 3 a
// run could not finish.
#include <google/protobuf/stubs/logging.h>
#include <boost/program_options.hpp>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <optional>

#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"

#include "cc-selection.h"
#include "common/event-queue.h"
#include "hardware/gpu-catalogue.h"
#include "model-rules.h"
#include "network-description.h"
#include "network/analytical-network.h"
#include "network/topology.h"
#include "roce-fabric.h"
#include "roce-network-api.h"
#include "system/nccl/nccl-collectives.h"
#include "system/simulation.h"
#include "trace-run.h"
#include "training-report.h"
#include "util/cli-options.h"
#include "util/memory-limit.h"
#include "util/process-usage.h"
#include "util/tool-main.h"
#include "workload/trace-set.h"
#include "workload/trace-writer.h"

namespace po = boost::program_options;
using namespace mlnet;
using namespace mlnet::roce;

namespace {

// One nccl-tests binary: which operation, how its size maps to a trace, and nccl-tests' bus factor.
struct OpKind {
    const char* name;  // nccl-tests' --op spelling (its binary is <name>_perf)
    CollectiveType type;
    bool pointToPoint;  // sendrecv: SEND/RECV nodes, not a collective
    bool sharded;       // size = nRanks x the per-rank count (all-gather, reduce-scatter, all-to-all)
    bool reduces;       // prints the reduction operator
    bool rooted;        // prints the root
};
const OpKind kOps[] = {
    {"all_reduce", CollectiveType::AllReduce, false, false, true, false},
    {"all_gather", CollectiveType::AllGather, false, true, false, false},
    {"reduce_scatter", CollectiveType::ReduceScatter, false, true, true, false},
    {"broadcast", CollectiveType::Broadcast, false, false, false, true},
    {"reduce", CollectiveType::Reduce, false, false, true, true},
    {"alltoall", CollectiveType::AllToAll, false, true, false, false},
    {"sendrecv", CollectiveType::AllReduce, true, false, false, false},
};

// nccl-tests' bus bandwidth factor (its doc/PERFORMANCE.md).
double busFactor(const OpKind& op, uint32_t n) {
    if (op.pointToPoint || op.type == CollectiveType::Broadcast || op.type == CollectiveType::Reduce) {
        return 1.0;
    }
    if (op.type == CollectiveType::AllReduce) {
        return 2.0 * (n - 1) / n;
    }
    return static_cast<double>(n - 1) / n;
}

// nccl-tests' data types and their sizes.
const std::map<std::string, uint32_t> kTypes = {
    {"int8", 1},  {"uint8", 1},  {"int32", 4},    {"uint32", 4},  {"int64", 8},   {"uint64", 8}, {"half", 2},
    {"float", 4}, {"double", 8}, {"bfloat16", 2}, {"float16", 2}, {"float32", 4}, {"float64", 8}};
const char* const kRedOps[] = {"sum", "prod", "max", "min", "avg"};

// nccl-tests' size syntax: a whole number with an optional K, M or G (powers of 1024).
bool parseSize(const std::string& text, uint64_t& out) {
    if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) {
        return false;
    }
    std::size_t end = 0;
    unsigned long long v = 0;
    try {
        v = std::stoull(text, &end);
    } catch (const std::exception&) {
        return false;
    }
    uint64_t unit = 1;
    if (end + 1 == text.size()) {
        switch (text[end]) {
            case 'K':
            case 'k':
                unit = 1ull << 10;
                break;
            case 'M':
            case 'm':
                unit = 1ull << 20;
                break;
            case 'G':
            case 'g':
                unit = 1ull << 30;
                break;
            default:
                return false;
        }
    } else if (end != text.size()) {
        return false;
    }
    if (v > UINT64_MAX / unit) {
        return false;
    }
    out = v * unit;
    return true;
}

// The last rank's end of each iteration's operations.
class IterationClock : public ExecutionObserver {
public:
    explicit IterationClock(uint32_t nodesPerIteration, uint32_t iterations)
        : m_perIteration(nodesPerIteration), m_endNs(iterations, 0) {}
    void nodeStarted(Rank, const TraceNode&, TimeNs) override {}
    void nodeFinished(Rank, const TraceNode& node, TimeNs atNs) override {
        const uint64_t it = node.id / m_perIteration;
        if (it < m_endNs.size()) {
            m_endNs[it] = std::max(m_endNs[it], atNs);
        }
    }
    TimeNs endNs(uint32_t iteration) const { return m_endNs[iteration]; }

private:
    uint32_t m_perIteration;
    std::vector<TimeNs> m_endNs;
};

// Every rank: `iterations` operations, each waiting for the previous one (sendrecv: a send to the next rank
// and a receive from the previous one per iteration, as nccl-tests' sendrecv_perf).
TraceSet buildTraces(const OpKind& op, uint32_t n, uint64_t bytes, uint32_t iterations, Diagnostics& diag) {
    TraceSetBuilder builder(n);
    for (Rank r = 0; r < n; ++r) {
        RankTraceBuilder& rank = builder.rank(r);
        std::vector<uint64_t> previous;
        for (uint32_t i = 0; i < iterations; ++i) {
            if (op.pointToPoint) {
                const uint64_t s = rank.addSend("send", (r + 1) % n, bytes, i, previous);
                const uint64_t v = rank.addRecv("recv", (r + n - 1) % n, bytes, i, previous);
                previous = {s, v};
            } else {
                // Chakra's comm_size: all-gather's is the per-rank shard, every other's the whole buffer.
                const uint64_t commSize = op.type == CollectiveType::AllGather ? bytes / n : bytes;
                previous = {rank.addCollective(op.name, op.type, commSize, previous)};
            }
        }
    }
    std::vector<std::string> files;
    for (Rank r = 0; r < n; ++r) {
        files.push_back(builder.rank(r).serialize());
    }
    return loadTraceSetFromMemory(std::string(op.name) + "_perf", files, TraceSetOptions{}, diag);
}

struct Options {
    std::string op = "all_reduce", network, system, gpu = "h100", backend = "analytical", cc, type = "float",
                redop = "sum", scaleUp = "fluid";
    std::string minText = "32M", maxText = "32M", stepText = "1M";
    double factor = 1;
    uint64_t minBytes = 0, maxBytes = 0, stepBytes = 0;
    uint32_t gpus = 0, iters = 20, warmup = 5, root = 0, check = 1;
    uint64_t maxMemoryBytes = availableMemoryBytes();
};

struct SizeResult {
    bool ok = false;
    double timeUs = 0;
    double cpuSeconds = 0;
    uint64_t bytesDelivered = 0;  // by the network (packet level: payload bytes at the destination NICs)
    std::string choice;           // NCCL's algorithm and protocol, as the model chose them
};

std::string choiceOf(const SimulationOutcome& outcome) {
    for (const auto& c : outcome.collectives) {
        if (!c.nccl.empty()) {
            return c.nccl;
        }
    }
    return "";
}

SizeResult timeOf(const IterationClock& clock, const Options& o, const SimulationOutcome& outcome) {
    SizeResult r;
    r.ok = outcome.completed;
    const TimeNs start = o.warmup > 0 ? clock.endNs(o.warmup - 1) : 0;
    const TimeNs end = clock.endNs(o.warmup + o.iters - 1);
    r.timeUs = static_cast<double>(end - start) / 1e3 / o.iters;
    r.choice = choiceOf(outcome);
    return r;
}

SizeResult runAnalytical(const TraceSet& traces, const SystemConfig& system, const TrainingSetup& setup,
                         const Options& o, uint32_t perIteration, Diagnostics& diag) {
    const double cpu0 = processCpuSeconds();
    SimulationOptions options;
    options.model = NetworkModel::CongestionAware;
    options.physical = setup.topology.get();
    const Topology topology = Topology::fromSpec(setup.topology);
    EventQueue queue;
    std::unique_ptr<AnalyticalNetwork> network =
        makeAnalyticalNetwork(topology, options.model, queue, options.routing);
    Simulation simulation(traces, system, setup.logical, RemoteMemoryConfig{}, options, *network, diag);
    if (!simulation.valid()) {
        return {};
    }
    IterationClock clock(perIteration, o.warmup + o.iters);
    simulation.setObserver(&clock);
    simulation.start();
    queue.run();
    SizeResult r = timeOf(clock, o, simulation.outcome(queue.now()));
    r.bytesDelivered = network->bytesDelivered();
    r.cpuSeconds = processCpuSeconds() - cpu0;
    return r;
}

SizeResult runPacket(const TraceSet& traces, const SystemConfig& system, const TrainingSetup& setup,
                     NetworkDescription& network, const Options& o, uint32_t perIteration,
                     Diagnostics& diag) {
    const double cpu0 = processCpuSeconds();
    PacketModelSettings& settings = network.settings;
    ModelRules rules;
    ModelRuleError rulesError;
    parseModelRules(settings.ruleOptions, rules, rulesError);  // checked when the description was read
    FabricSettings fabricSettings = settings.fabric;
    fabricSettings.scaleUp = *parseScaleUp(o.scaleUp);
    applyPacketModel(settings, rules, o.cc, "", fabricSettings, diag);
    if (diag.hasErrors()) {
        return {};
    }
    ns3::RngSeedManager::SetSeed(static_cast<uint32_t>(settings.seed));
    ns3::RngSeedManager::SetRun(1);
    RoceFabric fabric(setup.topology, fabricSettings, diag);
    if (diag.hasErrors()) {
        return {};
    }
    RoceNetworkApi api(fabric, traces.numRanks(), trafficClassesOf(settings));
    api.SetDeliveryAtAck(rules.deliveryAtAck);
    SimulationOptions options;
    options.physical = setup.topology.get();
    Simulation simulation(traces, system, setup.logical, RemoteMemoryConfig{}, options, api, diag);
    if (!simulation.valid()) {
        return {};
    }
    IterationClock clock(perIteration, o.warmup + o.iters);
    simulation.setObserver(&clock);
    TraceRunWatch watch(fabric, api, simulation, settings.hangCheckPs);
    watch.Start();
    ns3::Simulator::Run();
    SizeResult r = timeOf(clock, o, simulation.outcome(api.now()));
    if (!r.ok) {
        diag.error(watch.Hang().Hung() ? watch.Hang().Report() : simulation.outcome(api.now()).stallReport);
    }
    r.bytesDelivered = fabric.DeliveredBytes();
    ns3::Simulator::Destroy();
    r.cpuSeconds = processCpuSeconds() - cpu0;
    return r;
}

// nccl-tests' time column: two decimals below 100 us, one below 10 ms, none above.
std::string timeText(double us) {
    char buf[32];
    std::snprintf(buf, sizeof buf, us < 100 ? "%7.2f" : us < 10000 ? "%7.1f" : "%7.0f", us);
    return buf;
}

int usage(const std::string& why) {
    std::cerr << "mlnet-nccl-tests: " << why << "\n(see --help)\n";
    return 1;
}

int run(int argc, char** argv) {
    google::protobuf::SetLogHandler(nullptr);
    Options o;
    std::string gpusText, itersText = "20", warmupText = "5", rootText = "0", checkText = "1",
                          factorText = "1";
    const std::string gpuHelp =
        "GPU the NCCL model tunes for: " + hardware::gpuTypeNames() + " (default h100)";
    po::options_description visible(
        "Usage: mlnet-nccl-tests --op all_reduce -b 8 -e 8G -f 2 [-g N] --network-configuration=NET.json\n\n"
        "nccl-tests' table for a simulated cluster. NCCL_* environment variables the model reads "
        "(NCCL_ALGO,\n"
        "NCCL_PROTO, NCCL_MIN_NCHANNELS, NCCL_MAX_NCHANNELS, NCCL_NCHANNELS_PER_NET_PEER, ...) apply as "
        "they\n"
        "would to NCCL, unless --system-configuration names a file.\n\nOptions");
    visible.add_options()("help,h", "show this help")(
        "op", po::value(&o.op),
        "all_reduce, all_gather, reduce_scatter, broadcast, reduce, alltoall, sendrecv")(
        "minbytes,b", po::value(&o.minText), "first size (K, M, G: powers of 1024; default 32M)")(
        "maxbytes,e", po::value(&o.maxText), "last size (default 32M)")(
        "stepfactor,f", po::value(&factorText), "multiply the size by this between rows (default 1: use -i)")(
        "stepbytes,i", po::value(&o.stepText), "add this to the size between rows when -f is 1 (default 1M)")(
        "ngpus,g", po::value(&gpusText), "GPUs in the communicator (default: every rank of the network)")(
        "iters,n", po::value(&itersText), "timed iterations (default 20)")(
        "warmup_iters,w", po::value(&warmupText), "warm-up iterations, simulated and not timed (default 5)")(
        "datatype,d", po::value(&o.type), "element type (float, half, bfloat16, double, int8, ...)")(
        "redop,o", po::value(&o.redop), "reduction operator (sum, prod, max, min, avg): printed only")(
        "root,r", po::value(&rootText), "root of broadcast and reduce (0: the model's roots are rank 0)")(
        "check,c", po::value(&checkText),
        "accepted for compatibility: data are not simulated (#wrong is N/A)")(
        "network-configuration", po::value(&o.network), "our JSON network description (required)")(
        "system-configuration", po::value(&o.system),
        "system JSON (default: the NCCL model, every collective, NCCL_* from the environment)")(
        "nccl-gpu", po::value(&o.gpu), gpuHelp.c_str())(
        "backend", po::value(&o.backend),
        "analytical (congestion-aware, default) or packet (the RoCE fabric)")(
        "cc", po::value(&o.cc), "packet backend: congestion control (default: the description's)")(
        "scale-up", po::value(&o.scaleUp),
        "packet backend: the scale-up domains (NVLink) as fluid (lossless, max-min shared, default) or "
        "packet "
        "(RoCE links with PFC)");
    po::variables_map vm;
    try {
        po::store(po::command_line_parser(argc, argv).options(visible).run(), vm);
        po::notify(vm);
    } catch (const po::error& e) {
        return usage(e.what());
    }
    if (vm.count("help")) {
        std::cout << visible << "\n";
        return 0;
    }
    const OpKind* op = nullptr;
    for (const OpKind& k : kOps) {
        if (o.op == k.name) {
            op = &k;
        }
    }
    if (!op) {
        return usage(
            "--op '" + o.op +
            "': expected all_reduce, all_gather, reduce_scatter, broadcast, reduce, alltoall or sendrecv");
    }
    if (!parseSize(o.minText, o.minBytes) || !parseSize(o.maxText, o.maxBytes) ||
        !parseSize(o.stepText, o.stepBytes)) {
        return usage("-b, -e and -i take a whole number of bytes with an optional K, M or G");
    }
    CliNumbers numbers("mlnet-nccl-tests");
    uint64_t gpus = 0, iters = 0, warmup = 0, root = 0, check = 0;
    if (!numbers.real("stepfactor", factorText, 1, 1024, o.factor) ||
        !numbers.count("iters", itersText, 1, 1'000'000, iters) ||
        !numbers.count("warmup_iters", warmupText, 0, 1'000'000, warmup) ||
        !numbers.count("root", rootText, 0, 0, root) ||
        !numbers.count("check", checkText, 0, 1'000'000, check) ||
        (!gpusText.empty() && !numbers.count("ngpus", gpusText, 2, 1u << 20, gpus))) {
        return usage(numbers.error());
    }
    o.gpus = static_cast<uint32_t>(gpus);
    o.iters = static_cast<uint32_t>(iters);
    o.warmup = static_cast<uint32_t>(warmup);
    o.check = static_cast<uint32_t>(check);
    const auto type = kTypes.find(o.type);
    if (type == kTypes.end()) {
        return usage("-d '" + o.type +
                     "': expected float, half, bfloat16, double, int8, uint8, int32, uint32, "
                     "int64 or uint64");
    }
    if (std::find(std::begin(kRedOps), std::end(kRedOps), o.redop) == std::end(kRedOps)) {
        return usage("-o '" + o.redop + "': expected sum, prod, max, min or avg");
    }
    if (o.minBytes == 0 || o.maxBytes < o.minBytes) {
        return usage("sizes: -b must be above 0 and -e at least -b");
    }
    if (o.factor == 1 && o.stepBytes == 0) {
        return usage("-i must be above 0 when -f is 1");
    }
    if (!parseScaleUp(o.scaleUp)) {
        return usage("--scale-up '" + o.scaleUp + "': expected fluid or packet");
    }
    if (o.backend != "analytical" && o.backend != "packet") {
        return usage("--backend '" + o.backend + "': expected analytical or packet");
    }
    if (o.network.empty()) {
        return usage("--network-configuration is required");
    }

    Diagnostics diag;
    SystemConfig system;
    if (!o.system.empty()) {
        system = loadSystemConfig(o.system, diag);
    } else {
        // NCCL for every collective it runs; ASTRA-sim's lists for the rest (none in this tool).
        nlohmann::json doc = {
            {"scheduling-policy", "FIFO"},           {"endpoint-delay", 0},
            {"active-chunks-per-dimension", 1},      {"preferred-dataset-splits", 1},
            {"all-reduce-implementation", {"ring"}}, {"reduce-scatter-implementation", {"ring"}},
            {"all-gather-implementation", {"ring"}}, {"all-to-all-implementation", {"direct"}},
            {"collective-library", "nccl"},          {"nccl-gpu", o.gpu}};
        for (const char* key : nccl::ncclSettingNames()) {
            if (const char* v = std::getenv(key)) {
                doc[key] = v;
            }
        }
        system = parseSystemConfig(doc.dump(), "the NCCL_* environment", diag);
    }
    if (!diag.hasErrors() && system.usesNccl()) {
        nccl::NcclConfig checked;  // NCCL's settings refused before the table starts, not at its first row
        nccl::ncclConfigFrom(system, checked, diag);
    }
    std::optional<NetworkDescription> network = loadNetworkDescription(o.network, diag);
    if (diag.hasErrors()) {
        std::cerr << diag.format(Severity::Warning) << diag.format(Severity::Error);
        return 2;
    }
    const uint32_t n = o.gpus ? o.gpus : network->topology->numRanks();
    if (n < 2 || n > network->topology->numRanks()) {
        std::cerr << "mlnet-nccl-tests: -g " << n << ": " << o.network << " has "
                  << network->topology->numRanks() << " ranks; expected 2 to that many\n";
        return 2;
    }
    if (o.backend == "packet" &&
        !checkMemoryNeed(RoceFabric::EstimateMemoryBytes(*network->topology), o.maxMemoryBytes,
                         o.network + ": the packet fabric", "a smaller network", diag)) {
        std::cerr << diag.format(Severity::Error);
        return 2;
    }

    // The sizes, as nccl-tests steps them; all-gather, reduce-scatter and all-to-all round down to whole
    // elements per rank.
    std::vector<uint64_t> sizes;
    for (uint64_t s = o.minBytes; s <= o.maxBytes;) {
        sizes.push_back(s);
        const uint64_t next =
            o.factor > 1 ? static_cast<uint64_t>(static_cast<double>(s) * o.factor) : s + o.stepBytes;
        if (next <= s) {
            break;
        }
        s = next;
    }
    const uint32_t word = type->second;
    std::printf("# nThread 1 nGpus %u minBytes %" PRIu64 " maxBytes %" PRIu64
                " step: %s warmup iters: %u iters: %u agg iters: 1 validation: 0 graph: 0\n",
                n, o.minBytes, o.maxBytes,
                (o.factor > 1 ? std::to_string(static_cast<uint64_t>(o.factor)) + "(factor)"
                              : std::to_string(o.stepBytes) + "(bytes)")
                    .c_str(),
                o.warmup, o.iters);
    std::printf("#\n# Simulated: %s, %s backend, NCCL model for %s\n#\n", o.network.c_str(),
                o.backend.c_str(), o.gpu.c_str());
    std::printf("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s %6s  %7s  %6s  %6s %6s\n", "", "", "", "", "",
                "out-of-place", "", "", "", "in-place", "", "", "");
    std::printf("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s %6s  %7s  %6s  %6s %6s\n", "size", "count",
                "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw",
                "#wrong");
    std::printf("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %5s  %7s  %6s  %6s  %5s\n", "(B)", "(elements)",
                "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "");
    std::fflush(stdout);
    double busSum = 0;
    uint32_t rows = 0;
    for (uint64_t requested : sizes) {
        uint64_t count = requested / word;
        uint64_t bytes = count * word;
        if (op->sharded) {
            count /= n;  // per rank, as nccl-tests prints it
            bytes = count * n * word;
        }
        if (bytes == 0) {
            continue;  // fewer elements than ranks: nccl-tests skips the size too
        }
        const uint32_t perIteration = op->pointToPoint ? 2 : 1;
        TraceSet traces = buildTraces(*op, n, bytes, o.warmup + o.iters, diag);
        TrainingSetup setup;
        if (diag.hasErrors() || !prepareTraining(traces, *network->topology, std::nullopt, setup, diag)) {
            std::cerr << diag.format(Severity::Error);
            return 2;
        }
        const SizeResult r = o.backend == "packet"
                                 ? runPacket(traces, system, setup, *network, o, perIteration, diag)
                                 : runAnalytical(traces, system, setup, o, perIteration, diag);
        if (diag.hasErrors()) {
            std::cerr << diag.format(Severity::Warning) << diag.format(Severity::Error);
            return r.ok ? 2 : 3;
        }
        const double algbw = static_cast<double>(bytes) / 1e3 / r.timeUs;
        const double busbw = algbw * busFactor(*op, n);
        const std::string t = timeText(r.timeUs);
        std::printf("%12" PRIu64 "  %12" PRIu64 "  %8s  %6s  %6d", bytes, count, o.type.c_str(),
                    op->reduces ? o.redop.c_str() : "none", op->rooted ? 0 : -1);
        for (int group = 0; group < 2; ++group) {
            std::printf("  %7s  %6.2f  %6.2f  %5s", t.c_str(), algbw, busbw, "N/A");
        }
        std::printf("\n");
        std::fprintf(stderr, "# %" PRIu64 " B: %s, %" PRIu64 " B moved, %.2f CPU-s\n", bytes,
                     r.choice.empty() ? "point-to-point" : r.choice.c_str(), r.bytesDelivered, r.cpuSeconds);
        std::fflush(stdout);
        busSum += 2 * busbw;
        rows += 2;
    }
    std::printf("# Out of bounds values : 0 OK\n# Avg bus bandwidth    : %g \n#\n\n",
                rows ? busSum / rows : 0.0);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    return mlnet::runTool("mlnet-nccl-tests", [&] { return run(argc, argv); });
}
