// mlnet-trafficgen: writes an HPCC-format flow file for mlnet-flows (and the reference simulator): Poisson
// arrivals at a target load with sizes from a flow-size CDF (as the reference's traffic_gen.py), incast
// rounds, a random permutation or an all-to-all, over the hosts of a topology (or N hosts of one rate).
// Seeded and deterministic; the file is written atomically. Exit status: 0 written, 1 usage, 2 invalid input.
#include <boost/program_options.hpp>

#include <cstdio>
#include <iostream>
#include <optional>
#include <string>

#include "flow-file.h"
#include "flow-generator.h"
#include "flow-size-cdf.h"
#include "network-description.h"
#include "util/atomic-file.h"
#include "util/cli-options.h"
#include "util/memory-limit.h"
#include "util/tool-main.h"

namespace po = boost::program_options;
using namespace mlnet;
using namespace mlnet::roce;

namespace {

std::string text(const po::variables_map& vm, const char* name, const char* fallback = "") {
    return vm.count(name) ? vm[name].as<std::string>() : std::string(fallback);
}

}  // namespace

namespace {

int run(int argc, char** argv) {
    po::options_description visible(
        "Usage: mlnet-trafficgen (--topology=FILE | --hosts=N [--rate=100Gbps]) --output=FILE\n"
        "         [--pattern=poisson] --cdf=FILE --load=0.3 --duration=5ms\n"
        "         --pattern=incast --senders=N --size=BYTES [--receiver=NODE --rounds=1 --interval=100us]\n"
        "         --pattern=permutation|all-to-all --size=BYTES\n"
        "       [--start=2s --priority=3 --dport=100 --seed=1]\n\nOptions");
    visible.add_options()("help,h", "show this help")("topology", po::value<std::string>(),
                                                      "the hosts and their NIC rates: an HPCC topology file, "
                                                      "a JSON network description or an ASTRA-sim YAML")(
        "hosts", po::value<std::string>(), "without --topology: hosts 0..N-1")(
        "rate", po::value<std::string>(), "without --topology: every host's NIC rate (default 100Gbps)")(
        "pattern", po::value<std::string>(), "poisson (default), incast, permutation or all-to-all")(
        "cdf", po::value<std::string>(),
        "poisson: flow-size CDF file ('<bytes> <cumulative percent>' lines)")(
        "load", po::value<std::string>(),
        "poisson: offered load per host, a fraction of its NIC rate in (0, 1]")(
        "duration", po::value<std::string>(), "poisson: arrivals from --start for this long (e.g. 5ms)")(
        "senders", po::value<std::string>(), "incast: senders per round")(
        "receiver", po::value<std::string>(),
        "incast: the receiving host's node id (default: the first host)")("rounds", po::value<std::string>(),
                                                                          "incast: rounds (default 1)")(
        "interval", po::value<std::string>(), "incast: time between rounds (default 100us)")(
        "size", po::value<std::string>(), "incast, permutation, all-to-all: flow size (e.g. 1MB)")(
        "start", po::value<std::string>(), "first start time (default 2s, the reference's base time)")(
        "priority", po::value<std::string>(), "priority group 0..7 of every flow (default 3)")(
        "dport", po::value<std::string>(), "destination port of every flow (default 100)")(
        "seed", po::value<std::string>(), "random seed (default 1)")(
        "max-memory", po::value<std::string>(),
        "refuse to generate more flows than fit in this (e.g. 8GB; default: this machine's memory)")(
        "output", po::value<std::string>(), "the flow file to write");
    po::variables_map vm;
    try {
        po::store(po::command_line_parser(argc, argv).options(visible).run(), vm);
        po::notify(vm);
    } catch (const po::error& e) {
        std::cerr << "mlnet-trafficgen: " << e.what() << "\n" << visible;
        return 1;
    }
    if (vm.count("help")) {
        std::cout << visible;
        return 0;
    }
    const std::string pattern = text(vm, "pattern", "poisson");
    CliNumbers cli("mlnet-trafficgen");
    auto usage = [&](const std::string& message) {
        std::cerr << "mlnet-trafficgen: " << message << "\n";
        return 1;
    };
    auto cliError = [&] {
        std::cerr << cli.error() << "\n";
        return 1;
    };
    if (pattern != "poisson" && pattern != "incast" && pattern != "permutation" && pattern != "all-to-all") {
        return usage("--pattern=" + pattern + ": expected poisson, incast, permutation or all-to-all");
    }
    if (!vm.count("output")) {
        return usage("--output=FILE is required");
    }
    if (vm.count("topology") == vm.count("hosts")) {
        return usage("give either --topology=FILE or --hosts=N");
    }
    auto need = [&](const char* name) {
        if (!vm.count(name)) {
            std::cerr << "mlnet-trafficgen: --pattern=" << pattern << " needs --" << name << "\n";
            return false;
        }
        return true;
    };
    FlowDefaults defaults;
    uint64_t value = 0;
    if (vm.count("start")) {
        cli.durationNs("start", text(vm, "start"), true, defaults.startNs);
    }
    if (vm.count("priority") && cli.count("priority", text(vm, "priority"), 0, 7, value)) {
        defaults.priority = static_cast<uint8_t>(value);
    }
    if (vm.count("dport") && cli.count("dport", text(vm, "dport"), 0, 65535, value)) {
        defaults.dport = static_cast<uint16_t>(value);
    }
    if (vm.count("seed")) {
        cli.count("seed", text(vm, "seed"), 0, UINT64_MAX, defaults.seed);
    }
    uint64_t maxMemoryBytes = availableMemoryBytes();
    if (vm.count("max-memory")) {
        cli.bytes("max-memory", text(vm, "max-memory"), maxMemoryBytes);
    }
    // Checked before any flow is made: each takes its record and its line of the file's text.
    auto fits = [&](double flows, const std::string& remedy) {
        constexpr double kBytesPerFlow = sizeof(FlowSpec) + 64;
        const double bytes = flows * kBytesPerFlow;
        Diagnostics memory;
        char what[160];
        std::snprintf(what, sizeof what, "mlnet-trafficgen: --pattern=%s: about %.0f flows", pattern.c_str(),
                      flows);
        if (checkMemoryNeed(bytes >= 1.8e19 ? UINT64_MAX : static_cast<uint64_t>(bytes), maxMemoryBytes, what,
                            remedy, memory)) {
            return true;
        }
        std::cerr << memory.format(Severity::Error);
        return false;
    };

    Diagnostics diag;
    std::vector<FlowHost> hosts;
    if (vm.count("topology")) {
        const std::shared_ptr<const TopologySpec> spec = loadTopologyOfNetwork(text(vm, "topology"), diag);
        if (spec) {
            for (uint32_t h = 0; h < spec->numHosts(); ++h) {
                if (spec->vertices[h].reductionEngine) {
                    continue;  // only in-network reductions reach a switch's engine
                }
                const uint64_t rate = spec->numPorts(h) ? spec->cables[spec->portCable(h, 0)].rateBps : 0;
                hosts.push_back({spec->vertices[h].originalId, rate});
            }
        }
    } else {
        uint64_t count = 0, rate = 100'000'000'000ull;
        if (cli.count("hosts", text(vm, "hosts"), 2, 1u << 24, count) &&
            (!vm.count("rate") || cli.rateBps("rate", text(vm, "rate"), rate))) {
            for (uint32_t h = 0; h < count; ++h) {
                hosts.push_back({h, rate});
            }
        }
    }
    if (!cli.ok()) {
        return cliError();
    }
    if (diag.hasErrors()) {
        std::cerr << diag.format(Severity::Error);
        return 2;
    }
    if (hosts.size() < 2) {
        std::cerr << "mlnet-trafficgen: " << text(vm, "topology") << ": expected at least two hosts\n";
        return 2;
    }

    std::vector<FlowSpec> flows;
    uint64_t durationNs = 0;
    if (pattern == "poisson") {
        double load = 0;
        if (!need("cdf") || !need("load") || !need("duration")) {
            return 1;
        }
        cli.real("load", text(vm, "load"), 0, 1, load, true);
        cli.durationNs("duration", text(vm, "duration"), false, durationNs);
        if (!cli.ok()) {
            return cliError();
        }
        const std::optional<FlowSizeCdf> cdf = FlowSizeCdf::Load(text(vm, "cdf"), diag);
        if (!cdf) {
            std::cerr << diag.format(Severity::Error);
            return 2;
        }
        double expected = 0;  // arrivals per host: duration / mean gap
        for (const FlowHost& h : hosts) {
            expected += static_cast<double>(durationNs) * 1e-9 * load * static_cast<double>(h.rateBps) /
                        (8 * cdf->MeanBytes());
        }
        if (!fits(expected, "fewer hosts, a lower --load or a shorter --duration")) {
            return 2;
        }
        flows = poissonFlows(hosts, *cdf, load, durationNs, defaults);
    } else {
        uint64_t size = 0;
        if (!need("size") || !cli.bytes("size", text(vm, "size"), size)) {
            return cli.ok() ? 1 : cliError();
        }
        if (pattern == "permutation") {
            if (!fits(static_cast<double>(hosts.size()), "fewer hosts")) {
                return 2;
            }
            flows = permutationFlows(hosts, size, defaults);
        } else if (pattern == "all-to-all") {
            const double n = static_cast<double>(hosts.size());
            if (!fits(n * (n - 1), "fewer hosts")) {
                return 2;
            }
            flows = allToAllFlows(hosts, size, defaults);
        } else {
            uint64_t senders = 0, rounds = 1, intervalNs = 100'000, receiverNode = hosts[0].nodeId;
            if (!need("senders")) {
                return 1;
            }
            cli.count("senders", text(vm, "senders"), 1, hosts.size() - 1, senders);
            if (vm.count("rounds")) {
                cli.count("rounds", text(vm, "rounds"), 1, 1u << 24, rounds);
            }
            if (vm.count("interval")) {
                cli.durationNs("interval", text(vm, "interval"), false, intervalNs);
            }
            if (vm.count("receiver")) {
                cli.count("receiver", text(vm, "receiver"), 0, UINT32_MAX, receiverNode);
            }
            if (!cli.ok()) {
                return cliError();
            }
            if (!fits(static_cast<double>(senders) * static_cast<double>(rounds),
                      "fewer --senders or --rounds")) {
                return 2;
            }
            uint32_t receiver = UINT32_MAX;
            for (uint32_t i = 0; i < hosts.size(); ++i) {
                if (hosts[i].nodeId == receiverNode) {
                    receiver = i;
                }
            }
            if (receiver == UINT32_MAX) {
                return usage("--receiver=" + text(vm, "receiver") + ": not a host of the topology");
            }
            flows = incastFlows(hosts, receiver, static_cast<uint32_t>(senders), size,
                                static_cast<uint32_t>(rounds), intervalNs, defaults);
            durationNs = (rounds - 1) * intervalNs;
        }
    }
    if (!writeFileAtomically(text(vm, "output"), formatFlowFile(flows), diag)) {
        std::cerr << diag.format(Severity::Error);
        return 2;
    }
    uint64_t bytes = 0;
    double capacityBps = 0;
    for (const FlowSpec& f : flows) {
        bytes += f.sizeBytes;
    }
    for (const FlowHost& h : hosts) {
        capacityBps += static_cast<double>(h.rateBps);
    }
    std::printf("%zu flows, %llu bytes, %zu hosts", flows.size(), static_cast<unsigned long long>(bytes),
                hosts.size());
    if (pattern == "poisson" && durationNs > 0) {
        std::printf(", offered load %.3f of the hosts' NIC capacity over %.6f s",
                    static_cast<double>(bytes) * 8 / (capacityBps * static_cast<double>(durationNs) * 1e-9),
                    static_cast<double>(durationNs) * 1e-9);
    }
    std::printf("\n");
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    return mlnet::runTool("mlnet-trafficgen", [&] { return run(argc, argv); });
}
