// Typed reading of one object of a JSON configuration, with the checks every reader needs and one wording for
// their messages: a value of the wrong type, a number out of range, a rate, time or size without a unit, and
// (on finish) every key that was not asked for, with the nearest known key as a suggestion. Keys are named by
// their path ("topology.scale-up.rate") and, where the text shows it, their line.
#ifndef MLNET_UTIL_JSON_SECTION_H
#define MLNET_UTIL_JSON_SECTION_H

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "diagnostics.h"

namespace mlnet {

class JsonSection {
public:
    // `object` must be a JSON object and outlive the section; `text` is the file's text (for lines), `prefix`
    // the section's path ("" for the top level, "topology" for {"topology": {...}}).
    JsonSection(const nlohmann::json& object, const std::string& path, const std::string& text,
                std::string prefix, Diagnostics& diag);

    bool has(const std::string& key) const { return m_object.contains(key); }
    // Marks a key as known without reading it (a caller reads it another way).
    void accept(const std::string& key) { m_known.insert(key); }

    // Each getter marks the key as known. Absent: nullopt, or the fallback. Present but invalid: an error
    // naming the key, the value and what was expected, and nullopt.
    std::optional<uint64_t> count(const std::string& key, uint64_t min = 0, uint64_t max = UINT64_MAX);
    uint64_t count(const std::string& key, uint64_t fallback, uint64_t min, uint64_t max);
    std::optional<double> real(const std::string& key, double min, double max);
    std::optional<bool> boolean(const std::string& key);
    std::optional<std::string> string(const std::string& key);
    // ns-3 style strings with a unit: "100Gbps", "1us", "32MB". Zero rates are rejected.
    std::optional<uint64_t> rateBps(const std::string& key);
    std::optional<uint64_t> timePs(const std::string& key);
    std::optional<uint64_t> sizeBytes(const std::string& key);
    // A nested object (an error if the value is not one).
    std::optional<JsonSection> section(const std::string& key);
    // The raw value (marked known), or null when absent.
    const nlohmann::json* value(const std::string& key);

    // Reports a problem with `key` of this section.
    void error(const std::string& key, const std::string& what);
    // Reports every key no getter asked for; returns true when there was none and no getter failed.
    bool finish();
    bool ok() const { return m_ok; }

    std::string keyPath(const std::string& key) const {
        return m_prefix.empty() ? key : m_prefix + "." + key;
    }
    const std::string& path() const { return m_path; }
    const std::string& text() const { return m_text; }
    Diagnostics& diag() { return m_diag; }

private:
    const nlohmann::json* get(const std::string& key);
    void wrongType(const std::string& key, const nlohmann::json& v, const std::string& expected);

    const nlohmann::json& m_object;
    const std::string& m_path;
    const std::string& m_text;
    std::string m_prefix;
    Diagnostics& m_diag;
    std::set<std::string> m_known;
    bool m_ok = true;
};

// The known key nearest to `key` by edit distance, or "" when none is close ("did you mean" hints).
std::string nearestKey(const std::string& key, const std::vector<std::string>& known);

}  // namespace mlnet

#endif
