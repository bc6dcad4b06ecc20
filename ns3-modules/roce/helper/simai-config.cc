#include "simai-config.h"

namespace mlnet::roce::simai {

void applySimaiSemantics(HpccConfig& config, Diagnostics& diag) {
    auto given = [&](const char* key) { return config.givenKeys.count(key) > 0; };
    auto warn = [&](const char* key, const std::string& why) {
        diag.warning(atLine(config.path, config.givenKeys.at(key)) + ": key '" + key + "' " + why);
    };
    if (given("GLOBAL_T") && !config.globalT) {
        warn("GLOBAL_T",
             "0 is read as 1, as SimAI does (its reader overwrites the value): every queue pair takes "
             "the network's largest base RTT and BDP window");
    }
    config.globalT = true;
    if (!config.qlenMonFile.empty()) {
        warn("QLEN_MON_FILE",
             "ignored: SimAI never schedules its monitors, so it writes no queue samples "
             "(for ours, use a JSON network description's \"outputs\")");
        config.qlenMonFile.clear();
    }
    if (given("FLOW_FILE")) {
        warn("FLOW_FILE",
             "ignored: the workload gives the flows (SimAI opens it only for a count it does not use)");
    }
    if (given("SIMULATOR_STOP_TIME") && config.stopTimeNs != UINT64_MAX) {
        warn("SIMULATOR_STOP_TIME", "ignored: SimAI reads it but never stops the run by it");
    }
    config.stopTimeNs = UINT64_MAX;
}

}  // namespace mlnet::roce::simai
