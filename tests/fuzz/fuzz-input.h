// Shared by the libFuzzer targets: the parsers under test read files, so each input is written to one file
// per process in a tmpfs directory (POSIX shared memory when there is one) and the parser reads it back.
#ifndef MLNET_FUZZ_INPUT_H
#define MLNET_FUZZ_INPUT_H

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

namespace mlnet::fuzz {

// Writes the input to a file ending in `suffix` (the readers choose the format by extension) and returns
// its path.
inline std::string inputFile(const uint8_t* data, std::size_t size, const std::string& suffix) {
    static const std::string dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    const std::string path = dir + "/mlnet-fuzz-" + std::to_string(getpid()) + suffix;
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (f) {
        std::fwrite(data, 1, size, f);
        std::fclose(f);
    }
    return path;
}

}  // namespace mlnet::fuzz

#endif
