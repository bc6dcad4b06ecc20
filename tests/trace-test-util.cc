#include "trace-test-util.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <vector>

#include <unistd.h>

namespace mlnet {

namespace {

// The directories this process made, removed at exit. A forked child (the signal tests) never removes
// them: they are its parent's, which still reads them.
class TempDirs {
public:
    void add(std::string dir) { m_dirs.push_back(std::move(dir)); }
    ~TempDirs() {
        if (::getpid() != m_owner || std::getenv("MLNET_KEEP_TEST_DIRS") != nullptr) {
            return;
        }
        for (const std::string& dir : m_dirs) {
            std::error_code ec;
            std::filesystem::remove_all(dir, ec);
        }
    }

private:
    pid_t m_owner = ::getpid();
    std::vector<std::string> m_dirs;
};

TempDirs& tempDirs() {
    static TempDirs dirs;
    return dirs;
}

}  // namespace

std::string makeTempDir(const std::string& tag) {
    const std::string pattern =
        (std::filesystem::temp_directory_path() / ("mlnet-" + tag + "-XXXXXX")).string();
    std::vector<char> name(pattern.begin(), pattern.end());
    name.push_back('\0');
    if (::mkdtemp(name.data()) == nullptr) {
        throw std::runtime_error("mkdtemp('" + pattern + "'): " + std::strerror(errno));
    }
    tempDirs().add(name.data());
    return name.data();
}

std::string readFileBytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw std::runtime_error("cannot open '" + path + "'");
    }
    std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    if (in.bad()) {
        throw std::runtime_error("cannot read '" + path + "'");
    }
    return bytes;
}

void writeFileBytes(const std::string& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out.write(bytes.data(), static_cast<std::streamsize>(bytes.size())) || !out.flush()) {
        throw std::runtime_error("cannot write '" + path + "'");
    }
}

}  // namespace mlnet
