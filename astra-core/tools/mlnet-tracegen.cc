// mlnet-tracegen: writes a synthetic Chakra trace set (one file per rank) for a named communication pattern.
// Exit status: 0 success, 1 bad command line, 2 failure while writing.
#include "util/decimal.h"
#include "util/tool-main.h"
#include "workload/microbenchmarks.h"
#include "workload/trace-writer.h"

#include <boost/program_options.hpp>

#include <filesystem>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>

namespace po = boost::program_options;
using namespace mlnet;

namespace {

struct UsageError : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};

// Parsed by hand because Boost's lexical_cast turns "-1" into a huge unsigned value.
uint64_t unsignedOption(const po::variables_map& vm, const std::string& name,
                        uint64_t max = std::numeric_limits<uint64_t>::max()) {
    if (!vm.count(name)) {
        throw UsageError("--" + name + " is required for this pattern");
    }
    const std::string& text = vm[name].as<std::string>();
    uint64_t value = 0;
    if (!parseDecimal(text, value) || value > max) {
        throw UsageError("--" + name + " expects an integer from 0 to " + std::to_string(max) + ", got '" +
                         text + "'");
    }
    return value;
}

uint32_t countOption(const po::variables_map& vm, const std::string& name) {
    return static_cast<uint32_t>(unsignedOption(vm, name, std::numeric_limits<uint32_t>::max()));
}

using Generator = std::function<TraceSetBuilder(const po::variables_map&)>;

Generator collectiveGenerator(CollectiveType type) {
    return [type](const po::variables_map& vm) {
        return microbench::collective(type, countOption(vm, "npus"), unsignedOption(vm, "size"));
    };
}

const std::map<std::string, Generator>& generators() {
    static const std::map<std::string, Generator> table = {
        {"all-reduce", collectiveGenerator(CollectiveType::AllReduce)},
        {"all-gather", collectiveGenerator(CollectiveType::AllGather)},
        {"reduce-scatter", collectiveGenerator(CollectiveType::ReduceScatter)},
        {"all-to-all", collectiveGenerator(CollectiveType::AllToAll)},
        {"chain",
         [](const po::variables_map& vm) {
             return microbench::computeCollectiveChain(
                 countOption(vm, "npus"), CollectiveType::AllReduce, unsignedOption(vm, "size"),
                 unsignedOption(vm, "compute-us"), countOption(vm, "layers"));
         }},
        {"ring",
         [](const po::variables_map& vm) {
             return microbench::p2pRing(countOption(vm, "npus"), unsignedOption(vm, "size"),
                                        countOption(vm, "rounds"));
         }},
        {"pipeline",
         [](const po::variables_map& vm) {
             return microbench::pipeline(countOption(vm, "npus"), countOption(vm, "microbatches"),
                                         unsignedOption(vm, "size"), unsignedOption(vm, "compute-us"));
         }},
        {"data-parallel",
         [](const po::variables_map& vm) {
             // Backward passes cost about twice the forward pass (gradients for both inputs and weights).
             const uint64_t forwardMicros = unsignedOption(vm, "compute-us");
             if (forwardMicros > std::numeric_limits<uint64_t>::max() / 2) {
                 throw UsageError("--compute-us is too large");
             }
             return microbench::dataParallelStep(countOption(vm, "npus"), countOption(vm, "layers"),
                                                 unsignedOption(vm, "size"), forwardMicros,
                                                 2 * forwardMicros);
         }},
        {"dlrm",
         [](const po::variables_map& vm) {
             return microbench::dlrmStep(countOption(vm, "npus"), unsignedOption(vm, "size"),
                                         unsignedOption(vm, "dense-size"), unsignedOption(vm, "compute-us"));
         }},
        {"hybrid-parallel",
         [](const po::variables_map& vm) {
             return microbench::hybridParallelStep(
                 countOption(vm, "npus"), countOption(vm, "tensor-parallel"), countOption(vm, "layers"),
                 unsignedOption(vm, "activation-size"), unsignedOption(vm, "size"),
                 unsignedOption(vm, "compute-us"));
         }},
    };
    return table;
}

const char* kPatternHelp = R"(Patterns (--size is the comm_size of every communication node, in bytes):
  all-reduce, all-gather, reduce-scatter, all-to-all
                  one collective per rank (all-gather: --size is the per-rank input shard)
  chain           --layers pairs of compute (--compute-us) and all-reduce in sequence, then a
                  final compute
  ring            --rounds rounds of send to rank r+1 and receive from rank r-1
  pipeline        GPipe over --npus stages: --microbatches forwards then backwards, --size bytes
                  of activations or gradients between neighbouring stages, --compute-us per
                  forward or backward step
  data-parallel   one training step: --layers forward computes (--compute-us), backward computes
                  (2x) each followed by an all-reduce of --size gradient bytes, then an
                  optimizer compute (--compute-us)
  dlrm            one DLRM-like step: bottom-MLP compute, an all-to-all of --size embedding bytes,
                  top-MLP forward and backward, the gradient all-to-all overlapping the bottom-MLP
                  backward, an all-reduce of --dense-size MLP gradient bytes, optimizer
  hybrid-parallel one Transformer-like step: --tensor-parallel consecutive ranks per tensor-parallel
                  group (two all-reduces of --activation-size bytes per layer forward and backward),
                  data-parallel all-reduces of --size gradient bytes per layer across the groups
)";

}  // namespace

namespace {

int run(int argc, char** argv) {
    po::options_description options(
        "Usage: mlnet-tracegen --pattern P --npus N --size BYTES --output PREFIX [options]\n"
        "Writes PREFIX.<rank>.et for every rank.\n\nOptions");
    // Integers are taken as text and checked by unsignedOption.
    options.add_options()("help,h", "print this help")                                                      //
        ("pattern", po::value<std::string>(), "communication pattern (see below)")                          //
        ("npus", po::value<std::string>(), "number of ranks (pipeline: stages)")                            //
        ("size", po::value<std::string>(), "bytes per communication node")                                  //
        ("compute-us", po::value<std::string>()->default_value("100"), "compute duration in microseconds")  //
        ("layers", po::value<std::string>()->default_value("4"),
         "layers (chain, data-parallel, hybrid-parallel)")                                         //
        ("rounds", po::value<std::string>()->default_value("1"), "rounds (ring)")                  //
        ("microbatches", po::value<std::string>()->default_value("4"), "microbatches (pipeline)")  //
        ("dense-size", po::value<std::string>(), "all-reduce bytes of the MLP gradients (dlrm)")   //
        ("tensor-parallel", po::value<std::string>()->default_value("8"),
         "ranks per tensor-parallel group (hybrid-parallel)")  //
        ("activation-size", po::value<std::string>(),
         "tensor-parallel all-reduce bytes (hybrid-parallel)")       //
        ("gzip", "write gzip-compressed PREFIX.<rank>.et.gz files")  //
        ("output", po::value<std::string>(), "path prefix of the trace files; directories are created");

    std::string pattern;
    std::string prefix;
    std::optional<TraceSetBuilder> traces;
    po::variables_map vm;
    try {
        // With an empty positional description, stray words are errors instead of being silently ignored.
        const po::positional_options_description noPositionals;
        po::store(po::command_line_parser(argc, argv).options(options).positional(noPositionals).run(), vm);
        po::notify(vm);
        if (vm.count("help")) {
            std::cout << options << "\n" << kPatternHelp;
            return 0;
        }
        if (!vm.count("pattern") || !vm.count("output")) {
            throw UsageError("--pattern and --output are required");
        }
        pattern = vm["pattern"].as<std::string>();
        prefix = vm["output"].as<std::string>();
        if (prefix.empty() || prefix.back() == '/' || prefix.back() == '.') {
            throw UsageError("--output '" + prefix +
                             "': expected a path prefix such as dir/name (files are name.<rank>.et)");
        }
        const auto generator = generators().find(pattern);
        if (generator == generators().end()) {
            throw UsageError("unknown --pattern '" + pattern + "'");
        }
        traces.emplace(generator->second(vm));
    } catch (const po::error& e) {
        std::cerr << "mlnet-tracegen: " << e.what() << "\nTry 'mlnet-tracegen --help'.\n";
        return 1;
    } catch (const std::invalid_argument& e) {
        // Also raised by the generators' argument checks, which are command-line mistakes too.
        std::cerr << "mlnet-tracegen: " << e.what() << "\nTry 'mlnet-tracegen --help'.\n";
        return 1;
    } catch (const std::exception& e) {
        std::cerr << "mlnet-tracegen: " << e.what() << "\n";
        return 2;
    }

    try {
        uint64_t totalNodes = 0;
        uint64_t totalBytes = 0;
        const std::vector<std::string> paths = traces->write(prefix, vm.count("gzip") > 0);
        for (Rank r = 0; r < paths.size(); ++r) {
            const uint64_t nodes = traces->rank(r).nodes().size();
            const uint64_t bytes = std::filesystem::file_size(paths[r]);
            std::cout << paths[r] << ": " << nodes << " nodes, " << bytes << " bytes\n";
            totalNodes += nodes;
            totalBytes += bytes;
        }
        std::cout << "mlnet-tracegen: wrote " << paths.size() << " files for pattern " << pattern << ": "
                  << totalNodes << " nodes, " << totalBytes << " bytes\n";
    } catch (const std::exception& e) {
        std::cerr << "mlnet-tracegen: " << e.what() << "\n";
        return 2;
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    return mlnet::runTool("mlnet-tracegen", [&] { return run(argc, argv); });
}
