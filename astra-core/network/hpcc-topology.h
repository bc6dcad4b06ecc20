// The HPCC-lineage topology file (HPCC's scratch/third.cc, ASTRA-sim's ns-3 backend): "<nodes> <switches>
// <links>", the switch ids (on one or more lines), then one line per cable "<a> <b> <rate> <delay> <error
// rate>" with ns-3 strings for rate and delay ("100Gbps", "1000ns", "0.001ms"). The one reader of the
// project, strict where the reference is silent.
#ifndef MLNET_NETWORK_HPCC_TOPOLOGY_H
#define MLNET_NETWORK_HPCC_TOPOLOGY_H

#include <optional>
#include <string>

#include "network/topology-spec.h"
#include "util/text-lines.h"

namespace mlnet {

// Reads an HPCC topology file into a TopologySpec: hosts (the non-switch ids) in increasing id order, then
// switches in increasing id order, original ids kept; cables in file order; switch tiers by their distance
// from the hosts (1: cabled to a host). Errors name the file, the line and the field: malformed header or
// fields, ids out of range, a switch listed twice, a zero rate, a delay finer than 1 ps, an error rate
// outside 0..1, a cable from a node to itself or repeated between the same pair (the reference keeps only the
// last), a host without a cable or without a path to the others. Lines after the last link are ignored with a
// warning, as the reference ignores them; a host id of 65536 or more warns (fct.txt's 11.x.y.1 address cannot
// hold it).
std::optional<TopologySpec> loadHpccTopologyFile(const std::string& path, Diagnostics& diag);

// One "<a> <b> <rate> <delay> <error rate>" link line of the format (SimAI's topology files share it): ends
// as node ids below `nodes`, an ns-3 rate above zero, a delay in whole picoseconds, an error rate in 0..1.
// False with the error reported at the line otherwise.
bool parseTopologyLinkLine(const TextLine& line, uint64_t nodes, const std::string& path, SpecCable& out,
                           Diagnostics& diag);

// A network given by node ids (the HPCC file, our JSON "nodes"/"switches"/"links" form): hosts are the
// non-switch ids in increasing order, then the switches in increasing order; cable ends are node ids and
// become vertex indices. Finalizes, validates (errors name `source`) and assigns switch tiers.
std::optional<TopologySpec> specFromNodeIds(uint32_t nodes, const std::vector<bool>& isSwitch,
                                            std::vector<SpecCable> cablesByNodeId, const std::string& source,
                                            Diagnostics& diag);

// The order of the link lines: the spec's cables (loadHpccTopologyFile gives back an equal spec, ports
// included), or tier by tier as the HPCC benchmark's own files list them (the hosts' links, then each switch
// tier's uplinks, each group in cable order): the same network with other port numbers, so other ECMP
// choices.
enum class HpccLinkOrder { Cables, Tiers };

// The same format, written so that loadHpccTopologyFile gives back an equal spec (ids, cables, rates, delays,
// error rates). Rates are written in the largest exact unit ("100Gbps", "2500Mbps"), delays likewise
// ("1000ns", "936250ps").
std::string formatHpccTopology(const TopologySpec& spec, HpccLinkOrder order = HpccLinkOrder::Cables);

}  // namespace mlnet

#endif
