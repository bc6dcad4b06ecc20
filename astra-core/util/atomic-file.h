// Writing result files so that they appear whole or not at all: a temporary file in the target's directory,
// flushed, then renamed over the target. A run that fails half way never leaves a truncated file that looks
// complete, and a run stopped by SIGTERM, SIGINT or SIGHUP leaves no temporary file behind either (a handler
// removes every live one, then lets the signal end the process as it would have).
//
// What is at the path is respected: a symbolic link is followed (the file it names is replaced, the link
// stays); a FIFO or a character device (/dev/null, /dev/stdout, a pipe) is written directly, as there is
// nothing to rename; a directory or any other special file is refused with an error.
#ifndef MLNET_UTIL_ATOMIC_FILE_H
#define MLNET_UTIL_ATOMIC_FILE_H

#include <string>
#include <string_view>
#include <vector>

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
    bool fail(const std::string& what, bool withErrno = true);

    std::string m_path;     // as given, for messages
    std::string m_target;   // what is replaced: the path, or the file a symbolic link names
    std::string m_tmpPath;  // empty when writing straight to a FIFO or device
    Diagnostics& m_diag;
    int m_fd = -1;
    bool m_failed = false;
    bool m_committed = false;
};

// The whole of `bytes` through an AtomicFile; false (reported) on failure, leaving `path` untouched.
bool writeFileAtomically(const std::string& path, const std::string& bytes, Diagnostics& diag);

// Many files that must appear together (a trace set): each is written to its temporary and closed by add(),
// and commit() renames them all with the termination signals held back, so a signal either removes every
// temporary or finds every file in place. Destroyed without commit, it removes the temporaries.
class AtomicFileSet {
public:
    explicit AtomicFileSet(Diagnostics& diag) : m_diag(diag) {}
    AtomicFileSet(const AtomicFileSet&) = delete;
    AtomicFileSet& operator=(const AtomicFileSet&) = delete;
    ~AtomicFileSet();

    bool add(const std::string& path, std::string_view bytes);
    bool commit();

private:
    struct Pending {
        std::string target, tmpPath;
    };
    Diagnostics& m_diag;
    std::vector<Pending> m_pending;
    bool m_failed = false;
};

// Checks before a long run that `path` can be written: its directory exists and takes new files, and it is
// not a directory or another special file that AtomicFile refuses. False (reported, naming `what` and the
// path) otherwise; nothing is created.
bool checkOutputPath(const std::string& path, const std::string& what, Diagnostics& diag);

// A file a tool reads or writes, and what it is to the tool ("fct.txt output", "system configuration").
struct NamedPath {
    std::string path;
    std::string what;
};

// Refuses (reported, false) an output that is the same file as another output or as an input: a capture over
// fct.txt, an output over its own configuration. Paths are compared by the file they name (relative paths,
// "..", symbolic links and hard links resolved); streams (/dev/null, FIFOs) and empty paths are skipped.
bool checkDistinctPaths(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs,
                        Diagnostics& diag);

}  // namespace mlnet

#endif
