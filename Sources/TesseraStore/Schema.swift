import TesseraRecords
/// One schema version: its statements, applied once in one transaction, and the oldest
/// schema whose build can still run on a database after it (its compatibility marker).
struct Migration: Sendable {
    let version: Int
    /// An additive migration (new tables, new nullable or defaulted columns, new indexes)
    /// leaves every build that ran before it working: it keeps the marker of the migration
    /// before it, so that during a rolling upgrade the previous release's nodes keep serving
    /// beside the migrated ones. A migration that removes or changes what an older build
    /// reads is its own `version`.
    let compatibleFrom: Int
    let statements: [String]

    init(_ version: Int, compatibleFrom: Int, _ statements: [String]) {
        precondition(compatibleFrom <= version, "a migration cannot be run on by a build that does not know it")
        self.version = version
        self.compatibleFrom = compatibleFrom
        self.statements = statements
    }
}

/// Versioned schema migrations. Each version is applied once, in its own
/// transaction, and recorded in `schema_migrations` with its compatibility marker and
/// the release that applied it; the SQL is portable between SQLite and PostgreSQL
/// (TEXT, BIGINT, INTEGER only). docs/OPERATIONS.md ("Upgrades") states the policy.
enum Schema {
    /// The first version whose `schema_migrations` rows carry a marker and a release.
    static let markedFrom = 22

    static let migrations: [Migration] = [
        Migration(1, compatibleFrom: 1, [
            """
            CREATE TABLE tenants (
                id TEXT PRIMARY KEY,
                name TEXT NOT NULL UNIQUE,
                lockout_policy TEXT NOT NULL,
                created_at BIGINT NOT NULL
            )
            """,
            """
            CREATE TABLE signing_keys (
                kid TEXT PRIMARY KEY,
                tenant_id TEXT NOT NULL REFERENCES tenants(id),
                sealed_key TEXT NOT NULL,
                active INTEGER NOT NULL,
                created_at BIGINT NOT NULL
            )
            """,
            """
            CREATE TABLE services (
                id TEXT PRIMARY KEY,
                tenant_id TEXT NOT NULL REFERENCES tenants(id),
                client_id TEXT NOT NULL UNIQUE,
                name TEXT NOT NULL,
                secret_digest TEXT,
                is_public INTEGER NOT NULL,
                redirect_uris TEXT NOT NULL,
                policy TEXT NOT NULL,
                attributes TEXT NOT NULL,
                created_at BIGINT NOT NULL
            )
            """,
            """
            CREATE TABLE users (
                id TEXT PRIMARY KEY,
                tenant_id TEXT NOT NULL REFERENCES tenants(id),
                username TEXT NOT NULL,
                attributes TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                UNIQUE (tenant_id, username)
            )
            """,
            """
            CREATE TABLE invitations (
                id TEXT PRIMARY KEY,
                tenant_id TEXT NOT NULL REFERENCES tenants(id),
                user_id TEXT NOT NULL REFERENCES users(id),
                code_digest TEXT NOT NULL UNIQUE,
                pin_salt TEXT NOT NULL,
                expires_at BIGINT NOT NULL,
                used_at BIGINT,
                created_at BIGINT NOT NULL
            )
            """,
            """
            CREATE TABLE activations (
                id TEXT PRIMARY KEY,
                tenant_id TEXT NOT NULL REFERENCES tenants(id),
                user_id TEXT NOT NULL REFERENCES users(id),
                alias TEXT,
                device_key TEXT NOT NULL,
                biometric_key TEXT,
                sealed_pin_key TEXT NOT NULL,
                sealed_totp_secret TEXT,
                totp_last_step BIGINT,
                failed_attempts INTEGER NOT NULL,
                locked_until BIGINT,
                permanently_locked INTEGER NOT NULL,
                status TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                last_used_at BIGINT
            )
            """,
            "CREATE INDEX activations_by_user ON activations (tenant_id, user_id)",
            """
            CREATE TABLE auth_requests (
                id TEXT PRIMARY KEY,
                tenant_id TEXT NOT NULL REFERENCES tenants(id),
                service_id TEXT NOT NULL REFERENCES services(id),
                purpose TEXT NOT NULL,
                status TEXT NOT NULL,
                challenge TEXT,
                activation_id TEXT,
                user_id TEXT,
                redirect_uri TEXT NOT NULL,
                state TEXT,
                nonce TEXT,
                code_challenge TEXT,
                scope TEXT NOT NULL,
                browser_digest TEXT NOT NULL,
                confirmed_attributes TEXT,
                factors TEXT,
                auth_time BIGINT,
                created_at BIGINT NOT NULL,
                expires_at BIGINT NOT NULL
            )
            """,
            """
            CREATE TABLE grants (
                digest TEXT PRIMARY KEY,
                kind TEXT NOT NULL,
                family_id TEXT NOT NULL,
                tenant_id TEXT NOT NULL REFERENCES tenants(id),
                service_id TEXT NOT NULL REFERENCES services(id),
                user_id TEXT NOT NULL,
                redirect_uri TEXT,
                code_challenge TEXT,
                nonce TEXT,
                scope TEXT NOT NULL,
                factors TEXT NOT NULL,
                confirmed_attributes TEXT NOT NULL,
                auth_time BIGINT NOT NULL,
                expires_at BIGINT NOT NULL,
                used_at BIGINT,
                revoked INTEGER NOT NULL
            )
            """,
            "CREATE INDEX grants_by_family ON grants (family_id)",
            """
            CREATE TABLE device_token_ids (
                jti TEXT PRIMARY KEY,
                activation_id TEXT NOT NULL,
                expires_at BIGINT NOT NULL
            )
            """,
        ]),
        // Account processes: requests without a service or browser, merged users,
        // activation data for a new device, per-activation history and the audit log.
        Migration(2, compatibleFrom: 2, [
            """
            CREATE TABLE auth_requests_v2 (
                id TEXT PRIMARY KEY,
                tenant_id TEXT NOT NULL REFERENCES tenants(id),
                service_id TEXT REFERENCES services(id),
                purpose TEXT NOT NULL,
                status TEXT NOT NULL,
                challenge TEXT,
                activation_id TEXT,
                user_id TEXT,
                redirect_uri TEXT,
                state TEXT,
                nonce TEXT,
                code_challenge TEXT,
                scope TEXT NOT NULL,
                browser_digest TEXT,
                confirmed_attributes TEXT,
                factors TEXT,
                auth_time BIGINT,
                process TEXT,
                created_at BIGINT NOT NULL,
                expires_at BIGINT NOT NULL
            )
            """,
            """
            INSERT INTO auth_requests_v2 (id, tenant_id, service_id, purpose, status, challenge, activation_id, user_id,
                redirect_uri, state, nonce, code_challenge, scope, browser_digest, confirmed_attributes, factors, auth_time,
                created_at, expires_at)
            SELECT id, tenant_id, service_id, purpose, status, challenge, activation_id, user_id, redirect_uri, state, nonce,
                code_challenge, scope, browser_digest, confirmed_attributes, factors, auth_time, created_at, expires_at
            FROM auth_requests
            """,
            "DROP TABLE auth_requests",
            "ALTER TABLE auth_requests_v2 RENAME TO auth_requests",
            "CREATE INDEX auth_requests_by_activation ON auth_requests (activation_id)",
            "ALTER TABLE tenants ADD COLUMN process_policy TEXT NOT NULL DEFAULT 'device+pin,device+biometric'",
            "ALTER TABLE invitations ADD COLUMN sealed_pin_key TEXT",
            "ALTER TABLE invitations ADD COLUMN alias TEXT",
            "ALTER TABLE invitations ADD COLUMN retires_activation_id TEXT",
            "ALTER TABLE invitations ADD COLUMN created_by_activation_id TEXT",
            "ALTER TABLE invitations ADD COLUMN failed_attempts INTEGER NOT NULL DEFAULT 0",
            """
            CREATE TABLE activation_users (
                activation_id TEXT NOT NULL,
                user_id TEXT NOT NULL REFERENCES users(id),
                created_at BIGINT NOT NULL,
                PRIMARY KEY (activation_id, user_id)
            )
            """,
            """
            CREATE TABLE authentication_history (
                id TEXT PRIMARY KEY,
                tenant_id TEXT NOT NULL,
                activation_id TEXT NOT NULL,
                user_id TEXT,
                request_id TEXT NOT NULL,
                service TEXT,
                purpose TEXT NOT NULL,
                outcome TEXT NOT NULL,
                factors TEXT NOT NULL,
                at BIGINT NOT NULL
            )
            """,
            "CREATE INDEX history_by_activation ON authentication_history (activation_id, at)",
            """
            CREATE TABLE audit_log (
                id TEXT PRIMARY KEY,
                tenant_id TEXT,
                actor TEXT NOT NULL,
                action TEXT NOT NULL,
                target TEXT,
                details TEXT NOT NULL,
                at BIGINT NOT NULL
            )
            """,
            "CREATE INDEX audit_by_time ON audit_log (at, id)",
        ]),
        // Client-initiated backchannel authentication (OpenID CIBA): services that may
        // ask for a user's approval from their server, and the requests they start,
        // which are bound to a user from the outset and seen by all of its devices.
        Migration(3, compatibleFrom: 3, [
            "ALTER TABLE services ADD COLUMN backchannel_mode TEXT",
            "ALTER TABLE services ADD COLUMN notification_endpoint TEXT",
            "ALTER TABLE auth_requests ADD COLUMN flow TEXT",
            "ALTER TABLE auth_requests ADD COLUMN binding_message TEXT",
            "ALTER TABLE auth_requests ADD COLUMN acr_policy TEXT",
            "ALTER TABLE auth_requests ADD COLUMN sealed_notification_token TEXT",
            "ALTER TABLE auth_requests ADD COLUMN poll_interval INTEGER",
            "ALTER TABLE auth_requests ADD COLUMN last_polled_at BIGINT",
            "CREATE INDEX auth_requests_by_user ON auth_requests (user_id, status)",
            // Hot lookups by an index of their own, so that concurrent transactions on
            // PostgreSQL touch (and lock) only their own rows.
            "CREATE INDEX device_token_ids_by_activation ON device_token_ids (activation_id, expires_at)",
            "CREATE INDEX activations_by_user_id ON activations (user_id)",
            "CREATE INDEX activation_users_by_user ON activation_users (user_id)",
            // Where to send a device its wake-up push: one target per activation.
            """
            CREATE TABLE push_targets (
                activation_id TEXT PRIMARY KEY,
                tenant_id TEXT NOT NULL,
                kind TEXT NOT NULL,
                token TEXT NOT NULL,
                created_at BIGINT NOT NULL
            )
            """,
            // Single sign-on: within a tenant's SSO lifetime after a full login, the same
            // activation may log its user in to another service with fewer factors.
            "ALTER TABLE tenants ADD COLUMN sso_lifetime INTEGER NOT NULL DEFAULT 0",
            "ALTER TABLE tenants ADD COLUMN sso_policy TEXT",
            "ALTER TABLE auth_requests ADD COLUMN sso_allowed INTEGER",
            "ALTER TABLE auth_requests ADD COLUMN max_age BIGINT",
            """
            CREATE TABLE sso_sessions (
                activation_id TEXT NOT NULL,
                user_id TEXT NOT NULL,
                tenant_id TEXT NOT NULL,
                factors TEXT NOT NULL,
                auth_time BIGINT NOT NULL,
                expires_at BIGINT NOT NULL,
                PRIMARY KEY (activation_id, user_id)
            )
            """,
        ]),
        // Sessions: one row per refresh family, so a refresh reads one row however often
        // it rotated, and what must end a session (a removed device, a disabled user, a
        // deleted service) ends it in one statement. Lifetimes are tenant settings with
        // per-service overrides. Families from before are carried over without a device.
        Migration(4, compatibleFrom: 4, [
            """
            CREATE TABLE sessions (
                id TEXT PRIMARY KEY,
                tenant_id TEXT NOT NULL,
                service_id TEXT NOT NULL,
                user_id TEXT NOT NULL,
                activation_id TEXT,
                factors TEXT NOT NULL,
                confirmed_attributes TEXT NOT NULL,
                auth_time BIGINT NOT NULL,
                created_at BIGINT NOT NULL,
                last_refreshed_at BIGINT NOT NULL,
                expires_at BIGINT NOT NULL,
                idle_lifetime BIGINT NOT NULL,
                ended_at BIGINT,
                end_reason TEXT
            )
            """,
            "CREATE INDEX sessions_by_user ON sessions (user_id)",
            "CREATE INDEX sessions_by_activation ON sessions (activation_id)",
            "CREATE INDEX sessions_by_service ON sessions (service_id)",
            "ALTER TABLE grants ADD COLUMN activation_id TEXT",
            "ALTER TABLE tenants ADD COLUMN session_lifetime BIGINT NOT NULL DEFAULT 2592000",
            "ALTER TABLE tenants ADD COLUMN session_idle_lifetime BIGINT NOT NULL DEFAULT 2592000",
            "ALTER TABLE services ADD COLUMN session_lifetime BIGINT",
            "ALTER TABLE services ADD COLUMN session_idle_lifetime BIGINT",
            """
            INSERT INTO sessions (id, tenant_id, service_id, user_id, activation_id, factors, confirmed_attributes, auth_time,
                created_at, last_refreshed_at, expires_at, idle_lifetime, ended_at, end_reason)
            SELECT family_id, MIN(tenant_id), MIN(service_id), MIN(user_id), NULL, MIN(factors), MIN(confirmed_attributes),
                MIN(auth_time), MIN(auth_time), MAX(expires_at) - 2592000, MAX(expires_at), 2592000,
                CASE WHEN MAX(revoked) = 1 THEN MAX(expires_at) - 2592000 END,
                CASE WHEN MAX(revoked) = 1 THEN 'revoked' END
            FROM grants WHERE kind = 'refresh' GROUP BY family_id
            """,
        ]),
        // The database's own seal under the master key, written by the first node that
        // starts on it: a node with another key refuses to start even before any tenant
        // (and its signing key) exists.
        Migration(5, compatibleFrom: 5, [
            """
            CREATE TABLE sealed_checks (
                id TEXT PRIMARY KEY,
                sealed TEXT NOT NULL
            )
            """
        ]),
        // Bounded data: what the purge deletes by time has an index on that time;
        // tenants keep history (and, if they choose, audit entries) for a set time; each
        // node records its last purge.
        Migration(6, compatibleFrom: 6, [
            "CREATE INDEX grants_by_expiry ON grants (expires_at)",
            "CREATE INDEX grants_by_use ON grants (used_at)",
            "CREATE INDEX auth_requests_by_expiry ON auth_requests (expires_at)",
            "CREATE INDEX device_token_ids_by_expiry ON device_token_ids (expires_at)",
            "CREATE INDEX sessions_by_expiry ON sessions (expires_at)",
            "CREATE INDEX history_by_tenant_time ON authentication_history (tenant_id, at)",
            "CREATE INDEX audit_by_tenant_time ON audit_log (tenant_id, at)",
            "CREATE INDEX invitations_by_expiry ON invitations (expires_at)",
            "ALTER TABLE tenants ADD COLUMN history_retention BIGINT NOT NULL DEFAULT 31536000",
            "ALTER TABLE tenants ADD COLUMN audit_retention BIGINT",
            """
            CREATE TABLE maintenance (
                name TEXT PRIMARY KEY,
                at BIGINT NOT NULL,
                details TEXT NOT NULL
            )
            """,
        ]),
        // Operations: a user may be disabled (and enabled again) without losing devices.
        Migration(7, compatibleFrom: 7, [
            "ALTER TABLE users ADD COLUMN disabled_at BIGINT",
            "CREATE INDEX sessions_by_user_created ON sessions (user_id, created_at)",
            "CREATE INDEX history_by_user ON authentication_history (user_id, at)",
            "CREATE INDEX invitations_by_tenant ON invitations (tenant_id, expires_at)",
        ]),
        // Admin API keys: each limited to one tenant or all, with a role; stored as digests.
        Migration(8, compatibleFrom: 8, [
            """
            CREATE TABLE admin_keys (
                id TEXT PRIMARY KEY,
                name TEXT NOT NULL,
                digest TEXT NOT NULL UNIQUE,
                role TEXT NOT NULL,
                tenant_id TEXT,
                created_at BIGINT NOT NULL,
                revoked_at BIGINT
            )
            """,
            "CREATE INDEX grants_by_activation ON grants (activation_id)",
            // The lifetime of a tenant's access and ID tokens (seconds).
            "ALTER TABLE tenants ADD COLUMN access_token_lifetime BIGINT NOT NULL DEFAULT 300",
        ]),
        // The web console and account pages: the operators (users of the operators'
        // tenant with a role), and the browser sessions of both, each bound to the
        // OpenID Connect session of the device login that opened it.
        Migration(9, compatibleFrom: 9, [
            """
            CREATE TABLE console_operators (
                user_id TEXT PRIMARY KEY,
                tenant_id TEXT NOT NULL,
                role TEXT NOT NULL,
                scope_tenant_id TEXT,
                created_at BIGINT NOT NULL
            )
            """,
            """
            CREATE TABLE web_sessions (
                digest TEXT PRIMARY KEY,
                kind TEXT NOT NULL,
                tenant_id TEXT NOT NULL,
                user_id TEXT NOT NULL,
                activation_id TEXT,
                session_id TEXT NOT NULL,
                csrf TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                last_seen_at BIGINT NOT NULL,
                expires_at BIGINT NOT NULL,
                idle_lifetime BIGINT NOT NULL,
                ended_at BIGINT
            )
            """,
            "CREATE INDEX web_sessions_by_user ON web_sessions (user_id)",
            "CREATE INDEX web_sessions_by_expiry ON web_sessions (expires_at)",
        ]),
        // Lockout counts per guessable factor: a success resets only what it proved. The
        // count so far stays with the PIN, the factor it mostly protected.
        Migration(10, compatibleFrom: 10, [
            "ALTER TABLE activations ADD COLUMN pin_failures INTEGER NOT NULL DEFAULT 0",
            "ALTER TABLE activations ADD COLUMN otp_failures INTEGER NOT NULL DEFAULT 0",
            "ALTER TABLE activations ADD COLUMN biometric_failures INTEGER NOT NULL DEFAULT 0",
            "UPDATE activations SET pin_failures = failed_attempts",
        ]),
        // Against cross-device phishing: a browser login records where it was started (shown
        // on the device), and a service may have the user match the number its page shows.
        Migration(11, compatibleFrom: 11, [
            "ALTER TABLE auth_requests ADD COLUMN origin_address TEXT",
            "ALTER TABLE auth_requests ADD COLUMN origin_agent TEXT",
            "ALTER TABLE auth_requests ADD COLUMN match_code TEXT",
            "ALTER TABLE services ADD COLUMN number_matching INTEGER NOT NULL DEFAULT 0",
        ]),
        // The app side of the seeds: a tenant's app (custom scheme, universal and app links,
        // JSON); a service's roles (JSON), its subject type with the salt of its pairwise
        // identifiers, and whether a step-up answered on the phone gives the app an identity
        // token; the token of a device's single sign-on session.
        Migration(12, compatibleFrom: 12, [
            "ALTER TABLE tenants ADD COLUMN app_links TEXT",
            "ALTER TABLE services ADD COLUMN roles TEXT",
            "ALTER TABLE services ADD COLUMN subject_type TEXT NOT NULL DEFAULT 'public'",
            "ALTER TABLE services ADD COLUMN pairwise_salt TEXT",
            "ALTER TABLE services ADD COLUMN app_identity_token INTEGER NOT NULL DEFAULT 0",
            // Native single sign-on: the digest of the token the device holds for its session.
            "ALTER TABLE sso_sessions ADD COLUMN token_digest TEXT",
        ]),
        // WebAuthn: a user's security keys and passkeys (credential ids unique per tenant),
        // the single-use challenges of their ceremonies, and the key a login, its grants
        // and its session stand on (removing the key ends them).
        Migration(13, compatibleFrom: 13, [
            """
            CREATE TABLE security_keys (
                id TEXT PRIMARY KEY,
                tenant_id TEXT NOT NULL REFERENCES tenants(id),
                user_id TEXT NOT NULL REFERENCES users(id),
                credential_id TEXT NOT NULL,
                public_key TEXT NOT NULL,
                algorithm INTEGER NOT NULL,
                sign_count BIGINT NOT NULL,
                aaguid TEXT NOT NULL,
                transports TEXT NOT NULL,
                backup_eligible INTEGER NOT NULL,
                backed_up INTEGER NOT NULL,
                user_verified INTEGER NOT NULL,
                attestation TEXT NOT NULL,
                name TEXT NOT NULL,
                suspicious_at BIGINT,
                created_at BIGINT NOT NULL,
                last_used_at BIGINT,
                UNIQUE (tenant_id, credential_id)
            )
            """,
            "CREATE INDEX security_keys_by_user ON security_keys (user_id, created_at)",
            """
            CREATE TABLE webauthn_ceremonies (
                challenge TEXT PRIMARY KEY,
                tenant_id TEXT NOT NULL,
                kind TEXT NOT NULL,
                user_id TEXT,
                request_id TEXT,
                invitation_id TEXT,
                web_session TEXT,
                user_verification TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                expires_at BIGINT NOT NULL
            )
            """,
            "CREATE INDEX webauthn_ceremonies_by_expiry ON webauthn_ceremonies (expires_at)",
            "ALTER TABLE auth_requests ADD COLUMN security_key_id TEXT",
            "ALTER TABLE grants ADD COLUMN security_key_id TEXT",
            "ALTER TABLE sessions ADD COLUMN security_key_id TEXT",
            "CREATE INDEX sessions_by_security_key ON sessions (security_key_id)",
            "ALTER TABLE tenants ADD COLUMN webauthn_trust_anchors TEXT",
            "ALTER TABLE tenants ADD COLUMN webauthn_rp_id TEXT",
            // A security key as an activation's factor (device+securitykey), and its failure count.
            "ALTER TABLE activations ADD COLUMN security_key_id TEXT",
            "ALTER TABLE activations ADD COLUMN security_key_failures INTEGER NOT NULL DEFAULT 0",
        ]),
        // OpenID Connect for off-the-shelf clients: signing keys per algorithm (ES256, RS256,
        // EdDSA; one active key of each), a service's ID-token algorithm and its logout
        // addresses, an authorization request's login_hint and ui_locales, and the outbox of
        // back-channel logout tokens still to be delivered.
        Migration(14, compatibleFrom: 14, [
            "ALTER TABLE signing_keys ADD COLUMN algorithm TEXT NOT NULL DEFAULT 'ES256'",
            "ALTER TABLE services ADD COLUMN id_token_alg TEXT NOT NULL DEFAULT 'ES256'",
            "ALTER TABLE services ADD COLUMN post_logout_redirect_uris TEXT",
            "ALTER TABLE services ADD COLUMN backchannel_logout_uri TEXT",
            "ALTER TABLE auth_requests ADD COLUMN login_hint TEXT",
            "ALTER TABLE auth_requests ADD COLUMN ui_locales TEXT",
            """
            CREATE TABLE logout_notices (
                id TEXT PRIMARY KEY,
                tenant_id TEXT NOT NULL,
                service_id TEXT NOT NULL,
                session_id TEXT NOT NULL,
                user_id TEXT NOT NULL,
                attempts INTEGER NOT NULL,
                next_attempt_at BIGINT NOT NULL,
                created_at BIGINT NOT NULL
            )
            """,
            "CREATE INDEX logout_notices_by_due ON logout_notices (next_attempt_at)",
        ]),
        // Pushed authorization requests (RFC 9126): the parameters a service pushed, under
        // the digest of their single-use request_uri, and the services that must push.
        Migration(15, compatibleFrom: 15, [
            """
            CREATE TABLE pushed_requests (
                digest TEXT PRIMARY KEY,
                tenant_id TEXT NOT NULL,
                client_id TEXT NOT NULL,
                parameters TEXT NOT NULL,
                expires_at BIGINT NOT NULL
            )
            """,
            "CREATE INDEX pushed_requests_by_expiry ON pushed_requests (expires_at)",
            "ALTER TABLE services ADD COLUMN require_par INTEGER NOT NULL DEFAULT 0",
        ]),
        // DPoP (RFC 9449): the key a public client's session (its refresh tokens) is bound
        // to, the proofs seen (digest of key and jti) until they are too old to replay, and
        // the services that must use DPoP (dpop_bound_access_tokens).
        Migration(16, compatibleFrom: 16, [
            "ALTER TABLE sessions ADD COLUMN dpop_jkt TEXT",
            "ALTER TABLE services ADD COLUMN dpop_bound INTEGER NOT NULL DEFAULT 0",
            "CREATE TABLE dpop_proofs (digest TEXT PRIMARY KEY, expires_at BIGINT NOT NULL)",
            "CREATE INDEX dpop_proofs_by_expiry ON dpop_proofs (expires_at)",
        ]),
        // Dynamic client registration (RFC 7591, 7592): whether a tenant takes it, the initial
        // access tokens its administrators issue (digests, uses left), and the digest of each
        // registered service's registration access token.
        Migration(17, compatibleFrom: 17, [
            "ALTER TABLE tenants ADD COLUMN dynamic_registration INTEGER NOT NULL DEFAULT 0",
            "ALTER TABLE services ADD COLUMN registration_digest TEXT",
            """
            CREATE TABLE registration_tokens (
                id TEXT PRIMARY KEY,
                tenant_id TEXT NOT NULL REFERENCES tenants(id),
                digest TEXT NOT NULL UNIQUE,
                uses_left INTEGER NOT NULL,
                expires_at BIGINT NOT NULL,
                created_at BIGINT NOT NULL
            )
            """,
            "CREATE INDEX registration_tokens_by_tenant ON registration_tokens (tenant_id)",
        ]),
        // The gematik IDP profile: services whose tokens go back encrypted under the
        // token_key of their key_verifier.
        Migration(18, compatibleFrom: 18, [
            "ALTER TABLE services ADD COLUMN gematik_profile INTEGER NOT NULL DEFAULT 0",
        ]),
        // Federation: the external OpenID providers a tenant's users may sign in with, each
        // user's identity at them (their sub; one per provider and user), and the logins
        // under way there (the digests of the state sent and of the browser's cookie, and
        // the nonce; the PKCE verifier is derived from the state).
        Migration(19, compatibleFrom: 19, [
            """
            CREATE TABLE identity_providers (
                id TEXT PRIMARY KEY,
                tenant_id TEXT NOT NULL REFERENCES tenants(id),
                name TEXT NOT NULL,
                display_name TEXT NOT NULL,
                logo_uri TEXT,
                discovery_url TEXT NOT NULL,
                client_id TEXT NOT NULL,
                sealed_client_secret TEXT,
                scope TEXT NOT NULL,
                link_claim TEXT,
                link_field TEXT,
                claim_mapping TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                UNIQUE (tenant_id, name)
            )
            """,
            """
            CREATE TABLE federated_identities (
                provider_id TEXT NOT NULL REFERENCES identity_providers(id),
                subject TEXT NOT NULL,
                tenant_id TEXT NOT NULL REFERENCES tenants(id),
                user_id TEXT NOT NULL REFERENCES users(id),
                created_at BIGINT NOT NULL,
                last_login_at BIGINT,
                PRIMARY KEY (provider_id, subject)
            )
            """,
            "CREATE UNIQUE INDEX federated_identities_by_user ON federated_identities (user_id, provider_id)",
            """
            CREATE TABLE federation_logins (
                state_digest TEXT PRIMARY KEY,
                tenant_id TEXT NOT NULL REFERENCES tenants(id),
                provider_id TEXT NOT NULL REFERENCES identity_providers(id),
                request_id TEXT,
                invitation_id TEXT,
                browser_digest TEXT NOT NULL,
                nonce TEXT NOT NULL,
                expires_at BIGINT NOT NULL
            )
            """,
            "CREATE INDEX federation_logins_by_expiry ON federation_logins (expires_at)",
        ]),
        // A passkey added from the account page names what opened that page's session (the
        // device or the passkey that signed in); it is removed with it.
        Migration(20, compatibleFrom: 20, [
            "ALTER TABLE security_keys ADD COLUMN origin_activation_id TEXT",
            "ALTER TABLE security_keys ADD COLUMN origin_security_key_id TEXT",
            "CREATE INDEX security_keys_by_origin_activation ON security_keys (origin_activation_id)",
            "CREATE INDEX security_keys_by_origin_key ON security_keys (origin_security_key_id)",
        ]),
        // Android app links per host: a tenant's apps are listed host-wide only when an admin
        // for every tenant put them there; otherwise on the tenant's link domain. Apps stored
        // earlier stay host-wide only where the last change of app_links on record was made
        // by the bootstrap token, a key for every tenant or an operator for every tenant;
        // those a tenant's own key or operator stored move off the host-wide file.
        Migration(21, compatibleFrom: 21, [
            "ALTER TABLE tenants ADD COLUMN android_apps_host_wide INTEGER NOT NULL DEFAULT 0",
            androidAppsStayingHostWide,
        ]),
        // Compatibility markers. Before them, a build ran only on its own schema; the rows
        // of those versions keep that (each marks its own version), and this additive one
        // leaves schema 21's builds (v0.1.0) running.
        Migration(22, compatibleFrom: 21, [
            "ALTER TABLE schema_migrations ADD COLUMN compatible_from INTEGER NOT NULL DEFAULT 0",
            "ALTER TABLE schema_migrations ADD COLUMN applied_by TEXT",
            "UPDATE schema_migrations SET compatible_from = version",
        ]),
        // The feeds (GET /admin/audit/feed, /admin/history/feed): `seq` numbers entries in
        // commit order, given after commit by `StoreTransaction.sequenceFeed` (one sequencer
        // at a time, through its row of `feed_sequences`); where each entry's request came
        // from. Additive: the previous release writes entries without them.
        Migration(23, compatibleFrom: 21, [
            "ALTER TABLE audit_log ADD COLUMN seq BIGINT",
            "ALTER TABLE audit_log ADD COLUMN source_address TEXT",
            "ALTER TABLE audit_log ADD COLUMN user_agent TEXT",
            "ALTER TABLE audit_log ADD COLUMN http_request_id TEXT",
            "CREATE UNIQUE INDEX audit_by_seq ON audit_log (seq)",
            "ALTER TABLE authentication_history ADD COLUMN seq BIGINT",
            "ALTER TABLE authentication_history ADD COLUMN source_address TEXT",
            "ALTER TABLE authentication_history ADD COLUMN user_agent TEXT",
            "ALTER TABLE authentication_history ADD COLUMN http_request_id TEXT",
            "CREATE UNIQUE INDEX history_by_seq ON authentication_history (seq)",
            "CREATE TABLE feed_sequences (name TEXT PRIMARY KEY, value BIGINT NOT NULL)",
            "INSERT INTO feed_sequences (name, value) VALUES ('audit_log', 0), ('authentication_history', 0)",
        ]),
        // Webhooks (POST /admin/webhooks): the subscriptions, with their sealed signing
        // secrets; `events`, a feed of the events no audit or history entry records
        // (session ends, CIBA answers), written in the change's transaction; and the outbox
        // of deliveries, one per hook and event, which the dispatcher writes from the three
        // feeds in commit order (its place in each is a row of `feed_sequences`).
        Migration(24, compatibleFrom: 21, [
            """
            CREATE TABLE webhooks (
                id TEXT PRIMARY KEY,
                tenant_id TEXT,
                url TEXT NOT NULL,
                events TEXT NOT NULL,
                sealed_secret TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                enabled_at BIGINT NOT NULL,
                disabled_at BIGINT,
                disabled_reason TEXT
            )
            """,
            """
            CREATE TABLE events (
                id TEXT PRIMARY KEY,
                tenant_id TEXT,
                type TEXT NOT NULL,
                data TEXT NOT NULL,
                at BIGINT NOT NULL,
                seq BIGINT
            )
            """,
            "CREATE UNIQUE INDEX events_by_seq ON events (seq)",
            """
            CREATE TABLE webhook_deliveries (
                id TEXT PRIMARY KEY,
                webhook_id TEXT NOT NULL,
                seq BIGINT NOT NULL,
                event_id TEXT NOT NULL,
                event TEXT NOT NULL,
                payload TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                attempts INTEGER NOT NULL,
                next_attempt_at BIGINT NOT NULL,
                delivered_at BIGINT,
                last_attempt_at BIGINT,
                last_status INTEGER,
                last_error TEXT
            )
            """,
            "CREATE INDEX webhook_deliveries_by_hook ON webhook_deliveries (webhook_id, seq)",
            "CREATE INDEX webhook_deliveries_waiting ON webhook_deliveries (webhook_id, delivered_at, seq)",
            "CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (delivered_at, next_attempt_at)",
            """
            INSERT INTO feed_sequences (name, value) VALUES ('events', 0), ('webhook_deliveries', 0),
                ('dispatched:audit_log', 0), ('dispatched:authentication_history', 0), ('dispatched:events', 0)
            """,
        ]),
        // The outbox of messages to people (e-mailed invitations): written in the
        // transaction of what they tell, sealed (an invitation's link is a secret), sent and
        // removed by every node's message sender.
        Migration(25, compatibleFrom: 21, [
            """
            CREATE TABLE messages (
                id TEXT PRIMARY KEY,
                tenant_id TEXT,
                channel TEXT NOT NULL,
                recipient TEXT NOT NULL,
                sealed_content TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                attempts INTEGER NOT NULL,
                next_attempt_at BIGINT NOT NULL,
                last_error TEXT
            )
            """,
            "CREATE INDEX messages_due ON messages (next_attempt_at)",
            // What a tenant tells its users by e-mail, in which language, and whether its
            // invitations go by e-mail only.
            "ALTER TABLE tenants ADD COLUMN invitations_by_email_only INTEGER NOT NULL DEFAULT 0",
            "ALTER TABLE tenants ADD COLUMN notices TEXT NOT NULL DEFAULT '[\"device_added\",\"device_removed\",\"passkey_added\",\"locked\"]'",
            "ALTER TABLE tenants ADD COLUMN default_language TEXT NOT NULL DEFAULT 'en'",
        ]),
        // Traces that span requests: a login request and its code keep the W3C
        // `traceparent` of the request that began the login, a logout notice and a message
        // that of the request that wrote them (`RequestTrace`). Additive.
        Migration(26, compatibleFrom: 21, [
            "ALTER TABLE auth_requests ADD COLUMN trace_parent TEXT",
            "ALTER TABLE grants ADD COLUMN trace_parent TEXT",
            "ALTER TABLE logout_notices ADD COLUMN trace_parent TEXT",
            "ALTER TABLE messages ADD COLUMN trace_parent TEXT",
        ]),
        // Machine clients: a service's grant types, the scopes, audience and lifetime of its
        // client-credentials tokens, and its keys for private_key_jwt (RFC 7523), inline or
        // by address. `single_use_ids` holds what may be presented once until it expires:
        // the `jti` of client assertions, and revoked client-credentials tokens. Additive.
        Migration(27, compatibleFrom: 21, [
            "ALTER TABLE services ADD COLUMN grant_types TEXT",
            "ALTER TABLE services ADD COLUMN scopes TEXT",
            "ALTER TABLE services ADD COLUMN audience TEXT",
            "ALTER TABLE services ADD COLUMN access_token_lifetime BIGINT",
            "ALTER TABLE services ADD COLUMN auth_method TEXT",
            "ALTER TABLE services ADD COLUMN jwks TEXT",
            "ALTER TABLE services ADD COLUMN jwks_uri TEXT",
            "CREATE TABLE single_use_ids (digest TEXT PRIMARY KEY, expires_at BIGINT NOT NULL)",
            "CREATE INDEX single_use_ids_by_expiry ON single_use_ids (expires_at)",
        ]),
        // SCIM provisioning: a user's directory id, the profile a directory sent, and when
        // the user last changed. Additive.
        Migration(28, compatibleFrom: 21, [
            "ALTER TABLE users ADD COLUMN external_id TEXT",
            "ALTER TABLE users ADD COLUMN scim_profile TEXT",
            "ALTER TABLE users ADD COLUMN updated_at BIGINT",
            "CREATE INDEX users_by_external_id ON users (tenant_id, external_id)",
        ]),
        // Groups of a tenant's users, provisioned over SCIM and released to services as the
        // `groups` claim. Names are unique in a tenant (the claim carries names). Additive.
        Migration(29, compatibleFrom: 21, [
            """
            CREATE TABLE user_groups (
                id TEXT PRIMARY KEY,
                tenant_id TEXT NOT NULL,
                display_name TEXT NOT NULL,
                external_id TEXT,
                created_at BIGINT NOT NULL,
                updated_at BIGINT
            )
            """,
            "CREATE UNIQUE INDEX user_groups_by_name ON user_groups (tenant_id, display_name)",
            """
            CREATE TABLE group_members (
                group_id TEXT NOT NULL,
                user_id TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                PRIMARY KEY (group_id, user_id)
            )
            """,
            "CREATE INDEX group_members_by_user ON group_members (user_id)",
            // Whether a user a directory creates is sent an invitation by e-mail.
            "ALTER TABLE tenants ADD COLUMN invite_provisioned_users INTEGER NOT NULL DEFAULT 0",
            // Recovery codes (off unless the tenant offers them): a user's single-use codes
            // as digests, the recoveries they started, and the user's own lockout counter
            // for wrong codes.
            "ALTER TABLE tenants ADD COLUMN recovery_codes INTEGER NOT NULL DEFAULT 0",
            """
            CREATE TABLE recovery_codes (
                user_id TEXT NOT NULL,
                digest TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                used_at BIGINT,
                PRIMARY KEY (user_id, digest)
            )
            """,
            """
            CREATE TABLE recoveries (
                id TEXT PRIMARY KEY,
                tenant_id TEXT NOT NULL,
                user_id TEXT NOT NULL,
                handle_digest TEXT,
                status TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                expires_at BIGINT NOT NULL,
                approved_at BIGINT,
                approved_by TEXT
            )
            """,
            "CREATE INDEX recoveries_by_user ON recoveries (user_id)",
            "ALTER TABLE users ADD COLUMN recovery_failures INTEGER NOT NULL DEFAULT 0",
            "ALTER TABLE users ADD COLUMN recovery_locked_until BIGINT",
        ]),
        // Recoveries past their expiry are purged, by an index of their own.
        Migration(30, compatibleFrom: 21, [
            "CREATE INDEX recoveries_by_expiry ON recoveries (expires_at)"
        ]),
        // A tenant's branding (names, colours, links), its own sentences, and its logo.
        Migration(31, compatibleFrom: 21, [
            "ALTER TABLE tenants ADD COLUMN branding TEXT",
            "ALTER TABLE tenants ADD COLUMN texts TEXT NOT NULL DEFAULT '{}'",
            """
            CREATE TABLE tenant_logos (
                tenant_id TEXT PRIMARY KEY,
                content_type TEXT NOT NULL,
                body TEXT NOT NULL,
                updated_at BIGINT NOT NULL
            )
            """,
        ]),
        // A service's logo, privacy policy and terms, shown on its login page.
        Migration(32, compatibleFrom: 21, [
            "ALTER TABLE services ADD COLUMN logo_uri TEXT",
            "ALTER TABLE services ADD COLUMN policy_uri TEXT",
            "ALTER TABLE services ADD COLUMN tos_uri TEXT",
        ]),
        // An activation's background key: it signs only the reading of pending requests.
        Migration(33, compatibleFrom: 21, [
            "ALTER TABLE activations ADD COLUMN background_key TEXT"
        ]),
    ]

    /// Sets `android_apps_host_wide` for the tenants whose Android apps (without a link
    /// domain) were last changed by a caller for every tenant, as the audit log says.
    static let androidAppsStayingHostWide = """
        UPDATE tenants SET android_apps_host_wide = 1
        WHERE app_links LIKE '%"package_name"%' AND app_links NOT LIKE '%"link_domain":"%'
            AND (
                SELECT CASE
                    WHEN a.actor = 'admin' THEN 1
                    WHEN a.actor LIKE 'key:%' THEN
                        (SELECT COUNT(*) FROM admin_keys k WHERE 'key:' || k.id = a.actor AND k.tenant_id IS NULL)
                    WHEN a.actor LIKE 'operator:%' THEN
                        (SELECT COUNT(*) FROM console_operators o JOIN users u ON u.id = o.user_id
                         WHERE 'operator:' || u.username = a.actor AND o.scope_tenant_id IS NULL)
                    ELSE 0 END
                FROM audit_log a
                WHERE a.tenant_id = tenants.id AND a.action = 'tenant.update' AND a.details LIKE '%app_links%'
                ORDER BY a.at DESC, a.id DESC LIMIT 1
            ) = 1
        """
}
