// N:1 incast on one switch, the standard congestion-control experiment: N senders push one message each to
// host 0 through a single bottleneck port. Reports what a CC study compares: PFC pauses, bottleneck queue
// (max and p99 of samples every microsecond), FCT percentiles, goodput, and Jain's fairness index of the
// senders' goodput over the second half of the run. Used by the incast study scenario and the
// congestion-control behaviour tests.
#ifndef MLNET_ROCE_INCAST_EXPERIMENT_H
#define MLNET_ROCE_INCAST_EXPERIMENT_H

#include <cstdint>
#include <string>
#include <vector>

namespace mlnet::roce {

struct IncastSetup {
    std::string cc = "none";            // none, dcqcn, dctcp, timely, hpcc
    std::string preset = "hpcc-paper";  // parameter preset (see cc-selection.h)
    uint32_t senders = 8;
    uint64_t flowBytes = 20'000'000;
    uint64_t rateBps = 100'000'000'000ull;
    uint64_t delayNs = 1000;
    uint64_t bufferBytes = 32ull << 20;
    uint64_t seed = 1;
};

struct IncastResult {
    bool finished = false;
    uint64_t pauses = 0;  // PFC pause frames received by the senders
    uint64_t drops = 0;
    double maxQueueBytes = 0, p99QueueBytes = 0;  // bottleneck egress queue
    double fctP50Us = 0, fctP99Us = 0;
    double goodputGbps = 0;     // all payload / time to the last completion
    double jainSecondHalf = 0;  // fairness of per-sender goodput between 50% and 90% of the ideal makespan
    std::vector<double> senderGbpsSecondHalf;
};

IncastResult runIncast(const IncastSetup& setup);

}  // namespace mlnet::roce

#endif
