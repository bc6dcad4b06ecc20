#include "json-text.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
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

namespace {

// At most `limit` characters of `value`'s JSON text, nested values beyond a few levels shown as [...] or
// {...}: a message never walks (or prints) a whole deep or large value.
void appendBrief(const nlohmann::json& value, int depth, std::size_t limit, std::string& out) {
    if (!value.is_structured()) {
        out += value.dump();
        return;
    }
    const bool array = value.is_array();
    if (depth >= 4 && !value.empty()) {
        out += array ? "[...]" : "{...}";
        return;
    }
    out += array ? '[' : '{';
    for (auto it = value.begin(); it != value.end() && out.size() <= limit; ++it) {
        out += it == value.begin() ? "" : ", ";
        if (!array) {
            out += nlohmann::json(it.key()).dump() + ": ";
        }
        appendBrief(*it, depth + 1, limit, out);
    }
    out += array ? ']' : '}';
}

}  // namespace

std::string briefJson(const nlohmann::json& value) {
    constexpr std::size_t kMaxChars = 80;
    std::string text;
    appendBrief(value, 0, kMaxChars, text);
    if (text.size() > kMaxChars) {
        text = text.substr(0, kMaxChars - 3) + "...";
    }
    return text;
}

namespace {

// Thrown from the parser's callback to stop at the first value nested too deep.
struct TooDeep {};

// nlohmann's message quotes the last token read, which may be a 200,000-digit number.
std::string cut(const char* what) {
    std::string text = what;
    constexpr std::size_t kMaxChars = 300;
    return text.size() > kMaxChars ? text.substr(0, kMaxChars - 3) + "..." : text;
}

}  // namespace

bool parseJsonObject(const std::string& text, const std::string& path, const std::string& expectedObject,
                     nlohmann::json& doc, Diagnostics& diag) {
    using nlohmann::json;
    // One frame per open object or array: the keys an object has had so far, and where it is
    // ("topology.nic").
    struct Frame {
        std::string where;
        std::set<std::string> keys;
        std::string lastKey;
        bool object = false;
    };
    std::vector<Frame> open;
    std::map<std::string, int> timesSeen;  // every key by name, for the line of a repeat
    struct Repeat {
        std::string where, key;
        int occurrence;
    };
    std::vector<Repeat> repeats;
    auto onEvent = [&](int depth, json::parse_event_t event, json& parsed) {
        switch (event) {
            case json::parse_event_t::object_start:
            case json::parse_event_t::array_start: {
                if (depth >= kMaxJsonDepth) {
                    throw TooDeep{};
                }
                Frame f;
                if (!open.empty()) {
                    const Frame& parent = open.back();
                    f.where = parent.object
                                  ? (parent.where.empty() ? "" : parent.where + ".") + parent.lastKey
                                  : parent.where + "[]";
                }
                f.object = event == json::parse_event_t::object_start;
                open.push_back(std::move(f));
                break;
            }
            case json::parse_event_t::object_end:
            case json::parse_event_t::array_end:
                if (!open.empty()) {
                    open.pop_back();
                }
                break;
            case json::parse_event_t::key: {
                const std::string& key = parsed.get_ref<const std::string&>();
                const int seen = ++timesSeen[key];
                if (!open.empty()) {
                    Frame& f = open.back();
                    if (!f.keys.insert(key).second) {
                        repeats.push_back({f.where, key, seen});
                    }
                    f.lastKey = key;
                }
                break;
            }
            default:
                break;
        }
        return true;
    };
    try {
        doc = json::parse(text, onEvent);
    } catch (const TooDeep&) {
        diag.error(path + ": malformed JSON: values are nested more than " + std::to_string(kMaxJsonDepth) +
                   " levels deep; expected a configuration nested a few levels");
        return false;
    } catch (const json::parse_error& e) {
        const std::size_t end = std::min<std::size_t>(e.byte, text.size());
        const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + end, '\n'));
        diag.error(atLine(path, line) + ": malformed JSON: " + cut(e.what()));
        return false;
    } catch (const json::exception& e) {
        // e.g. a number too large for any JSON number type (out_of_range), which has no byte position
        diag.error(path + ": malformed JSON: " + cut(e.what()));
        return false;
    }
    if (!doc.is_object()) {
        diag.error(path + ": expected " + expectedObject);
        return false;
    }
    for (const Repeat& r : repeats) {
        const std::string name = r.where.empty() ? r.key : r.where + "." + r.key;
        diag.error(atLine(path, lineOfJsonKey(text, r.key, r.occurrence)) + ": key '" + name +
                   "' appears more than once; expected each key once");
    }
    return repeats.empty();
}

}  // namespace mlnet
