#include "atomic-file.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace mlnet {

AtomicFile::AtomicFile(const std::string& path, Diagnostics& diag) : m_path(path), m_diag(diag) {
    static std::atomic<uint64_t> counter{0};
    m_tmpPath = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
    m_fd = ::open(m_tmpPath.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    m_created = m_fd >= 0;
    if (!m_created) {
        fail("cannot create the temporary file '" + m_tmpPath + "'");
    }
}

AtomicFile::~AtomicFile() {
    if (m_fd >= 0) {
        ::close(m_fd);
    }
    if (m_created && !m_committed) {
        ::unlink(m_tmpPath.c_str());
    }
}

bool AtomicFile::write(std::string_view bytes) {
    while (ok() && !bytes.empty()) {
        const ssize_t n = ::write(m_fd, bytes.data(), bytes.size());
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return fail("cannot write");
        }
        bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return ok();
}

bool AtomicFile::commit() {
    if (!ok()) {
        return false;
    }
    // fsync before rename: otherwise a crash can leave the new name pointing at an empty file.
    if (::fsync(m_fd) != 0) {
        return fail("cannot flush");
    }
    const int fd = m_fd;
    m_fd = -1;
    if (::close(fd) != 0) {
        return fail("cannot close");
    }
    if (::rename(m_tmpPath.c_str(), m_path.c_str()) != 0) {
        return fail("cannot rename '" + m_tmpPath + "' to it");
    }
    m_committed = true;
    return true;
}

bool AtomicFile::fail(const std::string& what) {
    m_diag.error(m_path + ": " + what + ": " + std::strerror(errno));
    m_failed = true;
    return false;
}

bool writeFileAtomically(const std::string& path, const std::string& bytes, Diagnostics& diag) {
    AtomicFile file(path, diag);
    return file.write(bytes) && file.commit();
}

}  // namespace mlnet
