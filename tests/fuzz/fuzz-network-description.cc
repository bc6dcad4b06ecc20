// libFuzzer entry point; the harness (harnesses.h) says what is checked.
#include "harnesses.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    mlnet::fuzz::networkDescription(data, size);
    return 0;
}
