// The reader of config.txt / JSON entries behind loadHpccConfig: one entry (a key and the tokens a config.txt
// line would hold), the value readers every key's handler uses (each reports its own located error), and the
// key tables (hpcc-config-keys.cc). Internal to the formats library.
#ifndef MLNET_ROCE_HPCC_CONFIG_READER_H
#define MLNET_ROCE_HPCC_CONFIG_READER_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "hpcc-config.h"
#include "util/diagnostics.h"
#include "util/units.h"

namespace mlnet::roce::config_detail {

// One key of either form, reduced to the tokens a config.txt line would hold.
struct Entry {
    std::string key;
    int line = 0;
    std::vector<std::string> tokens;
    // From JSON: the value was true/false, or a number (not a string).
    bool jsonBoolean = false;
    bool jsonNumber = false;
};

class Builder;
using Handler = void (*)(Builder&, HpccConfig&);

struct KeySpec {
    const char* key;
    bool multiValue;  // JSON strings of these keys are split at spaces like a config.txt line
    Handler handle;
};

class Builder {
public:
    Builder(const std::string& path, HpccConfig& config, Diagnostics& diag)
        : m_path(path), m_config(config), m_diag(diag) {}

    void apply(const Entry& entry);
    void finish();

    // --- readers of the current entry's values; each reports its own error and returns false on failure.

    bool values(std::size_t count, const std::string& form) {
        if (m_entry->jsonBoolean && !m_booleanAllowed) {
            fail("JSON true/false is accepted only for 0/1 keys; expected " + form);
            return false;
        }
        const std::size_t found = m_entry->tokens.size();
        if (found == count) {
            return true;
        }
        fail(found == 0 ? "missing value; expected " + form
                        : "expected " + form + ", found " + std::to_string(found) + " values");
        return false;
    }

    bool path(std::string& out) {
        if (!values(1, "one value (a file path)")) {
            return false;
        }
        if (m_entry->jsonNumber) {
            return fail("a JSON number is not a file path; expected a string");
        }
        out = m_entry->tokens[0];
        return true;
    }

    bool flag(bool& out) {
        uint64_t v = 0;
        m_booleanAllowed = true;
        const bool one = values(1, "one value (0 or 1)");
        m_booleanAllowed = false;
        if (!one || !integerAt(0, "0 or 1", 0, 1, v)) {
            return false;
        }
        out = v != 0;
        return true;
    }

    bool u32(uint32_t& out, uint32_t lo, uint32_t hi, const std::string& expected) {
        uint64_t v = 0;
        if (!values(1, "one value (" + expected + ")") || !integerAt(0, expected, lo, hi, v)) {
            return false;
        }
        out = static_cast<uint32_t>(v);
        return true;
    }

    bool integerAt(std::size_t i, const std::string& expected, uint64_t lo, uint64_t hi, uint64_t& out) {
        uint64_t v = 0;
        const NumberStatus status = parseUnsignedInteger(m_entry->tokens[i], v);
        if (status != NumberStatus::Ok) {
            return badValue(i, describeNumberStatus(status), expected);
        }
        if (v < lo || v > hi) {
            return badValue(i, "is out of range", expected);
        }
        out = v;
        return true;
    }

    // A real number; `valid` is the range check, `expected` says it in words.
    template <typename Valid>
    bool realAt(std::size_t i, const std::string& expected, Valid valid, double& out) {
        double v = 0;
        if (!parsePlainReal(m_entry->tokens[i], v)) {
            return badValue(i, "is not a number", expected);
        }
        if (v < 0 && !valid(v)) {
            return badValue(i, "is negative", expected);
        }
        if (!valid(v)) {
            return badValue(i, "is out of range", expected);
        }
        out = v;
        return true;
    }

    template <typename Valid>
    bool real(const std::string& expected, Valid valid, double& out) {
        return values(1, "one value (" + expected + ")") && realAt(0, expected, valid, out);
    }

    bool rateAt(std::size_t i, uint64_t& out) {
        static const std::string expected = "a rate > 0 such as 20Mb/s, 100Gbps or 100000000000 (b/s)";
        uint64_t v = 0;
        const NumberStatus status = parseDataRateBps(m_entry->tokens[i], v, true);
        if (status != NumberStatus::Ok) {
            return badValue(i, describeNumberStatus(status), expected);
        }
        if (v == 0) {
            return badValue(i, "is zero", expected);
        }
        out = v;
        return true;
    }

    bool rate(uint64_t& out) {
        return values(1, "one value (an ns-3 data rate such as 20Mb/s)") && rateAt(0, out);
    }

    // A decimal in `unit` scaled to an integer by 10^pow10; `finest` names the integer unit for messages.
    bool scaledAt(std::size_t i, int pow10, const std::string& unit, const char* finest, bool allowZero,
                  uint64_t& out) {
        const std::string expected =
            std::string(allowZero ? "a number >= 0" : "a number > 0") + " (" + unit +
            (pow10 > 0 ? std::string(", down to ") + finest + ")" : std::string(")"));
        uint64_t v = 0;
        const NumberStatus status = parseScaledDecimal(m_entry->tokens[i], pow10, false, v);
        if (status != NumberStatus::Ok) {
            return badValue(i,
                            status == NumberStatus::NotWhole ? std::string("is finer than ") + finest
                                                             : describeNumberStatus(status),
                            expected);
        }
        if (v == 0 && !allowZero) {
            return badValue(i, "is zero", expected);
        }
        out = v;
        return true;
    }

    // A time in `unit` converted to ns by 10^pow10 (9 for s, 3 for µs, 0 for ns).
    bool durationAt(std::size_t i, int pow10, const std::string& unit, bool allowZero, uint64_t& out) {
        return scaledAt(i, pow10, unit, "1 ns", allowZero, out);
    }

    // ECN thresholds: KB of 1000 B, as bytes.
    bool kilobytesAt(std::size_t i, uint64_t& out) {
        return scaledAt(i, 3, "KB of 1000 B", "1 byte", true, out);
    }

    bool duration(int pow10, const char* unit, bool allowZero, uint64_t& out) {
        return values(1, std::string("one value (") + unit + ")") &&
               durationAt(0, pow10, unit, allowZero, out);
    }

    // KMAX_MAP / KMIN_MAP / PMAX_MAP: "n rate1 v1 ... raten vn". Committed only when the whole line is valid.
    template <typename V, typename ReadValue>
    void rateMap(std::map<uint64_t, V>& out, const char* valueForm, ReadValue readValue) {
        const std::string form = std::string("'n rate1 ") + valueForm + "1 ... raten " + valueForm + "n'";
        const std::vector<std::string>& t = m_entry->tokens;
        uint64_t n = 0;
        if (t.empty()) {
            fail("missing value; expected " + form);
            return;
        }
        if (!integerAt(0, "a pair count >= 1, then the pairs: " + form, 1, 1u << 20, n)) {
            return;
        }
        if (t.size() != 1 + 2 * n) {
            fail("the count " + std::to_string(n) + " announces " + std::to_string(2 * n) +
                 " values after it, found " + std::to_string(t.size() - 1) + "; expected " + form);
            return;
        }
        std::map<uint64_t, V> result;
        bool ok = true;
        for (uint64_t p = 0; p < n; ++p) {
            uint64_t rateBps = 0;
            V value{};
            if (!rateAt(1 + 2 * p, rateBps) || !readValue(2 + 2 * p, value)) {
                ok = false;
                continue;
            }
            if (!result.emplace(rateBps, value).second) {
                badValue(1 + 2 * p, "repeats a rate", "each link rate once");
                ok = false;
            }
        }
        if (ok) {
            out = std::move(result);
        }
    }

    // Accepted on purpose without effect; warns with the reason.
    void ignored(const std::string& why) {
        m_diag.warning(atLine(m_path, m_entry->line) + ": key '" + m_entry->key + "' ignored: " + why);
    }

    bool fail(const std::string& what) {
        m_diag.error(atLine(m_path, m_entry->line) + ": key '" + m_entry->key + "': " + what);
        return false;
    }

    const Entry& entry() const { return *m_entry; }
    Diagnostics& diag() { return m_diag; }
    const std::string& file() const { return m_path; }

private:
    bool badValue(std::size_t i, const std::string& problem, const std::string& expected) {
        const std::string which =
            m_entry->tokens.size() > 1 ? "value " + std::to_string(i + 1) + " '" : std::string("value '");
        return fail(which + m_entry->tokens[i] + "' " + problem + "; expected " + expected);
    }

    const std::string& m_path;
    HpccConfig& m_config;
    Diagnostics& m_diag;
    const Entry* m_entry = nullptr;
    bool m_booleanAllowed = false;
};

const KeySpec* findKey(const std::string& key);
const CcKey* findCcKey(const std::string& key);
// " (did you mean 'KEY'?)" for a near miss, else "".
std::string suggestion(const std::string& key);
// A congestion-control key: read as its form says, kept as a number in the parameter's unit.
void readCcKey(Builder& b, const CcKey& k, HpccConfig& c);

}  // namespace mlnet::roce::config_detail

#endif
