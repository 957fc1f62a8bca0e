import Foundation
import Hummingbird
import NIOCore
import TesseraBuildInfo
import TesseraCore
import TesseraDomain

/// Every route and middleware of the server over its shared state: no sockets, files or
/// data directory of its own (the router-mode tests build one over a store and a key).
package func buildRouter(state: ServerState) throws -> Router<TesseraRequestContext> {
    let configuration = state.configuration
    let router = Router(context: TesseraRequestContext.self)
    let https = configuration.tls != nil || configuration.publicURL.lowercased().hasPrefix("https://")
    router.add(middleware: RequestIdentity(trustedProxies: configuration.throttle.trustedProxies))
    if configuration.tracing { router.add(middleware: RequestTracing(trustedProxies: configuration.throttle.trustedProxies)) }
    router.add(middleware: SecurityHeaders(strictTransportSecurity: https))
    router.add(middleware: EdgeMiddleware(metrics: state.metrics))
    router.get("health") { _, _ in JSONResponse.make(["status": "ok"]) }
    let document = ServedDocument.json
    router.get("openapi.json") { _, _ in
        Response(
            status: .ok, headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: document)))
    }
    router.get("metrics") { request, context in
        try MetricsAccess.check(request, context: context, token: configuration.metricsToken, proxies: configuration.throttle.trustedProxies)
        let text = await state.metrics.render(domain: state.domain, longPolls: state.longPolls.open)
        return Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }
    router.get("ready") { _, _ in
        // Ready when the database answers and every migration this build knows is applied.
        guard await state.domain.schemaIsServable() else {
            return JSONResponse.make(["status": "unavailable"], status: .serviceUnavailable)
        }
        return JSONResponse.make(["status": "ready", "version": BuildInfo.version, "commit": BuildInfo.commit])
    }
    // Universal links (iOS) and app links (Android) of the tenants' apps.
    // Each file for the host asked: a tenant's link domain serves that tenant's apps.
    router.get(".well-known/apple-app-site-association") { request, _ in
        var response = JSONResponse.make(try await state.domain.appleAppSiteAssociation(host: request.hostName))
        response.headers[.cacheControl] = "public, max-age=3600"
        return response
    }
    router.get(".well-known/assetlinks.json") { request, _ in
        var response = JSONResponse.make(try await state.domain.androidAssetLinks(host: request.hostName))
        response.headers[.cacheControl] = "public, max-age=3600"
        return response
    }
    try AdminAPI.register(on: router, state: state)
    let webPages = WebPages.shared
    StaticFiles.register(on: router)
    ConsoleRoutes(state: state, pages: webPages).register(on: router)
    let tenant = router.group("t/:tenant").add(middleware: TenantResolution(domain: state.domain))
    let pages = router.group("t/:tenant").add(middleware: TenantResolution(domain: state.domain, answer: .page))
    OIDCRoutes(state: state).register(on: tenant, pages: pages)
    AccountRoutes(state: state, pages: webPages).register(on: pages)
    DeviceRoutes(state: state).register(on: tenant)
    SCIMRoutes(state: state).register(on: tenant)

    return router
}
