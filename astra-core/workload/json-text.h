// Parsing configuration JSON with the two checks nlohmann does not make for us: a syntax error is reported
// with its line, and repeated top-level keys (which nlohmann silently collapses to the last) are listed.
#ifndef MLNET_WORKLOAD_JSON_TEXT_H
#define MLNET_WORKLOAD_JSON_TEXT_H

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "diagnostics.h"

namespace mlnet {

// Parses `text` (read from `path`) into `doc`. On a syntax error reports "<path>: line N: malformed JSON:
// ..." and returns false. Keys that appear more than once in the top-level object are appended to
// `repeatedKeys`.
bool parseJsonText(const std::string& text, const std::string& path, nlohmann::json& doc,
                   std::vector<std::string>& repeatedKeys, Diagnostics& diag);

}  // namespace mlnet

#endif
