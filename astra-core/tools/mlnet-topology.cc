// mlnet-topology DESCRIPTION | --builder=NAME [options]: builds a network description and its routes, and
// prints what a user checks before a long run: hosts, switches, links per tier, routing state, the equal-cost
// paths of a sample pair, and the CPU time and memory it took. DESCRIPTION is an HPCC topology file, a JSON
// network description or an ASTRA-sim network YAML. Exit status: 0 built, 1 usage, 2 invalid description.
#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>
#include <map>

#include "network/hpcc-topology.h"
#include "network/routing.h"
#include "network/topology-builders.h"
#include "network/topology-description.h"
#include "util/atomic-file.h"
#include "util/process-usage.h"
#include "util/tool-main.h"
#include "util/units.h"

namespace po = boost::program_options;
using namespace mlnet;

namespace {

// A whole-string count option in [min, max]; a usage error names the option otherwise.
bool countOption(const po::variables_map& vm, const char* name, uint64_t min, uint64_t max, uint32_t& out) {
    if (!vm.count(name)) {
        std::cerr << "mlnet-topology: --" << name << " is required for this builder\n";
        return false;
    }
    uint64_t value = 0;
    const std::string& text = vm[name].as<std::string>();
    if (parseUnsignedInteger(text, value) != NumberStatus::Ok || value < min || value > max) {
        std::cerr << "mlnet-topology: --" << name << "=" << text << ": expected a whole number in " << min
                  << ".." << max << "\n";
        return false;
    }
    out = static_cast<uint32_t>(value);
    return true;
}

template <typename Parse>
bool unitOption(const po::variables_map& vm, const char* name, Parse parse, uint64_t& out,
                const char* example) {
    if (!vm.count(name)) {
        return true;
    }
    const std::string& text = vm[name].as<std::string>();
    const NumberStatus status = parse(text, out);
    if (status != NumberStatus::Ok || out == 0) {
        std::cerr << "mlnet-topology: --" << name << "=" << text << " "
                  << (status == NumberStatus::Ok ? "is zero" : describeNumberStatus(status))
                  << "; expected e.g. " << example << "\n";
        return false;
    }
    return true;
}

}  // namespace

namespace {

int run(int argc, char** argv) {
    po::options_description visible(
        "Usage: mlnet-topology DESCRIPTION [--json]\n"
        "       mlnet-topology --builder=fat-tree --k=K [--rate=100Gbps --delay=1us]\n"
        "       mlnet-topology --builder=clos --leaves=L --hosts-per-leaf=H --spines=S [--pods=P "
        "--cores-per-spine=C]\n"
        "       mlnet-topology --builder=rail-optimised --servers=N --nics-per-server=R "
        "--spines=S\n\nOptions");
    visible.add_options()("help,h", "show this help")("json", "print one JSON object instead of text")(
        "builder", po::value<std::string>(), "fat-tree, clos or rail-optimised")(
        "k", po::value<std::string>(), "fat-tree arity (even)")("leaves", po::value<std::string>(),
                                                                "clos: leaves (per pod with --pods)")(
        "hosts-per-leaf", po::value<std::string>(), "clos: hosts per leaf")(
        "spines", po::value<std::string>(), "clos: spines (per pod with --pods); rail-optimised: spines")(
        "pods", po::value<std::string>(), "clos: pods (three tiers)")(
        "cores-per-spine", po::value<std::string>(), "clos: cores per spine (three tiers)")(
        "servers", po::value<std::string>(), "rail-optimised: servers")(
        "nics-per-server", po::value<std::string>(), "rail-optimised: NICs (rails) per server")(
        "rate", po::value<std::string>(), "builders: link rate (default 100Gbps)")(
        "delay", po::value<std::string>(), "builders: link delay (default 1us)")(
        "pair", po::value<std::string>(), "hosts SRC,DST of the equal-cost path sample (default 0,last)")(
        "write-hpcc", po::value<std::string>(), "also write the network as an HPCC topology file")(
        "hpcc-link-order", po::value<std::string>(),
        "--write-hpcc's link lines: cables (default; read back, the ports are the same) or tiers (hosts' "
        "links, then each tier's uplinks, as hpcc-bench's files)");
    po::options_description hidden;
    hidden.add_options()("description", po::value<std::vector<std::string>>());
    po::options_description all;
    all.add(visible).add(hidden);
    po::positional_options_description positional;
    positional.add("description", -1);
    po::variables_map vm;
    try {
        po::store(po::command_line_parser(argc, argv).options(all).positional(positional).run(), vm);
        po::notify(vm);
    } catch (const po::error& e) {
        std::cerr << "mlnet-topology: " << e.what() << "\n" << visible << "\n";
        return 1;
    }
    if (vm.count("help")) {
        std::cout << visible << "\n";
        return 0;
    }
    const std::size_t descriptions =
        vm.count("description") ? vm["description"].as<std::vector<std::string>>().size() : 0;
    if ((descriptions == 1) == vm.count("builder") || descriptions > 1) {
        std::cerr << "mlnet-topology: give one DESCRIPTION file or --builder\n" << visible << "\n";
        return 1;
    }

    const std::string linkOrder =
        vm.count("hpcc-link-order") ? vm["hpcc-link-order"].as<std::string>() : "cables";
    if (linkOrder != "cables" && linkOrder != "tiers") {
        std::cerr << "mlnet-topology: --hpcc-link-order=" << linkOrder << ": expected cables or tiers\n";
        return 1;
    }

    const double cpuStart = processCpuSeconds();
    Diagnostics diag;
    std::shared_ptr<const TopologySpec> spec;
    if (descriptions == 1) {
        spec = loadTopologyDescription(vm["description"].as<std::vector<std::string>>()[0], diag);
    } else {
        LinkSettings link;
        if (!unitOption(
                vm, "rate", [](std::string_view t, uint64_t& v) { return parseDataRateBps(t, v); },
                link.rateBps, "100Gbps") ||
            !unitOption(vm, "delay", parseTimePs, link.delayPs, "1us")) {
            return 1;
        }
        const std::string builder = vm["builder"].as<std::string>();
        try {
            if (builder == "fat-tree") {
                uint32_t k = 0;
                if (!countOption(vm, "k", 2, 256, k)) {
                    return 1;
                }
                spec = std::make_shared<const TopologySpec>(buildFatTree(k, link));
            } else if (builder == "clos") {
                ClosShape s;
                if (!countOption(vm, "leaves", 1, 1u << 24, s.leavesPerPod) ||
                    !countOption(vm, "hosts-per-leaf", 1, 65535, s.hostsPerLeaf) ||
                    !countOption(vm, "spines", 1, 65535, s.spinesPerPod) ||
                    (vm.count("pods") && (!countOption(vm, "pods", 1, 65535, s.pods) ||
                                          !countOption(vm, "cores-per-spine", 1, 65535, s.coresPerSpine)))) {
                    return 1;
                }
                s.host = s.leaf = s.spine = link;
                spec = std::make_shared<const TopologySpec>(buildClos(s));
            } else if (builder == "rail-optimised") {
                uint32_t servers = 0, nics = 0, spines = 0;
                if (!countOption(vm, "servers", 1, 1u << 24, servers) ||
                    !countOption(vm, "nics-per-server", 1, 65535, nics) ||
                    !countOption(vm, "spines", 1, 65535, spines)) {
                    return 1;
                }
                spec = std::make_shared<const TopologySpec>(
                    buildRailOptimised(servers, nics, spines, link, link));
            } else {
                std::cerr << "mlnet-topology: --builder=" << builder
                          << ": expected fat-tree, clos or rail-optimised\n";
                return 1;
            }
        } catch (const std::invalid_argument& e) {
            std::cerr << "mlnet-topology: " << e.what() << "\n";
            return 1;
        }
    }
    if (!spec) {
        std::cerr << diag.format(Severity::Warning) << diag.format(Severity::Error);
        return 2;
    }
    const double buildCpu = processCpuSeconds() - cpuStart;
    const std::unique_ptr<Routing> routing = Routing::build(*spec);
    const double cpu = processCpuSeconds() - cpuStart;

    uint32_t src = 0, dst = spec->numHosts() - 1;
    if (vm.count("pair")) {
        const std::string pair = vm["pair"].as<std::string>();
        const std::size_t comma = pair.find(',');
        uint64_t a = 0, b = 0;
        if (comma == std::string::npos ||
            parseUnsignedInteger(pair.substr(0, comma), a) != NumberStatus::Ok ||
            parseUnsignedInteger(pair.substr(comma + 1), b) != NumberStatus::Ok || a >= spec->numHosts() ||
            b >= spec->numHosts()) {
            std::cerr << "mlnet-topology: --pair=" << pair << ": expected two host indices below "
                      << spec->numHosts() << " as SRC,DST\n";
            return 1;
        }
        src = static_cast<uint32_t>(a);
        dst = static_cast<uint32_t>(b);
    }
    std::vector<uint32_t> cables;
    routing->path(src, dst, FlowPortAllocator::kFirst, cables);
    const uint64_t ecmp = routing->equalCostPaths(src, dst);
    std::map<std::string, uint64_t> switchesPerTier;
    for (uint32_t v = spec->numHosts(); v < spec->numVertices(); ++v) {
        ++switchesPerTier[spec->tierName(v)];
    }
    if (vm.count("write-hpcc") &&
        !writeFileAtomically(
            vm["write-hpcc"].as<std::string>(),
            formatHpccTopology(*spec, linkOrder == "tiers" ? HpccLinkOrder::Tiers : HpccLinkOrder::Cables),
            diag)) {
        std::cerr << diag.format(Severity::Error);
        return 2;
    }
    std::cerr << diag.format(Severity::Warning);
    if (vm.count("json")) {
        nlohmann::ordered_json j;
        j["source"] = spec->source;
        j["hosts"] = spec->numHosts();
        j["ranks"] = spec->numRanks();
        j["switches"] = spec->numSwitches();
        j["links"] = spec->cables.size();
        j["switches_per_tier"] = switchesPerTier;
        j["hosts_forward"] = spec->hostsForward();
        j["routing"] = spec->routing == RoutingKind::DimensionOrder                   ? "dimension-order"
                       : spec->structuralRoutes.empty() && spec->defaultPorts.empty() ? "breadth-first tables"
                                                                                      : "structural tables";
        j["routing_entries"] = routing->stateEntries();
        j["sample_pair"] = {src, dst};
        j["sample_hops"] = cables.size();
        j["sample_equal_cost_paths"] = ecmp;
        j["build_cpu_s"] = buildCpu;
        j["cpu_s"] = cpu;
        j["peak_rss_mb"] = peakResidentMb();
        std::cout << j.dump(1) << "\n";
        return 0;
    }
    std::printf("%s\nhosts %u (ranks %u), switches %u, links %zu\n", spec->source.c_str(), spec->numHosts(),
                spec->numRanks(), spec->numSwitches(), spec->cables.size());
    for (const auto& [tier, count] : switchesPerTier) {
        std::printf("  %s switches: %llu\n", tier.c_str(), static_cast<unsigned long long>(count));
    }
    std::printf("routing: %llu entries; host %u -> host %u: %zu hops, %llu equal-cost paths\n",
                static_cast<unsigned long long>(routing->stateEntries()), src, dst, cables.size(),
                static_cast<unsigned long long>(ecmp));
    std::printf("cost: %.3f CPU-s (description %.3f), peak %.0f MB\n", cpu, buildCpu, peakResidentMb());
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    return mlnet::runTool("mlnet-topology", [&] { return run(argc, argv); });
}
