#include "diagnostics.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
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
    if (!checkReadableFile(path, diag, what)) {
        return false;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        diag.error(path + ": cannot open " + what + " (" + std::strerror(errno) + ")");
        return false;
    }
    std::ostringstream buffer;
    buffer << in.rdbuf();
    if (in.bad()) {
        diag.error(path + ": cannot read " + what + " (" + std::strerror(errno) + ")");
        return false;
    }
    text = buffer.str();
    // Editors on some systems start UTF-8 text with a byte-order mark; it carries no content, and left in
    // place it would make the first key unknown.
    static constexpr char kUtf8Bom[] = "\xEF\xBB\xBF";
    if (text.compare(0, 3, kUtf8Bom) == 0) {
        text.erase(0, 3);
    }
    return true;
}

bool checkReadableFile(const std::string& path, Diagnostics& diag, const char* what) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        diag.error(path + ": cannot open " + what + " (" + std::strerror(errno) + ")");
        return false;
    }
    if (S_ISDIR(st.st_mode)) {
        diag.error(path + ": is a directory; the " + what + " must be a file");
        return false;
    }
    return true;
}

}  // namespace mlnet
