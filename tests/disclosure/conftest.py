"""A large catalog for search-first disclosure: 1,000 small generated tools and the bundled ones.

The generated tools are real WASI commands, written here as WebAssembly text and assembled
with wasmtime: each prints its own clap-style help, whatever its arguments, so discovery
describes it like any other tool (verb × noun: ``convert_invoice`` "Convert the invoice
given as INPUT").
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import anyio
import pytest
import wasmtime

from tests.conftest import BUNDLED_EXTENSIONS, kept_up_to_date
from toolbay.catalog_keeper import CatalogKeeper
from toolbay.config import load_settings
from toolbay.description_cache import DescriptionCache
from toolbay.discovery import sha256_of

VERBS = ("archive", "audit", "convert", "count", "decode", "encrypt", "export", "filter", "import", "merge",
         "normalize", "parse", "publish", "rename", "render", "resize", "schedule", "sign", "split", "verify")
NOUNS = ("invoice", "ledger", "playlist", "recipe", "timetable", "contract", "receipt", "manuscript", "podcast",
         "spreadsheet", "blueprint", "itinerary", "payroll", "inventory", "transcript", "newsletter", "portfolio",
         "mailbox", "calendar", "gallery", "roster", "warranty", "lease", "budget", "catalogue", "dashboard",
         "forecast", "glossary", "handbook", "horoscope", "journal", "logbook", "menu", "mixtape", "notebook",
         "orchestra", "passport", "pedigree", "petition", "questionnaire", "quiz", "rota", "sermon", "syllabus",
         "telegram", "thesis", "ticket", "voucher", "waybill", "yearbook")


def help_text(verb: str, noun: str) -> str:
    name = f"{verb}_{noun}"
    return (
        f"Usage: {name} [OPTIONS] <INPUT>\n\n"
        f"{verb.capitalize()} the {noun} given as INPUT.\n\n"
        f"Arguments:\n  <INPUT>  The {noun} to {verb}\n\n"
        "Options:\n"
        "  -f, --format <FORMAT>  Output format [default: text]\n"
        "  -h, --help             Print help\n"
    )


def python_module(module: str, verbs: tuple[str, ...] = VERBS, nouns: tuple[str, ...] = NOUNS) -> str:
    """The Python tool module ``module``.py, offering a tool for every verb × noun (named
    ``MODULE_VERB_NOUN``, described as the generated WASI tools are), each answering with its
    name and its input."""
    return f"""
MODULE = {module!r}
VERBS = {verbs!r}
NOUNS = {nouns!r}


def get_tool_schemas():
    return [{{
        "name": f"{{MODULE}}_{{verb}}_{{noun}}",
        "description": f"{{verb.capitalize()}} the {{noun}} given as INPUT.",
        "input_schema": {{"type": "object", "properties": {{
            "input": {{"type": "string", "description": f"The {{noun}} to {{verb}}"}},
            "format": {{"type": "string", "description": "Output format", "default": "text"}},
        }}, "required": ["input"]}},
    }} for verb in VERBS for noun in NOUNS]


def dispatch(name, arguments):
    return {{"tool": name, "input": arguments["input"]}}
"""


def help_module(text: str) -> bytes:
    """A WASI command that writes ``text`` to standard output and exits 0."""
    data = text.encode()
    escaped = "".join(f"\\{b:02x}" for b in data)
    wat = f"""
    (module
      (import "wasi_snapshot_preview1" "fd_write"
        (func $fd_write (param i32 i32 i32 i32) (result i32)))
      (memory (export "memory") 1)
      (data (i32.const 0) "\\10\\00\\00\\00\\{len(data) & 0xff:02x}\\{len(data) >> 8:02x}\\00\\00")
      (data (i32.const 16) "{escaped}")
      (func (export "_start")
        (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))))
    """
    return wasmtime.wat2wasm(wat)


def _describe(folder: Path, data_dir: Path) -> None:
    """Opens the catalog of ``folder`` alone on ``data_dir``, describing what its cache lacks."""

    async def describe() -> None:
        # The generated folder alone: no role files, whose agent_* tools would be counted too.
        settings = load_settings(None, extensions=[folder], agents=[], data_dir=data_dir)
        async with CatalogKeeper.open(settings) as app:
            assert len(app.catalog.current) == len(VERBS) * len(NOUNS)

    anyio.run(describe)


def _make_and_describe(folder: Path) -> None:
    """The 1,000 tools in ``folder/tools``, made again when this module has changed since they
    were made (it is what makes them), and their descriptions in ``folder/data``: kept between
    runs, so a run after the first neither assembles nor describes them (about 3 s of CPU)."""
    tools, stamp = folder / "tools", folder / "made-by"
    maker = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()
    if not stamp.is_file() or stamp.read_text() != maker:
        shutil.rmtree(tools, ignore_errors=True)
        tools.mkdir(parents=True)
        for verb in VERBS:
            for noun in NOUNS:
                (tools / f"{verb}_{noun}.wasm").write_bytes(help_module(help_text(verb, noun)))
        stamp.write_text(maker)
    # Described again where the cache is of another parser version: the cache decides, as a server's does.
    _describe(tools, folder / "data")


@pytest.fixture(scope="session")
def generated_catalog(tmp_path_factory: pytest.TempPathFactory, shared_data_dir: Path) -> Path:
    """1,000 generated tools, made and described once (their descriptions put into the shared
    description cache before any test's own time limit starts); tests copy what they change."""
    kept = kept_up_to_date(tmp_path_factory, "generated-catalog", _make_and_describe)
    folder = tmp_path_factory.mktemp("generated-catalog")
    shutil.copytree(kept / "tools", folder, dirs_exist_ok=True)
    described = DescriptionCache(kept / "data" / "descriptions")
    shared = DescriptionCache(shared_data_dir / "descriptions")
    for path in folder.iterdir():
        sha256 = sha256_of(path)
        if (entry := described.get(sha256, path.stem)) is not None:
            shared.put(sha256, path.stem, entry)
    shared.flush()
    _describe(folder, shared_data_dir)  # finds them all described (or describes what it does not find)
    return folder


@pytest.fixture
def folders(tmp_path: Path, generated_catalog: Path) -> tuple[Path, Path]:
    """(connected, catalog): the bundled tools but hashsum; the 1,000 generated tools and hashsum."""
    connected = tmp_path / "connected"
    shutil.copytree(BUNDLED_EXTENSIONS, connected)
    catalog = tmp_path / "catalog"
    shutil.copytree(generated_catalog, catalog)
    shutil.move(connected / "hashsum.wasm", catalog / "hashsum.wasm")
    return connected, catalog
