// Whitespace-separated text files (topology and flow files): the non-empty lines as tokens that view into the
// file's text, with their 1-based line numbers for messages. Flow files reach hundreds of thousands of lines,
// so no per-token strings are made.
#ifndef MLNET_UTIL_TEXT_LINES_H
#define MLNET_UTIL_TEXT_LINES_H

#include <string>
#include <string_view>
#include <vector>

namespace mlnet {

struct TextLine {
    int number;
    std::vector<std::string_view> tokens;
};

// `text` must outlive the result.
std::vector<TextLine> tokenizeLines(const std::string& text);

// "'token'", for messages.
inline std::string quoted(std::string_view token) {
    return "'" + std::string(token) + "'";
}

}  // namespace mlnet

#endif
