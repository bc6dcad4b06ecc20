#include "flow-generator.h"

#include <algorithm>
#include <cmath>
#include <queue>
#include <random>
#include <stdexcept>
#include <tuple>

namespace mlnet::roce {

namespace {

// Uniform in [0, 1) from the top 53 bits: the same sequence with every standard library.
double unit(std::mt19937_64& rng) {
    return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

// Uniform in [0, n) without modulo bias.
uint64_t below(std::mt19937_64& rng, uint64_t n) {
    const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x = rng();
    while (x >= limit) {
        x = rng();
    }
    return x % n;
}

}  // namespace

std::vector<FlowSpec> poissonFlows(const std::vector<FlowHost>& hosts, const FlowSizeCdf& cdf, double load,
                                   uint64_t durationNs, const FlowDefaults& d) {
    if (hosts.size() < 2 || !(load > 0 && load <= 1)) {
        throw std::invalid_argument("poissonFlows: needs two hosts and a load in (0, 1]");
    }
    std::mt19937_64 rng(d.seed);
    std::vector<double> meanGapNs;
    for (const FlowHost& h : hosts) {
        meanGapNs.push_back(8 * cdf.MeanBytes() * 1e9 / (load * static_cast<double>(h.rateBps)));
    }
    auto gap = [&](std::size_t host) {
        return static_cast<uint64_t>(std::llround(-std::log1p(-unit(rng)) * meanGapNs[host]));
    };
    // Next arrival per host, earliest first (ties: lower host index), as the reference's heap of hosts.
    using Arrival = std::pair<uint64_t, uint32_t>;
    std::priority_queue<Arrival, std::vector<Arrival>, std::greater<>> next;
    for (uint32_t i = 0; i < hosts.size(); ++i) {
        next.push({d.startNs + gap(i), i});
    }
    const uint64_t endNs = d.startNs + durationNs;
    std::vector<FlowSpec> flows;
    while (!next.empty()) {
        const auto [at, src] = next.top();
        next.pop();
        if (at > endNs) {
            continue;  // this host is done
        }
        uint32_t dst = static_cast<uint32_t>(below(rng, hosts.size() - 1));
        dst += dst >= src;  // uniform over the others
        flows.push_back(
            {hosts[src].nodeId, hosts[dst].nodeId, d.priority, d.dport, cdf.SizeAt(unit(rng)), at});
        next.push({at + gap(src), src});
    }
    return flows;
}

std::vector<FlowSpec> incastFlows(const std::vector<FlowHost>& hosts, uint32_t receiver, uint32_t senders,
                                  uint64_t sizeBytes, uint32_t rounds, uint64_t intervalNs,
                                  const FlowDefaults& d) {
    if (receiver >= hosts.size() || senders == 0 || senders >= hosts.size()) {
        throw std::invalid_argument("incastFlows: the receiver must be a host and 0 < senders < hosts");
    }
    std::mt19937_64 rng(d.seed);
    std::vector<uint32_t> others;
    for (uint32_t i = 0; i < hosts.size(); ++i) {
        if (i != receiver) {
            others.push_back(i);
        }
    }
    std::vector<FlowSpec> flows;
    for (uint32_t r = 0; r < rounds; ++r) {
        // A partial Fisher-Yates shuffle picks this round's senders.
        for (uint32_t i = 0; i < senders; ++i) {
            std::swap(others[i], others[i + below(rng, others.size() - i)]);
        }
        std::vector<uint32_t> chosen(others.begin(), others.begin() + senders);
        std::sort(chosen.begin(), chosen.end());
        for (uint32_t s : chosen) {
            flows.push_back({hosts[s].nodeId, hosts[receiver].nodeId, d.priority, d.dport, sizeBytes,
                             d.startNs + uint64_t{r} * intervalNs});
        }
    }
    return flows;
}

std::vector<FlowSpec> permutationFlows(const std::vector<FlowHost>& hosts, uint64_t sizeBytes,
                                       const FlowDefaults& d) {
    if (hosts.size() < 2) {
        throw std::invalid_argument("permutationFlows: needs two hosts");
    }
    std::mt19937_64 rng(d.seed);
    // Sattolo's algorithm: a uniformly random single cycle, so nobody sends to itself.
    std::vector<uint32_t> to(hosts.size());
    for (uint32_t i = 0; i < to.size(); ++i) {
        to[i] = i;
    }
    for (std::size_t i = to.size() - 1; i > 0; --i) {
        std::swap(to[i], to[below(rng, i)]);
    }
    std::vector<FlowSpec> flows;
    for (uint32_t i = 0; i < hosts.size(); ++i) {
        flows.push_back({hosts[i].nodeId, hosts[to[i]].nodeId, d.priority, d.dport, sizeBytes, d.startNs});
    }
    return flows;
}

std::vector<FlowSpec> allToAllFlows(const std::vector<FlowHost>& hosts, uint64_t sizeBytes,
                                    const FlowDefaults& d) {
    if (hosts.size() < 2) {
        throw std::invalid_argument("allToAllFlows: needs two hosts");
    }
    std::vector<FlowSpec> flows;
    flows.reserve(hosts.size() * (hosts.size() - 1));
    for (const FlowHost& src : hosts) {
        for (const FlowHost& dst : hosts) {
            if (dst.nodeId != src.nodeId) {
                flows.push_back({src.nodeId, dst.nodeId, d.priority, d.dport, sizeBytes, d.startNs});
            }
        }
    }
    return flows;
}

}  // namespace mlnet::roce
