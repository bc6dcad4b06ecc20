// SimAI.conf, the network configuration of SimAI's ns-3 backend (its -c FILE): HPCC's config.txt keys (read
// by hpcc-config.h's one key table, which knows SimAI's additions: BW/RATE/CNP monitor files, MON_START,
// MON_END, the monitor intervals, NIC_TOTAL_PAUSE_TIME) with SimAI's own reading of some of them:
//   GLOBAL_T             forced to 1 whatever the file says (its reader overwrites the value)
//   QLEN_MON_FILE        its monitors are never scheduled, so no queue samples are taken
//   FLOW_FILE            opened for a count and nothing more: the workload gives the flows
//   SIMULATOR_STOP_TIME  read, never applied
//   TOPOLOGY_FILE        not read (the topology comes from -n); taken here when --topology is not given
// and its NVSwitches do not mark ECN (only its scale-out switches get ENABLE_QCN and the KMIN/KMAX/PMAX
// maps). Pure C++: no ns-3.
#ifndef MLNET_ROCE_SIMAI_CONFIG_H
#define MLNET_ROCE_SIMAI_CONFIG_H

#include "hpcc-config.h"
#include "util/diagnostics.h"

namespace mlnet::roce::simai {

// Applies SimAI's reading to a configuration read by loadHpccConfig; each key whose value SimAI overrides or
// ignores is warned about once, naming the file, its line and why.
void applySimaiSemantics(HpccConfig& config, Diagnostics& diag);

// The switch tier whose ports SimAI never marks (its NVSwitches).
inline constexpr const char* kScaleUpTier = "scale-up";

}  // namespace mlnet::roce::simai

#endif
