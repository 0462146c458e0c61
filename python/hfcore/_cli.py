"""The ``hfcore`` command that ``pip install`` puts on PATH.

``hfcore xml2json`` and ``hfcore json2xml`` (HistFactory XML + ROOT to and from pyhf JSON, with pyhf's options)
run here, in Python (they need uproot: ``pip install "hfcore[xml]"``). Every other command is the C++ command
line bundled in the package (hfcore/bin/hfcore), run in place of this process with the same arguments.
"""

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

# The C++ command line: installed with the package (python/CMakeLists.txt), or in a build tree
# (build/<preset>/python/hfcore beside build/<preset>/bin).
_PACKAGE = Path(__file__).resolve().parent
_CANDIDATES = (_PACKAGE / "bin" / "hfcore", _PACKAGE.parent.parent / "bin" / "hfcore")

_PYTHON_COMMANDS = {
    "xml2json": "HistFactory XML + ROOT files to a pyhf JSON workspace (pyhf xml2json)",
    "json2xml": "a pyhf JSON workspace to HistFactory XML + ROOT files (pyhf json2xml)",
}


def _mount(text):
    local, sep, mounted = text.partition(":")
    if not sep or not local or not mounted or ":" in mounted:
        raise argparse.ArgumentTypeError(f"{text} is not a valid colon-separated option (LOCAL:MOUNTED)")
    local = Path(local).resolve()
    if not local.exists():
        raise argparse.ArgumentTypeError(f"{local}: no such file or folder")
    return local, Path(mounted)


def _existing(text):
    if not Path(text).exists():
        raise argparse.ArgumentTypeError(f"{text}: no such file or folder")
    return text


def _xml2json_parser():
    p = argparse.ArgumentParser(prog="hfcore xml2json", description=_PYTHON_COMMANDS["xml2json"] + ".")
    p.add_argument("entrypoint_xml", type=_existing, metavar="ENTRYPOINT_XML",
                   help="the top-level XML file (a <Combination>)")
    p.add_argument("--basedir", type=_existing, default=os.getcwd(),
                   help="the folder that relative paths in the XML start from (default: the current folder)")
    p.add_argument("-v", "--mount", type=_mount, action="append", default=[], metavar="LOCAL:MOUNTED",
                   help="read files the XML names under MOUNTED from LOCAL (like a Docker volume); repeatable")
    p.add_argument("--output-file", help="where to write the JSON (default: standard output)")
    p.add_argument("--binning-output", metavar="FILE",
                   help="also write each channel's bin edges and axis title (from its data histogram), the file "
                   "`hfcore yields --binning` and `hfcore-plot yields --binning` read (pyhf's JSON has no edges)")
    p.add_argument("--track-progress", dest="track_progress", action="store_true", default=True,
                   help="show a progress bar over the channels (default)")
    p.add_argument("--hide-progress", dest="track_progress", action="store_false", help="no progress bar")
    p.add_argument("--validation-as-error", dest="validation_as_error", action="store_true", default=True,
                   help="fail when the result breaks pyhf's workspace schema (default)")
    p.add_argument("--validation-as-warning", dest="validation_as_error", action="store_false",
                   help="only warn when the result breaks pyhf's workspace schema")
    return p


def _json2xml_parser():
    p = argparse.ArgumentParser(prog="hfcore json2xml", description=_PYTHON_COMMANDS["json2xml"] + ".")
    p.add_argument("workspace", nargs="?", default="-", help="the workspace JSON file (default: - , standard input)")
    p.add_argument("--output-dir", type=_existing, default=".", help="where to write (default: the current folder)")
    p.add_argument("--specroot", default="config", help="folder of the channel XML files, in OUTPUT_DIR")
    p.add_argument("--dataroot", default="data", help="folder of data.root, in OUTPUT_DIR")
    p.add_argument("--resultprefix", default="FitConfig", help="name of the top-level XML and channel files' prefix")
    p.add_argument("-p", "--patch", action="append", default=[],
                   help="a JSON patch file (- for standard input) applied to the workspace first; repeatable")
    return p


def _read_json(name):
    if name == "-":
        return json.load(sys.stdin)
    with open(name, encoding="utf-8") as f:
        return json.load(f)


def xml2json(argv):
    args = _xml2json_parser().parse_args(argv)
    from . import readxml

    spec = readxml.parse(args.entrypoint_xml, args.basedir, mounts=args.mount,
                         track_progress=args.track_progress, validation_as_error=args.validation_as_error)
    text = json.dumps(spec, indent=4, sort_keys=True)
    if args.binning_output is not None:
        edges = readxml.binning(args.entrypoint_xml, args.basedir, mounts=args.mount)
        with open(args.binning_output, "w", encoding="utf-8") as out:
            json.dump(edges, out, indent=2)
    if args.output_file is None:
        print(text)
    else:
        with open(args.output_file, "w", encoding="utf-8") as out:
            out.write(text)
    return 0


def json2xml(argv):
    args = _json2xml_parser().parse_args(argv)
    from . import _core, writexml

    spec = _read_json(args.workspace)
    for patch in args.patch:
        spec = _core.apply_patch(_read_json(patch), spec, patch)
    out = Path(args.output_dir)
    (out / args.specroot).mkdir(parents=True, exist_ok=True)
    (out / args.dataroot).mkdir(parents=True, exist_ok=True)
    xml = writexml.writexml(spec, out / args.specroot, out / args.dataroot, args.resultprefix)
    (out / f"{args.resultprefix}.xml").write_bytes(xml)
    return 0


def _python_help():
    lines = ["", "Commands of the Python package (hfcore COMMAND --help for their options):"]
    lines += [f"  {name:<16}{text}" for name, text in _PYTHON_COMMANDS.items()]
    return "\n".join(lines)


def _input_errors():
    from xml.etree.ElementTree import ParseError

    from . import exceptions

    return (OSError, ValueError, KeyError, RuntimeError, NotImplementedError, ImportError, ParseError,
            exceptions.InvalidSpecification, exceptions.JsonPatchConflict)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in _PYTHON_COMMANDS:
        command = {"xml2json": xml2json, "json2xml": json2xml}[argv[0]]
        _INPUT_ERRORS = _input_errors()
        try:
            return command(argv[1:])
        except _INPUT_ERRORS as e:
            print(f"hfcore {argv[0]}: error: {e}", file=sys.stderr)
            return 2
    binary = next((str(c) for c in _CANDIDATES if c.is_file()), None)
    if binary is None:
        print(f"hfcore: the command line binary is missing from the package ({_CANDIDATES[0]}); reinstall hfcore",
              file=sys.stderr)
        return 3
    if not argv or argv[0] in ("-h", "--help"):
        # The binary's help, then the commands it does not know of.
        rc = subprocess.run([binary, *argv]).returncode
        print(_python_help())
        return rc
    sys.stdout.flush()
    os.execv(binary, [binary, *argv])


if __name__ == "__main__":
    sys.exit(main())
