// Writing result files so that they appear whole or not at all: a temporary file in the target's directory,
// flushed, then renamed over the target. A run that fails half way never leaves a truncated file that looks
// complete.
#ifndef MLNET_UTIL_ATOMIC_FILE_H
#define MLNET_UTIL_ATOMIC_FILE_H

#include <string>
#include <string_view>

#include "diagnostics.h"

namespace mlnet {

// A file that appears at its final path only when commit() succeeds; otherwise the temporary is removed.
// Errors go to diag, naming the path and the system's reason.
class AtomicFile {
public:
    AtomicFile(const std::string& path, Diagnostics& diag);
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;
    ~AtomicFile();

    bool ok() const { return m_fd >= 0 && !m_failed; }
    bool write(std::string_view bytes);
    bool commit();

private:
    bool fail(const std::string& what);

    std::string m_path;
    std::string m_tmpPath;
    Diagnostics& m_diag;
    int m_fd = -1;
    bool m_created = false;
    bool m_failed = false;
    bool m_committed = false;
};

// The whole of `bytes` through an AtomicFile; false (reported) on failure, leaving `path` untouched.
bool writeFileAtomically(const std::string& path, const std::string& bytes, Diagnostics& diag);

}  // namespace mlnet

#endif
