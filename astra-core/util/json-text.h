// Parsing a configuration file that must be one JSON object, with the checks nlohmann does not make for us:
// a syntax error is reported with its line, and a repeated top-level key (which nlohmann silently collapses
// to the last value) is an error naming the line of the repeat.
#ifndef MLNET_UTIL_JSON_TEXT_H
#define MLNET_UTIL_JSON_TEXT_H

#include <nlohmann/json.hpp>

#include <string>

#include "diagnostics.h"

namespace mlnet {

// Parses `text` (read from `path`) into the object `doc`. Reports "<path>: line N: malformed JSON: ...",
// "<path>: expected <expectedObject>" when the document is not an object, and every repeated top-level key;
// returns false after any of them.
bool parseJsonObject(const std::string& text, const std::string& path, const std::string& expectedObject,
                     nlohmann::json& doc, Diagnostics& diag);

// The 1-based line of the `occurrence`-th `"key":` in `text`, or 0 when there is none. nlohmann's parser
// keeps no positions, so a key is found textually as the quoted name followed by a colon.
int lineOfJsonKey(const std::string& text, const std::string& key, int occurrence = 1);

}  // namespace mlnet

#endif
