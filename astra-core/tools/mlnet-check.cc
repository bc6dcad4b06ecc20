// mlnet-check PREFIX [--npus N] [--comm-group-configuration FILE] [--json] [--strict]
// Validates a Chakra trace set and prints a summary. Exit status: 0 valid (warnings allowed), 2 invalid, 1
// usage.
#include <google/protobuf/stubs/logging.h>
#include <boost/program_options.hpp>

#include <iostream>

#include "util/cli-options.h"
#include "util/tool-main.h"
#include "workload/trace-set.h"
#include "workload/trace-summary.h"

namespace po = boost::program_options;

namespace {

int run(int argc, char** argv) {
    // Parse failures are explained by our own messages; protobuf's log lines would only add noise.
    google::protobuf::SetLogHandler(nullptr);

    mlnet::TraceSetOptions options;
    std::string prefix;
    bool json = false;
    std::string npusText;
    po::options_description visible(
        "Usage: mlnet-check PREFIX [options]\n\n"
        "Validates the Chakra execution traces PREFIX.<rank>.et (plain or gzip) and "
        "prints a summary.\nExit status: 0 valid (warnings allowed), 2 invalid, 1 usage "
        "error.\n\nOptions");
    visible.add_options()("help,h", "show this help")(
        "npus", po::value<std::string>(&npusText),
        "number of ranks (default: count the files PREFIX.0.et, PREFIX.1.et, ...)")(
        "comm-group-configuration", po::value<std::string>(&options.commGroupFile),
        "communicator groups as JSON, e.g. {\"1\": [0, 1]}")("json", po::bool_switch(&json),
                                                             "print the summary as JSON")(
        "strict", po::bool_switch(&options.read.strict),
        "ASTRA-sim parity: dangling/cyclic ctrl_deps, CPU-side comm nodes and collectives ASTRA-sim cannot "
        "simulate are errors")("no-gzip", "reject gzip-compressed traces")(
        "skip-unknown-node-types", po::bool_switch(&options.read.skipUnknownNodeTypes),
        "treat unknown NodeType values as INVALID_NODE instead of errors")(
        "comm-group-alias", po::bool_switch(&options.read.commGroupAlias),
        "honour STG's legacy integer attribute comm_group when pg_name is absent");
    po::options_description hidden;
    hidden.add_options()("prefix", po::value<std::string>(&prefix));
    po::options_description all;
    all.add(visible).add(hidden);
    po::positional_options_description positional;
    positional.add("prefix", 1);
    po::variables_map vm;
    try {
        po::store(po::command_line_parser(argc, argv).options(all).positional(positional).run(), vm);
        po::notify(vm);
    } catch (const po::error& e) {
        std::cerr << "mlnet-check: " << e.what() << "\n" << visible << "\n";
        return 1;
    }
    if (vm.count("help")) {
        std::cout << visible << "\n";
        return 0;
    }
    if (!npusText.empty()) {
        mlnet::CliNumbers numbers("mlnet-check");
        uint64_t npus = 0;
        if (!numbers.count("npus", npusText, 1, 1u << 24, npus)) {
            std::cerr << numbers.error() << "\n";
            return 1;
        }
        options.numRanks = static_cast<uint32_t>(npus);
    }
    if (prefix.empty()) {
        std::cerr << "mlnet-check: missing PREFIX (trace files are PREFIX.<rank>.et)\n" << visible << "\n";
        return 1;
    }
    if (vm.count("npus") && options.numRanks == 0) {
        std::cerr << "mlnet-check: --npus must be at least 1\n";
        return 1;
    }
    options.read.allowGzip = !vm.count("no-gzip");

    mlnet::Diagnostics diag;
    mlnet::TraceSet set = mlnet::loadTraceSet(prefix, options, diag);
    const bool valid = !diag.hasErrors();
    std::cerr << diag.format(mlnet::Severity::Warning) << diag.format(mlnet::Severity::Error);
    mlnet::TraceSummary summary = mlnet::summarize(set);
    if (json) {
        std::cout << mlnet::formatJson(summary, diag, valid);
    } else if (valid) {
        std::cout << "trace set " << prefix << ": valid\n" << mlnet::formatText(summary, diag);
    } else {
        std::cerr << "trace set " << prefix << ": INVALID (" << diag.errorCount() << " errors)\n";
    }
    return valid ? 0 : 2;
}

}  // namespace

int main(int argc, char** argv) {
    return mlnet::runTool("mlnet-check", [&] { return run(argc, argv); });
}
