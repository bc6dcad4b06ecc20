// Measures how long reading and checking a trace set takes, and the process's peak memory.
// Usage: mlnet-bench-trace-load [PREFIX] [--repeat N]   (default PREFIX: the PyTorch-derived chakra.0.et
// sample)
#include <google/protobuf/stubs/logging.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "util/process-usage.h"
#include "workload/trace-set.h"
#include "workload/trace-summary.h"

int main(int argc, char** argv) {
    google::protobuf::SetLogHandler(nullptr);
    std::string prefix =
        std::string(MLNET_SHARED_DIR) + "/chakra-examples/mlcommons-chakra_tests_data/chakra";
    int repeat = 10;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) {
            repeat = std::max(1, std::atoi(argv[++i]));
        } else {
            prefix = argv[i];
        }
    }
    std::vector<double> seconds;
    mlnet::TraceSummary summary;
    std::size_t warnings = 0;
    for (int k = 0; k < repeat; ++k) {
        mlnet::Diagnostics diag;
        auto start = std::chrono::steady_clock::now();
        mlnet::TraceSet set = mlnet::loadTraceSet(prefix, {}, diag);
        seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        if (diag.hasErrors()) {
            std::fprintf(stderr, "%s", diag.format(mlnet::Severity::Error).c_str());
            return 2;
        }
        summary = mlnet::summarize(set);
        warnings = diag.warningCount();
    }
    std::sort(seconds.begin(), seconds.end());
    std::printf("trace-load: %s\n", prefix.c_str());
    std::printf("  ranks %u, nodes %llu, trace bytes %llu, warnings %zu\n", summary.ranks,
                static_cast<unsigned long long>(summary.nodes),
                static_cast<unsigned long long>(summary.fileBytes), warnings);
    std::printf("  load+check time over %d runs: min %.2f ms, median %.2f ms, max %.2f ms\n", repeat,
                seconds.front() * 1e3, seconds[seconds.size() / 2] * 1e3, seconds.back() * 1e3);
    std::printf("  throughput: %.1f MB/s, %.0f nodes/s (median run)\n",
                summary.fileBytes / seconds[seconds.size() / 2] / 1e6,
                summary.nodes / seconds[seconds.size() / 2]);
    std::printf("  peak resident memory: %.1f MB\n", mlnet::peakResidentMb());
    return 0;
}
