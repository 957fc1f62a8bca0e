import ArgumentParser
import Foundation
import Logging
import OTel
import ServiceLifecycle
import TesseraBuildInfo
import TesseraServer

/// How `tessera serve` logs and traces: set once per process, before the server is built.
struct ObservabilitySettings {
    var logFormat: LogFormat
    var logLevel: Logger.Level
    /// The OTLP collector's base URL from a flag, `TESSERA_OTLP_ENDPOINT` or the file.
    var otlpEndpoint: String?
    /// The share of new traces recorded, from a flag, `TESSERA_TRACE_RATIO` or the file.
    var traceRatio: Double?

    /// Whether traces are exported: an endpoint of ours, or the standard `OTEL_*` variables
    /// asking for the OTLP exporter (and the SDK not disabled).
    func tracesEnabled(environment: [String: String]) -> Bool {
        if environment["OTEL_SDK_DISABLED"]?.lowercased() == "true" { return false }
        if otlpEndpoint != nil { return true }
        if let exporter = environment["OTEL_TRACES_EXPORTER"]?.lowercased() { return exporter == "otlp" }
        return environment["OTEL_EXPORTER_OTLP_ENDPOINT"] != nil || environment["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"] != nil
    }

    /// The environment swift-otel reads, with our settings above the `OTEL_*` ones: the
    /// endpoint (spans go to `URL/v1/traces`), the protocol (OTLP/HTTP with protobuf, the
    /// only one built), the parent-based ratio sampler.
    func otelEnvironment(_ environment: [String: String]) -> [String: String] {
        var environment = environment
        if let otlpEndpoint {
            environment["OTEL_EXPORTER_OTLP_ENDPOINT"] = otlpEndpoint.hasSuffix("/") ? String(otlpEndpoint.dropLast()) : otlpEndpoint
            environment["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"] = nil
        }
        environment["OTEL_TRACES_EXPORTER"] = "otlp"
        environment["OTEL_EXPORTER_OTLP_PROTOCOL"] = "http/protobuf"
        environment["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"] = "http/protobuf"
        if let traceRatio {
            environment["OTEL_TRACES_SAMPLER"] = "parentbased_traceidratio"
            environment["OTEL_TRACES_SAMPLER_ARG"] = String(traceRatio)
        }
        return environment
    }

    /// Every log handler of the process writes text or JSON lines to standard error.
    func bootstrapLogging() {
        let format = logFormat
        let level = logLevel
        LoggingSystem.bootstrap { label in
            switch format {
            case .json:
                return JSONLogHandler(label: label, level: level)
            case .text:
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = level
                return handler
            }
        }
    }

    /// Bootstraps the tracer (swift-otel, OTLP/HTTP) when traces are enabled; the service
    /// it returns exports the spans and runs beside the server.
    func bootstrapTracing(logger: Logger) throws -> (any Service)? {
        let environment = ProcessInfo.processInfo.environment
        guard tracesEnabled(environment: environment) else { return nil }
        var configuration = OTel.Configuration.default
        configuration.serviceName = "tessera"
        configuration.resourceAttributes["service.version"] = BuildInfo.version
        configuration.logs.enabled = false
        configuration.metrics.enabled = false
        configuration.traces.enabled = true
        configuration.traces.sampler = .parentBasedAlwaysOn
        configuration.diagnosticLogger = .custom(logger)
        // Warnings and errors only: at info it quotes the OTEL_* values it read, and
        // OTEL_EXPORTER_OTLP_HEADERS may hold the collector's credentials.
        configuration.diagnosticLogLevel = .warning
        return try OTel.bootstrap(configuration: configuration, environment: otelEnvironment(environment))
    }
}
