#include "json-section.h"

#include <algorithm>

#include "json-text.h"
#include "units.h"

namespace mlnet {

namespace {

// Levenshtein distance, or `limit` as soon as it cannot be below it (no row entry under the limit).
std::size_t editDistance(const std::string& a, const std::string& b, std::size_t limit) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) {
        row[j] = j;
    }
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        std::size_t rowMin = row[0];
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t above = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = above;
            rowMin = std::min(rowMin, row[j]);
        }
        if (rowMin >= limit) {
            return limit;
        }
    }
    return std::min(row[b.size()], limit);
}

}  // namespace

std::string nearestKey(const std::string& key, const std::vector<std::string>& known) {
    std::string best;
    std::size_t bestDistance = std::max<std::size_t>(2, key.size() / 3) + 1;
    for (const std::string& k : known) {
        // The distance is at least the length difference: a long typo is not compared cell by cell with every
        // key.
        const std::size_t lengthDifference =
            key.size() > k.size() ? key.size() - k.size() : k.size() - key.size();
        if (lengthDifference >= bestDistance) {
            continue;
        }
        const std::size_t d = editDistance(key, k, bestDistance);
        if (d < bestDistance) {
            bestDistance = d;
            best = k;
        }
    }
    return best;
}

JsonSection::JsonSection(const nlohmann::json& object, const std::string& path, const std::string& text,
                         std::string prefix, Diagnostics& diag)
    : m_object(object), m_path(path), m_text(text), m_prefix(std::move(prefix)), m_diag(diag) {}

void JsonSection::error(const std::string& key, const std::string& what) {
    m_diag.error(atLine(m_path, lineOfJsonKey(m_text, key)) + ": key '" + keyPath(key) + "': " + what);
    m_ok = false;
}

void JsonSection::wrongType(const std::string& key, const nlohmann::json& v, const std::string& expected) {
    error(key, briefJson(v) + " is not " + expected);
}

const nlohmann::json* JsonSection::get(const std::string& key) {
    m_known.insert(key);
    auto it = m_object.find(key);
    return it == m_object.end() ? nullptr : &*it;
}

const nlohmann::json* JsonSection::value(const std::string& key) {
    return get(key);
}

std::optional<uint64_t> JsonSection::count(const std::string& key, uint64_t min, uint64_t max) {
    const nlohmann::json* v = get(key);
    if (!v) {
        return std::nullopt;
    }
    if (!v->is_number_integer() ||
        (v->is_number_integer() && !v->is_number_unsigned() && v->get<int64_t>() < 0)) {
        wrongType(key, *v, "a whole number >= " + std::to_string(min));
        return std::nullopt;
    }
    const uint64_t n = v->get<uint64_t>();
    if (n < min || n > max) {
        error(key, std::to_string(n) + " is outside " + std::to_string(min) + ".." + std::to_string(max));
        return std::nullopt;
    }
    return n;
}

uint64_t JsonSection::count(const std::string& key, uint64_t fallback, uint64_t min, uint64_t max) {
    return count(key, min, max).value_or(fallback);
}

std::optional<double> JsonSection::real(const std::string& key, double min, double max) {
    const nlohmann::json* v = get(key);
    if (!v) {
        return std::nullopt;
    }
    if (!v->is_number()) {
        wrongType(key, *v, "a number");
        return std::nullopt;
    }
    const double x = v->get<double>();
    if (!(x >= min && x <= max)) {
        error(key, briefJson(*v) + " is outside " + nlohmann::json(min).dump() + ".." +
                       nlohmann::json(max).dump());
        return std::nullopt;
    }
    return x;
}

std::optional<bool> JsonSection::boolean(const std::string& key) {
    const nlohmann::json* v = get(key);
    if (!v) {
        return std::nullopt;
    }
    if (!v->is_boolean()) {
        wrongType(key, *v, "true or false");
        return std::nullopt;
    }
    return v->get<bool>();
}

std::optional<std::string> JsonSection::string(const std::string& key) {
    const nlohmann::json* v = get(key);
    if (!v) {
        return std::nullopt;
    }
    if (!v->is_string() || v->get_ref<const std::string&>().empty()) {
        wrongType(key, *v, "a non-empty string");
        return std::nullopt;
    }
    return v->get<std::string>();
}

namespace {

template <typename Parse>
std::optional<uint64_t> withUnit(JsonSection& s, const std::string& key, const nlohmann::json* v, Parse parse,
                                 const char* example) {
    if (!v) {
        return std::nullopt;
    }
    if (!v->is_string()) {
        s.error(key, briefJson(*v) + " has no unit; expected a string such as \"" + example + "\"");
        return std::nullopt;
    }
    uint64_t out = 0;
    const NumberStatus status = parse(v->get_ref<const std::string&>(), out);
    if (status != NumberStatus::Ok) {
        s.error(key, briefJson(*v) + " " + describeNumberStatus(status) + "; expected a value such as \"" +
                         example + "\"");
        return std::nullopt;
    }
    return out;
}

}  // namespace

std::optional<uint64_t> JsonSection::rateBps(const std::string& key) {
    auto r = withUnit(
        *this, key, get(key), [](std::string_view t, uint64_t& b) { return parseDataRateBps(t, b); },
        "100Gbps");
    if (r && *r == 0) {
        error(key, "a rate of 0; expected a rate > 0");
        return std::nullopt;
    }
    return r;
}

std::optional<uint64_t> JsonSection::timePs(const std::string& key) {
    return withUnit(*this, key, get(key), parseTimePs, "1us");
}

std::optional<uint64_t> JsonSection::sizeBytes(const std::string& key) {
    return withUnit(
        *this, key, get(key), [](std::string_view t, uint64_t& b) { return parseByteSize(t, b, false); },
        "32MB");
}

std::optional<JsonSection> JsonSection::section(const std::string& key) {
    const nlohmann::json* v = get(key);
    if (!v) {
        return std::nullopt;
    }
    if (!v->is_object()) {
        wrongType(key, *v, "an object");
        return std::nullopt;
    }
    return JsonSection(*v, m_path, m_text, keyPath(key), m_diag);
}

bool JsonSection::finish() {
    std::vector<std::string> known(m_known.begin(), m_known.end());
    for (const auto& [key, v] : m_object.items()) {
        if (m_known.count(key)) {
            continue;
        }
        const std::string hint = nearestKey(key, known);
        std::string expected;
        for (const std::string& k : known) {
            expected += (expected.empty() ? "" : ", ") + k;
        }
        error(key, "unknown key" + (hint.empty() ? "" : "; did you mean '" + hint + "'?") +
                       " (known here: " + expected + ")");
    }
    return m_ok;
}

}  // namespace mlnet
