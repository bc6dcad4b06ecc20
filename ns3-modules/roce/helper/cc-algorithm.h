// The congestion-control algorithms a run can select, by name on the command line and in network descriptions
// ("none" is PFC only: line rate, no rate control). One list, so a rule that depends on the algorithm (INT
// block sizes, HPCC's rate-change rule) compares an enum rather than a spelling.
#ifndef MLNET_ROCE_CC_ALGORITHM_H
#define MLNET_ROCE_CC_ALGORITHM_H

#include <cstdint>
#include <string>

namespace mlnet::roce {

enum class CcAlgorithm : uint8_t { None, Dcqcn, Hpcc, Timely, Dctcp };

inline const char* ccAlgorithmName(CcAlgorithm a) {
    switch (a) {
        case CcAlgorithm::Dcqcn:
            return "dcqcn";
        case CcAlgorithm::Hpcc:
            return "hpcc";
        case CcAlgorithm::Timely:
            return "timely";
        case CcAlgorithm::Dctcp:
            return "dctcp";
        case CcAlgorithm::None:
            break;
    }
    return "none";
}

inline constexpr CcAlgorithm kCcAlgorithms[] = {CcAlgorithm::None, CcAlgorithm::Dcqcn, CcAlgorithm::Hpcc,
                                                CcAlgorithm::Timely, CcAlgorithm::Dctcp};

// False for a name that is none of kCcAlgorithms.
inline bool parseCcAlgorithm(const std::string& name, CcAlgorithm& out) {
    for (CcAlgorithm a : kCcAlgorithms) {
        if (name == ccAlgorithmName(a)) {
            out = a;
            return true;
        }
    }
    return false;
}

// "none, dcqcn, hpcc, timely or dctcp", for error messages.
inline std::string ccAlgorithmChoices() {
    std::string text;
    const std::size_t n = sizeof(kCcAlgorithms) / sizeof(kCcAlgorithms[0]);
    for (std::size_t i = 0; i < n; ++i) {
        text += (i == 0 ? "" : i + 1 == n ? " or " : ", ") + std::string(ccAlgorithmName(kCcAlgorithms[i]));
    }
    return text;
}

}  // namespace mlnet::roce

#endif
