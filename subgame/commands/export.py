"""`subgame export <family> ... --format csv|parquet|netcdf --out FILE`: a family's table of
stored results (`Family.table`, a pandas DataFrame) written as a file for other tools."""

from __future__ import annotations

import inspect
import os
import sys
from typing import Annotated, Any, Callable

import typer

from subgame.commands.common import JsonOption, command_from, console, emit, options_of
from subgame.errors import InvalidInput
from subgame.exact import counted

FORMATS = ("csv", "parquet", "netcdf")
TARGET = {"file_format": (Annotated[str, typer.Option(
              "--format", help=f"One of {', '.join(FORMATS)}.")], "csv"),
          "out": (Annotated[str, typer.Option("--out", metavar="<file>", help=(
                      "The file to write; - writes the table to stdout (csv or "
                      "parquet)."))], inspect.Parameter.empty),
          "as_json": (JsonOption, False)}


STDOUT = "-"  # --out - : the table itself is the output


def check_target(out: str, file_format: str, as_json: bool) -> None:
    """Refuse a format or a file name that cannot be written, before reading the store."""
    if file_format not in FORMATS:
        raise InvalidInput(f"--format must be one of {', '.join(FORMATS)}, got {file_format!r}")
    if out == STDOUT:
        if file_format == "netcdf":
            raise InvalidInput("--out - writes csv or parquet; netCDF needs a file name")
        if as_json:
            raise InvalidInput("--out - writes the table to stdout: there is no room for "
                               "--json's summary there")
        return
    if not out.strip() or os.path.isdir(out):
        raise InvalidInput(f"--out needs a file name, got {out!r}")
    folder = os.path.dirname(os.path.abspath(out))
    if not os.path.isdir(folder):
        raise InvalidInput(f"cannot write {out!r}: the folder {folder!r} does not exist")


ANNOUNCE_BYTES = 100 * 2**20  # an export this large says its size before writing it
SAMPLE_ROWS = 2000


def estimated_bytes(frame: Any, file_format: str) -> int:
    """The file's size, from its first rows written the same way (text formats grow with
    the digits, so the frame's memory is no guide)."""
    if len(frame) == 0:
        return 0
    # rows spread over the whole table: later rows have more digits than the first
    sample = frame.iloc[::max(1, len(frame) // SAMPLE_ROWS)]
    if file_format == "csv":
        per_row = len(sample.to_csv(index=False).encode()) / len(sample)
    else:  # binary formats: the values themselves, as a bound
        per_row = sample.memory_usage(index=False, deep=True).sum() / len(sample)
    return int(per_row * len(frame))


def check_fits(frame: Any, out: str, file_format: str) -> int:
    """Refuse an export larger than the free space where it goes (as a run refuses a store
    that would not fit); say the size of a large one before writing it."""
    import shutil

    from dask.utils import format_bytes

    size = estimated_bytes(frame, file_format)
    if out != STDOUT:  # (stdout's reader stores it where it will)
        free = shutil.disk_usage(os.path.dirname(os.path.abspath(out))).free
        if size > free:
            raise InvalidInput(f"{out!r} would take about {format_bytes(size)} and "
                               f"{format_bytes(free)} is free there; choose fewer rows or "
                               "another --out")
    if size > ANNOUNCE_BYTES:
        where = "the table to stdout" if out == STDOUT else out
        print(f"writing {where} (about {format_bytes(size)}, {counted(len(frame), 'row')})",
              file=sys.stderr, flush=True)
    return size


def write_table(frame: Any, out: str, file_format: str) -> None:
    """CSV and Parquet without the index; netCDF as a dataset over one dimension ``row``
    (the netCDF4 format when netCDF4 or h5netcdf is installed, else scipy's netCDF3); to
    stdout where ``out`` is -."""
    if file_format == "csv":
        frame.to_csv(sys.stdout if out == STDOUT else out, index=False)
    elif file_format == "parquet":
        try:
            if out == STDOUT:
                sys.stdout.flush()
            frame.to_parquet(sys.stdout.buffer if out == STDOUT else out, index=False)
        except ImportError as exc:
            raise InvalidInput("--format parquet needs pyarrow: pip install "
                               "'subgame[export]'") from exc
    else:
        try:
            frame.rename_axis("row").to_xarray().to_netcdf(out)
        except ValueError as exc:  # netCDF3 holds no integer beyond 32 bits
            raise InvalidInput(f"cannot write this table as netCDF3 ({exc}); pip install "
                               "'subgame[export]' for the netCDF4 format") from exc


def export_command(table: Callable[..., Any]) -> Callable:
    """The command of a family's ``table``: its options, then --format, --out and --json."""
    parameters = [*options_of(table), *(
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation,
                          default=default) for name, (annotation, default) in TARGET.items())]

    def export(**values: Any) -> None:
        file_format, out, as_json = (values.pop(name) for name in TARGET)
        check_target(out, file_format, as_json)
        frame = table(**values)
        check_fits(frame, out, file_format)
        write_table(frame, out, file_format)
        if out == STDOUT:
            return
        emit({"file": out, "format": file_format, "rows": len(frame),
              "columns": list(frame.columns)}, as_json,
             lambda r: console.print(f"{r['file']}: {counted(r['rows'], 'row')}",
                                     soft_wrap=True))

    return command_from(export, parameters, table, f"export_{table.__name__}")
