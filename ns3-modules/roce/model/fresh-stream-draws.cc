#include "fresh-stream-draws.h"

#include "ns3/rng-stream.h"

namespace mlnet::roce {

double FreshStreamDraws::Next() {
    // Opening a stream jumps the generator 2^127 steps per stream index: a few matrix products, paid only
    // for decisions between Kmin and Kmax.
    ns3::RngStream stream(m_seed, m_next++, m_run);
    return stream.RandU01();
}

}  // namespace mlnet::roce
