"""Which exporter ``[telemetry] traces`` and the standard ``OTEL_*`` variables choose, and
what is said when a name is wrong."""

from __future__ import annotations

import sys

import pytest
from opentelemetry.sdk.trace import TracerProvider

from toolbay.config import TelemetrySettings
from toolbay.errors import ConfigError
from toolbay.tracing import exporters_named, provider_for


def test_tracing_is_off_unless_an_exporter_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OTEL_TRACES_EXPORTER", raising=False)
    assert provider_for(TelemetrySettings()) is None
    assert provider_for(TelemetrySettings(traces="none")) is None


def test_the_setting_wins_over_the_standard_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "otlp")
    assert exporters_named(TelemetrySettings()) == ["otlp"]
    assert exporters_named(TelemetrySettings(traces="console")) == ["console"]
    assert provider_for(TelemetrySettings(traces="none")) is None


def test_an_exporter_toolbay_does_not_know_named_by_the_environment_is_warned_of(monkeypatch: pytest.MonkeyPatch,
                                                            caplog: pytest.LogCaptureFixture) -> None:
    # Named by the machine's environment alone (set for every program): said, and served without
    # traces (the setting takes only the exporters toolbay knows).
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "zipkin")
    assert provider_for(TelemetrySettings()) is None
    assert "zipkin is not an exporter toolbay knows" in caplog.text and "serving without traces" in caplog.text


def test_the_service_is_named_by_the_setting_or_the_standard_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OTEL_SERVICE_NAME", "tools-eu")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9")  # never reached: nothing is exported
    named = [provider_for(TelemetrySettings(traces="otlp")),
             provider_for(TelemetrySettings(traces="otlp", service_name="toolbay-a"))]
    try:
        names = [p.resource.attributes["service.name"] for p in named if isinstance(p, TracerProvider)]
        assert names == ["tools-eu", "toolbay-a"]
    finally:
        for provider in named:
            assert provider is not None
            provider.shutdown()


@pytest.mark.parametrize(("setting", "named"), [(None, "OTEL_TRACES_EXPORTER"), ("otlp", "[telemetry] traces")])
def test_an_exporter_not_installed_is_said_by_where_it_was_named(monkeypatch: pytest.MonkeyPatch, setting: str | None,
                                                                 named: str, caplog: pytest.LogCaptureFixture) -> None:
    # With only OTEL_TRACES_EXPORTER=otlp set, the error named "[telemetry] traces = 'otlp'",
    # a setting the user never wrote.
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "otlp")
    monkeypatch.setitem(sys.modules, "opentelemetry.exporter.otlp.proto.http.trace_exporter", None)  # not installed
    if setting is None:
        # A variable a machine may set for every program it runs: said, and the server runs untraced.
        assert provider_for(TelemetrySettings(traces=setting)) is None
        assert f"{named} = 'otlp' needs the OTLP exporter" in caplog.text
        return
    with pytest.raises(ConfigError) as refused:
        provider_for(TelemetrySettings(traces=setting))
    assert str(refused.value).startswith(f"{named} = 'otlp' needs the OTLP exporter")
