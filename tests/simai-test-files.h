// SimAI-format input files written by the tests (our own, small): a Spectrum-X-style topology (GPUs on an
// NVSwitch per server, rail-optimised access switches, every access switch on every pod switch) and a
// SimAI.conf of HPCC keys with SimAI's additions.
#ifndef MLNET_TESTS_SIMAI_TEST_FILES_H
#define MLNET_TESTS_SIMAI_TEST_FILES_H

#include <cstdint>
#include <string>

namespace mlnet::test {

struct SpectrumXShape {
    uint32_t gpus = 16, gpusPerServer = 8, podSwitches = 4;
    std::string nvlink = "2400Gbps", nic = "100Gbps", uplink = "400Gbps";
};

// Ids: GPUs 0..G-1, NVSwitches next (one per server), then one access switch per rail, then the pod switches.
// Links: per GPU its NVSwitch link and its rail's access-switch link, then every access to every pod switch.
inline std::string spectrumXTopology(const SpectrumXShape& s = {}) {
    const uint32_t servers = s.gpus / s.gpusPerServer, rails = s.gpusPerServer;
    const uint32_t nodes = s.gpus + servers + rails + s.podSwitches;
    const uint32_t links = 2 * s.gpus + rails * s.podSwitches;
    std::string out = std::to_string(nodes) + " " + std::to_string(s.gpusPerServer) + " " +
                      std::to_string(servers) + " " + std::to_string(rails + s.podSwitches) + " " +
                      std::to_string(links) + " A100\n";
    for (uint32_t id = s.gpus; id < nodes; ++id) {
        out += std::to_string(id) + (id + 1 < nodes ? " " : "\n");
    }
    const uint32_t firstAccess = s.gpus + servers, firstPod = firstAccess + rails;
    for (uint32_t g = 0; g < s.gpus; ++g) {
        out += std::to_string(g) + " " + std::to_string(s.gpus + g / s.gpusPerServer) + " " + s.nvlink +
               " 0.000025ms 0\n";
        out +=
            std::to_string(g) + " " + std::to_string(firstAccess + g % rails) + " " + s.nic + " 0.0005ms 0\n";
    }
    for (uint32_t a = 0; a < rails; ++a) {
        for (uint32_t p = 0; p < s.podSwitches; ++p) {
            out += std::to_string(firstAccess + a) + " " + std::to_string(firstPod + p) + " " + s.uplink +
                   " 0.0005ms 0\n";
        }
    }
    return out;
}

// SimAI.conf's keys with values of our own; outputs go to `dir`.
inline std::string simaiConf(const std::string& dir) {
    return "ENABLE_QCN 1\nUSE_DYNAMIC_PFC_THRESHOLD 1\nPACKET_PAYLOAD_SIZE 4000\n"
           "FLOW_FILE " +
           dir + "/no-flows.txt\nTRACE_FILE " + dir +
           "/no-trace.txt\n"
           "FCT_OUTPUT_FILE " +
           dir + "/fct.txt\nPFC_OUTPUT_FILE " + dir +
           "/pfc.txt\n"
           "SIMULATOR_STOP_TIME 40000000000000.00\nCC_MODE 1\nALPHA_RESUME_INTERVAL "
           "1\nRATE_DECREASE_INTERVAL 4\n"
           "CLAMP_TARGET_RATE 0\nRP_TIMER 300\nEWMA_GAIN 0.00390625\nFAST_RECOVERY_TIMES 1\nRATE_AI 20Mb/s\n"
           "RATE_HAI 200Mb/s\nMIN_RATE 100Mb/s\nDCTCP_RATE_AI 1000Mb/s\nERROR_RATE_PER_LINK 0.0000\n"
           "L2_CHUNK_SIZE 4000\nL2_ACK_INTERVAL 1\nL2_BACK_TO_ZERO 0\nHAS_WIN 1\nGLOBAL_T 0\nVAR_WIN 1\n"
           "FAST_REACT 1\nU_TARGET 0.95\nMI_THRESH 0\nINT_MULTI 1\nMULTI_RATE 0\nSAMPLE_FEEDBACK 0\n"
           "PINT_LOG_BASE 1.05\nPINT_PROB 1.0\nRATE_BOUND 1\nACK_HIGH_PRIO 0\nLINK_DOWN 0 0 0\nENABLE_TRACE "
           "0\n"
           "KMAX_MAP 3 100000000000 1600 200000000000 2400 400000000000 3200\n"
           "KMIN_MAP 3 100000000000 400 200000000000 600 400000000000 800\n"
           "PMAX_MAP 3 100000000000 0.2 200000000000 0.2 400000000000 0.2\nBUFFER_SIZE 32\n"
           "QLEN_MON_FILE " +
           dir + "/qlen.txt\nBW_MON_FILE " + dir +
           "/bw.txt\nMON_START 0\nMON_END 20000\n"
           "QP_MON_INTERVAL 100\nQLEN_MON_INTERVAL 10000\nBW_MON_INTERVAL 10000\n";
}

}  // namespace mlnet::test

#endif
