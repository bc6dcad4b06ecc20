"""Files in and out of the scripts: one rule per kind of file, shared by scripts/sweep, scripts/reproduce,
scripts/fct-slowdown, scripts/compare-fct and their modules, so that a hostile or mistaken path gives the same
one-line message everywhere instead of a hang or a traceback.

  - A file read whole (a spec, a JSON result) must be a regular file of at most a stated size, so that a device
    (/dev/zero), a FIFO or a folder is refused by name instead of read forever or failing half-way.
  - A file hashed (a sweep's inputs) is read in chunks, never whole, with a size limit, regular files only.
  - A table read line by line (fct.txt and the like) may also be a pipe (process substitution), but no line may
    be longer than MAX_LINE_CHARS, so that /dev/zero or a binary file stops at its first line.
  - Text is UTF-8 where the format says so; JSON is refused when nested deeper than Python can parse or when it
    holds integers of more digits than Python converts.
  - An output folder named on the command line must be a folder or a path where one can be made; an output file
    must not be a folder nor the same file as an input, checked before anything is written; every output is
    written atomically (a temporary file beside it, then a rename).

Every problem raises InputError with a message 'PATH: what is wrong; expected what'."""
import hashlib
import json
import os
import stat
import sys

KIB = 1024
MIB = 1024 * KIB
GIB = 1024 * MIB
# A spec is a few kilobytes; sixteen megabytes is far beyond any real one and still cheap to hold.
MAX_SPEC_BYTES = 16 * MIB
# Result files read whole: summary.json, report.json, status.json, the files a collect rule reads.
MAX_RESULT_BYTES = 1 * GIB
# Inputs are hashed in chunks, so their size costs time, not memory; the limit only stops an endless file.
MAX_INPUT_BYTES = 64 * GIB
HASH_CHUNK_BYTES = 1 * MIB
# The longest line of a whitespace table: fct.txt lines are under 100 characters.
MAX_LINE_CHARS = 64 * KIB


class InputError(Exception):
    """Malformed or unusable input or output; the message names the file (and the line where there is one)."""


def size_text(n):
    for unit, scale in (("GiB", GIB), ("MiB", MIB), ("KiB", KIB)):
        if n >= scale:
            return "%g %s" % (n / scale, unit)
    return "%d bytes" % n


def kind_of(mode):
    """What a non-regular file is, for messages."""
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def _cannot(path, verb, error):
    return InputError("%s: cannot %s: %s" % (path, verb, error.strerror or error))


def check_readable(path, what, allow_pipe=False):
    """The stat of path when it is a regular file (or, with allow_pipe, a FIFO); InputError otherwise."""
    try:
        info = os.stat(path)
    except OSError as e:
        raise _cannot(path, "read", e) from None
    except ValueError:  # a NUL in the path
        raise InputError("%r: a path cannot hold a NUL character; expected %s" % (path, what)) from None
    if stat.S_ISREG(info.st_mode) or (allow_pipe and stat.S_ISFIFO(info.st_mode)):
        return info
    raise InputError("%s: is %s; expected %s" % (path, kind_of(info.st_mode), what))


def _open_regular(path, what):
    """An open binary file that is regular (checked again on the open file: the path may have changed)."""
    check_readable(path, what)
    try:
        # O_NONBLOCK: a FIFO swapped in after the check must not block the open.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as e:
        raise _cannot(path, "read", e) from None
    f = os.fdopen(fd, "rb")
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        f.close()
        raise InputError("%s: is not a regular file; expected %s" % (path, what))
    return f


def _chunks(f, path, what, limit):
    """The file's content in chunks of at most HASH_CHUNK_BYTES (a read of `limit` bytes at once would reserve
    them), InputError once more than `limit` bytes came."""
    total = 0
    while True:
        try:
            chunk = f.read(HASH_CHUNK_BYTES)
        except OSError as e:
            raise _cannot(path, "read", e) from None
        if not chunk:
            return
        total += len(chunk)
        if total > limit:
            raise InputError("%s: larger than %s; expected %s of at most %s" % (path, size_text(limit), what,
                                                                              size_text(limit)))
        yield chunk


def read_bytes(path, what, limit):
    """The content of a regular file of at most `limit` bytes."""
    with _open_regular(path, what) as f:
        return b"".join(_chunks(f, path, what, limit))


def decode_utf8(data, path, what):
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError("%s: not UTF-8 text (byte 0x%02x at offset %d); expected %s" % (
            path, data[e.start], e.start, what)) from None


def read_text(path, what, limit):
    """The UTF-8 text of a regular file of at most `limit` bytes."""
    return decode_utf8(read_bytes(path, what, limit), path, what)


def sha256_file(path, what, limit=MAX_INPUT_BYTES):
    """The SHA-256 of a regular file, read in chunks; InputError for anything else or beyond `limit` bytes."""
    digest = hashlib.sha256()
    with _open_regular(path, what) as f:
        for chunk in _chunks(f, path, what, limit):
            digest.update(chunk)
    return digest.hexdigest()


def parse_json(text, path, object_pairs_hook=None):
    """json.loads with every failure as InputError naming the file: syntax (with the line), nesting deeper than
    Python's parser recurses, integers longer than Python converts (4300 digits)."""
    try:
        return json.loads(text, object_pairs_hook=object_pairs_hook)
    except json.JSONDecodeError as e:
        raise InputError("%s:%d: invalid JSON: %s" % (path, e.lineno, e.msg)) from None
    except RecursionError:
        raise InputError("%s: JSON nested too deeply to read; expected at most a few hundred levels" % path) from None
    except ValueError as e:  # int() of too many digits
        raise InputError("%s: invalid JSON: %s; expected numbers of at most 4300 digits" % (
            path, str(e).split(":")[0])) from None


def read_json(path, what="a JSON file", limit=MAX_RESULT_BYTES):
    return parse_json(read_text(path, what, limit), path)


def table_lines(path, what, opener=open):
    """(line number, line) of a text table read lazily, as ASCII with undecodable bytes replaced; regular files
    and pipes only, and no line longer than MAX_LINE_CHARS."""
    check_readable(path, what, allow_pipe=True)
    try:
        with opener(path, "rt", encoding="ascii", errors="replace") as f:
            number = 0
            while True:
                line = f.readline(MAX_LINE_CHARS + 1)
                if not line:
                    return
                number += 1
                if len(line) > MAX_LINE_CHARS:
                    raise InputError("%s:%d: a line longer than %d characters; expected %s" % (
                        path, number, MAX_LINE_CHARS, what))
                yield number, line
    except (OSError, EOFError) as e:  # EOFError: a truncated .gz
        raise InputError("%s: cannot read: %s" % (path, getattr(e, "strerror", None) or e)) from None


# ---------------------------------------------------------------------------------------------------- outputs

def _place(flag, value, path):
    """'--out DIR' or, when the path is derived from the value, '--out-prefix P: P-bins.csv'."""
    return "%s %s" % (flag, path) if value is None or value == path else "%s %s: %s" % (flag, value, path)


def check_output_dir(path, flag, value=None):
    """Refuses an output folder named on the command line (flag value, or derived from it) that exists as
    something else; called before any work."""
    if os.path.exists(path) and not os.path.isdir(path):
        raise InputError("%s: exists and is not a folder; expected a folder (or a path where one can be made)"
                         % _place(flag, value, path))


def make_dir(path, flag, value=None):
    """Makes an output folder (and its parents); InputError naming the flag when that is impossible."""
    check_output_dir(path, flag, value)
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as e:
        raise InputError("%s: cannot make the folder: %s; expected a folder (or a path where one can be made)"
                         % (_place(flag, value, path), e.strerror or e)) from None


def same_file(a, b):
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return False


def check_outputs(flag, value, paths, inputs):
    """Refuses, before anything is written, an output path (given by flag value, or derived from it) that is a
    folder or the same file as an input (by inode: links and other spellings count). inputs: [(name, path)]."""
    for path in paths:
        if os.path.isdir(path):
            raise InputError("%s: is a folder; expected a file to write" % _place(flag, value, path))
        for name, source in inputs:
            if same_file(path, source):
                raise InputError("%s: would overwrite %s (%s); expected an output apart from the inputs"
                                 % (_place(flag, value, path), name, source))


def write_atomic(path, text):
    """Writes text (UTF-8) to path through a temporary file beside it and a rename: a reader never sees half a
    file, and an interrupted run leaves the previous one."""
    tmp = "%s.tmp.%d" % (path, os.getpid())
    try:
        with open(tmp, "w", encoding="utf-8", newline="") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise InputError("%s: cannot write: %s" % (path, e.strerror or e)) from None


# ---------------------------------------------------------------------------------------------------- main

def guarded_main(program, main, argv):
    """main(argv)'s exit status. The last resort behind the real checks, which give specific messages: an
    exception they missed becomes one line instead of a traceback (exit 2), Ctrl-C exits 130 without one, and
    output that cannot be written (a full disk, a closed pipe) is said once."""
    try:
        status = main(argv)
        sys.stdout.flush()
        return status
    except KeyboardInterrupt:
        print("%s: interrupted" % program, file=sys.stderr)
        return 130
    except BrokenPipeError:
        # Output piped into head and the like: quiet, and no second error when Python flushes at exit.
        _drop_stdout()
        return 1
    except OSError as e:
        if e.filename is None:  # the standard streams
            _drop_stdout()
            print("%s: standard output: cannot write: %s" % (program, e.strerror or e), file=sys.stderr)
            return 2
        print("%s: %s: %s" % (program, e.filename, e.strerror or e), file=sys.stderr)
        return 2
    except Exception as e:  # noqa: BLE001 (the point of a last resort)
        print("%s: unexpected %s: %s (a bug: please report it with the command that caused it)"
              % (program, type(e).__name__, str(e).splitlines()[0][:300] if str(e) else ""), file=sys.stderr)
        return 2


def _drop_stdout():
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except OSError:
        pass
