#include "diagnostics.h"

#include <fstream>
#include <sstream>

namespace mlnet {

void Diagnostics::add(Severity severity, std::string text) {
    std::size_t& count = severity == Severity::Error ? m_errorCount : m_warningCount;
    if (count < m_maxKept) {
        m_kept.push_back({severity, std::move(text)});
    }
    ++count;
}

std::string Diagnostics::format(Severity severity) const {
    std::string out;
    const char* label = severity == Severity::Error ? "error: " : "warning: ";
    for (const auto& d : m_kept) {
        if (d.severity == severity) {
            out += label;
            out += d.text;
            out += '\n';
        }
    }
    std::size_t total = severity == Severity::Error ? m_errorCount : m_warningCount;
    if (total > m_maxKept) {
        out += label;
        out += "... and " + std::to_string(total - m_maxKept) + " more\n";
    }
    return out;
}

std::string Diagnostics::firstError() const {
    for (const auto& d : m_kept) {
        if (d.severity == Severity::Error) {
            return d.text;
        }
    }
    return {};
}

std::string atOffset(const std::string& file, uint64_t byteOffset) {
    return file + ": byte offset " + std::to_string(byteOffset);
}

std::string atNode(const std::string& file, uint64_t nodeId) {
    return file + ": node " + std::to_string(nodeId);
}

std::string atAttribute(const std::string& file, uint64_t nodeId, const std::string& attribute) {
    return atNode(file, nodeId) + ": attribute '" + attribute + "'";
}

std::string atLine(const std::string& file, int line) {
    return line > 0 ? file + ": line " + std::to_string(line) : file;
}

bool readTextFile(const std::string& path, std::string& text, Diagnostics& diag, const char* what) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        diag.error(path + ": cannot open " + what);
        return false;
    }
    std::ostringstream buffer;
    buffer << in.rdbuf();
    if (in.bad()) {
        diag.error(path + ": cannot read " + what);
        return false;
    }
    text = buffer.str();
    return true;
}

}  // namespace mlnet
