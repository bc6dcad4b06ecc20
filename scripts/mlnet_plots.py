"""Figures from mlnet-sim outputs: the one place that reads the result files figures need (summary.json, pfc.txt,
queue samples, rate traces; fct.txt through mlnet_fct), turns them into plotted quantities, and draws and saves
them in one style. Used by scripts/reproduce (every paper figure) and scripts/plot-rates.

    import mlnet_plots as mp
    fig, ax = mp.figure()
    mp.plot_slowdown(ax, {"dcqcn": rows_dcqcn, "hpcc": rows_hpcc}, "p95")
    mp.save(fig, "results/x", "x")            # results/x/x.png and x.pdf, written atomically

Conventions: one colour and marker per congestion control everywhere (CC_LABELS, cc_style), sizes in bytes with
readable tick labels, times in the unit the axis label names. Every file is written atomically (a temporary
beside it, then a rename), so an interrupted run leaves the previous figure or none, never half of one.
Needs python3-matplotlib (scripts/install-deps installs it).
"""
import json
import math
import os
import sys
import textwrap
from bisect import bisect_right

sys.dont_write_bytecode = True  # keep scripts/ free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mlnet_fct  # noqa: E402
import mlnet_io  # noqa: E402
from mlnet_fct import InputError  # noqa: E402,F401  (re-exported: callers catch one error type)

import matplotlib  # noqa: E402

matplotlib.use("Agg")  # files only; no display on build machines
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FuncFormatter, NullFormatter  # noqa: E402,F401  (NullFormatter: re-exported)

# The order in which congestion controls appear in legends and bar groups: the lossless baseline first.
CC_ORDER = ("none", "dcqcn", "dctcp", "timely", "hpcc")
CC_LABELS = {"none": "PFC only", "dcqcn": "DCQCN", "dctcp": "DCTCP", "timely": "TIMELY", "hpcc": "HPCC"}
# Colour-blind-safe (Okabe-Ito) colours plus a marker each, so lines stay apart in grey-scale print too.
_CC_COLOURS = {"none": "#777777", "dcqcn": "#0072B2", "dctcp": "#009E73", "timely": "#E69F00", "hpcc": "#D55E00"}
_CC_MARKERS = {"none": "x", "dcqcn": "o", "dctcp": "s", "timely": "^", "hpcc": "D"}
_OTHER_COLOURS = ("#CC79A7", "#56B4E9", "#F0E442", "#000000")

matplotlib.rcParams.update({
    "figure.dpi": 100, "savefig.dpi": 150, "font.size": 10, "axes.titlesize": 11, "axes.labelsize": 10,
    "legend.fontsize": 9, "axes.grid": True, "grid.alpha": 0.3, "axes.spines.top": False,
    "axes.spines.right": False, "pdf.fonttype": 42,  # TrueType in PDFs: text stays selectable and editable
})


def cc_label(cc):
    return CC_LABELS.get(cc, cc)


def cc_style(cc, index=0):
    """Matplotlib keyword arguments (colour, marker, label) of a congestion control; others get spare colours."""
    colour = _CC_COLOURS.get(cc, _OTHER_COLOURS[index % len(_OTHER_COLOURS)])
    return {"color": colour, "marker": _CC_MARKERS.get(cc, "v"), "label": cc_label(cc)}


def cc_sorted(ccs):
    """Congestion-control names in CC_ORDER, unknown ones after them in name order."""
    return sorted(ccs, key=lambda cc: (CC_ORDER.index(cc) if cc in CC_ORDER else len(CC_ORDER), cc))


# ------------------------------------------------------------------------------------------------ figures, files

def figure(ncols=1, nrows=1, width=None, height=None, **kwargs):
    """A figure and its axes (one Axes, or an array for several panels), sized for a page column per panel."""
    width = width or (6.4 if ncols == 1 else 4.2 * ncols)
    height = height or (4.0 if nrows == 1 else 3.4 * nrows)
    return plt.subplots(nrows, ncols, figsize=(width, height), squeeze=(ncols * nrows == 1), **kwargs)


def figure_legend(fig, ax, ncol=None):
    """One legend for every panel, above them (panels then keep their whole area for data); uses the handles
    of `ax`. save() leaves room for it."""
    handles, labels = ax.get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", ncol=ncol or len(labels), bbox_to_anchor=(0.5, 1.0),
               frameon=False)
    fig.mlnet_top = 1 - 0.45 / fig.get_figheight()  # about one legend row


def figure_note(fig, text):
    """A small grey line under the panels: the run's size, what is left out."""
    # About 16 characters of 7-point text per inch: wrap to the figure's width rather than be cut off.
    lines = textwrap.wrap(text, max(40, int(fig.get_figwidth() * 16)))
    fig.text(0.01, 0.005, "\n".join(lines), fontsize=7, color="#555555", ha="left", va="bottom")
    fig.mlnet_bottom = (0.1 + 0.12 * len(lines)) / fig.get_figheight()


def save(fig, directory, name):
    """Writes DIRECTORY/NAME.png and NAME.pdf atomically and closes the figure; returns the two paths."""
    mlnet_io.make_dir(directory, "the output folder")
    fig.tight_layout(rect=(0, getattr(fig, "mlnet_bottom", 0), 1, getattr(fig, "mlnet_top", 1)))
    paths = []
    for fmt in ("png", "pdf"):
        path = os.path.join(directory, "%s.%s" % (name, fmt))
        tmp = "%s.tmp.%d" % (path, os.getpid())
        try:
            fig.savefig(tmp, format=fmt)
            os.replace(tmp, path)
        except OSError as e:
            _remove_quietly(tmp)
            raise InputError("%s: cannot write: %s" % (path, e.strerror or e)) from None
        paths.append(path)
    plt.close(fig)
    return paths


def write_csv(path, header, rows):
    """The figure's numbers as CSV, atomically (mlnet_fct's writer: numbers with 6 significant digits)."""
    mlnet_fct.write_csv(path, header, rows)


def _remove_quietly(path):
    try:
        os.unlink(path)
    except OSError:
        pass


def bytes_text(value):
    """A byte count as a short label: 512B, 10KB, 2.5MB, 1GB (decimal units, as flow-size CDFs are written)."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if value >= scale:
            return ("%.3g" % (value / scale)) + unit
    return "%dB" % value


BYTES_FORMATTER = FuncFormatter(lambda value, _pos: bytes_text(value) if value > 0 else "0")


def annotate_bars(ax, bars, fmt="%.3g", fontsize=7, vertical=False, tops=None):
    """Writes each bar's height above it, so exact values can be read without the CSV; vertical text for bars
    too narrow to hold their label side by side. `tops`: where each label starts (default the bar's height;
    pass height + upper error to keep labels clear of error bars)."""
    for i, bar in enumerate(bars):
        height = bar.get_height()
        if height is None or (isinstance(height, float) and math.isnan(height)):
            continue
        top = tops[i] if tops is not None else height
        ax.annotate(fmt % height, (bar.get_x() + bar.get_width() / 2, top), xytext=(0, 2),
                    textcoords="offset points", ha="center", va="bottom", fontsize=fontsize,
                    rotation=90 if vertical else 0)


# ------------------------------------------------------------------------------------------------ FCT slowdown

def slowdown_rows(flows, bins=20, percentiles=(50, 95, 99), edges_from=None, clip=False):
    """FCT slowdown per flow-size bin, with mlnet_fct's bins (docs/fct-analysis.md: 1/bins of the flows each, every
    flow of one size in one bin) and nearest-rank percentiles. The bins are cut on `edges_from` (default: `flows`)
    so that several runs of one flow file are compared over identical size ranges. Returns one dict per non-empty
    bin: bin, pct_lo, pct_hi (percent of the flows the edges were cut on), size_max (bytes), count, mean, pN."""
    cut = mlnet_fct.size_bins([f.size for f in (edges_from or flows)], bins)
    grouped, _beyond = mlnet_fct.group_by_bin(cut, flows)
    rows = []
    for b, members in zip(cut, grouped):
        if not members:
            continue
        stats = mlnet_fct.summarize([f.slowdown(clip) for f in members], percentiles)
        row = {"bin": b.number, "pct_lo": float(b.pct_lo), "pct_hi": float(b.pct_hi), "size_max": b.size_max,
               "count": len(members), "mean": stats["mean"]}
        row.update(("p%s" % p, stats["p%s" % p]) for p in percentiles)
        rows.append(row)
    return rows


def plot_slowdown(ax, rows_by_cc, stat="p95", title=None):
    """One line per congestion control: the `stat` slowdown of each size bin against the bin's upper size edge
    (log axis, bytes). The y axis turns logarithmic when the values span more than a factor of 20."""
    values = []
    for i, cc in enumerate(cc_sorted(rows_by_cc)):
        rows = rows_by_cc[cc]
        ys = [r[stat] for r in rows]
        values.extend(ys)
        ax.plot([r["size_max"] for r in rows], ys, markersize=4, linewidth=1.4, **cc_style(cc, i))
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(BYTES_FORMATTER)
    if values and min(values) > 0 and max(values) / min(values) > 20:
        ax.set_yscale("log")
    ax.set_xlabel("flow size (upper edge of its 5% size bin)")
    ax.set_ylabel("%s FCT slowdown (FCT / ideal FCT)" % stat)
    ax.axhline(1, color="black", linewidth=0.6, alpha=0.5)
    if title:
        ax.set_title(title)
    ax.legend(loc="best")


# ------------------------------------------------------------------------------------------------ mlnet-ns3

def read_json(path):
    """A JSON result file, by mlnet_io's rules for a file read whole (a regular file of at most 1 GiB, UTF-8,
    not nested beyond what Python parses)."""
    return mlnet_io.read_json(path, "a JSON result file")


def lookup(document, dotted, path="document", kind=None):
    """document["a"]["b"] for "a.b"; InputError naming the file and key when it is absent or, with kind, not of
    that kind: "number" (finite, not a boolean), "numbers" (a list of them) or "list"."""
    value = document
    for key in dotted.split("."):
        if not isinstance(value, dict) or key not in value:
            raise InputError("%s: no key %s (is it an mlnet-ns3 summary.json?)" % (path, dotted))
        value = value[key]
    if kind == "numbers" and isinstance(value, list):
        for i, item in enumerate(value):
            if not _is_kind(item, "number"):
                raise InputError("%s: %s.%d is %s; expected a finite number" % (path, dotted, i, _short(item)))
    elif kind and not _is_kind(value, kind):
        raise InputError("%s: %s is %s; expected %s" % (path, dotted, _short(value), {
            "number": "a finite number", "numbers": "a list of finite numbers", "list": "a list"}[kind]))
    return value


def _is_kind(value, kind):
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool) and (
            isinstance(value, int) or math.isfinite(value))
    return isinstance(value, list)  # "numbers" (items checked by lookup) or "list"


def _short(value):
    if isinstance(value, (dict, list)):
        return "a mapping" if isinstance(value, dict) else "a list"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def collective_spans(summary, path="summary.json"):
    """The collectives of a run, each over all its ranks: from the first rank's start to the last rank's end
    (what a step waits for), in the order they began. summary.json lists one record per rank and collective;
    records of one collective share its trace node id, type and size. Returns dicts: node, type, size_bytes,
    ranks, start_ns, end_ns, span_ns, mean_rank_ns (the mean of the per-rank durations)."""
    groups = {}
    for i, record in enumerate(lookup(summary, "collectives", path, "list")):
        where = "collectives.%d" % i
        if not isinstance(record, dict):
            raise InputError("%s: %s is %s; expected a record" % (path, where, _short(record)))
        for key in ("node", "start_ns", "end_ns", "duration_ns", "size_bytes"):
            lookup(record, key, "%s: %s" % (path, where), "number")
        key = (record["node"], str(record.get("type")), record["size_bytes"], str(record.get("communicator", 0)))
        groups.setdefault(key, []).append(record)
    spans = []
    for (node, kind, size, _communicator), records in groups.items():
        start = min(r["start_ns"] for r in records)
        end = max(r["end_ns"] for r in records)
        spans.append({"node": node, "type": kind, "size_bytes": size, "ranks": len(records), "start_ns": start,
                      "end_ns": end, "span_ns": end - start,
                      "mean_rank_ns": sum(r["duration_ns"] for r in records) / len(records)})
    spans.sort(key=lambda s: (s["start_ns"], s["node"]))
    return spans


# ------------------------------------------------------------------------------------------------ PFC

def read_pfc(path):
    """The lines of a pfc.txt (mlnet-flows, mlnet-ns3 and the HPCC reference write the same columns):
    (time_ns, node, node_type, ifindex, paused) with paused 1 for a pause frame sent, 0 for a resume.
    An empty file (nothing paused) gives no events."""
    events = []
    for number, fields in mlnet_fct.table_rows(path):
        if len(fields) != 5 or not all(x.isdigit() for x in fields) or fields[4] not in ("0", "1"):
            raise InputError("%s:%d: expected 'time_ns node node_type ifindex 1|0', found %r"
                             % (path, number, " ".join(fields)))
        events.append(tuple(int(x) for x in fields))
    return events


def paused_ports(events, end_ns):
    """How many switch ports are paused over time: a step series (times_ns, counts), a port counting from a pause
    until its resume. A pause while paused is a refresh (the switch renews it while congested) and changes
    nothing; a port still paused at the end counts until end_ns. Also returns the paused time summed over
    ports (ns)."""
    state, since = {}, {}
    times, counts = [0], [0]
    paused_total = 0
    for time_ns, node, _kind, ifindex, paused in sorted(events):
        port = (node, ifindex)
        if paused and not state.get(port):
            state[port], since[port] = True, time_ns
        elif not paused and state.get(port):
            state[port] = False
            paused_total += time_ns - since[port]
        else:
            continue
        now = counts[-1] + (1 if paused else -1)
        if times[-1] == time_ns:
            counts[-1] = now
        else:
            times.append(time_ns)
            counts.append(now)
    for port, is_paused in state.items():
        if is_paused:
            paused_total += max(0, end_ns - since[port])
    times.append(max(end_ns, times[-1]))
    counts.append(counts[-1])
    return times, counts, paused_total


# ------------------------------------------------------------------------------------------------ queues

def read_queue_samples(path):
    """The queue lengths (bytes) of a queue-sample file (mlnet-flows' QLEN_MON_FILE, 'time_ns switch port bytes'
    per line: a switch port's egress queue at a dequeue, at most once per interval per port)."""
    values = []
    for number, fields in mlnet_fct.table_rows(path):
        if len(fields) != 4 or not fields[3].isdigit():
            raise InputError("%s:%d: expected 'time_ns switch port queue_bytes', found %r"
                             % (path, number, " ".join(fields)))
        values.append(int(fields[3]))
    return values


def ecdf_points(values, points=2000):
    """(xs, ys) of the empirical CDF of `values` (the fraction of values at or below x), thinned to about `points`
    steps so that a million samples still plot quickly; the first and last values are always kept."""
    ordered = sorted(values)
    n = len(ordered)
    if n == 0:
        return [], []
    step = max(1, n // points)
    picks = list(range(step - 1, n, step))
    if picks[-1] != n - 1:
        picks.append(n - 1)
    # At each distinct value keep its last index, so the CDF's jump at a repeated value (many empty queues) is
    # drawn at its full height.
    xs, ys = [], []
    for i in picks:
        if xs and xs[-1] == ordered[i]:
            continue
        last = bisect_right(ordered, ordered[i]) - 1
        xs.append(ordered[i])
        ys.append((last + 1) / n)
    return xs, ys


def quantiles(values, percentiles):
    """Nearest-rank quantiles (mlnet_fct's definition) of `values` for each percentile, as a dict pN -> value."""
    ordered = sorted(values)
    return {"p%s" % p: mlnet_fct.quantile(ordered, mlnet_fct.percent(p)) for p in percentiles}


# ------------------------------------------------------------------------------------------------ rate traces

def read_rates(path):
    """An mlnet-flows --rate-trace file ('time_ns src_node flow rate_bps window_bytes' per rate or window change;
    flow is the flow file's line index from 0) as {flow: (times_us, rates_gbps, src_node)} with each flow's
    changes in file order."""
    series = {}
    for number, fields in mlnet_fct.table_rows(path):
        if len(fields) != 5 or not all(x.isdigit() for x in fields):
            raise InputError("%s:%d: expected 'time_ns src_node flow rate_bps window_bytes', found %r"
                             % (path, number, " ".join(fields)))
        t, src, flow, rate, _window = (int(x) for x in fields)
        times, rates, _ = series.setdefault(flow, ([], [], src))
        times.append(t / 1e3)
        rates.append(rate / 1e9)
    return series


def plot_rates(ax, series, limit=16, end_us=None):
    """Step lines of each flow's rate (Gb/s) over time, the first `limit` flows by id. Time runs from the first
    change in the trace (flows start at 2 s in HPCC-style inputs, which would hide microseconds behind an
    offset); each line is held to end_us (same origin; default: its last change). Returns how many flows were
    drawn."""
    flows = sorted(series)[:limit]
    origin = min((series[f][0][0] for f in flows if series[f][0]), default=0)
    for flow in flows:
        times, rates = series[flow][:2]
        times = [t - origin for t in times]
        if end_us is not None and times and times[-1] < end_us:
            times, rates = times + [end_us], rates + [rates[-1]]
        ax.step(times, rates, where="post", linewidth=1, label="flow %d" % flow)
    ax.set_xlabel("time since the first rate change (us)")
    ax.set_ylabel("sending rate (Gb/s)")
    return len(flows)


def fail(program, error, status=2):
    return mlnet_fct.fail(program, error, status)
