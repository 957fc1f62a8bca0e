import Foundation
import TesseraCore
import TesseraRecords
import TesseraTesting
import Testing

@testable import TesseraStore

/// Migration 21: Android apps stored before a tenant's key could no longer list them
/// host-wide stay on the issuer host's `assetlinks.json` only where the audit log says the
/// last change of `app_links` was made by a caller for every tenant.
@Suite("Migration 21: Android apps move off the host-wide file unless an admin for every tenant put them there")
struct AppLinksMigrationTests {
    @Test("the last app_links change on record decides: bootstrap token, global key or global operator keep the apps host-wide; a tenant's key or operator, or no record, move them off")
    func hostWideFromTheAuditLog() async throws {
        let location = try await SQLStoreTests.temporaryPath()
        let android = AppLinks(androidApps: [.init(packageName: "com.example.app", sha256CertFingerprints: ["AB"])])
        // name → who changed app_links last (nil: nobody on record).
        let cases: [(String, [String])] = [
            ("bootstrap", ["admin"]), ("global-key", ["key:k-global"]), ("scoped-key", ["key:k-scoped"]),
            ("global-then-scoped", ["key:k-global", "key:k-scoped"]), ("scoped-then-global", ["operator:olga", "admin"]),
            ("global-operator", ["operator:olga"]), ("scoped-operator", ["operator:sam"]), ("no-record", []),
        ]
        try await TestDatabase.withStore(at: location) { store in try await store.transaction { tx in
            try await tx.insertTenant(TenantRecord(id: "ops", name: "operators", lockoutPolicy: .standard, processPolicy: try AuthenticatorPolicy(parsing: "device+pin"), createdAt: 1))
            try await tx.insertAdminKey(AdminKeyRecord(id: "k-global", name: "g", digest: "d1", role: .admin, tenantID: nil, createdAt: 1))
            try await tx.insertAdminKey(AdminKeyRecord(id: "k-scoped", name: "s", digest: "d2", role: .admin, tenantID: "scoped-key", createdAt: 1))
            for (id, username, scope) in [("u-olga", "olga", nil), ("u-sam", "sam", "scoped-operator")] as [(String, String, String?)] {
                try await tx.insertUser(UserRecord(id: UserID(id), tenantID: "ops", username: username, attributes: [:], createdAt: 1))
                try await tx.saveConsoleOperator(
                    ConsoleOperatorRecord(userID: UserID(id), tenantID: "ops", role: .admin, scopeTenantID: scope.map { TenantID($0) }, createdAt: 1))
            }
            for (name, actors) in cases {
                try await tx.insertTenant(
                    TenantRecord(id: TenantID(name), name: name, lockoutPolicy: .standard, processPolicy: try AuthenticatorPolicy(parsing: "device+pin"), appLinks: android, createdAt: 1))
                for (index, actor) in actors.enumerated() {
                    try await tx.insertAudit(
                        AuditRecord(
                            id: "\(name)-\(index)", tenantID: TenantID(name), actor: actor, action: "tenant.update", target: name,
                            details: ["changed": "app_links"], at: Int64(10 + index)))
                }
                // A later change of something else does not count.
                try await tx.insertAudit(
                    AuditRecord(id: "\(name)-other", tenantID: TenantID(name), actor: "key:k-scoped", action: "tenant.update", target: name,
                        details: ["changed": "process_policy"], at: 100))
            }
            // A tenant with a link domain lists its apps there, never host-wide.
            try await tx.insertTenant(
                TenantRecord(
                    id: "linked", name: "linked", lockoutPolicy: .standard, processPolicy: try AuthenticatorPolicy(parsing: "device+pin"),
                    appLinks: AppLinks(linkDomain: "links.example.com", androidApps: android.androidApps), createdAt: 1))
            try await tx.insertAudit(
                AuditRecord(id: "linked-0", tenantID: "linked", actor: "admin", action: "tenant.update", target: "linked", details: ["changed": "app_links"], at: 10))
        } }
        try await TestDatabase.runOutside(Schema.androidAppsStayingHostWide, on: location)
        let hostWide = try await TestDatabase.withStore(at: location) { reopened in
            Set(try await reopened.read { try await $0.tenants() }.filter(\.androidAppsHostWide).map(\.name))
        }
        #expect(hostWide == ["bootstrap", "global-key", "scoped-then-global", "global-operator"])
    }
}
