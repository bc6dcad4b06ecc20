// SimAI's topology files (its ns-3 backend's -n FILE, written by its gen_Topo_Template.py for Spectrum-X,
// AlibabaHPN and DCN+ fabrics):
//   line 1:  <nodes> <gpus per server> <NVSwitches> <switches> <links> <GPU type>
//   then:    the NVSwitch ids, then the switch ids (any line layout; the generator writes them on line 2)
//   then:    one link per line, "<a> <b> <rate> <delay> <error rate>" (ns-3 rate and delay strings)
// Ids not listed are GPUs. As a TopologySpec: GPUs are the hosts (in id order, so rank r runs on GPU r as in
// SimAI), NVSwitches the scale-up domain (tier "scale-up": a GPU's NVLink port carries the traffic to the
// GPUs of its server, as SimAI routes it), the other switches scale-out tiers named by their distance from
// the GPUs: "asw" (cabled to GPUs), "psw", "dsw", then "tier4"... Pure C++: no ns-3.
#ifndef MLNET_ROCE_SIMAI_TOPOLOGY_H
#define MLNET_ROCE_SIMAI_TOPOLOGY_H

#include <optional>
#include <string>

#include "network/topology-spec.h"
#include "util/diagnostics.h"

namespace mlnet::roce::simai {

struct SimaiTopologyInfo {
    uint32_t gpus = 0, gpusPerServer = 0, nvswitches = 0, switches = 0, links = 0;
    std::string gpuType;
};

// True when the file's first non-empty line has SimAI's six fields (HPCC's topology header has three).
bool isSimaiTopologyFile(const std::string& path);

// Reads the file; errors name the file, the line and the field (header counts that disagree with the file,
// ids out of range or listed twice, malformed links, a link repeated between the same pair, NVSwitches cabled
// to anything but GPUs, a GPU count that is not whole servers). The GPU type is kept for messages: SimAI
// uses it only to choose NVLS, which is not modelled.
std::optional<TopologySpec> loadSimaiTopology(const std::string& path, Diagnostics& diag,
                                              SimaiTopologyInfo* info = nullptr);

}  // namespace mlnet::roce::simai

#endif
