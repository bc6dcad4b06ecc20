#include "astra-ns3-inputs.h"

#include <algorithm>
#include <map>

#include "util/json-section.h"
#include "util/json-text.h"
#include "util/units.h"

namespace mlnet::roce {

namespace {

// Section -> keys of ASTRA-sim's config.json; a key is the config.txt key in lower case unless mapped here.
const std::map<std::string, std::vector<std::string>> kSections = {
    {"files",
     {"topology_file", "flow_file", "trace_file", "trace_output_file", "fct_output_file", "pfc_output_file",
      "qlen_mon_file"}},
    {"switch", {"enable_qcn", "use_dynamic_pfc_threshold", "buffer_size", "headroom_factor"}},
    {"packet",
     {"payload_size", "l2_chunk_size", "l2_ack_interval", "l2_back_to_zero", "error_rate_per_link",
      "pause_time"}},
    {"congestion_control",
     {"cc_mode",
      "clamp_target_rate",
      "alpha_resume_interval",
      "rp_timer",
      "ewma_gain",
      "fast_recovery_times",
      "rate_ai",
      "rate_hai",
      "min_rate",
      "dctcp_rate_ai",
      "rate_decrease_interval",
      "has_win",
      "global_t",
      "mi_thresh",
      "var_win",
      "fast_react",
      "u_target",
      "int_multi",
      "rate_bound",
      "multi_rate",
      "sample_feedback",
      "pint_log_base",
      "pint_prob",
      "nic_total_pause_time",
      "ack_high_prio"}},
    {"simulator", {"stop_time"}},
    {"link", {"link_down_time", "link_down_a", "link_down_b"}},
    {"trace", {"enable_trace"}},
    {"ecn", {"kmax_map", "kmin_map", "pmax_map"}},
    {"queue_monitor", {"start", "end", "interval"}},
};

const std::map<std::string, std::string> kRenamed = {
    {"payload_size", "PACKET_PAYLOAD_SIZE"},
    {"stop_time", "SIMULATOR_STOP_TIME"},
    {"start", "QLEN_MON_START"},
    {"end", "QLEN_MON_END"},
    {"interval", "QLEN_MON_INTERVAL"},
};

std::string upper(std::string key) {
    std::transform(key.begin(), key.end(), key.begin(), [](unsigned char c) { return std::toupper(c); });
    return key;
}

}  // namespace

bool isAstraNs3JsonConfig(const nlohmann::json& doc) {
    for (const auto& [section, keys] : kSections) {
        if (doc.contains(section) && doc[section].is_object()) {
            return true;
        }
    }
    return false;
}

HpccConfig hpccConfigFromAstraJson(const nlohmann::json& doc, const std::string& path,
                                   const std::string& text, Diagnostics& diag) {
    nlohmann::json flat = nlohmann::json::object();
    std::vector<std::string> sectionNames;
    for (const auto& [name, keys] : kSections) {
        sectionNames.push_back(name);
    }
    nlohmann::json linkDown = nlohmann::json::array({0, 0, 0});
    bool anyLinkDown = false;
    for (const auto& [section, value] : doc.items()) {
        const auto known = kSections.find(section);
        if (known == kSections.end() || !value.is_object()) {
            const std::string hint = nearestKey(section, sectionNames);
            diag.error(atLine(path, lineOfJsonKey(text, section)) + ": '" + section +
                       "' is not a section of ASTRA-sim's ns-3 configuration" +
                       (hint.empty() ? "" : "; did you mean '" + hint + "'?"));
            continue;
        }
        for (const auto& [key, v] : value.items()) {
            const auto& keys = known->second;
            if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
                const std::string hint = nearestKey(key, keys);
                diag.error(atLine(path, lineOfJsonKey(text, key)) + ": key '" + section + "." + key +
                           "' is unknown" + (hint.empty() ? "" : "; did you mean '" + hint + "'?"));
                continue;
            }
            if (section == "link") {
                linkDown[key == "link_down_time" ? 0 : key == "link_down_a" ? 1 : 2] = v;
                anyLinkDown = true;
                continue;
            }
            const auto renamed = kRenamed.find(key);
            const std::string flatKey = renamed != kRenamed.end() ? renamed->second : upper(key);
            // Flags are JSON booleans there; the key table takes a boolean for a flag key only.
            flat[flatKey] = v;
        }
    }
    if (anyLinkDown) {
        flat["LINK_DOWN"] = linkDown;
    }
    if (diag.hasErrors()) {
        HpccConfig config;
        config.path = path;
        return config;
    }
    return hpccConfigFromJson(flat, path, text, diag);
}

std::optional<std::vector<uint32_t>> loadLogicalTopology(const std::string& path, Diagnostics& diag) {
    std::string text;
    if (!readTextFile(path, text, diag, "logical topology")) {
        return std::nullopt;
    }
    nlohmann::json doc;
    if (!parseJsonObject(text, path, "a JSON object {\"logical-dims\": [\"8\", ...]}", doc, diag)) {
        return std::nullopt;
    }
    JsonSection top(doc, path, text, "", diag);
    const nlohmann::json* dims = top.value("logical-dims");
    if (!top.finish()) {
        return std::nullopt;
    }
    if (!dims || !dims->is_array() || dims->empty()) {
        top.error("logical-dims",
                  "missing or empty; expected a list of dimension sizes such as [\"8\", \"2\"]");
        return std::nullopt;
    }
    std::vector<uint32_t> sizes;
    uint64_t npus = 1;
    for (std::size_t i = 0; i < dims->size(); ++i) {
        const nlohmann::json& d = (*dims)[i];
        uint64_t n = 0;
        const bool ok = d.is_string() ? parseUnsignedInteger(d.get<std::string>(), n) == NumberStatus::Ok
                                      : d.is_number_unsigned() && (n = d.get<uint64_t>(), true);
        if (!ok || n == 0 || n > (1u << 24)) {
            top.error("logical-dims", "entry " + std::to_string(i) + " (" + briefJson(d) +
                                          ") is not a dimension size; expected a whole number >= 1");
            return std::nullopt;
        }
        npus *= n;
        if (npus > (1u << 24)) {
            top.error("logical-dims", "the dimensions multiply to more than 2^24 NPUs");
            return std::nullopt;
        }
        sizes.push_back(static_cast<uint32_t>(n));
    }
    return sizes;
}

}  // namespace mlnet::roce
