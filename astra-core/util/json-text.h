// Parsing a configuration file that must be one JSON object, with the checks nlohmann does not make for us:
// a syntax error is reported with its line; a repeated key in any object (which nlohmann silently collapses
// to the last value) is an error naming the line of the repeat; values nested deeper than kMaxJsonDepth are
// refused while parsing (printing or destroying such a value recurses once per level and can overflow the
// stack).
#ifndef MLNET_UTIL_JSON_TEXT_H
#define MLNET_UTIL_JSON_TEXT_H

#include <nlohmann/json.hpp>

#include <string>

#include "diagnostics.h"

namespace mlnet {

constexpr int kMaxJsonDepth = 64;

// Parses `text` (read from `path`) into the object `doc`. Reports "<path>: line N: malformed JSON: ...",
// "<path>: expected <expectedObject>" when the document is not an object, every repeated key (named by its
// path, "topology.k") and a value nested deeper than kMaxJsonDepth; returns false after any of them.
bool parseJsonObject(const std::string& text, const std::string& path, const std::string& expectedObject,
                     nlohmann::json& doc, Diagnostics& diag);

// A value as messages show it: its JSON text, cut to 80 characters.
std::string briefJson(const nlohmann::json& value);

// The 1-based line of the `occurrence`-th `"key":` in `text`, or 0 when there is none. nlohmann's parser
// keeps no positions, so a key is found textually as the quoted name followed by a colon.
int lineOfJsonKey(const std::string& text, const std::string& key, int occurrence = 1);

}  // namespace mlnet

#endif
