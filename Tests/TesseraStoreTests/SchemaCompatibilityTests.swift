import Foundation
import SQLKit
import TesseraBuildInfo
import TesseraTesting
import Testing

@testable import TesseraStore

/// Compatibility markers (migration 22): each migration records the oldest schema whose
/// build can still run on the database after it, so that during a rolling upgrade a node
/// of the previous release keeps serving beside a migrated one, and a build older than the
/// marker refuses to start.
@Suite("Schema compatibility markers")
struct SchemaCompatibilityTests {
    /// Records a migration a later release applied, as that release would.
    func recordLaterMigration(_ store: SQLStore, version: Int, compatibleFrom: Int, by release: String) async throws {
        try await store.transaction { tx in
            try await tx.db.raw(
                """
                INSERT INTO schema_migrations (version, applied_at, compatible_from, applied_by)
                VALUES (\(bind: version), 0, \(bind: compatibleFrom), \(bind: release))
                """
            ).run()
        }
    }

    @Test("the migrations count up by one, and each is additive (keeps the marker before it: every build that ran on the schema before runs on it) or says it is not")
    func definitions() {
        let versions = Schema.migrations.map(\.version)
        #expect(versions == Array(1...SQLStore.latestSchemaVersion))
        for (previous, migration) in zip(Schema.migrations, Schema.migrations.dropFirst()) {
            #expect([previous.compatibleFrom, migration.version].contains(migration.compatibleFrom), "migration \(migration.version)")
        }
        // The marker's own migration is additive: v0.1.0 (schema 21) keeps serving on it.
        #expect(Schema.migrations.first { $0.version == Schema.markedFrom }?.compatibleFrom == 21)
    }

    @Test("a fresh database records each migration's marker and the release that applied it; schema 21's build may run on it, schema 20's not")
    func freshDatabase() async throws {
        try await TestDatabase.withStore(at: try await SQLStoreTests.temporaryPath()) { store in
            let state = try await store.schemaState()
            #expect(state.version == SQLStore.latestSchemaVersion)
            #expect(state.compatibleFrom == 21)
            #expect(state.servable())
            #expect(state.servable(by: 21), "a schema-21 build (v0.1.0) may serve beside this one")
            #expect(state.servable(by: 20) == false, "a schema-20 build may not")
            let applied = try await store.read { tx in
                try await tx.db.raw("SELECT applied_by FROM schema_migrations WHERE version = \(bind: Schema.markedFrom)")
                    .first(decodingColumn: "applied_by", as: String?.self) ?? nil
            }
            #expect(applied == BuildInfo.version)
        }
    }

    @Test("an additive migration of a later release leaves this build serving; one past its schema stops the start, naming the release that made it")
    func laterReleases() async throws {
        let location = try await SQLStoreTests.temporaryPath()
        let latest = SQLStore.latestSchemaVersion
        try await TestDatabase.withStore(at: location) { store in
            try await recordLaterMigration(store, version: latest + 1, compatibleFrom: latest, by: "v9.0.0")
        }
        // A node of this release beside a migrated one (a rolling upgrade): it starts, and
        // it is ready.
        try await TestDatabase.withStore(at: location) { store in
            let state = try await store.schemaState()
            // The marker is this build's schema, applied by this build.
            #expect(state == SQLStore.SchemaState(version: latest + 1, compatibleFrom: latest, markedBy: BuildInfo.version))
            #expect(state.servable())
            try await recordLaterMigration(store, version: latest + 2, compatibleFrom: latest + 2, by: "v9.1.0")
            // Once a migration this build cannot run beside is applied, it is no longer ready.
            #expect(try await store.schemaState().servable() == false)
        }
        let refused = await #expect(throws: SQLStore.SchemaNewerThanBuild.self) {
            try await TestDatabase.withStore(at: location) { _ in }
        }
        #expect(refused?.state == SQLStore.SchemaState(version: latest + 2, compatibleFrom: latest + 2, markedBy: "v9.1.0"))
        let message = refused?.description ?? ""
        #expect(message.contains("schema \(latest + 2) or later (v9.1.0 or later)") && message.contains("\(BuildInfo.version), knows schema \(latest)"), "\(message)")
    }
}
