"""The sweep spec: its schema, its validation with located errors, the grid of points and their folder names
(scripts/sweep runs them; scripts/reproduce reads them).

SPEC is YAML (.yaml, .yml; needs python3-yaml) or JSON (.json):

  name: example                  # optional, [A-Za-z0-9._-]+; default: the file's name without its extension
  description: free text         # optional
  command: "{bin}/mlnet-flows {bench}/config-{config}.txt --seed={seed} --fct={out}/fct.txt"
      # a string runs with /bin/sh -c, every placeholder inserted as one shell-quoted word (do not quote them);
      # a list of strings runs without a shell, one argument per item
  axes:                          # the grid, in order: the first axis varies slowest, as nested loops
    seed: [1, 2]                 # a parameter and its values (strings, numbers, booleans)
    cc:                          # values that are mappings set several parameters together
      - {cc: dcqcn, config: dcqcn}
      - {cc: hpcc, config: hp}
  vars:                          # optional values derived per point, each may use those above it
    bench: "{shared}/workloads/hpcc-bench"
  env: {OMP_NUM_THREADS: 1}      # optional environment variables for the command (placeholders allowed)
  timeout: 600                   # optional: seconds per point; a point still running then is killed, failed
  inputs: [network.json, "{shared}/workloads/k4_topo.txt"]   # optional: files the points read (relative to the
      # spec's folder; {spec_dir}, {repo} and {shared} allowed): a finished point whose inputs changed since it ran
      # is refused as stale, as one whose command changed
  collect:                       # optional: the result columns of results.csv, in this order
    iteration_ns: {file: summary.json, key: iteration_time_ns}   # a JSON value by dotted path
    rank0_ns:     {file: summary.json, key: ranks.0.finish_ns}   # list items by position, from 0
    flows:        {file: fct.txt, stat: count}                   # rows of a whitespace table
    fct_p99_ns:   {file: fct.txt, column: 7, stat: p99}          # column 7 (from 1, as awk) reduced
    pauses:       {file: pfc.txt, where: {5: 1}, stat: count}    # rows whose column 5 is 1
    cycles:       {file: stdout.txt, regex: 'sys\\[\\d+\\] finished, (\\d+) cycles', stat: max}   # each match's group 1
  slurm: {time: "00:10:00", partition: debug}   # optional: #SBATCH --KEY=VALUE lines

Placeholders are {name}: an axis parameter, a var, or a built-in: {out} the point's folder (absolute; the
command runs in it), {point} its name, {index} its position in the grid, {spec_dir} the spec's folder, {repo}
the repository, {bin} $BUILD_DIR/bin or {repo}/build/bin, {shared} $MLNET_SHARED_DIR or {repo}/../shared,
{python} this Python. {{ and }} are literal braces. Relative paths in a command are relative to the point's
folder, so name inputs through {spec_dir} or {repo}; collect's `file` is relative to the point's folder and may
hold placeholders; the command's output streams are saved there as stdout.txt and stderr.txt.

Collect rules: `key` (JSON), `regex` (the first match's group 1, or group 0 without groups; with `stat`: every
match reduced), or a whitespace table with `stat` and `column` (not needed for count), optional `where`
({COLUMN: VALUE}, every one must match, numbers compared as numbers) and `skip` (header lines). Blank lines and
lines starting with # are not rows. Statistics: count, sum, mean, min, max, median (the mean of the two middle
values for an even count), pN for 0 <= N <= 100 such as p50, p99, p99.9 (nearest rank: the smallest value with
at least N% of the values at or below it). Over no rows count and sum are 0 and the others empty.

Layout of DIR: one folder per point, named from its parameters (cc=dcqcn,config=dcqcn,seed=1; characters other
than letters, digits and ._+- replaced, and a hash appended when something was replaced or the name is long),
holding point.json (parameters, command), the command's files, stdout.txt, stderr.txt and, written last,
status.json (state done or failed, exit_code, error, stderr_tail, wall_s, host): a point is finished when its
status.json exists. results.csv: one row per point in grid order with its parameters, its results, status
(done, failed or pending), exit_code, error and, with --timing, wall_s and host. Every file sweep writes is
written atomically. DIR/slurm/ holds the batch script and the array tasks' logs. See docs/sweeps.md.
"""
import difflib
import hashlib
import itertools
import json
import os
import re
import shlex
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOP_KEYS = ("name", "description", "command", "axes", "vars", "env", "timeout", "inputs", "collect", "slurm")
RULE_KEYS = ("file", "key", "regex", "column", "stat", "where", "skip")
BUILTINS = ("out", "point", "index", "spec_dir", "repo", "bin", "shared", "python")
# What an input path may name: the same for every point, so the inputs are hashed once per sweep.
INPUT_PLACEHOLDERS = ("spec_dir", "repo", "shared")
STATUS_COLUMNS = ("status", "exit_code", "error")
TIMING_COLUMNS = ("wall_s", "host")
# Options the batch script sets itself: a spec's slurm section may not override them.
SLURM_RESERVED = ("array", "output", "error", "wrap", "dependency", "parsable")
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
PERCENTILE = re.compile(r"p(\d+(?:\.\d+)?)\Z")
STATS = ("count", "sum", "mean", "min", "max", "median", "pN")
STDERR_TAIL_LINES = 40
GRACE_SECONDS = 10  # between SIGTERM and SIGKILL when stopping a command


class SpecError(Exception):
    """A malformed spec; the message names the file, the line when known, and the key."""


class Where:
    """A place in the spec for error messages: the file, a dotted key path and a line number if YAML gave one."""

    def __init__(self, path, keys="", line=None):
        self.path, self.keys, self.line = path, keys, line

    def child(self, key, container=None):
        line = getattr(container, "lines", {}).get(key, self.line)
        return Where(self.path, "%s.%s" % (self.keys, key) if self.keys else str(key), line)

    def error(self, message):
        place = "%s:%d" % (self.path, self.line) if self.line else self.path
        return SpecError("%s: %s: %s" % (place, self.keys, message) if self.keys else "%s: %s" % (place, message))


class LineDict(dict):
    """A mapping that remembers the line of each key (YAML only; JSON gives no positions)."""

    def __init__(self, *args):
        super().__init__(*args)
        self.lines = {}


# ---------------------------------------------------------------------------------------------------- reading

def load_document(path):
    text = open(path, encoding="utf-8").read()
    if path.endswith(".json"):
        def pairs(items):
            result = LineDict()
            for key, value in items:
                if key in result:
                    raise SpecError("%s: duplicate key %r" % (path, key))
                result[key] = value
            return result
        try:
            return json.loads(text, object_pairs_hook=pairs)
        except json.JSONDecodeError as e:
            raise SpecError("%s:%d: invalid JSON: %s" % (path, e.lineno, e.msg))
    if not path.endswith((".yaml", ".yml")):
        raise SpecError("%s: expected a .yaml, .yml or .json file" % path)
    try:
        import yaml
    except ImportError:
        raise SpecError("%s: reading YAML needs python3-yaml (apt-get install python3-yaml; "
                        "scripts/install-deps installs it), or write the spec as JSON" % path)

    class Loader(yaml.SafeLoader):
        pass

    def mapping(loader, node):
        loader.flatten_mapping(node)
        result = LineDict()
        result.line = node.start_mark.line + 1
        for key_node, value_node in node.value:
            key = loader.construct_object(key_node, deep=True)
            line = key_node.start_mark.line + 1
            if not isinstance(key, (str, int, float, bool)):
                raise SpecError("%s:%d: a key must be a scalar" % (path, line))
            if key in result:
                raise SpecError("%s:%d: duplicate key %r" % (path, line, key))
            result[key] = loader.construct_object(value_node, deep=True)
            result.lines[key] = line
        return result

    Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, mapping)
    try:
        return yaml.load(text, Loader=Loader)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        line = ":%d" % (mark.line + 1) if mark else ""
        raise SpecError("%s%s: invalid YAML: %s" % (path, line, getattr(e, "problem", None) or e))


# ---------------------------------------------------------------------------------------------------- templates

TOKEN = re.compile(r"\{\{|\}\}|\{([^{}]*)\}|[{}]")


class Template:
    """A string with {name} placeholders, parsed once so that unknown names are reported when the spec is read."""

    def __init__(self, text, where):
        self.parts = []  # literal strings and ("name",) tuples
        self.names = []
        position = 0
        for m in TOKEN.finditer(text):
            self.parts.append(text[position:m.start()])
            token = m.group(0)
            if token in ("{{", "}}"):
                self.parts.append(token[0])
            elif token in ("{", "}"):
                raise where.error("unmatched %r in %r (write {{ or }} for a literal brace)" % (token, text))
            else:
                name = m.group(1).strip()
                if not IDENTIFIER.match(name):
                    raise where.error("placeholder {%s} in %r is not a name" % (m.group(1), text))
                self.parts.append((name,))
                self.names.append(name)
            position = m.end()
        self.parts.append(text[position:])

    def check(self, defined, where):
        for name in self.names:
            if name not in defined:
                raise where.error("placeholder {%s} is not defined: expected an axis parameter, a var or a "
                                  "built-in (defined here: %s)" % (name, ", ".join(sorted(defined))))

    def render(self, values, quote=False):
        out = []
        for part in self.parts:
            if isinstance(part, tuple):
                out.append(shlex.quote(values[part[0]]) if quote else values[part[0]])
            else:
                out.append(part)
        return "".join(out)


def format_value(value):
    """How a parameter or result appears in a command, a folder name and the CSV."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    if value is None:
        return ""
    if isinstance(value, (list, dict)):
        return json.dumps(value, sort_keys=True, separators=(",", ":"))
    return str(value)


def is_scalar(value):
    return isinstance(value, (str, int, float, bool))


# ---------------------------------------------------------------------------------------------------- the spec

class Rule:
    """One result column: where its value comes from in a point's folder."""

    def __init__(self, column, spec, where):
        self.column = column
        if not isinstance(spec, dict):
            raise where.error("expected a mapping with 'file' and one of 'key', 'regex', 'stat'")
        for key in spec:
            if key not in RULE_KEYS:
                raise where.child(key, spec).error(unknown_key_message(key, RULE_KEYS))
        if "file" not in spec or not isinstance(spec["file"], str) or not spec["file"]:
            raise where.error("'file' is required: the result file, relative to the point's folder")
        self.file = Template(spec["file"], where.child("file", spec))
        self.key = self.regex = self.stat = self.column_number = None
        self.where, self.skip = [], 0
        if "key" in spec and "regex" in spec:
            raise where.error("'key' and 'regex' exclude each other")
        if "key" in spec:
            for other in ("stat", "column", "where", "skip"):
                if other in spec:
                    raise where.child(other, spec).error("not allowed with 'key' (a JSON value is taken as is)")
            key = spec["key"]
            if isinstance(key, str) and key:
                self.key = key.split(".")
            elif isinstance(key, list) and key and all(isinstance(k, (str, int)) for k in key):
                self.key = [str(k) for k in key]
            else:
                raise where.child("key", spec).error("expected a dotted path such as 'network.pfc_pauses' "
                                                     "or a list of keys")
            return
        if "stat" in spec:
            self.stat = spec["stat"]
            if not isinstance(self.stat, str) or not (self.stat in STATS[:-1] or valid_percentile(self.stat)):
                raise where.child("stat", spec).error("expected one of %s (pN with 0 <= N <= 100, e.g. p99), "
                                                      "found %r" % (", ".join(STATS), self.stat))
        if "regex" in spec:
            for other in ("column", "where", "skip"):
                if other in spec:
                    raise where.child(other, spec).error("not allowed with 'regex'")
            try:
                self.regex = re.compile(spec["regex"], re.MULTILINE)
            except (re.error, TypeError) as e:
                raise where.child("regex", spec).error("invalid regular expression: %s" % e)
            return
        if self.stat is None:
            if "column" in spec or "where" in spec:
                raise where.error("'stat' is required to reduce a table column, e.g. stat: p99")
            raise where.error("expected one of 'key' (JSON), 'regex', or 'stat' (a whitespace table)")
        if "column" in spec:
            self.column_number = positive_int(spec["column"], where.child("column", spec), "a column number from 1")
        elif self.stat != "count":
            raise where.error("'column' is required with stat %r (only count works on whole rows)" % self.stat)
        if "skip" in spec:
            skip = spec["skip"]
            if not isinstance(skip, int) or isinstance(skip, bool) or skip < 0:
                raise where.child("skip", spec).error("expected a number of header lines, 0 or more")
            self.skip = skip
        if "where" in spec:
            filters = spec["where"]
            if not isinstance(filters, dict) or not filters:
                raise where.child("where", spec).error("expected a mapping {COLUMN: VALUE} such as {5: 1}")
            for column, value in filters.items():
                number = int(column) if isinstance(column, str) and column.isdigit() else column
                number = positive_int(number, where.child("where", spec), "column numbers from 1 as keys")
                if not is_scalar(value):
                    raise where.child("where", spec).error("column %d: expected a value to compare with" % number)
                self.where.append((number, value))


def valid_percentile(stat):
    m = PERCENTILE.match(stat)
    return bool(m) and 0 <= float(m.group(1)) <= 100


def positive_int(value, where, what):
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise where.error("expected %s, found %r" % (what, value))
    return value


def unknown_key_message(key, known):
    close = difflib.get_close_matches(str(key), known, n=1)
    hint = " (did you mean %r?)" % close[0] if close else ""
    return "unknown key %r%s; expected one of %s" % (key, hint, ", ".join(known))


class Point:
    def __init__(self, index, params, name):
        self.index, self.params, self.name = index, params, name


class Spec:
    def __init__(self, path):
        self.path = os.path.abspath(path)
        self.dir = os.path.dirname(self.path)
        doc = load_document(path)
        top = Where(path)
        if not isinstance(doc, dict):
            raise top.error("expected a mapping with 'command' and 'axes' at the top")
        for key in doc:
            if key not in TOP_KEYS:
                raise top.child(key, doc).error(unknown_key_message(key, TOP_KEYS))
        for key in ("command", "axes"):
            if key not in doc:
                raise top.error("'%s' is required" % key)

        self.name = doc.get("name", os.path.splitext(os.path.basename(path))[0])
        if not isinstance(self.name, str) or not re.match(r"[A-Za-z0-9._-]+\Z", self.name):
            raise top.child("name", doc).error("expected a name of letters, digits and ._-, found %r" % self.name)

        self.axes = self._read_axes(doc["axes"], top.child("axes", doc))
        self.params = [name for axis in self.axes for name in axis[0]]
        self.vars = self._read_vars(doc.get("vars", {}), top.child("vars", doc))
        defined = set(BUILTINS) | set(self.params) | {name for name, _ in self.vars}

        self._read_command(doc["command"], top.child("command", doc), defined)
        self.env = self._read_env(doc.get("env", {}), top.child("env", doc), defined)
        self.timeout = doc.get("timeout")
        if self.timeout is not None and (not isinstance(self.timeout, (int, float)) or isinstance(self.timeout, bool)
                                         or self.timeout <= 0):
            raise top.child("timeout", doc).error("expected a number of seconds above 0, found %r" % self.timeout)
        self.inputs = self._read_inputs(doc.get("inputs", []), top.child("inputs", doc))
        self._digests = None
        self.rules = self._read_collect(doc.get("collect", {}), top.child("collect", doc), defined)
        self.slurm = self._read_slurm(doc.get("slurm", {}), top.child("slurm", doc))

        used = set(n for t in self.command for n in t.names) | set(n for _, t in self.env for n in t.names)
        for _, t in self.vars:
            used |= set(t.names)
        for name in self.params:
            if name not in used:
                print("sweep: warning: %s: parameter %r is not used by the command, env or vars: its points "
                      "differ only in their folder names" % (path, name), file=sys.stderr)

        identity = {"command": [t.parts for t in self.command], "shell": self.shell,
                    "axes": [[a[0], [[format_value(v) for v in vals] for vals in a[1]]] for a in self.axes],
                    "vars": [[n, t.parts] for n, t in self.vars], "env": [[n, t.parts] for n, t in self.env],
                    "timeout": self.timeout}
        self.fingerprint = hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:16]
        self.points = self._expand()

    def _read_axes(self, axes, where):
        """Returns [(parameter names, [values per point of this axis])]."""
        if not isinstance(axes, dict) or not axes:
            raise where.error("expected a non-empty mapping of axis names to lists of values")
        result, seen = [], {}
        for axis, values in axes.items():
            here = where.child(axis, axes)
            if not isinstance(values, list) or not values:
                raise here.error("expected a non-empty list of values, found %s"
                                 % ("an empty list" if values == [] else repr(values)))
            if all(isinstance(v, dict) for v in values):
                names = list(values[0].keys())
                if not names:
                    raise here.error("a linked value must set at least one parameter")
                for v in values:
                    if list(v.keys()) != names:
                        raise here.error("every mapping of a linked axis must set the same parameters in the "
                                         "same order (%s), found %s" % (", ".join(map(str, names)),
                                                                       ", ".join(map(str, v.keys()))))
                    for key, item in v.items():
                        if not is_scalar(item):
                            raise here.error("%s: expected a string, number or boolean, found %r" % (key, item))
                rows = [[v[n] for n in names] for v in values]
            elif any(isinstance(v, dict) for v in values):
                raise here.error("either every value is a mapping (linked parameters) or none is")
            else:
                for v in values:
                    if not is_scalar(v):
                        raise here.error("expected strings, numbers or booleans, found %r" % (v,))
                names, rows = [axis], [[v] for v in values]
            for name in names:
                if not isinstance(name, str) or not IDENTIFIER.match(name):
                    raise here.error("parameter name %r is not a name ([A-Za-z_][A-Za-z0-9_]*)" % (name,))
                if name in BUILTINS:
                    raise here.error("parameter name %r is a built-in placeholder" % name)
                if name in seen:
                    raise here.error("parameter %r is already set by axis %r" % (name, seen[name]))
                seen[name] = axis
            formatted = [tuple(format_value(v) for v in row) for row in rows]
            for i, row in enumerate(formatted):
                if row in formatted[:i]:
                    raise here.error("duplicate value %s" % ", ".join(row))
            result.append((names, rows))
        return result

    def _read_vars(self, spec_vars, where):
        if not isinstance(spec_vars, dict):
            raise where.error("expected a mapping of names to values")
        result = []
        defined = set(BUILTINS) | set(self.params)
        for name, value in spec_vars.items():
            here = where.child(name, spec_vars)
            if not isinstance(name, str) or not IDENTIFIER.match(name):
                raise here.error("var name %r is not a name ([A-Za-z_][A-Za-z0-9_]*)" % (name,))
            if name in defined:
                raise here.error("%r is already a parameter or a built-in" % name)
            if not is_scalar(value):
                raise here.error("expected a string or number")
            template = Template(format_value(value), here)
            template.check(defined, here)
            result.append((name, template))
            defined.add(name)
        return result

    def _read_command(self, command, where, defined):
        if isinstance(command, str) and command.strip():
            self.shell = True
            self.command = [Template(command, where)]
        elif isinstance(command, list) and command and all(is_scalar(a) for a in command):
            self.shell = False
            self.command = [Template(format_value(a), where) for a in command]
        else:
            raise where.error("expected a non-empty string (run by /bin/sh) or a list of arguments")
        for t in self.command:
            t.check(defined, where)

    def _read_env(self, env, where, defined):
        if not isinstance(env, dict):
            raise where.error("expected a mapping of environment variables")
        result = []
        for key, value in env.items():
            if not isinstance(key, str) or not IDENTIFIER.match(key):
                raise where.error("expected environment variable names, found %r" % key)
            if not is_scalar(value):
                raise where.child(key, env).error("expected a string or number")
            template = Template(format_value(value), where.child(key, env))
            template.check(defined, where.child(key, env))
            result.append((key, template))
        return result

    def _read_inputs(self, inputs, where):
        if not isinstance(inputs, list) or not all(isinstance(i, str) and i.strip() for i in inputs):
            raise where.error("expected a list of file paths (relative to the spec's folder, or starting with "
                              "{spec_dir}, {repo} or {shared})")
        result = []
        for text in inputs:
            template = Template(text, where)
            template.check(set(INPUT_PLACEHOLDERS), where)
            result.append((text, template))
        return result

    def input_paths(self):
        """[(input as the spec writes it, its path)]: relative ones are taken from the spec's folder."""
        values = self.base_values()
        return [(text, os.path.normpath(os.path.join(self.dir, template.render(values))))
                for text, template in self.inputs]

    def input_digests(self):
        """{input as the spec writes it: SHA-256 of its content}, read once; SpecError naming a missing input."""
        if self._digests is None:
            digests = {}
            for text, path in self.input_paths():
                try:
                    with open(path, "rb") as f:
                        digests[text] = hashlib.sha256(f.read()).hexdigest()
                except OSError as e:
                    raise SpecError("%s: input %r: cannot read %s: %s" % (self.path, text, path,
                                                                         e.strerror or e)) from None
            self._digests = digests
        return self._digests

    def _read_collect(self, collect, where, defined):
        if not isinstance(collect, dict):
            raise where.error("expected a mapping of result column names to rules")
        taken = set(self.params) | set(STATUS_COLUMNS) | set(TIMING_COLUMNS)
        rules = []
        for column, rule in collect.items():
            if not isinstance(column, str) or not column.strip():
                raise where.error("expected column names, found %r" % (column,))
            if column in taken:
                raise where.child(column, collect).error("column %r is already a parameter or a status column"
                                                         % column)
            rules.append(Rule(column, rule, where.child(column, collect)))
            rules[-1].file.check(defined, where.child(column, collect).child("file", rule))
        return rules

    def _read_slurm(self, slurm, where):
        if not isinstance(slurm, dict):
            raise where.error("expected a mapping of sbatch options, e.g. {time: '00:10:00'}")
        options = []
        for key, value in slurm.items():
            if not isinstance(key, str) or not re.match(r"[a-z][a-z0-9-]*\Z", key):
                raise where.error("expected sbatch long option names such as 'time' or 'cpus-per-task', "
                                  "found %r" % (key,))
            if key in SLURM_RESERVED:
                raise where.child(key, slurm).error("--%s is set by the sweep itself" % key)
            if not is_scalar(value) or re.search(r"\s", format_value(value)):
                raise where.child(key, slurm).error("expected one word, found %r" % (value,))
            options.append((key, format_value(value)))
        return options

    def _expand(self):
        points, names = [], {}
        for index, combination in enumerate(itertools.product(*[axis[1] for axis in self.axes])):
            params = {}
            for (axis_names, _), row in zip(self.axes, combination):
                params.update(zip(axis_names, row))
            name = point_name(params)
            if name in names:
                raise SpecError("%s: points %d and %d get the same folder name %s" % (self.path, names[name],
                                                                                     index, name))
            names[name] = index
            points.append(Point(index, params, name))
        return points

    def base_values(self):
        """The built-in placeholders that are the same for every point."""
        return {"spec_dir": self.dir, "repo": ROOT,
                "bin": os.path.abspath(os.path.join(os.environ.get("BUILD_DIR", os.path.join(ROOT, "build")), "bin")),
                "shared": os.path.abspath(os.environ.get("MLNET_SHARED_DIR", os.path.join(ROOT, "..", "shared"))),
                "python": sys.executable}

    def values(self, point, out):
        """Every placeholder's text for one point."""
        values = dict(self.base_values(), out=os.path.join(out, point.name), point=point.name,
                      index=str(point.index))
        values.update((k, format_value(v)) for k, v in point.params.items())
        for name, template in self.vars:
            values[name] = template.render(values)
        return values

    def command_for(self, point, out):
        """(argv, command as recorded and printed, environment additions)."""
        values = self.values(point, out)
        env = {k: t.render(values) for k, t in self.env}
        if self.shell:
            text = self.command[0].render(values, quote=True)
            return ["/bin/sh", "-c", text], text, env
        argv = [t.render(values) for t in self.command]
        return argv, " ".join(shlex.quote(a) for a in argv), env


def point_name(params):
    raw = ",".join("%s=%s" % (k, format_value(v)) for k, v in params.items())
    # Only the separators may be = and , so that two points never share a name without a hash telling them apart.
    safe = ",".join("%s=%s" % (k, re.sub(r"[^A-Za-z0-9._+-]", "_", format_value(v))) for k, v in params.items())
    if safe != raw or len(safe) > 100:
        digest = hashlib.sha1(json.dumps([[k, format_value(v)] for k, v in params.items()]).encode()).hexdigest()
        safe = safe[:80] + "-" + digest[:10]
    return safe


# ---------------------------------------------------------------------------------------------------- results
