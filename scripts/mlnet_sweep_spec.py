"""The sweep spec: its schema, its validation with located errors, the grid of points and their folder names
(scripts/sweep runs them; scripts/reproduce reads them).

SPEC is YAML (.yaml, .yml; needs python3-yaml) or JSON (.json):

  name: example                  # optional, [A-Za-z0-9._-]{1,100}; default: the file's name without its extension
  description: free text         # optional
  command: "{bin}/mlnet-flows {bench}/config-{config}.txt --seed={seed} --fct={out}/fct.txt"
      # a string runs with /bin/sh -c; the values never become shell code: each placeholder is a reference to
      # an environment variable holding its value (see ShellCommand), one word outside quotes, part of the
      # quoted text inside '...' or "..."; a list of strings runs without a shell, one argument per item
  axes:                          # the grid, in order: the first axis varies slowest, as nested loops
    seed: [1, 2]                 # a parameter and its values (strings, numbers, booleans)
    cc:                          # values that are mappings set several parameters together
      - {cc: dcqcn, config: dcqcn}
      - {cc: hpcc, config: hp}
  vars:                          # optional values derived per point, each may use those above it
    bench: "{shared}/workloads/hpcc-bench"
  env: {OMP_NUM_THREADS: 1}      # optional environment variables for the command (placeholders allowed)
  timeout: 600                   # optional: seconds per point (above 0, at most 30 days); a point still
      # running then is killed, failed
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

Every value of a spec is checked by one rule per kind: strings hold no NUL character and are valid Unicode,
numbers are finite (no .nan or .inf); each numeric key is also checked against its range by number_in (timeout,
column, where's columns, skip). A spec file is a regular file of at most 16 MiB in UTF-8; the grid has at most
1,000,000 points, and no placeholder text (a var, the command, env, a collect file) can expand beyond 1 MiB.

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
import math
import os
import re
import shlex
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mlnet_io  # noqa: E402

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
# Bounds of the numeric keys (number_in): a timeout beyond a month is a typing mistake, and so is a column or a
# header count beyond these.
MAX_TIMEOUT_S = 30 * 24 * 3600
MAX_COLUMN = 100000
MAX_SKIP = 10 ** 9
# A grid beyond a million points is a typing mistake too (and Slurm's arrays stop far below it); expanding one
# would take the machine's memory before anything ran.
MAX_POINTS = 1000000
# Placeholder text may not expand beyond this: vars of vars each using the previous twice would otherwise double
# per var, and a value longer than Linux's 128 KiB per argument cannot reach a command anyway.
MAX_EXPANSION_CHARS = 1 << 20
# The built-ins' longest plausible text when the expansion is bounded before the output folder is known: paths.
BUILTIN_CHARS = 4096
# A string command reads each placeholder's value from the environment variable of this prefix and its name.
SHELL_VAR_PREFIX = "MLNET_SWEEP_"
# What an #SBATCH line can hold unquoted: sbatch parses those lines itself, strips quotes and stops at spaces.
SBATCH_WORD = re.compile(r"[^\s'\"\\\x00-\x1f\x7f]+\Z")
CONTROL = re.compile(r"[\x00-\x1f\x7f]")


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

def read_spec_text(path):
    """The spec's text: mlnet_io's rule for a file read whole (a regular file of at most 16 MiB) and UTF-8."""
    if not path.endswith((".json", ".yaml", ".yml")):
        raise SpecError("%s: expected a .yaml, .yml or .json file" % path)
    try:
        return mlnet_io.read_text(path, "a sweep spec (YAML or JSON text)", mlnet_io.MAX_SPEC_BYTES)
    except mlnet_io.InputError as e:
        raise SpecError(str(e)) from None


def load_document(path):
    text = read_spec_text(path)
    if path.endswith(".json"):
        def pairs(items):
            result = LineDict()
            for key, value in items:
                if key in result:
                    raise SpecError("%s: duplicate key %r" % (path, key))
                result[key] = value
            return result
        try:
            return mlnet_io.parse_json(text, path, object_pairs_hook=pairs)
        except mlnet_io.InputError as e:
            raise SpecError(str(e)) from None
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
    except RecursionError:
        raise SpecError("%s: YAML nested too deeply to read; expected at most a few hundred levels" % path) from None
    except ValueError as e:  # int() of more digits than Python converts
        raise SpecError("%s: invalid YAML: %s; expected numbers of at most 4300 digits"
                        % (path, str(e).split(":")[0])) from None


def shown(value):
    """A value in a message: its repr, cut short."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def value_problem(value):
    """What makes a scalar of a spec unusable whatever key holds it, or None: the one rule per kind of value."""
    if isinstance(value, float) and not math.isfinite(value):
        return "%s is not a finite number; expected a finite number" % value
    if isinstance(value, str):
        if "\0" in value:
            return "%s holds a NUL character; expected text without NUL (no argument or path can hold one)" % (
                shown(value))
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return "%s holds an unpaired surrogate; expected Unicode text" % shown(value)
    return None


def check_values(document, top):
    """Applies value_problem to every key and value of the document, wherever it is (iteratively: a document
    nested as deep as the parser allows must not exhaust Python's stack here; containers shared through YAML
    aliases are visited once)."""
    stack, seen = [(document, top)], set()
    while stack:
        value, where = stack.pop()
        if isinstance(value, (dict, list)):
            if id(value) in seen:
                continue
            seen.add(id(value))
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for key, item in items:
                problem = value_problem(key) if isinstance(value, dict) else None
                if problem:
                    raise where.error("a key: " + problem)
                stack.append((item, where.child(key, value)))
        else:
            problem = value_problem(value)
            if problem:
                raise where.error(problem)


def number_in(value, where, what, low, high, integer=False, above=False):
    """The one rule for every numeric key of a spec: a number (not a boolean; an integer where `integer`),
    finite, at least `low` (above it with `above`) and at most `high`; `what` says so in the message."""
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and (isinstance(value, int) or (
        not integer and math.isfinite(value)))
    if ok and not ((value > low if above else value >= low) and value <= high):
        ok = False
    if not ok:
        raise where.error("expected %s, found %s" % (what, shown(value)))
    return value


def describe(value):
    """What a document holds instead of the mapping expected, for messages."""
    if value is None:
        return "nothing (an empty document)"
    return {list: "a list", str: "a string", bool: "a boolean", int: "a number", float: "a number"}.get(
        type(value), "a %s" % type(value).__name__)


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

    def render(self, values):
        return "".join(values[part[0]] if isinstance(part, tuple) else part for part in self.parts)

    def longest(self, lengths):
        """The most characters the text can expand to, given the most each name can."""
        return sum(lengths[part[0]] if isinstance(part, tuple) else len(part) for part in self.parts)


class ShellCommand:
    """A string command, run by /bin/sh -c, whose placeholder values never become shell code: the script the
    shell runs holds, for each placeholder, a reference to the environment variable SHELL_VAR_PREFIX + name, and
    the values travel in the environment. Which reference depends on where the placeholder stands, read once
    from the template with the shell's quoting rules:

      outside quotes        "${MLNET_SWEEP_x}"       one word, whatever the value holds (as a quoted word did)
      inside "..."          ${MLNET_SWEEP_x}         part of the double-quoted text
      inside '...'          '"${MLNET_SWEEP_x}"'     the single quotes closed around a double-quoted reference

    A placeholder after a backslash, in a comment, inside ${...}, `...` or $((...)), or after a here-document
    operator (<<) is refused: there no reference stands for the value as written, the command as printed could
    not show it quoted (backquotes take one more level of escaping), or the shell would evaluate the value
    (arithmetic; bash runs $(...) in an array subscript there). Elsewhere a value is only ever expanded, never
    parsed, so a misread context can give the wrong text but never run a value. The command as recorded and
    printed (`display`) shows the values themselves, shell-quoted for where they stand, so that it can be
    pasted."""

    def __init__(self, template, where):
        self.template = template
        self.contexts = shell_contexts(template, where)

    def script(self):
        out = []
        for part, context in zip(self.template.parts, self.contexts):
            if not isinstance(part, tuple):
                out.append(part)
                continue
            reference = "${%s%s}" % (SHELL_VAR_PREFIX, part[0])
            out.append({"plain": '"%s"', "double": "%s", "single": "'\"%s\"'"}[context] % reference)
        return "".join(out)

    def display(self, values):
        out = []
        for part, context in zip(self.template.parts, self.contexts):
            if not isinstance(part, tuple):
                out.append(part)
                continue
            value = values[part[0]]
            quoted = shlex.quote(value)
            if context == "plain" or quoted == value:
                out.append(quoted)
            else:  # close the quotes, add the quoted value, reopen them: still one word
                mark = '"' if context == "double" else "'"
                out.append(mark + quoted + mark)
        return "".join(out)

    def environment(self, values):
        return {SHELL_VAR_PREFIX + name: values[name] for name in self.template.names}


def shell_contexts(template, where):
    """One entry per part of the template: None for literal text, and for a placeholder where it stands, plain,
    double or single (see ShellCommand); SpecError for a placeholder where no reference can stand for it.
    Follows POSIX sh's quoting: '...', "...", backslashes, comments, $(...), `...`, $((...)), ${...} (whose
    quotes inside "..." are literal, except nested "...") and here-documents."""
    # plain, double, backtick, paren, arith, brace (${ outside quotes), dbrace (${ inside "...")
    stack = ["plain"]
    single = escaped = comment = heredoc = False
    previous = before = None
    contexts = []
    for part in template.parts:
        if isinstance(part, tuple):
            problem = ("is inside a shell comment" if comment else
                       "follows a backslash" if escaped else
                       "follows a here-document operator (<<), whose body the sweep cannot quote" if heredoc else
                       "is inside `...` (write $(...) instead)" if "backtick" in stack else
                       "is inside $((...)), whose arithmetic would evaluate the value" if "arith" in stack else
                       "is inside ${...}" if "brace" in stack or "dbrace" in stack else None)
            if problem:
                raise where.error("placeholder {%s} %s; expected it outside quotes or inside '...' or \"...\" "
                                  "(or use a list command, which needs no shell)" % (part[0], problem))
            contexts.append("single" if single else "double" if stack[-1] == "double" else "plain")
            previous, before, escaped = "x", previous, False
            continue
        contexts.append(None)
        for c in part:
            top = stack[-1]
            if comment:
                comment = c != "\n"
            elif escaped:
                escaped = False
            elif single:
                single = c != "'"
            elif top in ("double", "dbrace"):
                if c == "\\":
                    escaped = True
                elif c == '"':
                    if top == "double":
                        stack.pop()
                    else:
                        stack.append("double")
                elif c == "}" and top == "dbrace":
                    stack.pop()
                elif c == "`":
                    stack.append("backtick")
                elif c in "({" and previous == "$":
                    stack.append("paren" if c == "(" else "dbrace")
            elif c == "\\":
                escaped = True
            elif c == "'":
                single = True
            elif c == '"':
                stack.append("double")
            elif c == "`":
                if top == "backtick":
                    stack.pop()
                else:
                    stack.append("backtick")
            elif c == "(":
                if previous == "(" and before == "$" and top == "paren":
                    stack[-1] = "arith"
                stack.append("paren")
            elif c == ")" and top in ("paren", "arith"):
                stack.pop()
            elif c == "{" and previous == "$":
                stack.append("brace")
            elif c == "}" and top == "brace":
                stack.pop()
            elif c == "#" and (previous is None or previous in " \t\n;&|()<>"):
                comment = True
            elif c == "<" and previous == "<":
                heredoc = True
            previous, before = c, previous
    return contexts


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
            self.column_number = number_in(spec["column"], where.child("column", spec),
                                           "a column number from 1 to %d" % MAX_COLUMN, 1, MAX_COLUMN, integer=True)
        elif self.stat != "count":
            raise where.error("'column' is required with stat %r (only count works on whole rows)" % self.stat)
        if "skip" in spec:
            self.skip = number_in(spec["skip"], where.child("skip", spec),
                                  "a number of header lines from 0 to %d" % MAX_SKIP, 0, MAX_SKIP, integer=True)
        if "where" in spec:
            filters = spec["where"]
            if not isinstance(filters, dict) or not filters:
                raise where.child("where", spec).error("expected a mapping {COLUMN: VALUE} such as {5: 1}")
            for column, value in filters.items():
                number = int(column) if isinstance(column, str) and column.isdecimal() else column
                number = number_in(number, where.child("where", spec),
                                   "column numbers from 1 to %d as keys" % MAX_COLUMN, 1, MAX_COLUMN, integer=True)
                if not is_scalar(value):
                    raise where.child("where", spec).error("column %d: expected a value to compare with" % number)
                self.where.append((number, value))


def valid_percentile(stat):
    m = PERCENTILE.match(stat)
    return bool(m) and 0 <= float(m.group(1)) <= 100


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
            raise top.error("expected a mapping with 'command' and 'axes' at the top, found %s" % describe(doc))
        check_values(doc, top)
        for key in doc:
            if key not in TOP_KEYS:
                raise top.child(key, doc).error(unknown_key_message(key, TOP_KEYS))
        for key in ("command", "axes"):
            if key not in doc:
                raise top.error("'%s' is required" % key)

        self.name = doc.get("name", os.path.splitext(os.path.basename(path))[0])
        if not isinstance(self.name, str) or not re.match(r"[A-Za-z0-9._-]{1,100}\Z", self.name):
            raise top.child("name", doc).error("expected a name of 1 to 100 letters, digits and ._-, found %s"
                                               % shown(self.name))
        if not isinstance(doc.get("description") or "", str):
            raise top.child("description", doc).error("expected free text, found %s" % describe(doc["description"]))

        self.axes = self._read_axes(doc["axes"], top.child("axes", doc))
        self.params = [name for axis in self.axes for name in axis[0]]
        # The most characters each placeholder can stand for, to bound every expansion before anything expands.
        self._lengths = dict.fromkeys(BUILTINS, BUILTIN_CHARS)
        for names, rows in self.axes:
            for i, name in enumerate(names):
                self._lengths[name] = max(len(format_value(row[i])) for row in rows)
        self.vars = self._read_vars(doc.get("vars", {}), top.child("vars", doc))
        defined = set(BUILTINS) | set(self.params) | {name for name, _ in self.vars}

        self._read_command(doc["command"], top.child("command", doc), defined)
        self.env = self._read_env(doc.get("env", {}), top.child("env", doc), defined)
        self.timeout = doc.get("timeout")
        if self.timeout is not None:
            number_in(self.timeout, top.child("timeout", doc), "a number of seconds above 0 and at most %d (30 days)"
                      % MAX_TIMEOUT_S, 0, MAX_TIMEOUT_S, above=True)
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
            seen_rows = set()
            for row in formatted:
                if row in seen_rows:
                    raise here.error("duplicate value %s" % ", ".join(row))
                seen_rows.add(row)
            result.append((names, rows))
        count = math.prod(len(rows) for _, rows in result)
        if count > MAX_POINTS:
            raise where.error("the grid has %d points; expected at most %d" % (count, MAX_POINTS))
        return result

    def _bounded(self, template, where):
        """Refuses a template that could expand beyond MAX_EXPANSION_CHARS; returns it."""
        longest = template.longest(self._lengths)
        if longest > MAX_EXPANSION_CHARS:
            raise where.error("can expand to %d characters; expected at most %d" % (longest, MAX_EXPANSION_CHARS))
        return template

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
            self._lengths[name] = self._bounded(template, here).longest(self._lengths)
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
            self._bounded(t, where)
        self.shell_command = ShellCommand(self.command[0], where) if self.shell else None

    def _read_env(self, env, where, defined):
        if not isinstance(env, dict):
            raise where.error("expected a mapping of environment variables")
        result = []
        for key, value in env.items():
            if not isinstance(key, str) or not IDENTIFIER.match(key):
                raise where.error("expected environment variable names, found %r" % key)
            if key.startswith(SHELL_VAR_PREFIX):
                raise where.child(key, env).error("%s* is where a string command finds its placeholders' values; "
                                                  "expected another name" % SHELL_VAR_PREFIX)
            if not is_scalar(value):
                raise where.child(key, env).error("expected a string or number")
            template = Template(format_value(value), where.child(key, env))
            template.check(defined, where.child(key, env))
            self._bounded(template, where.child(key, env))
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
        """{input as the spec writes it: SHA-256 of its content}, read once, in chunks (mlnet_io's rule for a
        file hashed: a regular file of at most 64 GiB, so a device or a FIFO is refused, not read forever);
        SpecError naming the input when it is missing or unusable."""
        if self._digests is None:
            digests = {}
            for text, path in self.input_paths():
                try:
                    digests[text] = mlnet_io.sha256_file(path, "a regular file (the spec's inputs are hashed)")
                except mlnet_io.InputError as e:
                    raise SpecError("%s: input %r: %s" % (self.path, text, e)) from None
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
            self._bounded(rules[-1].file, where.child(column, collect).child("file", rule))
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
            if not is_scalar(value) or not SBATCH_WORD.match(format_value(value)):
                raise where.child(key, slurm).error("expected one word without spaces, quotes, backslashes or "
                                                    "control characters (#SBATCH lines are not shell), found %s"
                                                    % shown(value))
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
        """(argv, command as recorded and printed, the spec's environment additions). A string command's argv
        also needs placeholder_env's variables (run_environment gives both)."""
        values = self.values(point, out)
        env = {k: t.render(values) for k, t in self.env}
        if self.shell:
            return ["/bin/sh", "-c", self.shell_command.script()], self.shell_command.display(values), env
        argv = [t.render(values) for t in self.command]
        return argv, " ".join(shlex.quote(a) for a in argv), env

    def run_environment(self, point, out):
        """(argv, environment additions) to run the point with: the spec's env and, for a string command, the
        variables holding its placeholders' values."""
        argv, _, env = self.command_for(point, out)
        if self.shell:
            env = dict(env, **self.shell_command.environment(self.values(point, out)))
        return argv, env


def point_name(params):
    raw = ",".join("%s=%s" % (k, format_value(v)) for k, v in params.items())
    # Only the separators may be = and , so that two points never share a name without a hash telling them apart.
    safe = ",".join("%s=%s" % (k, re.sub(r"[^A-Za-z0-9._+-]", "_", format_value(v))) for k, v in params.items())
    if safe != raw or len(safe) > 100:
        digest = hashlib.sha1(json.dumps([[k, format_value(v)] for k, v in params.items()]).encode()).hexdigest()
        safe = safe[:80] + "-" + digest[:10]
    return safe


# ---------------------------------------------------------------------------------------------------- results
