// The IPv4 address the HPCC tools give node i: 11.(i / 256).(i % 256).1, continuing into 12.x from i = 65536.
// One formula for the captures (wire-format) and for the reference's ECMP hash (routing), which hashes it.
#ifndef MLNET_UTIL_HPCC_ADDRESS_H
#define MLNET_UTIL_HPCC_ADDRESS_H

#include <cstdint>

namespace mlnet {

// Node ids from here on would wrap the 32-bit address.
inline constexpr uint32_t kMaxHpccIpv4NodeId = 0xF50000;

constexpr uint32_t hpccIpv4(uint32_t nodeId) {
    return 0x0B000001u + ((nodeId / 256) << 16) + ((nodeId % 256) << 8);
}

}  // namespace mlnet

#endif
