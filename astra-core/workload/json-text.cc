#include "json-text.h"

#include <algorithm>
#include <set>

namespace mlnet {

bool parseJsonText(const std::string& text, const std::string& path, nlohmann::json& doc,
                   std::vector<std::string>& repeatedKeys, Diagnostics& diag) {
    using nlohmann::json;
    std::set<std::string> seen;
    auto onEvent = [&](int depth, json::parse_event_t event, json& parsed) {
        if (event == json::parse_event_t::key && depth == 1 &&
            !seen.insert(parsed.get<std::string>()).second) {
            repeatedKeys.push_back(parsed.get<std::string>());
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
    }
    return true;
}

}  // namespace mlnet
