#include "atomic-file.h"

#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace mlnet {

namespace {

// --- Temporary files to remove when a termination signal arrives. Changed only with those signals blocked,
// so the handler never sees a half-made change; the handler itself only calls unlink, signal and raise.

constexpr int kSignals[] = {SIGTERM, SIGINT, SIGHUP};

struct Registry {
    char** paths = nullptr;
    std::size_t count = 0, capacity = 0;
};
Registry g_registry;

void removeTemporariesAndDie(int sig) {
    for (std::size_t i = 0; i < g_registry.count; ++i) {
        ::unlink(g_registry.paths[i]);
    }
    ::signal(sig, SIG_DFL);
    ::raise(sig);
}

class SignalsHeld {
public:
    SignalsHeld() {
        sigset_t set;
        sigemptyset(&set);
        for (int s : kSignals) {
            sigaddset(&set, s);
        }
        pthread_sigmask(SIG_BLOCK, &set, &m_old);
    }
    ~SignalsHeld() { pthread_sigmask(SIG_SETMASK, &m_old, nullptr); }

private:
    sigset_t m_old;
};

void installHandlers() {
    static bool installed = false;
    if (installed) {
        return;
    }
    installed = true;
    for (int s : kSignals) {
        struct sigaction current {};
        // A tool's own handler or an inherited "ignore" is left alone.
        if (::sigaction(s, nullptr, &current) == 0 && current.sa_handler == SIG_DFL) {
            struct sigaction action {};
            action.sa_handler = removeTemporariesAndDie;
            sigemptyset(&action.sa_mask);
            ::sigaction(s, &action, nullptr);
        }
    }
}

void registerTemporary(const std::string& path) {
    SignalsHeld held;
    installHandlers();
    if (g_registry.count == g_registry.capacity) {
        const std::size_t capacity = g_registry.capacity ? 2 * g_registry.capacity : 16;
        void* grown = std::realloc(g_registry.paths, capacity * sizeof(char*));
        if (!grown) {
            return;  // out of memory: the file is still removed on every other path
        }
        g_registry.paths = static_cast<char**>(grown);
        g_registry.capacity = capacity;
    }
    g_registry.paths[g_registry.count++] = ::strdup(path.c_str());
}

// Searched from the newest: files are usually finished in the reverse order of their creation.
void unregisterTemporary(const std::string& path) {
    SignalsHeld held;
    for (std::size_t i = g_registry.count; i-- > 0;) {
        if (g_registry.paths[i] && path == g_registry.paths[i]) {
            std::free(g_registry.paths[i]);
            g_registry.paths[i] = g_registry.paths[--g_registry.count];
            return;
        }
    }
}

std::string tmpNameFor(const std::string& target) {
    static std::atomic<uint64_t> counter{0};
    return target + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
}

std::string directoryOf(const std::string& path) {
    const std::size_t slash = path.rfind('/');
    return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

enum class TargetKind { File, Stream, Refused };

// What writing `path` means: the file it names after following symbolic links (created if absent), a FIFO or
// character device to write directly, or something refused (`why` says what it is).
TargetKind resolveTarget(const std::string& path, std::string& target, std::string& why) {
    target = path;
    struct stat st {};
    for (int links = 0; ::lstat(target.c_str(), &st) == 0 && S_ISLNK(st.st_mode); ++links) {
        if (links == 40) {
            why = "is a loop of symbolic links";
            return TargetKind::Refused;
        }
        char buffer[PATH_MAX];
        const ssize_t n = ::readlink(target.c_str(), buffer, sizeof buffer);
        if (n <= 0 || static_cast<std::size_t>(n) >= sizeof buffer) {
            why = "is a symbolic link that cannot be read";
            return TargetKind::Refused;
        }
        const std::string link(buffer, static_cast<std::size_t>(n));
        target = link[0] == '/' ? link : directoryOf(target) + "/" + link;
    }
    if (::lstat(target.c_str(), &st) != 0) {
        return TargetKind::File;  // a new file (also where a dangling link points)
    }
    if (S_ISREG(st.st_mode)) {
        return TargetKind::File;
    }
    if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) {
        return TargetKind::Stream;
    }
    why = S_ISDIR(st.st_mode) ? "is a directory"
                              : "is a special file (not a regular file, FIFO or character device)";
    return TargetKind::Refused;
}

bool writeAll(int fd, std::string_view bytes) {
    while (!bytes.empty()) {
        const ssize_t n = ::write(fd, bytes.data(), bytes.size());
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return false;
        }
        bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
}

}  // namespace

AtomicFile::AtomicFile(const std::string& path, Diagnostics& diag) : m_path(path), m_diag(diag) {
    std::string why;
    switch (resolveTarget(path, m_target, why)) {
        case TargetKind::Refused:
            fail(why + "; expected a file to write", false);
            return;
        case TargetKind::Stream:
            m_fd = ::open(m_target.c_str(), O_WRONLY | O_CLOEXEC);
            if (m_fd < 0) {
                fail("cannot open it for writing");
            }
            return;
        case TargetKind::File:
            break;
    }
    m_tmpPath = tmpNameFor(m_target);
    registerTemporary(m_tmpPath);
    m_fd = ::open(m_tmpPath.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (m_fd < 0) {
        const std::string tmp = m_tmpPath;
        unregisterTemporary(tmp);
        m_tmpPath.clear();
        fail("cannot create the temporary file '" + tmp + "'");
    }
}

AtomicFile::~AtomicFile() {
    if (m_fd >= 0) {
        ::close(m_fd);
    }
    if (!m_tmpPath.empty() && !m_committed) {
        ::unlink(m_tmpPath.c_str());
        unregisterTemporary(m_tmpPath);
    }
}

bool AtomicFile::write(std::string_view bytes) {
    if (ok() && !writeAll(m_fd, bytes)) {
        return fail("cannot write");
    }
    return ok();
}

bool AtomicFile::commit() {
    if (!ok()) {
        return false;
    }
    // fsync before rename: otherwise a crash can leave the new name pointing at an empty file.
    if (!m_tmpPath.empty() && ::fsync(m_fd) != 0) {
        return fail("cannot flush");
    }
    const int fd = m_fd;
    m_fd = -1;
    if (::close(fd) != 0) {
        return fail("cannot close");
    }
    if (!m_tmpPath.empty()) {
        if (::rename(m_tmpPath.c_str(), m_target.c_str()) != 0) {
            return fail("cannot rename '" + m_tmpPath + "' to it");
        }
        unregisterTemporary(m_tmpPath);
    }
    m_committed = true;
    return true;
}

bool AtomicFile::fail(const std::string& what, bool withErrno) {
    m_diag.error(m_path + ": " + what + (withErrno ? std::string(": ") + std::strerror(errno) : ""));
    m_failed = true;
    return false;
}

bool writeFileAtomically(const std::string& path, const std::string& bytes, Diagnostics& diag) {
    AtomicFile file(path, diag);
    return file.write(bytes) && file.commit();
}

AtomicFileSet::~AtomicFileSet() {
    for (auto it = m_pending.rbegin(); it != m_pending.rend(); ++it) {
        ::unlink(it->tmpPath.c_str());
        unregisterTemporary(it->tmpPath);
    }
}

bool AtomicFileSet::add(const std::string& path, std::string_view bytes) {
    if (m_failed) {
        return false;
    }
    std::string target, why;
    if (resolveTarget(path, target, why) != TargetKind::File) {
        m_diag.error(path + ": " + (why.empty() ? std::string("is a FIFO or device") : why) +
                     "; expected a file of the set");
        m_failed = true;
        return false;
    }
    const std::string tmp = tmpNameFor(target);
    registerTemporary(tmp);
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    const bool written = fd >= 0 && writeAll(fd, bytes);
    const int savedErrno = errno;
    const bool closed = fd >= 0 && ::close(fd) == 0;
    if (!written || !closed) {
        ::unlink(tmp.c_str());
        unregisterTemporary(tmp);
        m_diag.error(path + ": cannot write '" + tmp + "': " + std::strerror(written ? errno : savedErrno));
        m_failed = true;
        return false;
    }
    m_pending.push_back({target, tmp});
    return true;
}

bool AtomicFileSet::commit() {
    if (m_failed) {
        return false;
    }
    if (!m_pending.empty()) {
        // One flush of the file system instead of one per file, before any name changes.
        const int fd = ::open(m_pending.front().tmpPath.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
            ::syncfs(fd);
            ::close(fd);
        }
    }
    SignalsHeld held;
    bool ok = true;
    for (const Pending& p : m_pending) {
        if (::rename(p.tmpPath.c_str(), p.target.c_str()) != 0) {
            m_diag.error(p.target + ": cannot rename '" + p.tmpPath + "' to it: " + std::strerror(errno));
            ::unlink(p.tmpPath.c_str());
            ok = false;
        }
    }
    for (auto it = m_pending.rbegin(); it != m_pending.rend(); ++it) {
        unregisterTemporary(it->tmpPath);
    }
    m_pending.clear();
    m_failed = !ok;
    return ok;
}

bool checkOutputPath(const std::string& path, const std::string& what, Diagnostics& diag) {
    std::string target, why;
    switch (resolveTarget(path, target, why)) {
        case TargetKind::Refused:
            diag.error(path + ": " + what + " " + why + "; expected a file to write");
            return false;
        case TargetKind::Stream:
            return true;
        case TargetKind::File:
            break;
    }
    const std::string dir = directoryOf(target);
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
        diag.error(path + ": " + what + ": the directory '" + dir + "' does not exist");
        return false;
    }
    if (::access(dir.c_str(), W_OK | X_OK) != 0) {
        diag.error(path + ": " + what + ": cannot create files in '" + dir + "': " + std::strerror(errno));
        return false;
    }
    return true;
}

namespace {

// What identifies the file `path` names: (device, inode) when it exists, else its absolute, normalised path
// with the existing part's symbolic links resolved. Empty for streams and paths that cannot be resolved.
std::string fileIdentity(const std::string& path) {
    std::string target, why;
    if (path.empty() || resolveTarget(path, target, why) != TargetKind::File) {
        return "";
    }
    struct stat st {};
    if (::stat(target.c_str(), &st) == 0) {
        return "inode " + std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
    }
    std::error_code error;
    const std::filesystem::path resolved = std::filesystem::weakly_canonical(target, error);
    return error ? "" : "path " + resolved.string();
}

}  // namespace

bool checkDistinctPaths(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs,
                        Diagnostics& diag) {
    std::vector<std::pair<std::string, const NamedPath*>> seen;  // identity, whose
    bool ok = true;
    for (const NamedPath& in : inputs) {
        const std::string id = fileIdentity(in.path);
        if (!id.empty()) {
            seen.emplace_back(id, &in);
        }
    }
    const std::size_t inputCount = seen.size();
    for (const NamedPath& out : outputs) {
        const std::string id = fileIdentity(out.path);
        if (id.empty()) {
            continue;
        }
        const auto clash =
            std::find_if(seen.begin(), seen.end(), [&](const auto& s) { return s.first == id; });
        if (clash != seen.end()) {
            const bool input = clash - seen.begin() < static_cast<std::ptrdiff_t>(inputCount);
            diag.error(out.path + ": the " + out.what + " would " +
                       (input ? "overwrite" : "be the same file as") + " the " + clash->second->what + " (" +
                       clash->second->path + ")" + "; expected a path of its own");
            ok = false;
            continue;
        }
        seen.emplace_back(id, &out);
    }
    return ok;
}

}  // namespace mlnet
