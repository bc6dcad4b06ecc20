#include "json-text.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <utility>
#include <vector>

namespace mlnet {

int lineOfJsonKey(const std::string& text, const std::string& key, int occurrence) {
    const std::string quoted = "\"" + key + "\"";
    for (std::size_t pos = text.find(quoted); pos != std::string::npos; pos = text.find(quoted, pos + 1)) {
        std::size_t after = pos + quoted.size();
        while (after < text.size() && std::isspace(static_cast<unsigned char>(text[after]))) {
            ++after;
        }
        if (after < text.size() && text[after] == ':' && --occurrence == 0) {
            return 1 + static_cast<int>(std::count(text.begin(), text.begin() + pos, '\n'));
        }
    }
    return 0;
}

bool parseJsonObject(const std::string& text, const std::string& path, const std::string& expectedObject,
                     nlohmann::json& doc, Diagnostics& diag) {
    using nlohmann::json;
    std::map<std::string, int> timesSeen;
    std::vector<std::pair<std::string, int>> repeats;  // key, occurrence, in document order
    auto onEvent = [&](int depth, json::parse_event_t event, json& parsed) {
        if (event == json::parse_event_t::key && depth == 1) {
            const std::string& key = parsed.get_ref<const std::string&>();
            if (const int seen = ++timesSeen[key]; seen > 1) {
                repeats.emplace_back(key, seen);
            }
        }
        return true;
    };
    try {
        doc = json::parse(text, onEvent);
    } catch (const json::parse_error& e) {
        const std::size_t end = std::min<std::size_t>(e.byte, text.size());
        const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + end, '\n'));
        diag.error(atLine(path, line) + ": malformed JSON: " + e.what());
        return false;
    } catch (const json::exception& e) {
        // e.g. a number too large for any JSON number type (out_of_range), which has no byte position
        diag.error(path + ": malformed JSON: " + e.what());
        return false;
    }
    if (!doc.is_object()) {
        diag.error(path + ": expected " + expectedObject);
        return false;
    }
    for (const auto& [key, occurrence] : repeats) {
        diag.error(atLine(path, lineOfJsonKey(text, key, occurrence)) + ": key '" + key +
                   "' appears more than once; expected each key once");
    }
    return repeats.empty();
}

}  // namespace mlnet
