#include "text-lines.h"

#include <algorithm>

namespace mlnet {

namespace {

bool isSpace(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

}  // namespace

std::vector<TextLine> tokenizeLines(const std::string& text) {
    std::vector<TextLine> lines;
    std::size_t pos = 0;
    for (int number = 1; pos < text.size(); ++number) {
        const std::size_t end = std::min(text.find('\n', pos), text.size());
        TextLine line{number, {}};
        for (std::size_t i = pos; i < end;) {
            while (i < end && isSpace(text[i])) {
                ++i;
            }
            const std::size_t start = i;
            while (i < end && !isSpace(text[i])) {
                ++i;
            }
            if (i > start) {
                line.tokens.emplace_back(text.data() + start, i - start);
            }
        }
        if (!line.tokens.empty()) {
            lines.push_back(std::move(line));
        }
        pos = end + 1;
    }
    return lines;
}

}  // namespace mlnet
