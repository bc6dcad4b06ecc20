// The experiment configuration of the HPCC-lineage driver (`config.txt` of HPCC's scratch/third.cc) as typed
// values, plus the same keys in JSON. Pure C++ (no ns-3), so the reader is testable on its own and shared by
// mlnet-flows and the ASTRA-sim bridge.
//
// Text format: one `KEY value...` per line in any order; blank lines and lines whose first token starts with
// '#' are skipped (an extension: the reference has no comments). Unlike the reference, which silently skips
// unknown keys and lets the last repetition win, an unknown key, a repeated key, a missing or extra value, a
// malformed number, a negative value or a value out of range is an error naming the file, the line and the
// key.
//
// Keys accepted but ignored on purpose; a warning says why, only when the value asks for what we do not do:
//   TRACE_FILE, TRACE_OUTPUT_FILE  always: the binary mix.tr trace is not produced
//   ENABLE_TRACE                   when not 0, for the same reason
//   USE_DYNAMIC_PFC_THRESHOLD      when 0: no effect in the reference either; ours is always dynamic
//   DATA_RATE, LINK_DELAY          always: unused by the reference too (the topology file gives them)
//   BW_MON_FILE, RATE_MON_FILE, CNP_MON_FILE, MON_START, MON_END, QP_MON_INTERVAL, BW_MON_INTERVAL
//                                  always: SimAI's monitors are not produced
// NIC_TOTAL_PAUSE_TIME (astra-network-ns3's NIC-generated PFC) is an error: ignoring it would change results.
// QLEN_MON_FILE/START/END (and SimAI's QLEN_MON_INTERVAL) are kept: they configure our sampled queue monitor.
//
// Defaults for absent keys are the reference driver's, except where that default is known to be broken
// (a DCQCN rate-increase timer of 0, which never fires; an unbounded NACK interval); there the RdmaHw
// attribute default ("attr") is used and the field says so.
#ifndef MLNET_ROCE_HPCC_CONFIG_H
#define MLNET_ROCE_HPCC_CONFIG_H

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "network/topology-spec.h"
#include "util/diagnostics.h"
#include "util/units.h"

namespace mlnet::roce {

// CC_MODE values of the reference, where any other value selects no congestion control (line rate plus the
// window); config.txt readers take only 0 and 12 for that.
inline constexpr int kCcModeDcqcn = 1;
inline constexpr int kCcModeHpcc = 3;
inline constexpr int kCcModeTimely = 7;
inline constexpr int kCcModeDctcp = 8;
inline constexpr int kCcModeHpccPint = 10;
inline constexpr int kCcModeNone = 12;  // astra-network-ns3's default: no algorithm (0 means the same)

// "DCQCN", "HPCC", "TIMELY", "DCTCP", "HPCC-PINT", or "none (line rate + window)" for any other mode.
std::string describeCcMode(int ccMode);

// The config.txt keys that set congestion-control parameters: how the file writes each, the reference's value
// when it is absent (in the parameter's unit: ns, b/s, a number, 0/1), and the parameter of congestion/'s
// tables (cc-parameters.h) it sets in each algorithm, or null. The one place such a key is defined.
enum class CcKeyForm : uint8_t { Microseconds, Rate, Real, Count, Flag };
struct CcKey {
    const char* key;
    CcKeyForm form;
    double referenceDefault;
    double min, max;    // Real, Count: the accepted range (Real: min itself excluded)
    const char* range;  // the range in words, for messages
    const char* dcqcn;
    const char* dctcp;
    const char* timely;
    const char* hpcc;
    // Set where the reference's own default is broken or missing: what replaces it, warned about when the key
    // is absent and the CC mode uses it.
    const char* whenAbsent = nullptr;
};
const std::vector<CcKey>& ccKeys();
// A markdown table of those keys: the form in the file, the value when absent, the parameter of each
// algorithm.
std::string describeCcKeys();

struct HpccConfig {
    // Where the values came from, for messages of later checks.
    std::string path;
    // Every key present in the file, with its 1-based line (0 for JSON, whose parser gives no lines).
    std::map<std::string, int> givenKeys;

    // --- files. Relative paths are kept as written, i.e. relative to the current working directory as in the
    // reference; call resolveAgainst() for config-relative paths. Empty when absent (no reference default).
    std::string topologyFile;
    std::string flowFile;
    std::string fctOutputFile = "fct.txt";
    std::string pfcOutputFile = "pfc.txt";
    std::string qlenMonFile;                  // empty: no queue monitor
    uint64_t qlenMonStartNs = 2'000'000'000;  // QLEN_MON_START (ns)
    uint64_t qlenMonEndNs = 2'100'000'000;    // QLEN_MON_END (ns)
    uint64_t qlenMonIntervalNs = 100;         // QLEN_MON_INTERVAL (SimAI; the reference hard-codes 100 ns)

    // --- run
    uint64_t stopTimeNs = 3'010'000'000;  // SIMULATOR_STOP_TIME (s)
    double errorRatePerLink = 0;          // ERROR_RATE_PER_LINK: used for links whose own error rate is 0
    struct LinkDown {
        uint64_t timeNs;  // absolute: 2 s + the file's µs value
        uint32_t nodeA, nodeB;
    };
    std::optional<LinkDown> linkDown;  // LINK_DOWN t a b; t = 0 means none

    // --- packet / ACK
    uint32_t payloadBytes = 1000;     // PACKET_PAYLOAD_SIZE
    uint32_t l2ChunkBytes = 0;        // L2_CHUNK_SIZE (0: no chunking)
    uint32_t l2AckIntervalBytes = 1;  // L2_ACK_INTERVAL; reference 0, with which flows never complete
    bool l2BackToZero = false;        // L2_BACK_TO_ZERO (go-back-0 instead of go-back-N on NACK)
    bool ackHighPriority = false;     // ACK_HIGH_PRIO
    uint64_t pauseTimeNs = 5'000;     // PAUSE_TIME (µs), carried in pause frames

    // --- switch
    bool ecnEnabled = true;                           // ENABLE_QCN
    uint64_t bufferBytes = 16ull * 1024 * 1024;       // BUFFER_SIZE (MiB per switch)
    std::map<uint64_t, uint64_t> kmaxBytesByRateBps;  // KMAX_MAP n rate k... (k in KB of 1000 B)
    std::map<uint64_t, uint64_t> kminBytesByRateBps;  // KMIN_MAP
    std::map<uint64_t, double> pmaxByRateBps;         // PMAX_MAP (probability at Kmax)

    // --- congestion control selection
    int ccMode = kCcModeDcqcn;  // CC_MODE

    // --- congestion control: the values of the keys of ccKeys() given in the file (ccValue() falls back to
    // the reference's default).
    std::map<std::string, double> ccGiven;
    double ccValue(const std::string& key) const;

    // --- window
    bool hasWindow = true;   // HAS_WIN
    bool globalT = true;     // GLOBAL_T: window and base RTT from the network maximum, not per pair
    bool varWindow = false;  // VAR_WIN

    // --- HPCC-PINT and rate bound: read, not modelled
    uint32_t intMulti = 1;      // INT_MULTI
    bool rateBound = true;      // RATE_BOUND
    double pintLogBase = 1.05;  // PINT_LOG_BASE
    double pintProb = 1.0;      // PINT_PROB

    // --- buffer (astra-network-ns3)
    std::optional<double> headroomFactor;  // HEADROOM_FACTOR / 2 (ours counts both directions); absent: ours

    // Thresholds of one link speed: Kmin/Kmax in bytes and Pmax, or nullopt when any of the maps lacks the
    // rate.
    struct EcnThresholds {
        uint64_t kminBytes, kmaxBytes;
        double pmax;
    };
    std::optional<EcnThresholds> ecnFor(uint64_t rateBps) const;

    // Rewrites every relative file path (topology, flow, fct, pfc, qlen) as dir/path. Absolute and empty
    // paths are kept. For callers that want paths relative to the configuration file: resolveAgainst(parent
    // of path).
    void resolveAgainst(const std::string& dir);
};

// Where an input file a configuration names (TOPOLOGY_FILE, FLOW_FILE) is. A relative path is taken from the
// working directory first, as the reference simulator and ASTRA-sim's ns-3 backend do (their configs are
// written for the folder they run in); a path not found there is taken beside the configuration file.
// Neither: an error naming the key, both folders tried, and "" is returned.
std::string locateConfigInput(const HpccConfig& config, const char* key, const std::string& file,
                              Diagnostics& diag);

// Reads config.txt. The result holds the defaults for every key that was absent or bad; check
// diag.hasErrors().
HpccConfig loadHpccConfig(const std::string& path, Diagnostics& diag);

// Reads our JSON form: one object whose keys are exactly the config.txt names ("CC_MODE", "RATE_AI", ...), so
// a config.txt converts line by line and both forms share one key table, validation and set of messages.
// Values:
//   a number or a string ("20Mb/s", "fct.txt"; a string with spaces is split like a config.txt line, so
//   "KMAX_MAP": "2 100000000000 1600 400000000000 6400" works), true/false for flags, an array for
//   multi-value keys ("LINK_DOWN": [0, 0, 0]), and for KMAX_MAP/KMIN_MAP/PMAX_MAP also an object keyed by
//   rate
//   ({"100000000000": 1600, "400000000000": 6400}). Unknown and repeated keys are errors, as in the text
//   form.
HpccConfig loadJsonConfig(const std::string& path, Diagnostics& diag);
// The same, from a parsed object (read from `path`, whose `text` gives lines); ASTRA-sim's nested config.json
// and the congestion-control parameters of a network description are converted to this form.
HpccConfig hpccConfigFromJson(const nlohmann::json& doc, const std::string& path, const std::string& text,
                              Diagnostics& diag);

// Errors (naming the configuration file) when TOPOLOGY_FILE or FLOW_FILE is absent; mlnet-flows needs both
// while the ASTRA-sim bridge needs neither, so the loaders do not require them.
void requireFlowInputs(const HpccConfig& config, Diagnostics& diag);

// Checks that need the topology: with ENABLE_QCN every switch port's link rate has a KMIN_MAP, KMAX_MAP and
// PMAX_MAP entry (the reference aborts on the first missing one), Kmin <= Kmax, and LINK_DOWN names two
// linked nodes. Switches of the tiers in `unmarkedTiers` do not mark, so their links need no entry (SimAI's
// NVSwitches). Messages name the configuration file, the key's line and the topology file.
void checkConfigAgainstTopology(const HpccConfig& config, const TopologySpec& topology, Diagnostics& diag,
                                const std::vector<std::string>& unmarkedTiers = {});

// dir/path for a relative path; absolute and empty paths unchanged.
std::string resolvePath(const std::string& path, const std::string& dir);

}  // namespace mlnet::roce

#endif
