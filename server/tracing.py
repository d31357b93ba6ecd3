"""OpenTelemetry traces: the tracer provider the operator asked for, or none.

``[telemetry] traces`` names the exporter: ``otlp`` (spans sent over OTLP/HTTP to a collector;
the standard ``OTEL_EXPORTER_OTLP_ENDPOINT``, ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``,
``OTEL_EXPORTER_OTLP_HEADERS``... say where and how, read by the exporter itself),
``console`` (one JSON object per span on stderr, never stdout: on stdio that is the wire) or
``none``. Left unset, the standard ``OTEL_TRACES_EXPORTER`` decides, and tracing is off when
that is unset too. ``OTEL_SERVICE_NAME`` and ``OTEL_RESOURCE_ATTRIBUTES`` are honoured.

Off, nothing here is imported past this module and the call chain is built without a span in
it (``toolbay.chain.build_chain``): tracing costs nothing unless it is asked for. On, the
provider is also made the process's global one when none is set yet, so the MCP SDK's own
span per request (which continues a trace whose context the client sent in ``_meta``) and
toolbay's spans under it form one trace.

OpenTelemetry's SDK is an optional dependency (the ``traces`` extra); naming an exporter in
``[telemetry] traces`` without it, or one toolbay does not know, stops the server at start with
one line saying so. Named only by ``OTEL_TRACES_EXPORTER``, which a machine may set for every
program it runs, the same is a warning, and the server runs without traces.
"""

from __future__ import annotations

import logging
import os
import sys
from typing import TYPE_CHECKING

from toolbay import __version__
from toolbay.config import TelemetrySettings
from toolbay.defaults import install_extra
from toolbay.errors import ConfigError

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SpanExporter

logger = logging.getLogger(__name__)

EXPORTERS = ("otlp", "console")
DEFAULT_SERVICE_NAME = "toolbay"


def exporters_named(settings: TelemetrySettings) -> list[str]:
    """The exporters asked for: the setting, else ``OTEL_TRACES_EXPORTER`` (comma-separated)."""
    named = settings.traces if settings.traces is not None else os.environ.get("OTEL_TRACES_EXPORTER", "")
    names = [n.strip().lower() for n in named.split(",") if n.strip() and n.strip().lower() != "none"]
    unknown = [n for n in names if n not in EXPORTERS]
    if unknown:
        raise ConfigError(f"OTEL_TRACES_EXPORTER: {', '.join(unknown)} is not an exporter toolbay knows "
                          f"(write {' or '.join(EXPORTERS)}, or none)")
    return names


def provider_for(settings: TelemetrySettings) -> TracerProvider | None:
    """A tracer provider exporting where the settings say, or None when tracing is off (or,
    asked for by the environment alone, cannot be on: see the module)."""
    try:
        return _provider_for(settings)
    except ConfigError as exc:
        if settings.traces is not None:
            raise
        logger.warning("%s; serving without traces ([telemetry] traces = \"none\" says so without this warning)", exc)
        return None


def _provider_for(settings: TelemetrySettings) -> TracerProvider | None:
    names = exporters_named(settings)
    if not names:
        return None
    try:
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError:
        raise ConfigError(f"{_named_by(settings)} = {names[0]!r} needs OpenTelemetry's SDK: "
                          f"{install_extra('traces')}") from None
    attributes: dict[str, str] = {"service.version": __version__}
    if settings.service_name or not os.environ.get("OTEL_SERVICE_NAME"):
        attributes["service.name"] = settings.service_name or DEFAULT_SERVICE_NAME
    provider = TracerProvider(resource=Resource.create(attributes))
    for name in names:
        # Batched: spans are written from the SDK's own thread, never on the event loop.
        provider.add_span_processor(BatchSpanProcessor(_exporter(name, settings)))
    return provider


def _named_by(settings: TelemetrySettings) -> str:
    """Where the exporters were named: the setting, or the environment when it is unset (an
    error naming a setting the user never wrote sends them looking for it)."""
    return "[telemetry] traces" if settings.traces is not None else "OTEL_TRACES_EXPORTER"


def _exporter(name: str, settings: TelemetrySettings) -> SpanExporter:
    if name == "console":
        from opentelemetry.sdk.trace.export import ConsoleSpanExporter

        return ConsoleSpanExporter(out=sys.stderr, formatter=lambda span: span.to_json(indent=None) + "\n")
    try:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    except ImportError:
        raise ConfigError(f"{_named_by(settings)} = 'otlp' needs the OTLP exporter: "
                          f"{install_extra('traces')}") from None
    return OTLPSpanExporter()


def install_globally(provider: TracerProvider) -> bool:
    """Makes ``provider`` the process's tracer provider unless one is set already (by an
    embedding program or ``opentelemetry-instrument``). Returns whether it did."""
    from opentelemetry import trace

    if not isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider):
        return False
    trace.set_tracer_provider(provider)
    return True
