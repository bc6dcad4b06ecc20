"""FCT files, slowdowns, quantiles and flow-size bins: the one definition that scripts/fct-slowdown and
scripts/compare-fct share (docs/fct-analysis.md explains the choices for users).

An fct.txt line (HPCC columns, written by mlnet-flows / mlnet-ns3 and by the HPCC reference simulator):

    sip dip sport dport size_B start_ns fct_ns ideal_fct_ns
    0b000101 0b000001 10000 100 4000000 2000000000 2173099 339520

sip / dip are the hosts' IPv4 addresses in hex, 0x0b000001 + (node / 256) * 0x10000 + (node % 256) * 0x100, so
host 1 is 0b000101; fct_ns runs from the flow's start to the sender receiving its last ACK.

The ideal FCT (last column) is each simulator's own, so a slowdown compares a flow with an idle network of the
same simulator:
  - ours (RoceFabric::IdealFctPs, ns3-modules/roce/helper/roce-fabric.cc): on the route of the source's first
    flow port (equal-cost paths have equal length),
        ideal = base RTT + wire bytes * 8 / bottleneck rate
        base RTT = 2 * (sum of the path's propagation delays) + hops * (one full data frame at the bottleneck rate)
        wire bytes = size + ceil(size / MTU payload) * (frame bytes of an MTU packet - MTU payload + 20)
    with the real RoCEv2 data frame (Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 [+ 4 INT header with HPCC] + payload
    padded to 4 B + ICRC 4 + FCS 4) plus preamble/SFD 8 and inter-frame gap 12: 1082 B on the wire per 1000 B
    of payload (1086 B with HPCC). ACKs are not charged. Computed in picoseconds, written truncated to ns.
  - the reference's "standalone FCT": pair RTT + (size + packets * 36 B of headers without INT) * 8 / bottleneck
    rate, i.e. 1036 B per 1000 B payload whatever the congestion control.
Neither is a strict lower bound (store-and-forward of one frame per hop is charged at the bottleneck rate even on
faster fabric links), so uncongested small flows can show slowdowns slightly below 1; clip=True raises them to 1
as the HPCC paper's analysis script does.
"""
import gzip
import math
import os
import re
import sys
from bisect import bisect_left, bisect_right
from fractions import Fraction

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mlnet_io  # noqa: E402
from mlnet_io import InputError  # noqa: E402,F401  (re-exported: the scripts catch this one error type)

FCT_COLUMNS = "sip dip sport dport size_B start_ns fct_ns ideal_fct_ns"
_HEX_IP = re.compile(r"[0-9a-fA-F]{1,8}")
_UNSIGNED = re.compile(r"[0-9]+")
# The simulators write 64-bit unsigned counters; a longer number is corruption, and int() of thousands of digits
# would not even parse.
_MAX_UNSIGNED = 2 ** 64 - 1
# Listing every bad line of a corrupted million-line file helps nobody; the first few locate the problem.
_MAX_REPORTED_ERRORS = 10
# More bins than this is a typing mistake, not an analysis: even a million-flow file is read in 5% bins.
MAX_BINS = 10000


class Flow:
    """One fct.txt line. `line` is its 1-based line number in `path`, which identifies the flow in reports."""

    __slots__ = ("path", "line", "sip", "dip", "sport", "dport", "size", "start_ns", "fct_ns", "ideal_ns")

    def __init__(self, path, line, sip, dip, sport, dport, size, start_ns, fct_ns, ideal_ns):
        self.path, self.line = path, line
        self.sip, self.dip, self.sport, self.dport = sip, dip, sport, dport
        self.size, self.start_ns, self.fct_ns, self.ideal_ns = size, start_ns, fct_ns, ideal_ns

    def slowdown(self, clip=False):
        value = self.fct_ns / self.ideal_ns
        return max(1.0, value) if clip else value


def node_of_ip(ip):
    """The node id behind an HPCC host address (0b000101 -> 1), or None if the address is not of that form."""
    if ip >> 24 != 0x0b or ip & 0xff != 0x01:
        return None
    return ((ip >> 16) & 0xff) * 256 + ((ip >> 8) & 0xff)


def ip_text(ip):
    return "%08x" % ip


def table_rows(path):
    """(line number, fields) of every non-blank line of a whitespace-separated text table (fct.txt, pfc.txt, queue
    samples; gzip-compressed when the name ends in .gz), read lazily; InputError naming the file when it cannot
    be read, is not a regular file or a pipe, or has an overlong line (mlnet_io's rule for tables)."""
    opener = gzip.open if path.endswith(".gz") else open
    for number, line in mlnet_io.table_lines(path, "a whitespace-separated text table", opener):
        fields = line.split()
        if fields:
            yield number, fields


def read_fct(path):
    """Every flow of an fct.txt file, in file order. Blank lines are skipped. Raises InputError listing the first
    malformed lines as 'PATH:LINE: problem', or when the file cannot be read or holds no flow."""
    flows, errors = [], []
    for number, fields in table_rows(path):
        flow, problem = _parse_line(path, number, fields)
        if problem:
            errors.append("%s:%d: %s" % (path, number, problem))
            if len(errors) > _MAX_REPORTED_ERRORS:
                break
        else:
            flows.append(flow)
    if errors:
        shown = errors[:_MAX_REPORTED_ERRORS]
        if len(errors) > _MAX_REPORTED_ERRORS:
            shown.append("%s: more malformed lines follow; stopped reading" % path)
        raise InputError("\n".join(shown))
    if not flows:
        raise InputError("%s: no flows (expected lines '%s')" % (path, FCT_COLUMNS))
    return flows


def _parse_line(path, number, fields):
    """(Flow, None) or (None, what is wrong)."""
    if len(fields) != 8:
        return None, "expected 8 fields '%s', found %d" % (FCT_COLUMNS, len(fields))
    ips = []
    for name, token in (("sip", fields[0]), ("dip", fields[1])):
        if not _HEX_IP.fullmatch(token):
            return None, "%s %r is not a hex IPv4 address such as 0b000101" % (name, token)
        ips.append(int(token, 16))
    numbers = []
    for name, token in zip(("sport", "dport", "size", "start_ns", "fct_ns", "ideal_fct_ns"), fields[2:]):
        if not _UNSIGNED.fullmatch(token):
            return None, "%s %r is not an unsigned integer" % (name, token)
        if len(token) > 20 or int(token) > _MAX_UNSIGNED:
            return None, "%s %s%s is too large; expected an unsigned 64-bit integer" % (
                name, token[:24], "..." if len(token) > 24 else "")
        value = int(token)
        if name in ("sport", "dport") and value > 65535:
            return None, "%s %s is not a UDP port (0..65535)" % (name, token)
        numbers.append(value)
    sport, dport, size, start_ns, fct_ns, ideal_ns = numbers
    if size == 0:
        return None, "size 0: a flow carries at least one byte"
    if fct_ns == 0 or ideal_ns == 0:
        return None, "%s 0: a flow takes time; no ratio or slowdown can be computed" % (
            "fct_ns" if fct_ns == 0 else "ideal_fct_ns")
    return Flow(path, number, ips[0], ips[1], sport, dport, size, start_ns, fct_ns, ideal_ns), None


def match_flows(ours, ref, start_tolerance_ns=0):
    """Pairs the flows of two fct files that come from the same flow file: same source and destination address,
    same size, starts at most start_tolerance_ns apart. Source ports are not compared: each simulator allocates
    its own. Returns (pairs [(ours flow, ref flow)], ours unmatched, ref unmatched), each in the order of the
    first file's lines.

    Within one (src, dst, size), each side is sorted by (start, source port, line) and the two lists are walked
    together, pairing the heads when their starts are within the tolerance and otherwise setting the earlier
    one aside as unmatched. Both simulators start a flow file's flows in file order and number a source's ports
    upward in that order, so this pairs identical duplicates in flow-file order; and since rounding a start time
    to ns (ours) or truncating it through a double (the reference) keeps the order of starts, flows whose starts
    differ by that rounding still pair with their own counterpart. The result depends only on the two files."""
    def groups(flows):
        grouped = {}
        for f in flows:
            grouped.setdefault((f.sip, f.dip, f.size), []).append(f)
        for members in grouped.values():
            members.sort(key=lambda f: (f.start_ns, f.sport, f.line))
        return grouped

    ours_groups, ref_groups = groups(ours), groups(ref)
    pairs, ours_left, ref_left = [], [], []
    for key, mine in ours_groups.items():
        theirs = ref_groups.get(key, [])
        i = j = 0
        while i < len(mine) and j < len(theirs):
            a, b = mine[i], theirs[j]
            if abs(a.start_ns - b.start_ns) <= start_tolerance_ns:
                pairs.append((a, b))
                i, j = i + 1, j + 1
            elif a.start_ns < b.start_ns:
                ours_left.append(a)
                i += 1
            else:
                ref_left.append(b)
                j += 1
        ours_left.extend(mine[i:])
        ref_left.extend(theirs[j:])
    for key, theirs in ref_groups.items():
        if key not in ours_groups:
            ref_left.extend(theirs)
    pairs.sort(key=lambda p: p[0].line)
    ours_left.sort(key=lambda f: f.line)
    ref_left.sort(key=lambda f: f.line)
    return pairs, ours_left, ref_left


def quantile(sorted_values, fraction):
    """Nearest-rank quantile: the smallest value with at least `fraction` of the values at or below it, i.e.
    element ceil(fraction * n) (1-based) of the n sorted values; fraction 0 gives the minimum. Always one of the
    values, never an interpolation. `fraction` must be exact (a Fraction or an int): with floats 0.95 * 20 is
    19.000000000000004 and the ceiling would pick element 20."""
    n = len(sorted_values)
    if n == 0:
        raise ValueError("quantile of no values")
    rank = max(1, math.ceil(Fraction(fraction) * n))
    return sorted_values[rank - 1]


def percent(p):
    """An exact fraction from a percentile given in percent (50, 95, 99.9)."""
    return Fraction(str(p)) / 100


def summarize(values, percentiles):
    """count, mean, min, max and the nearest-rank value of each percentile (in percent) of `values`."""
    ordered = sorted(values)
    result = {"count": len(ordered), "mean": math.fsum(ordered) / len(ordered), "min": ordered[0],
              "max": ordered[-1]}
    for p in percentiles:
        result["p%s" % p] = quantile(ordered, percent(p))
    return result


class SizeBin:
    """Flows whose size s satisfies lower < s <= size_max (lower is the previous bin's size_max; the first bin has
    no lower limit). size_min is the smallest size of the flows the bins were cut from, pct_lo / pct_hi the share
    of those flows (percent) with sizes at or below the previous bin's edge and at or below this bin's."""

    __slots__ = ("number", "size_min", "size_max", "count", "pct_lo", "pct_hi")

    def __init__(self, number, size_min, size_max, count, pct_lo, pct_hi):
        self.number, self.size_min, self.size_max = number, size_min, size_max
        self.count, self.pct_lo, self.pct_hi = count, pct_lo, pct_hi


def size_bins(sizes, bins=20):
    """Cuts flows into flow-size bins of (nominally) 1/bins of the flows each, as the HPCC paper does (20 bins of
    5%), with one rule for repeated sizes: every flow of one size lands in the same bin.

    With the n sizes sorted, s_1 <= ... <= s_n, bin i (1..bins) ends at the size of nearest rank i/bins,
    u_i = s_k with k = ceil(i * n / bins), and holds the flows with u_(i-1) < size <= u_i. When a size repeats
    across a cut, u_i = u_(i-1) and bin i would be empty: it is dropped, so the previous bin holds more than 1/bins
    of the flows and fewer than `bins` bins come back (one bin if every flow has the same size). With distinct
    sizes every bin holds floor or ceil(n / bins) flows. (The HPCC analysis script instead cuts the sorted list
    at positions, splitting a repeated size across two bins in whatever order its sort left them.)

    The work is one sort and one pass over the distinct sizes, whatever `bins` is: a size with r flows at or
    below it and r' at or below the size before it is an edge u_i exactly when some cut rank ceil(i * n / bins)
    lies in (r', r], that is when floor(r * bins / n) > floor(r' * bins / n)."""
    if bins < 1:
        raise ValueError("at least one bin")
    ordered = sorted(sizes)
    n = len(ordered)
    if n == 0:
        return []
    result = []
    below = 0  # flows with sizes at or below the previous bin's upper edge
    previous = 0  # flows with sizes at or below the previous distinct size
    while previous < n:
        size = ordered[previous]
        at_or_below = bisect_right(ordered, size, previous)
        if at_or_below * bins // n > previous * bins // n:
            result.append(SizeBin(len(result) + 1, ordered[below], size, at_or_below - below,
                                  Fraction(100 * below, n), Fraction(100 * at_or_below, n)))
            below = at_or_below
        previous = at_or_below
    return result


def bins_problem(bins):
    """What is wrong with a --bins value (the one rule of fct-slowdown and compare-fct), or None."""
    if 1 <= bins <= MAX_BINS:
        return None
    return "--bins %d: %s; expected a number of bins from 1 to %d" % (
        bins, "too few" if bins < 1 else "more than the limit of %d" % MAX_BINS, MAX_BINS)


def bin_index(bins, size):
    """Index into `bins` of the bin holding a flow of this size, or None above the last bin's edge (only flows of
    another flow set than the one the bins were cut from can be there)."""
    i = bisect_left([b.size_max for b in bins], size)
    return i if i < len(bins) else None


def group_by_bin(bins, flows):
    """(flows per bin, flows beyond the last bin)."""
    edges = [b.size_max for b in bins]
    grouped, beyond = [[] for _ in bins], []
    for flow in flows:
        i = bisect_left(edges, flow.size)
        (grouped[i] if i < len(bins) else beyond).append(flow)
    return grouped, beyond


def number(value):
    """A number for CSV cells: integers as they are, others with 6 significant digits, nothing for None."""
    if value is None:
        return ""
    if isinstance(value, int):
        return str(value)
    if isinstance(value, Fraction):
        return str(value.numerator) if value.denominator == 1 else "%.6g" % float(value)
    return "%.6g" % value


def csv_text(header, rows):
    """CSV of numbers and strings without commas (so no quoting is needed)."""
    return ",".join(header) + "\n" + "".join(
        ",".join(c if isinstance(c, str) else number(c) for c in row) + "\n" for row in rows)


def write_csv(path, header, rows):
    """Writes a CSV file atomically (a temporary file beside it, then a rename): a reader never sees half a
    table, and an interrupted run leaves the previous file."""
    mlnet_io.write_atomic(path, csv_text(header, rows))


def fail(program, error, status=2):
    """Prints every line of the error prefixed with the program's name; returns the exit status."""
    for line in str(error).splitlines():
        print("%s: %s" % (program, line), file=sys.stderr)
    return status
