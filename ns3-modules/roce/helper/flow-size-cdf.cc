#include "flow-size-cdf.h"

#include <algorithm>
#include <cmath>

#include "util/text-lines.h"
#include "util/units.h"

namespace mlnet::roce {

std::optional<FlowSizeCdf> FlowSizeCdf::Load(const std::string& path, Diagnostics& diag) {
    std::string text;
    if (!readTextFile(path, text, diag, "flow-size distribution")) {
        return std::nullopt;
    }
    FlowSizeCdf cdf;
    for (const TextLine& line : tokenizeLines(text)) {
        double size = 0, percent = 0;
        if (line.tokens.size() != 2 || !parsePlainReal(line.tokens[0], size) ||
            !parsePlainReal(line.tokens[1], percent) || size < 0 || percent < 0 || percent > 100) {
            diag.error(atLine(path, line.number) + ": expected '<size bytes> <cumulative percent 0..100>'");
            return std::nullopt;
        }
        if (!cdf.m_points.empty() &&
            (size < cdf.m_points.back().first || percent < cdf.m_points.back().second * 100)) {
            diag.error(atLine(path, line.number) + ": sizes and percentages must not decrease");
            return std::nullopt;
        }
        cdf.m_points.emplace_back(size, percent / 100);
    }
    if (cdf.m_points.size() < 2 || cdf.m_points.back().second < 1 || cdf.m_points.back().first < 1) {
        diag.error(path +
                   ": expected at least two points, ending at 100 percent with a size of at least 1 byte");
        return std::nullopt;
    }
    return cdf;
}

uint64_t FlowSizeCdf::SizeAt(double u) const {
    for (std::size_t i = 1; i < m_points.size(); ++i) {
        const auto [s0, p0] = m_points[i - 1];
        const auto [s1, p1] = m_points[i];
        if (u < p1 || i + 1 == m_points.size()) {
            const double size = p1 > p0 ? s0 + (u - p0) / (p1 - p0) * (s1 - s0) : s1;
            return std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(size)));
        }
    }
    return 1;
}

double FlowSizeCdf::MeanBytes() const {
    double mean = 0;
    for (std::size_t i = 1; i < m_points.size(); ++i) {
        mean +=
            (m_points[i].second - m_points[i - 1].second) * (m_points[i].first + m_points[i - 1].first) / 2;
    }
    return std::max(mean, 1.0);
}

}  // namespace mlnet::roce
