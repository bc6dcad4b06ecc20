// CPU time and peak memory of this process, for the cost lines benchmarks and tools print.
#ifndef MLNET_UTIL_PROCESS_USAGE_H
#define MLNET_UTIL_PROCESS_USAGE_H

#include <sys/resource.h>

namespace mlnet {

inline double processCpuSeconds() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_utime.tv_sec + u.ru_stime.tv_sec + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

inline double peakResidentMb() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss / 1024.0;  // Linux reports kilobytes
}

}  // namespace mlnet

#endif
