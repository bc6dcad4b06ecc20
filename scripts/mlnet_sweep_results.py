"""What a sweep point leaves: the results its collect rules extract, its status file, and the atomic writes every
file of a sweep goes through."""
import json
import math
import os
import statistics

import mlnet_io
from mlnet_sweep_spec import SpecError, format_value


class ResultError(Exception):
    pass


def number(token, where):
    """A table cell or a regex match as a number: finite, so within a double's range (a mean or a median of
    larger integers could not be computed)."""
    try:
        value = int(token)
        if abs(value) >= 2 ** 1023:
            raise ResultError("%s: %s is beyond a double's range; expected a finite number" % (where, shown(token)))
        return value
    except ValueError:
        try:
            value = float(token)
        except ValueError:
            raise ResultError("%s: %s is not a number" % (where, shown(token))) from None
        if not math.isfinite(value):
            raise ResultError("%s: %s is not a finite number; expected a finite number" % (where, shown(token)))
        return value


def shown(token):
    return repr(token) if len(token) <= 40 else repr(token[:37]) + "..."


def reduce(values, stat):
    if stat == "count":
        return len(values)
    if stat == "sum":
        return sum(values)
    if not values:
        return None
    if stat == "mean":
        return statistics.fmean(values)
    if stat == "min":
        return min(values)
    if stat == "max":
        return max(values)
    if stat == "median":
        return statistics.median(values)
    fraction = float(stat[1:]) / 100.0
    ordered = sorted(values)
    rank = max(1, math.ceil(fraction * len(ordered) - 1e-9))
    return ordered[min(rank, len(ordered)) - 1]


def matches(token, wanted):
    if isinstance(wanted, (int, float)) and not isinstance(wanted, bool):
        try:
            return float(token) == float(wanted)
        except ValueError:
            return False
    return token == format_value(wanted)


def extract(rule, folder, values):
    """The rule's value for the point in folder, as CSV text."""
    name = rule.file.render(values)
    path = os.path.join(folder, name)
    try:
        # mlnet_io's rule for a file read whole: a collect rule naming /dev/zero or a FIFO is refused.
        text = mlnet_io.read_bytes(path, "a result file", mlnet_io.MAX_RESULT_BYTES).decode("utf-8", "replace")
        if rule.key is not None:
            value = mlnet_io.parse_json(text, name)
    except mlnet_io.InputError as e:
        raise ResultError(str(e).replace(path, name, 1)) from None
    if rule.key is not None:
        walked = []
        for key in rule.key:
            if isinstance(value, dict) and key in value:
                value = value[key]
            elif isinstance(value, list) and key.lstrip("-").isdecimal() and -len(value) <= int(key) < len(value):
                value = value[int(key)]
            else:
                where = ".".join(walked) or "the top level"
                have = (", ".join(list(value)[:12]) if isinstance(value, dict) else
                        "a list of %d" % len(value) if isinstance(value, list) else "a %s" % type(value).__name__)
                raise ResultError("%s: no %r in %s (found %s)" % (name, key, where, have))
            walked.append(key)
        return format_value(value)
    if rule.regex is not None:
        found = [m.group(1) if rule.regex.groups else m.group(0) for m in rule.regex.finditer(text)]
        if rule.stat is None:
            if not found:
                raise ResultError("%s: no match for %r" % (name, rule.regex.pattern))
            return found[0]
        return format_value(reduce([number(v, name) for v in found], rule.stat))
    values_found = []
    for line_number, line in enumerate(text.splitlines()[rule.skip:], rule.skip + 1):
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        needed = max([rule.column_number or 0] + [c for c, _ in rule.where])
        if len(fields) < needed:
            raise ResultError("%s:%d: %d columns, expected at least %d" % (name, line_number, len(fields), needed))
        if not all(matches(fields[c - 1], v) for c, v in rule.where):
            continue
        if rule.column_number is None:
            values_found.append(0)
        else:
            values_found.append(number(fields[rule.column_number - 1], "%s:%d" % (name, line_number)))
    return format_value(reduce(values_found, rule.stat))


# ---------------------------------------------------------------------------------------------------- point state

write_atomic = mlnet_io.write_atomic


def write_json(path, value):
    write_atomic(path, json.dumps(value, indent=1, sort_keys=True) + "\n")


def read_json(path):
    """A JSON file the sweep wrote itself, or None when it is absent or is not such a file (mlnet_io's rules
    for a file read whole, so a device put in its place is not read)."""
    try:
        return mlnet_io.read_json(path, "a JSON file written by scripts/sweep")
    except mlnet_io.InputError:
        return None


def point_status(out, point):
    """The point's status.json (its state is "done" or "failed"), or None while it has not finished. The fields
    others read are given their types here (a status.json edited by hand must not stop the sweep)."""
    status = read_json(os.path.join(out, point.name, "status.json"))
    if not isinstance(status, dict) or status.get("state") not in ("done", "failed"):
        return None
    exit_code = status.get("exit_code")
    wall = status.get("wall_s")
    status["exit_code"] = exit_code if isinstance(exit_code, int) and not isinstance(exit_code, bool) else ""
    status["error"] = status["error"] if isinstance(status.get("error"), str) else ""
    status["wall_s"] = wall if isinstance(wall, (int, float)) and not isinstance(wall, bool) and \
        math.isfinite(wall) else 0.0
    status["host"] = status["host"] if isinstance(status.get("host"), str) else ""
    return status


def check_not_stale(spec, out, points, statuses, retry_failed):
    """Refuses to mix results of another command into this sweep: a finished point must have been run with the
    command the spec gives it now, and with the same content of the spec's inputs."""
    digests = spec.input_digests()
    for point in points:
        status = statuses[point.index]
        if status is None or (status["state"] == "failed" and retry_failed):
            continue
        recorded = read_json(os.path.join(out, point.name, "point.json"))
        recorded = recorded if isinstance(recorded, dict) else {}
        _, command, env = spec.command_for(point, out)
        if recorded.get("command") != command or recorded.get("env", {}) != env:
            raise SpecError("%s: point %s in %s was run with another command (the spec changed?):\n  then: %s\n"
                            "  now:  %s\ndelete %s to rerun it, or use another --out"
                            % (spec.path, point.name, out, recorded.get("command"), command,
                               os.path.join(out, point.name)))
        then = recorded.get("inputs")
        then = then if isinstance(then, dict) else {}
        changed = [name for name, digest in digests.items() if then.get(name) != digest]
        if changed:
            raise SpecError("%s: point %s in %s ran with other inputs: %s %s since (or the point predates the "
                            "spec's inputs list)\ndelete %s to rerun it, or use another --out"
                            % (spec.path, point.name, out, ", ".join(changed),
                               "changed" if len(changed) > 1 else "has changed", os.path.join(out, point.name)))
