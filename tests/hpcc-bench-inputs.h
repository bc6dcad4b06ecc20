// hpcc-bench's inputs (the folder the comparisons with the HPCC reference simulator run on), made at test
// time by our own tools rather than read from outside the repository: the fat-trees by mlnet-topology, the
// flow files by mlnet-trafficgen, the configurations from the golden ones. test-traffic-generation checks the
// generated files against the published folder's checksums, so these are its files byte for byte.
#ifndef MLNET_TESTS_HPCC_BENCH_INPUTS_H
#define MLNET_TESTS_HPCC_BENCH_INPUTS_H

#include <cstdlib>
#include <stdexcept>
#include <string>

#include "trace-test-util.h"

namespace mlnet::test {

// config-<cc>.txt of hpcc-bench (cc: dcqcn, hp, dctcp, timely): the golden configuration of that algorithm,
// whose keys and values are the HPCC paper's settings too, with what the bench's copies add: the placeholders
// TOPO and FLOW for the files, the reference's trace keys and queue monitor, and a 4 s stop time (flows start
// at 2 s).
inline std::string hpccBenchConfigText(const std::string& cc) {
    std::string text = readFileBytes(std::string(MLNET_SOURCE_DIR) + "/tests/golden/config-" +
                                     (cc == "hp" ? std::string("hpcc") : cc) + ".txt");
    auto replace = [&](const std::string& line, const std::string& with) {
        const std::size_t at = text.find(line);
        if (at == std::string::npos) {
            throw std::runtime_error("tests/golden/config-" + cc + ".txt has no line '" + line + "'");
        }
        text.replace(at, line.size(), with);
    };
    replace("TOPOLOGY_FILE topology.txt\n", "TOPOLOGY_FILE TOPO\n");
    replace("FLOW_FILE flows.txt\n", "FLOW_FILE FLOW\nTRACE_FILE trace.txt\nTRACE_OUTPUT_FILE mix.tr\n");
    replace("SIMULATOR_STOP_TIME 1.00\n", "SIMULATOR_STOP_TIME 4.00\n");
    return text + "QLEN_MON_FILE qlen.txt\nQLEN_MON_START 2000000000\nQLEN_MON_END 2000000000\n";
}

// A folder (its path ends in '/') with hpcc-bench's files: config-{dcqcn,hp,dctcp,timely}.txt, k4_topo.txt
// and k8_topo.txt, k4_a2a_4MB.txt, k4_incast_10MB.txt, k8_incast_1MB.txt and k8_a2a_64KB.txt. Made once per
// test program (about 0.1 s); throws std::runtime_error naming the command that failed.
inline const std::string& hpccBenchDir() {
    static const std::string dir = [] {
        const std::string d = makeTempDir("hpcc-bench") + "/";
        for (const char* cc : {"dcqcn", "hp", "dctcp", "timely"}) {
            writeFileBytes(d + "config-" + cc + ".txt", hpccBenchConfigText(cc));
        }
        const std::string bin = std::string(MLNET_BIN_DIR) + "/";
        const std::string commands[] = {
            "mlnet-topology --builder=fat-tree --k=4 --hpcc-link-order=tiers --write-hpcc=" + d +
                "k4_topo.txt",
            "mlnet-topology --builder=fat-tree --k=8 --hpcc-link-order=tiers --write-hpcc=" + d +
                "k8_topo.txt",
            "mlnet-trafficgen --topology=" + d +
                "k4_topo.txt --pattern=all-to-all --size=4000000 --output=" + d + "k4_a2a_4MB.txt",
            "mlnet-trafficgen --topology=" + d +
                "k4_topo.txt --pattern=incast --senders=15 --size=10000000 " + "--output=" + d +
                "k4_incast_10MB.txt",
            "mlnet-trafficgen --topology=" + d +
                "k8_topo.txt --pattern=incast --senders=127 --size=1000000 " + "--output=" + d +
                "k8_incast_1MB.txt",
            "mlnet-trafficgen --topology=" + d +
                "k8_topo.txt --pattern=all-to-all --size=64000 --output=" + d + "k8_a2a_64KB.txt",
        };
        for (const std::string& command : commands) {
            if (std::system((bin + command + " > " + d + "tool-output.txt 2>&1").c_str()) != 0) {
                throw std::runtime_error(command + " failed: " + readFileBytes(d + "tool-output.txt"));
            }
        }
        return d;
    }();
    return dir;
}

}  // namespace mlnet::test

#endif
