// Collects the errors and warnings found while reading traces and configuration files. Every message names
// where the problem is (file, byte offset or node id, attribute) and what was expected, so a user can fix the
// input without a debugger.
#ifndef MLNET_UTIL_DIAGNOSTICS_H
#define MLNET_UTIL_DIAGNOSTICS_H

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace mlnet {

enum class Severity { Warning, Error };

struct Diagnostic {
    Severity severity;
    std::string text;  // "<where>: <what>"
};

class Diagnostics {
public:
    // Beyond this many of one severity only a count is kept, so a badly broken file cannot flood memory or
    // the terminal.
    explicit Diagnostics(std::size_t maxKeptPerSeverity = 100) : m_maxKept(maxKeptPerSeverity) {}

    void error(std::string text) { add(Severity::Error, std::move(text)); }
    void warning(std::string text) { add(Severity::Warning, std::move(text)); }
    // Whether the next error is kept in full (costly details, such as a "did you mean" search, are only worth
    // computing for a message that will be shown).
    bool keepsNextError() const { return m_errorCount < m_maxKept; }

    bool hasErrors() const { return m_errorCount > 0; }
    std::size_t errorCount() const { return m_errorCount; }
    std::size_t warningCount() const { return m_warningCount; }
    const std::vector<Diagnostic>& kept() const { return m_kept; }

    // All kept messages of one severity, one per line, with a final "... and N more" line when some were
    // dropped.
    std::string format(Severity severity) const;
    // The first error, for exceptions and tests.
    std::string firstError() const;

private:
    void add(Severity severity, std::string text);

    std::size_t m_maxKept;
    std::size_t m_errorCount = 0;
    std::size_t m_warningCount = 0;
    std::vector<Diagnostic> m_kept;
};

// Thrown by the convenience loaders when a trace set or configuration is invalid; what() holds every kept
// error.
class TraceError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Location prefixes used in messages.
std::string atOffset(const std::string& file, uint64_t byteOffset);
std::string atNode(const std::string& file, uint64_t nodeId);
std::string atAttribute(const std::string& file, uint64_t nodeId, const std::string& attribute);
// "<file>: line N", or just the file when the line is unknown (0).
std::string atLine(const std::string& file, int line);

// Reads a whole text file (a leading UTF-8 byte-order mark dropped); on failure reports "<path>: cannot
// open/read <what> (reason)" or "<path>: is a directory; ..." and returns false.
bool readTextFile(const std::string& path, std::string& text, Diagnostics& diag, const char* what);
// True when path exists and is not a directory; otherwise reports why, naming what the file should have been.
bool checkReadableFile(const std::string& path, Diagnostics& diag, const char* what);

}  // namespace mlnet

#endif
