"""The figures of docs/figures.md, each a function of the finished sweep points it is drawn from (scripts/reproduce
runs the points and calls them): the plot on matplotlib's current figure, and the rows of its CSV."""
import os
import re

import mlnet_fct
import mlnet_plots as mp
from mlnet_plots import InputError


WORKLOAD_LABELS = {"WebSearch_distribution": "WebSearch", "FbHdp_distribution": "FB_Hadoop",
                   "resnet50-dp": "ResNet-50-like data-parallel step", "dlrm-a2a": "DLRM-like all-to-all (64 MiB)",
                   "dlrm-step": "DLRM-like step", "transformer-hp": "Transformer-like hybrid-parallel step"}
BACKGROUND_LABELS = {"none": "no background", "websearch30": "WebSearch 30% background",
                     "websearch50": "WebSearch 50% background"}


def workload_label(name):
    return WORKLOAD_LABELS.get(name, name)


def panel_grid(count):
    """(columns, rows) for `count` panels: side by side up to 3, else two columns."""
    return (count, 1) if count <= 3 else (2, (count + 1) // 2)


def flow_panels(runs):
    """The (workload, load) panels of an FCT-study sweep, in axis order."""
    return [(w, load) for w in runs.values("workload") for load in runs.values("load", workload=w)]


def read_flows(point):
    return mlnet_fct.read_fct(point.path("fct.txt"))


def hpcc_fct(runs):
    """FCT slowdown (p95) per flow-size bin, one line per CC; a panel per workload and load."""
    panels = flow_panels(runs)
    ncols, nrows = panel_grid(len(panels))
    fig, axes = mp.figure(ncols, nrows)
    axes = [axes] if len(panels) == 1 else list(axes.flat)
    header = ["workload", "load", "cc", "flows", "bin", "pct_lo", "pct_hi", "size_max", "count", "mean", "p50",
              "p95", "p99"]
    rows = []
    for ax, (workload, load) in zip(axes, panels):
        points = {p["cc"]: p for p in runs.select(workload=workload, load=load)}
        flows = {cc: read_flows(p) for cc, p in points.items()}
        # Every CC ran the same flow file; cutting the bins on one run keeps their size ranges identical.
        reference = flows[mp.cc_sorted(flows)[0]]
        by_cc = {}
        for cc in mp.cc_sorted(flows):
            by_cc[cc] = mp.slowdown_rows(flows[cc], edges_from=reference)
            for r in by_cc[cc]:
                rows.append([workload, load, cc, len(flows[cc])] + [r[k] for k in header[4:]])
        mp.plot_slowdown(ax, by_cc, "p95", "%s, %d%% load (%d flows)" % (workload_label(workload), round(load * 100),
                                                                       len(reference)))
    for ax in axes[len(panels):]:
        ax.set_visible(False)
    duration = runs.spec.values(runs.spec.points[0], runs.folder).get("duration", "?")
    duration = re.sub(r"(\d)([a-z])", r"\1 \2", duration)  # 5ms -> 5 ms
    mp.figure_note(fig, "320-host fat-tree; %s of Poisson arrivals, the same flows for every CC; bins of 5%% of the "
                        "flows; ideal FCT from real RoCEv2 frames (docs/fct-analysis.md)%s" % (
                            duration, "; " + runs.note() if runs.note() else ""))
    return fig, header, rows


QUEUE_PERCENTILES = (50, 90, 99, 99.9)
QUEUE_HEADER = ["cc", "samples", "zero_fraction"] + ["p%s_bytes" % p for p in QUEUE_PERCENTILES] + ["max_bytes"]


def plot_queue_cdf(ax, title, series):
    """The CDF of switch egress-queue samples of each (cc, queue-sample file) in `series`, one line per CC, on a
    log x axis and a logit y axis; returns one CSV row per CC (QUEUE_HEADER)."""
    rows = []
    floor = 1000  # bytes: the log axis starts there; samples at or below it (one frame or less) are drawn at it
    for i, (cc, path) in enumerate(series):
        samples = mp.read_queue_samples(path)
        if not samples:
            raise InputError("%s: no queue samples (sampling window outside the run?)" % path)
        q = mp.quantiles(samples, QUEUE_PERCENTILES)
        rows.append([cc, len(samples), sum(1 for s in samples if s == 0) / len(samples)]
                    + [q["p%s" % p] for p in QUEUE_PERCENTILES] + [max(samples)])
        xs, ys = mp.ecdf_points(samples)
        # A logit y axis spreads the tail (0.9, 0.99, 0.999) where the CCs differ; it cannot show 1 itself.
        kept = [(max(x, floor), y) for x, y in zip(xs, ys) if y < 1]
        style = mp.cc_style(cc, i)
        style.pop("marker")
        ax.step([x for x, _ in kept], [y for _, y in kept], where="post", linewidth=1.5, **style)
    ax.set_xscale("log")
    ax.set_yscale("logit")
    ax.set_ylim(0.3, 0.9995)
    ticks = [0.5, 0.9, 0.99, 0.999]
    ax.set_yticks(ticks)
    ax.set_yticklabels(["%g" % y for y in ticks])
    ax.yaxis.set_minor_formatter(mp.NullFormatter())
    ax.xaxis.set_major_formatter(mp.BYTES_FORMATTER)
    ax.xaxis.set_minor_formatter(mp.NullFormatter())  # a panel within one decade would label minor ticks 2x10^3
    ax.set_xlabel("switch egress queue (bytes)")
    ax.set_ylabel("fraction of samples at or below")
    ax.set_title(title)
    ax.legend(loc="lower right")
    return rows


def hpcc_queues(runs):
    """CDF of switch egress-queue samples, one line per CC; a panel per workload and load."""
    panels = flow_panels(runs)
    ncols, nrows = panel_grid(len(panels))
    fig, axes = mp.figure(ncols, nrows)
    axes = [axes] if len(panels) == 1 else list(axes.flat)
    rows = []
    for ax, (workload, load) in zip(axes, panels):
        series = [(cc, runs.select(workload=workload, load=load, cc=cc)[0].path("qlen.txt"))
                  for cc in mp.cc_sorted(runs.values("cc", workload=workload, load=load))]
        title = "%s, %d%% load" % (workload_label(workload), round(load * 100))
        rows += [[workload, load] + row for row in plot_queue_cdf(ax, title, series)]
    for ax in axes[len(panels):]:
        ax.set_visible(False)
    mp.figure_note(fig, "Samples: every switch egress queue at a dequeue, at most once per 10 us per port; logit y "
                        "axis; samples up to 1 KB (one frame) drawn at 1 KB%s" % (
                            "; " + runs.note() if runs.note() else ""))
    return fig, ["workload", "load"] + QUEUE_HEADER, rows


def training_summaries(runs):
    """{(workload, background, cc): [summary of each seed]} of a training sweep."""
    table = {}
    for p in runs.done:
        table.setdefault((p["workload"], p["background"], p["cc"]), []).append(
            (p["seed"], mp.read_json(p.path("summary.json")), p.path("summary.json")))
    return table


def mean(values):
    return sum(values) / len(values)


def rank_records(summary, path):
    """summary.json's per-rank records: a non-empty list of mappings."""
    ranks = mp.lookup(summary, "ranks", path, "list")
    if not ranks or not all(isinstance(r, dict) for r in ranks):
        raise InputError("%s: ranks: expected a non-empty list of per-rank records" % path)
    return ranks


def roce_cc_training(runs):
    """Iteration time per CC (mean over seeds, range as error bars); a panel per workload, a bar colour per
    background load. The CSV has a row per workload, background and CC (means over the seeds) with the exposed
    communication, pauses, marks, timeouts, queues per tier and the background flows' p99 slowdown."""
    table = training_summaries(runs)
    workloads = runs.values("workload")
    backgrounds = runs.values("background")
    fig, axes = mp.figure(len(workloads), 1, height=4.2)
    axes = [axes] if len(workloads) == 1 else list(axes.flat)
    header = ["workload", "background", "cc", "seeds", "iteration_ms", "iteration_min_ms", "iteration_max_ms",
              "vs_pfc_only", "exposed_comm_ms", "pause_frames", "paused_port_ms", "ecn_marks", "timeouts",
              "leaf_p99_queue_kb", "leaf_max_queue_kb", "spine_p99_queue_kb", "spine_max_queue_kb",
              "background_fct_p99_slowdown"]
    rows = []
    bar_colours = ("#4C72B0", "#DD8452", "#8C8C8C")
    for ax, workload in zip(axes, workloads):
        ccs = mp.cc_sorted(runs.values("cc", workload=workload))
        width = 0.8 / len(backgrounds)
        for b, background in enumerate(backgrounds):
            heights, lows, highs = [], [], []
            for cc in ccs:
                entries = table.get((workload, background, cc), [])
                if not entries:
                    heights.append(float("nan"))
                    lows.append(0)
                    highs.append(0)
                    continue
                times = [mp.lookup(s, "iteration_time_ns", path, "number") / 1e6 for _, s, path in entries]
                heights.append(mean(times))
                lows.append(mean(times) - min(times))
                highs.append(max(times) - mean(times))
                rows.append(training_row(workload, background, cc, entries, table))
            xs = [i + (b - (len(backgrounds) - 1) / 2) * width for i in range(len(ccs))]
            errors = (lows, highs) if any(lows) or any(highs) else None
            bars = ax.bar(xs, heights, width * 0.95, yerr=errors, capsize=2, color=bar_colours[b % 3],
                          label=BACKGROUND_LABELS.get(background, background))
            mp.annotate_bars(ax, bars, "%.2f", vertical=len(backgrounds) > 2,
                             tops=[h + e for h, e in zip(heights, highs)])
        ax.set_xticks(range(len(ccs)))
        ax.set_xticklabels([mp.cc_label(cc) for cc in ccs])
        ax.set_xlabel("congestion control")
        ax.set_ylabel("iteration time (ms)")
        ax.set_title(workload_label(workload))
        ax.set_ylim(0, ax.get_ylim()[1] * (1.15 if len(backgrounds) > 2 else 1.08))  # room for the labels
    mp.figure_legend(fig, axes[0])
    seeds = sorted({p["seed"] for p in runs.done})
    mp.figure_note(fig, "128 NPUs on a two-tier Clos (8 x 16 hosts, 16 spines, 200 Gb/s, 0.5 us); %s%s" % (
        "%d seeds, bars: mean, whiskers: range" % len(seeds) if len(seeds) > 1 else "seed %s" % seeds[0],
        "; " + runs.note() if runs.note() else ""))
    return fig, header, rows


def training_row(workload, background, cc, entries, table):
    def avg(key, scale=1.0):
        return mean([mp.lookup(s, key, path, "number") / scale for _, s, path in entries])

    times = [mp.lookup(s, "iteration_time_ns", path, "number") / 1e6 for _, s, path in entries]
    baseline = table.get((workload, background, "none"))
    ratio = mean(times) / mean([mp.lookup(s, "iteration_time_ns", path, "number") / 1e6
                                for _, s, path in baseline]) if baseline else None
    exposed = mean([max(mp.lookup(r, "exposed_comm_ns", "%s: ranks" % path, "number")
                        for r in rank_records(s, path)) / 1e6 for _, s, path in entries])
    # Runs without background traffic have "background": null.
    fct_p99 = [mp.lookup(s, "background.fct_slowdown.p99", path, "number") for _, s, path in entries
               if isinstance(s.get("background"), dict) and s["background"].get("fct_slowdown")]
    return [workload, background, cc, len(entries), mean(times), min(times), max(times), ratio, exposed,
            avg("network.pause_frames"), avg("network.paused_ns", 1e6), avg("network.ecn_marks"),
            avg("network.timeouts"),
            avg("network.queues_per_tier.leaf.p99_queue_bytes", 1e3),
            avg("network.queues_per_tier.leaf.max_queue_bytes", 1e3),
            avg("network.queues_per_tier.spine.p99_queue_bytes", 1e3),
            avg("network.queues_per_tier.spine.max_queue_bytes", 1e3),
            mean(fct_p99) if fct_p99 else None]


def roce_cc_collectives(runs):
    """Time of each all-reduce of the data-parallel step (first rank's start to last rank's end), bars per CC;
    a panel per background load. Seeds are averaged."""
    workload = "resnet50-dp"
    backgrounds = runs.values("background", workload=workload)
    if not backgrounds:
        raise InputError("%s: no finished %s point" % (runs.folder, workload))
    fig, axes = mp.figure(len(backgrounds), 1, height=4.2, sharey=True)
    axes = [axes] if len(backgrounds) == 1 else list(axes.flat)
    header = ["workload", "background", "cc", "seeds", "collective", "type", "size_bytes", "start_ms", "span_ms",
              "mean_rank_ms"]
    rows = []
    for ax, background in zip(axes, backgrounds):
        ccs = mp.cc_sorted(runs.values("cc", workload=workload, background=background))
        width = 0.8 / len(ccs)
        count = 0
        for c, cc in enumerate(ccs):
            points = runs.select(workload=workload, background=background, cc=cc)
            per_seed = [mp.collective_spans(mp.read_json(p.path("summary.json")), p.path("summary.json"))
                        for p in points]
            count = len(per_seed[0])
            if any(len(spans) != count for spans in per_seed):
                raise InputError("%s: the seeds' summary.json list %s collectives; expected the same step in every "
                                 "seed" % (", ".join(p.folder for p in points),
                                           ", ".join(str(len(spans)) for spans in per_seed)))
            spans = []
            for k in range(count):
                members = [s[k] for s in per_seed]
                spans.append(mean([m["span_ns"] for m in members]) / 1e6)
                rows.append([workload, background, cc, len(per_seed), k + 1, members[0]["type"],
                             members[0]["size_bytes"], mean([m["start_ns"] for m in members]) / 1e6, spans[-1],
                             mean([m["mean_rank_ns"] for m in members]) / 1e6])
            style = mp.cc_style(cc, c)
            style.pop("marker")
            ax.bar([k + (c - (len(ccs) - 1) / 2) * width for k in range(count)], spans, width * 0.95, **style)
        ax.set_xticks(range(count))
        ax.set_xticklabels(["#%d\nbucket %d" % (k + 1, count - k) for k in range(count)])
        ax.set_xlabel("all-reduce, in the order the backward pass issues it")
        ax.set_ylabel("collective time (ms, first start to last end)")
        ax.set_title("25 MB all-reduces, %s" % BACKGROUND_LABELS.get(background, background))
    mp.figure_legend(fig, axes[0])
    if runs.note():
        mp.figure_note(fig, runs.note())
    return fig, header, rows


def roce_cc_pauses(runs):
    """Switch ports paused by PFC over time during the data-parallel step with background traffic, one panel per
    CC (shared axes), seed 1."""
    workload = "resnet50-dp"
    backgrounds = [b for b in runs.values("background", workload=workload) if b != "none"]
    if not backgrounds:
        raise InputError("%s: no finished %s point with background traffic" % (runs.folder, workload))
    background = backgrounds[0]
    seed = min(p["seed"] for p in runs.select(workload=workload, background=background))
    ccs = mp.cc_sorted(runs.values("cc", workload=workload, background=background, seed=seed))
    fig, axes = mp.figure(1, len(ccs), width=7.0, height=1.35 * len(ccs) + 0.9, sharex=True, sharey=True)
    axes = [axes] if len(ccs) == 1 else list(axes.flat)
    header = ["workload", "background", "seed", "cc", "pause_frames", "paused_port_ms", "summary_paused_ms",
              "max_ports_paused", "iteration_ms"]
    rows = []
    for i, (ax, cc) in enumerate(zip(axes, ccs)):
        point = runs.select(workload=workload, background=background, cc=cc, seed=seed)[0]
        summary = mp.read_json(point.path("summary.json"))
        end_ns = mp.lookup(summary, "end_ns", point.path("summary.json"), "number")
        events = mp.read_pfc(point.path("pfc.txt"))
        times, counts, paused = mp.paused_ports(events, end_ns)
        rows.append([workload, background, seed, cc, sum(1 for e in events if e[4] == 1), paused / 1e6,
                     mp.lookup(summary, "network.paused_ns", point.path("summary.json"), "number") / 1e6,
                     max(counts), mp.lookup(summary, "iteration_time_ns", point.path("summary.json"), "number") / 1e6])
        style = mp.cc_style(cc, i)
        ax.fill_between([t / 1e6 for t in times], counts, step="post", color=style["color"], alpha=0.35,
                        linewidth=0)
        ax.step([t / 1e6 for t in times], counts, where="post", color=style["color"], linewidth=0.9)
        ax.axvline(end_ns / 1e6, color="black", linewidth=0.8, linestyle=":")
        ax.text(0.995, 0.92, "%s: %d pause frames, %.1f port-ms paused" % (mp.cc_label(cc), rows[-1][4],
                                                                           paused / 1e6),
                transform=ax.transAxes, ha="right", va="top", fontsize=8,
                bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.85})
        ax.set_ylabel("ports\npaused")
    axes[-1].set_xlabel("simulated time (ms); dotted line: end of the training step")
    axes[0].set_title("Switch ports paused by PFC: %s,\n%s (seed %s)" % (
        workload_label(workload), BACKGROUND_LABELS.get(background, background), seed))
    return fig, header, rows


def roce_cc_queues(runs):
    """CDF of switch egress-queue samples of the training runs, one line per CC; a panel per workload (rows) and
    background (columns), seed 1."""
    workloads = runs.values("workload")
    backgrounds = [b for b in ("none", "websearch30", "websearch50") if b in runs.values("background")]
    fig, axes = mp.figure(len(backgrounds), len(workloads), width=4.3 * len(backgrounds),
                          height=3.2 * len(workloads) + 0.4)
    axes = [[axes]] if len(backgrounds) * len(workloads) == 1 else axes  # else a 2-D array (no squeeze)
    rows = []
    for r, workload in enumerate(workloads):
        for c, background in enumerate(backgrounds):
            ax = axes[r][c]
            points = runs.select(workload=workload, background=background)
            if not points:
                ax.set_visible(False)
                continue
            seed = min(p["seed"] for p in points)
            series = [(cc, runs.select(workload=workload, background=background, cc=cc, seed=seed)[0]
                       .path("qlen.txt.gz"))
                      for cc in mp.cc_sorted(runs.values("cc", workload=workload, background=background, seed=seed))]
            for _, path in series:
                if not os.path.exists(path):
                    raise InputError("%s is missing: the point ran before the training networks sampled queues; "
                                     "run the sweep again into a new --runs folder (or delete this point's folder)"
                                     % path)
            title = "%s,\n%s" % (workload_label(workload), BACKGROUND_LABELS.get(background, background))
            rows += [[workload, background, seed] + row for row in plot_queue_cdf(ax, title, series)]
    mp.figure_note(fig, "Samples: every switch egress queue (leaves and spines) at a dequeue, at most once per 100 us "
                        "per port; logit y axis; samples up to 1 KB drawn at 1 KB; seed 1%s" % (
                            "; " + runs.note() if runs.note() else ""))
    return fig, ["workload", "background", "seed"] + QUEUE_HEADER, rows


def incast_flows(point):
    """(victims, incast flows) of an incast run's fct.txt: the incast flows go to the most common destination,
    victims anywhere else."""
    flows = read_flows(point)
    counts = {}
    for f in flows:
        counts[f.dip] = counts.get(f.dip, 0) + 1
    receiver = max(counts, key=lambda dip: (counts[dip], -dip))
    return [f for f in flows if f.dip != receiver], [f for f in flows if f.dip == receiver]


def incast_victim(runs):
    """FCT slowdown of the victim flow and of the slowest incast flow, bars per CC."""
    ccs = mp.cc_sorted(runs.values("cc"))
    header = ["cc", "victim_src", "victim_dst", "victim_bytes", "victim_fct_us", "victim_ideal_us",
              "victim_slowdown", "incast_flows", "incast_median_slowdown", "incast_max_slowdown", "pause_frames",
              "ecn_marks"]
    rows = []
    for cc in ccs:
        point = runs.select(cc=cc)[0]
        victims, incast = incast_flows(point)
        if len(victims) != 1:
            raise InputError("%s: expected one flow to a destination other than the incast's, found %d"
                             % (point.path("fct.txt"), len(victims)))
        victim = victims[0]
        slowdowns = sorted(f.slowdown() for f in incast)
        report = mp.read_json(point.path("report.json"))
        rows.append([cc, mlnet_fct.node_of_ip(victim.sip), mlnet_fct.node_of_ip(victim.dip), victim.size,
                     victim.fct_ns / 1e3, victim.ideal_ns / 1e3, victim.slowdown(), len(incast),
                     mlnet_fct.quantile(slowdowns, mlnet_fct.percent(50)), slowdowns[-1],
                     sum(1 for e in mp.read_pfc(point.path("pfc.txt")) if e[4] == 1),
                     mp.lookup(report, "ecn_marks", point.path("report.json"), "number")])
    fig, ax = mp.figure(width=7.0, height=4.2)
    xs = list(range(len(ccs)))
    width = 0.38
    bars = ax.bar([x - width / 2 for x in xs], [r[6] for r in rows], width * 0.95, color="#0072B2",
                  label="victim flow (%s, host %d to %d, idle receiver)" % (mp.bytes_text(rows[0][3]),
                                                                              rows[0][1], rows[0][2]))
    mp.annotate_bars(ax, bars, "%.2f")
    bars = ax.bar([x + width / 2 for x in xs], [r[9] for r in rows], width * 0.95, color="#CC79A7",
                  label="slowest of the %d incast flows (ideal: %d)" % (rows[0][7], rows[0][7]))
    mp.annotate_bars(ax, bars, "%.2f")
    ax.set_xticks(xs)
    ax.set_xticklabels([mp.cc_label(cc) for cc in ccs])
    ax.set_xlabel("congestion control")
    ax.set_ylabel("FCT slowdown (FCT / ideal FCT)")
    ax.set_title("%d:1 incast and a victim flow, k=4 fat-tree, 100 Gb/s" % rows[0][7])
    ax.set_ylim(0, ax.get_ylim()[1] * 1.1)
    mp.figure_legend(fig, ax, ncol=1)
    fig.mlnet_top = 1 - 0.6 / fig.get_figheight()  # two legend rows
    return fig, header, rows


def incast_rates(runs):
    """Every flow's sending rate over time, one panel per CC (shared axes): the victim bold, the incast thin."""
    ccs = mp.cc_sorted(runs.values("cc"))
    fig, axes = mp.figure(1, len(ccs), width=7.0, height=1.45 * len(ccs) + 0.9, sharex=True, sharey=True)
    axes = [axes] if len(ccs) == 1 else list(axes.flat)
    header = ["cc", "flow", "src", "role", "rate_changes", "min_rate_gbps", "last_rate_gbps"]
    rows = []
    for i, (ax, cc) in enumerate(zip(axes, ccs)):
        point = runs.select(cc=cc)[0]
        series = mp.read_rates(point.path("rates.txt"))
        victims, incast = incast_flows(point)
        victim_sources = {mlnet_fct.node_of_ip(v.sip) for v in victims}
        origin = min(f.start_ns for f in victims + incast) / 1e3  # us; the flow file starts every flow at 2 s
        for flow in sorted(series):
            times, rates, src = series[flow]
            victim = src in victim_sources
            rows.append([cc, flow, src, "victim" if victim else "incast", len(times), min(rates), rates[-1]])
            ax.step([t - origin for t in times], rates, where="post", linewidth=1.6 if victim else 0.7,
                    color="black" if victim else mp.cc_style(cc, i)["color"], alpha=1 if victim else 0.7,
                    zorder=3 if victim else 2)
        if not series:
            label = mp.cc_label(cc) + ": no rate changes, every flow at line rate"
        elif not any(s[2] in victim_sources for s in series.values()):
            label = mp.cc_label(cc) + ": the victim's rate never changed (line rate)"
        else:
            label = mp.cc_label(cc)
        ax.text(0.995, 0.92, label, transform=ax.transAxes, ha="right", va="top", fontsize=8,
                bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.8})
        ax.set_ylabel("rate\n(Gb/s)")
    axes[-1].set_xlabel("time since the flows start (us)")
    axes[0].set_title("Sending rates: incast flows (thin, colour) and the victim flow (black)")
    return fig, header, rows


# ------------------------------------------------------------------------------------------------------ Themis

GIB_BYTES_PER_NS = 1073741824 / 1e9  # ASTRA-sim's GB/s: 2^30 bytes per second


def themis_utilisation(point):
    """(allreduce.json's record, bandwidth utilisation): the bytes each NPU sent over all dimensions against
    what its dimensions could carry in the all-reduce's time, sum_d bytes_d / (T x sum_d BW_d)."""
    path = point.path("allreduce.json")
    record = mp.read_json(path)
    for key, kind in (("duration_ns", "number"), ("bytes_sent_per_dim", "numbers"), ("bandwidth_gbps", "numbers"),
                      ("topology", "list"), ("npus_count", "numbers")):
        mp.lookup(record, key, path, kind)
    if len(record["bytes_sent_per_dim"]) != len(record["bandwidth_gbps"]) or record["duration_ns"] <= 0 or \
            sum(record["bandwidth_gbps"]) <= 0:
        raise InputError("%s: %d dimensions of bytes, %d bandwidths (sum %s GB/s), duration %s ns; expected as many "
                         "of each, a positive bandwidth and a positive duration" % (
                             path, len(record["bytes_sent_per_dim"]), len(record["bandwidth_gbps"]),
                             sum(record["bandwidth_gbps"]), record["duration_ns"]))
    capacity = record["duration_ns"] * sum(bw * GIB_BYTES_PER_NS for bw in record["bandwidth_gbps"])
    return record, sum(record["bytes_sent_per_dim"]) / capacity


SHORT_DIMENSIONS = {"Ring": "R", "FullyConnected": "FC", "Switch": "S"}


def network_label(record):
    """'R8 S8' over '100/200': the dimensions, first one first, and their bandwidths (GB/s)."""
    shape = " ".join("%s%d" % (SHORT_DIMENSIONS.get(str(kind), str(kind)), n)
                       for kind, n in zip(record["topology"], record["npus_count"]))
    return "%s\n%s" % (shape, "/".join("%g" % bw for bw in record["bandwidth_gbps"]))


def binary_bytes_text(value):
    """64 MiB, 1 GiB: the all-reduce sizes are powers of two."""
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if value >= 1 << shift:
            return "%g %s" % (value / (1 << shift), unit)
    return "%d B" % value


def themis(runs):
    """Bandwidth utilisation of one all-reduce per network, ascending order against Themis, one panel per
    (model, size), the improvement written above each Themis bar."""
    networks = runs.values("network")
    cases = [(m, s) for m in runs.values("model") for s in runs.values("size", model=m)]
    header = ["network", "model", "size_bytes", "scheduling", "duration_us", "bytes_sent_per_dim",
              "bandwidth_gbps", "utilisation", "improvement_over_ascending"]
    rows = []
    fig, axes = mp.figure(len(cases), 1, width=5.0 * len(cases), height=4.6, sharey=True)
    axes = [axes] if len(cases) == 1 else list(axes.flat)
    width = 0.38
    for ax, (model, size) in zip(axes, cases):
        labels, xs, in_legend = [], [], set()
        for x, network in enumerate(networks):
            found = {p["scheduling"]: themis_utilisation(p) for p in runs.select(network=network, model=model,
                                                                                  size=size)}
            if "ascending" not in found and "themis" not in found:
                continue
            base = found.get("ascending", (None, None))[1]
            for offset, scheduling, colour in ((-width / 2, "ascending", "#999999"), (width / 2, "themis", "#0072B2")):
                if scheduling not in found:
                    continue
                record, utilisation = found[scheduling]
                gain = utilisation / base if base else None
                rows.append([network, model, size, scheduling, record["duration_ns"] / 1e3,
                             ";".join(str(b) for b in record["bytes_sent_per_dim"]),
                             ";".join("%g" % bw for bw in record["bandwidth_gbps"]), utilisation, gain])
                ax.bar([x + offset], [utilisation], width * 0.95, color=colour,
                       label=None if scheduling in in_legend else
                       "ascending order" if scheduling == "ascending" else "Themis")
                in_legend.add(scheduling)
                if scheduling == "themis" and gain:
                    ax.annotate("x%.2f" % gain, (x + offset, utilisation), xytext=(0, 2), textcoords="offset points",
                                ha="center", va="bottom", fontsize=8)
            labels.append(network_label(next(iter(found.values()))[0]))
            xs.append(x)
        ax.set_xticks(xs)
        ax.set_xticklabels(labels, fontsize=7.5)
        ax.set_title("%s, %s per NPU" % ("analytical" if model == "analytical" else "packet level (RoCE)",
                                         binary_bytes_text(size)))
        ax.set_xlabel("network: dimensions (R ring, FC fully connected, S switch)\nand their bandwidths (GB/s)")
    axes[0].set_ylabel("bandwidth utilisation\n(bytes sent / (time x sum of dimension bandwidths))")
    axes[0].set_ylim(0, 1.05)
    mp.figure_legend(fig, axes[0])
    if not runs.complete():
        mp.figure_note(fig, runs.note())
    return fig, header, rows
