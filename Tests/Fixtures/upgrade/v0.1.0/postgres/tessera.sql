--
-- PostgreSQL database dump
--

\restrict G6RyJC7BuZzO7UFTneJ0dCS5zWtubv7L5Afb5OgB5wjWxr6SOBSMB4j1Jl0aZJb

-- Dumped from database version 15.18 (Debian 15.18-0+deb12u1)
-- Dumped by pg_dump version 15.18 (Debian 15.18-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: activation_users; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.activation_users (
    activation_id text NOT NULL,
    user_id text NOT NULL,
    created_at bigint NOT NULL
);


--
-- Name: activations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.activations (
    id text NOT NULL,
    tenant_id text NOT NULL,
    user_id text NOT NULL,
    alias text,
    device_key text NOT NULL,
    biometric_key text,
    sealed_pin_key text NOT NULL,
    sealed_totp_secret text,
    totp_last_step bigint,
    failed_attempts integer NOT NULL,
    locked_until bigint,
    permanently_locked integer NOT NULL,
    status text NOT NULL,
    created_at bigint NOT NULL,
    last_used_at bigint,
    pin_failures integer DEFAULT 0 NOT NULL,
    otp_failures integer DEFAULT 0 NOT NULL,
    biometric_failures integer DEFAULT 0 NOT NULL,
    security_key_id text,
    security_key_failures integer DEFAULT 0 NOT NULL
);


--
-- Name: admin_keys; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.admin_keys (
    id text NOT NULL,
    name text NOT NULL,
    digest text NOT NULL,
    role text NOT NULL,
    tenant_id text,
    created_at bigint NOT NULL,
    revoked_at bigint
);


--
-- Name: audit_log; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.audit_log (
    id text NOT NULL,
    tenant_id text,
    actor text NOT NULL,
    action text NOT NULL,
    target text,
    details text NOT NULL,
    at bigint NOT NULL
);


--
-- Name: auth_requests; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.auth_requests (
    id text NOT NULL,
    tenant_id text NOT NULL,
    service_id text,
    purpose text NOT NULL,
    status text NOT NULL,
    challenge text,
    activation_id text,
    user_id text,
    redirect_uri text,
    state text,
    nonce text,
    code_challenge text,
    scope text NOT NULL,
    browser_digest text,
    confirmed_attributes text,
    factors text,
    auth_time bigint,
    process text,
    created_at bigint NOT NULL,
    expires_at bigint NOT NULL,
    flow text,
    binding_message text,
    acr_policy text,
    sealed_notification_token text,
    poll_interval integer,
    last_polled_at bigint,
    sso_allowed integer,
    max_age bigint,
    origin_address text,
    origin_agent text,
    match_code text,
    security_key_id text,
    login_hint text,
    ui_locales text
);


--
-- Name: authentication_history; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.authentication_history (
    id text NOT NULL,
    tenant_id text NOT NULL,
    activation_id text NOT NULL,
    user_id text,
    request_id text NOT NULL,
    service text,
    purpose text NOT NULL,
    outcome text NOT NULL,
    factors text NOT NULL,
    at bigint NOT NULL
);


--
-- Name: console_operators; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.console_operators (
    user_id text NOT NULL,
    tenant_id text NOT NULL,
    role text NOT NULL,
    scope_tenant_id text,
    created_at bigint NOT NULL
);


--
-- Name: device_token_ids; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.device_token_ids (
    jti text NOT NULL,
    activation_id text NOT NULL,
    expires_at bigint NOT NULL
);


--
-- Name: dpop_proofs; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.dpop_proofs (
    digest text NOT NULL,
    expires_at bigint NOT NULL
);


--
-- Name: federated_identities; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.federated_identities (
    provider_id text NOT NULL,
    subject text NOT NULL,
    tenant_id text NOT NULL,
    user_id text NOT NULL,
    created_at bigint NOT NULL,
    last_login_at bigint
);


--
-- Name: federation_logins; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.federation_logins (
    state_digest text NOT NULL,
    tenant_id text NOT NULL,
    provider_id text NOT NULL,
    request_id text,
    invitation_id text,
    browser_digest text NOT NULL,
    nonce text NOT NULL,
    expires_at bigint NOT NULL
);


--
-- Name: grants; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.grants (
    digest text NOT NULL,
    kind text NOT NULL,
    family_id text NOT NULL,
    tenant_id text NOT NULL,
    service_id text NOT NULL,
    user_id text NOT NULL,
    redirect_uri text,
    code_challenge text,
    nonce text,
    scope text NOT NULL,
    factors text NOT NULL,
    confirmed_attributes text NOT NULL,
    auth_time bigint NOT NULL,
    expires_at bigint NOT NULL,
    used_at bigint,
    revoked integer NOT NULL,
    activation_id text,
    security_key_id text
);


--
-- Name: identity_providers; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.identity_providers (
    id text NOT NULL,
    tenant_id text NOT NULL,
    name text NOT NULL,
    display_name text NOT NULL,
    logo_uri text,
    discovery_url text NOT NULL,
    client_id text NOT NULL,
    sealed_client_secret text,
    scope text NOT NULL,
    link_claim text,
    link_field text,
    claim_mapping text NOT NULL,
    created_at bigint NOT NULL
);


--
-- Name: invitations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.invitations (
    id text NOT NULL,
    tenant_id text NOT NULL,
    user_id text NOT NULL,
    code_digest text NOT NULL,
    pin_salt text NOT NULL,
    expires_at bigint NOT NULL,
    used_at bigint,
    created_at bigint NOT NULL,
    sealed_pin_key text,
    alias text,
    retires_activation_id text,
    created_by_activation_id text,
    failed_attempts integer DEFAULT 0 NOT NULL
);


--
-- Name: logout_notices; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.logout_notices (
    id text NOT NULL,
    tenant_id text NOT NULL,
    service_id text NOT NULL,
    session_id text NOT NULL,
    user_id text NOT NULL,
    attempts integer NOT NULL,
    next_attempt_at bigint NOT NULL,
    created_at bigint NOT NULL
);


--
-- Name: maintenance; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.maintenance (
    name text NOT NULL,
    at bigint NOT NULL,
    details text NOT NULL
);


--
-- Name: push_targets; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.push_targets (
    activation_id text NOT NULL,
    tenant_id text NOT NULL,
    kind text NOT NULL,
    token text NOT NULL,
    created_at bigint NOT NULL
);


--
-- Name: pushed_requests; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.pushed_requests (
    digest text NOT NULL,
    tenant_id text NOT NULL,
    client_id text NOT NULL,
    parameters text NOT NULL,
    expires_at bigint NOT NULL
);


--
-- Name: registration_tokens; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.registration_tokens (
    id text NOT NULL,
    tenant_id text NOT NULL,
    digest text NOT NULL,
    uses_left integer NOT NULL,
    expires_at bigint NOT NULL,
    created_at bigint NOT NULL
);


--
-- Name: schema_migrations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.schema_migrations (
    version integer NOT NULL,
    applied_at bigint NOT NULL
);


--
-- Name: sealed_checks; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.sealed_checks (
    id text NOT NULL,
    sealed text NOT NULL
);


--
-- Name: security_keys; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.security_keys (
    id text NOT NULL,
    tenant_id text NOT NULL,
    user_id text NOT NULL,
    credential_id text NOT NULL,
    public_key text NOT NULL,
    algorithm integer NOT NULL,
    sign_count bigint NOT NULL,
    aaguid text NOT NULL,
    transports text NOT NULL,
    backup_eligible integer NOT NULL,
    backed_up integer NOT NULL,
    user_verified integer NOT NULL,
    attestation text NOT NULL,
    name text NOT NULL,
    suspicious_at bigint,
    created_at bigint NOT NULL,
    last_used_at bigint,
    origin_activation_id text,
    origin_security_key_id text
);


--
-- Name: services; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.services (
    id text NOT NULL,
    tenant_id text NOT NULL,
    client_id text NOT NULL,
    name text NOT NULL,
    secret_digest text,
    is_public integer NOT NULL,
    redirect_uris text NOT NULL,
    policy text NOT NULL,
    attributes text NOT NULL,
    created_at bigint NOT NULL,
    backchannel_mode text,
    notification_endpoint text,
    session_lifetime bigint,
    session_idle_lifetime bigint,
    number_matching integer DEFAULT 0 NOT NULL,
    roles text,
    subject_type text DEFAULT 'public'::text NOT NULL,
    pairwise_salt text,
    app_identity_token integer DEFAULT 0 NOT NULL,
    id_token_alg text DEFAULT 'ES256'::text NOT NULL,
    post_logout_redirect_uris text,
    backchannel_logout_uri text,
    require_par integer DEFAULT 0 NOT NULL,
    dpop_bound integer DEFAULT 0 NOT NULL,
    registration_digest text,
    gematik_profile integer DEFAULT 0 NOT NULL
);


--
-- Name: sessions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.sessions (
    id text NOT NULL,
    tenant_id text NOT NULL,
    service_id text NOT NULL,
    user_id text NOT NULL,
    activation_id text,
    factors text NOT NULL,
    confirmed_attributes text NOT NULL,
    auth_time bigint NOT NULL,
    created_at bigint NOT NULL,
    last_refreshed_at bigint NOT NULL,
    expires_at bigint NOT NULL,
    idle_lifetime bigint NOT NULL,
    ended_at bigint,
    end_reason text,
    security_key_id text,
    dpop_jkt text
);


--
-- Name: signing_keys; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.signing_keys (
    kid text NOT NULL,
    tenant_id text NOT NULL,
    sealed_key text NOT NULL,
    active integer NOT NULL,
    created_at bigint NOT NULL,
    algorithm text DEFAULT 'ES256'::text NOT NULL
);


--
-- Name: sso_sessions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.sso_sessions (
    activation_id text NOT NULL,
    user_id text NOT NULL,
    tenant_id text NOT NULL,
    factors text NOT NULL,
    auth_time bigint NOT NULL,
    expires_at bigint NOT NULL,
    token_digest text
);


--
-- Name: tenants; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.tenants (
    id text NOT NULL,
    name text NOT NULL,
    lockout_policy text NOT NULL,
    created_at bigint NOT NULL,
    process_policy text DEFAULT 'device+pin,device+biometric'::text NOT NULL,
    sso_lifetime integer DEFAULT 0 NOT NULL,
    sso_policy text,
    session_lifetime bigint DEFAULT 2592000 NOT NULL,
    session_idle_lifetime bigint DEFAULT 2592000 NOT NULL,
    history_retention bigint DEFAULT 31536000 NOT NULL,
    audit_retention bigint,
    access_token_lifetime bigint DEFAULT 300 NOT NULL,
    app_links text,
    webauthn_trust_anchors text,
    webauthn_rp_id text,
    dynamic_registration integer DEFAULT 0 NOT NULL,
    android_apps_host_wide integer DEFAULT 0 NOT NULL
);


--
-- Name: users; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.users (
    id text NOT NULL,
    tenant_id text NOT NULL,
    username text NOT NULL,
    attributes text NOT NULL,
    created_at bigint NOT NULL,
    disabled_at bigint
);


--
-- Name: web_sessions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.web_sessions (
    digest text NOT NULL,
    kind text NOT NULL,
    tenant_id text NOT NULL,
    user_id text NOT NULL,
    activation_id text,
    session_id text NOT NULL,
    csrf text NOT NULL,
    created_at bigint NOT NULL,
    last_seen_at bigint NOT NULL,
    expires_at bigint NOT NULL,
    idle_lifetime bigint NOT NULL,
    ended_at bigint
);


--
-- Name: webauthn_ceremonies; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.webauthn_ceremonies (
    challenge text NOT NULL,
    tenant_id text NOT NULL,
    kind text NOT NULL,
    user_id text,
    request_id text,
    invitation_id text,
    web_session text,
    user_verification text NOT NULL,
    created_at bigint NOT NULL,
    expires_at bigint NOT NULL
);


--
-- Data for Name: activation_users; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.activation_users (activation_id, user_id, created_at) FROM stdin;
\.


--
-- Data for Name: activations; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.activations (id, tenant_id, user_id, alias, device_key, biometric_key, sealed_pin_key, sealed_totp_secret, totp_last_step, failed_attempts, locked_until, permanently_locked, status, created_at, last_used_at, pin_failures, otp_failures, biometric_failures, security_key_id, security_key_failures) FROM stdin;
Xy8e6eRwzQBR_u9Mky5v7A	vIldFVZC4lCBoxAF	A1DqVZ0kGJdlzhbn	fixture	{"crv":"P-256","kty":"EC","x":"duox7jjyoiwbCd9EhTcoMy6ilC0YjyGdmCVxwnYWI54","y":"IpijmCpPIyHC1wdE5oeNTYaTGP-heg2hLkBXdf8TiGA"}	\N	MzmeoX2Ddr3CR3a4f64g82bvROPL83tAl3jypS4kYsAO-uX09CvWfl2XV-JA1UcspltwevhEagZEO5eH	\N	\N	0	\N	0	active	1795817474	1795817474	0	0	0	\N	0
\.


--
-- Data for Name: admin_keys; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.admin_keys (id, name, digest, role, tenant_id, created_at, revoked_at) FROM stdin;
\.


--
-- Data for Name: audit_log; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.audit_log (id, tenant_id, actor, action, target, details, at) FROM stdin;
066149569c37ba5_wjQcLINzI	vIldFVZC4lCBoxAF	admin	tenant.create	fixture	{"process_policy":"device+pin,device+biometric"}	1795817473
066149569d1a47jN_maRFSZCU	vIldFVZC4lCBoxAF	admin	tenant.update	fixture	{"changed":"session_lifetime,session_idle_lifetime"}	1795817473
066149569df9db6p9uagWFrjw	vIldFVZC4lCBoxAF	admin	service.create	MZO-qv6eX4FVJw1pMaz_qQ	{"backchannel_token_delivery_mode":"none","id_token_signed_response_alg":"ES256","name":"Fixture app","number_matching":"true","policy":"device+pin","public":"true","subject_type":"public"}	1795817473
066149569fff84gVCb9sI0kBI	vIldFVZC4lCBoxAF	admin	user.create	A1DqVZ0kGJdlzhbn	{"attributes":"email","username":"alice"}	1795817474
06614956a0c24e5h0YvqWUI5M	vIldFVZC4lCBoxAF	admin	invitation.create	A1DqVZ0kGJdlzhbn	{"invitation_id":"1SeZLa1ITeKZfKkf","username":"alice"}	1795817474
06614956a2b2cccA5lCobKOps	vIldFVZC4lCBoxAF	activation:Xy8e6eRwzQBR_u9Mky5v7A	activation.create	Xy8e6eRwzQBR_u9Mky5v7A	{"factors":"device,pin","user_id":"A1DqVZ0kGJdlzhbn"}	1795817474
\.


--
-- Data for Name: auth_requests; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.auth_requests (id, tenant_id, service_id, purpose, status, challenge, activation_id, user_id, redirect_uri, state, nonce, code_challenge, scope, browser_digest, confirmed_attributes, factors, auth_time, process, created_at, expires_at, flow, binding_message, acr_policy, sealed_notification_token, poll_interval, last_polled_at, sso_allowed, max_age, origin_address, origin_agent, match_code, security_key_id, login_hint, ui_locales) FROM stdin;
87tOkbaW80vPiJHt9hFTmQ	vIldFVZC4lCBoxAF	T0GHLVBBG59pDj5l	login	completed	\N	Xy8e6eRwzQBR_u9Mky5v7A	A1DqVZ0kGJdlzhbn	http://127.0.0.1/fixture/callback	\N	\N	CuvNTZYMUph4foWe1OC7MyS9scURI9ZzPrVws4mz0j0	openid offline_access	\N	[]	["device","pin"]	1795817474	\N	1795817474	1795817774	in_app	\N	\N	\N	\N	\N	0	\N	\N	\N	\N	\N	\N	\N
\.


--
-- Data for Name: authentication_history; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.authentication_history (id, tenant_id, activation_id, user_id, request_id, service, purpose, outcome, factors, at) FROM stdin;
06614956a49584nqxSlh-76eg	vIldFVZC4lCBoxAF	Xy8e6eRwzQBR_u9Mky5v7A	A1DqVZ0kGJdlzhbn	87tOkbaW80vPiJHt9hFTmQ	Fixture app	login	approved	["device","pin"]	1795817474
\.


--
-- Data for Name: console_operators; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.console_operators (user_id, tenant_id, role, scope_tenant_id, created_at) FROM stdin;
\.


--
-- Data for Name: device_token_ids; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.device_token_ids (jti, activation_id, expires_at) FROM stdin;
HlkBJyRcQEHNH-EpJezpVw	Xy8e6eRwzQBR_u9Mky5v7A	1795817534
7wPUuaHXjAq3GdEPo8CoIQ	Xy8e6eRwzQBR_u9Mky5v7A	1795817594
QSu_A6XrcIqfJIyeMUuorQ	Xy8e6eRwzQBR_u9Mky5v7A	1795817534
\.


--
-- Data for Name: dpop_proofs; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.dpop_proofs (digest, expires_at) FROM stdin;
\.


--
-- Data for Name: federated_identities; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.federated_identities (provider_id, subject, tenant_id, user_id, created_at, last_login_at) FROM stdin;
\.


--
-- Data for Name: federation_logins; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.federation_logins (state_digest, tenant_id, provider_id, request_id, invitation_id, browser_digest, nonce, expires_at) FROM stdin;
\.


--
-- Data for Name: grants; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.grants (digest, kind, family_id, tenant_id, service_id, user_id, redirect_uri, code_challenge, nonce, scope, factors, confirmed_attributes, auth_time, expires_at, used_at, revoked, activation_id, security_key_id) FROM stdin;
Ll3JS0so10huTcym02H6Vc1DPyEz0xOLESMjYpNr7xA	code	9WH0xYrKNm5o0akrQDHaHg	vIldFVZC4lCBoxAF	T0GHLVBBG59pDj5l	A1DqVZ0kGJdlzhbn	http://127.0.0.1/fixture/callback	CuvNTZYMUph4foWe1OC7MyS9scURI9ZzPrVws4mz0j0	\N	openid offline_access	["device","pin"]	[]	1795817474	1795817534	1795817474	0	Xy8e6eRwzQBR_u9Mky5v7A	\N
7mNaJACRq5e3KT3vhj5FNnWLXpNcadE1-Wo9bd9iY74	refresh	9WH0xYrKNm5o0akrQDHaHg	vIldFVZC4lCBoxAF	T0GHLVBBG59pDj5l	A1DqVZ0kGJdlzhbn	\N	\N	\N	openid offline_access	["device","pin"]	[]	1795817474	1827353474	\N	0	Xy8e6eRwzQBR_u9Mky5v7A	\N
\.


--
-- Data for Name: identity_providers; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.identity_providers (id, tenant_id, name, display_name, logo_uri, discovery_url, client_id, sealed_client_secret, scope, link_claim, link_field, claim_mapping, created_at) FROM stdin;
\.


--
-- Data for Name: invitations; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.invitations (id, tenant_id, user_id, code_digest, pin_salt, expires_at, used_at, created_at, sealed_pin_key, alias, retires_activation_id, created_by_activation_id, failed_attempts) FROM stdin;
1SeZLa1ITeKZfKkf	vIldFVZC4lCBoxAF	A1DqVZ0kGJdlzhbn	kkGBKoVrhGm1sOjNIMzyVefZ_51oY2A-LFyTg0_aiN0	JRRmBDiyw-7-NRDvpoHekw	1796422274	1795817474	1795817474	\N	\N	\N	\N	0
\.


--
-- Data for Name: logout_notices; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.logout_notices (id, tenant_id, service_id, session_id, user_id, attempts, next_attempt_at, created_at) FROM stdin;
\.


--
-- Data for Name: maintenance; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.maintenance (name, at, details) FROM stdin;
\.


--
-- Data for Name: push_targets; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.push_targets (activation_id, tenant_id, kind, token, created_at) FROM stdin;
\.


--
-- Data for Name: pushed_requests; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.pushed_requests (digest, tenant_id, client_id, parameters, expires_at) FROM stdin;
\.


--
-- Data for Name: registration_tokens; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.registration_tokens (id, tenant_id, digest, uses_left, expires_at, created_at) FROM stdin;
\.


--
-- Data for Name: schema_migrations; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.schema_migrations (version, applied_at) FROM stdin;
1	1795817473
2	1795817473
3	1795817473
4	1795817473
5	1795817473
6	1795817473
7	1795817473
8	1795817473
9	1795817473
10	1795817473
11	1795817473
12	1795817473
13	1795817473
14	1795817473
15	1795817473
16	1795817473
17	1795817473
18	1795817473
19	1795817473
20	1795817473
21	1795817473
\.


--
-- Data for Name: sealed_checks; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.sealed_checks (id, sealed) FROM stdin;
master-key	cg8EePufPsMENwuiSWUQtlp6FcWsOYt_WAdLLehAO8HFypdQ9G3LEw_xw3eJwg
\.


--
-- Data for Name: security_keys; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.security_keys (id, tenant_id, user_id, credential_id, public_key, algorithm, sign_count, aaguid, transports, backup_eligible, backed_up, user_verified, attestation, name, suspicious_at, created_at, last_used_at, origin_activation_id, origin_security_key_id) FROM stdin;
\.


--
-- Data for Name: services; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.services (id, tenant_id, client_id, name, secret_digest, is_public, redirect_uris, policy, attributes, created_at, backchannel_mode, notification_endpoint, session_lifetime, session_idle_lifetime, number_matching, roles, subject_type, pairwise_salt, app_identity_token, id_token_alg, post_logout_redirect_uris, backchannel_logout_uri, require_par, dpop_bound, registration_digest, gematik_profile) FROM stdin;
T0GHLVBBG59pDj5l	vIldFVZC4lCBoxAF	MZO-qv6eX4FVJw1pMaz_qQ	Fixture app	\N	1	["http:\\/\\/127.0.0.1\\/fixture\\/callback"]	device+pin	[]	1795817473	\N	\N	\N	\N	1	\N	public	\N	0	ES256	\N	\N	0	0	\N	0
\.


--
-- Data for Name: sessions; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.sessions (id, tenant_id, service_id, user_id, activation_id, factors, confirmed_attributes, auth_time, created_at, last_refreshed_at, expires_at, idle_lifetime, ended_at, end_reason, security_key_id, dpop_jkt) FROM stdin;
9WH0xYrKNm5o0akrQDHaHg	vIldFVZC4lCBoxAF	T0GHLVBBG59pDj5l	A1DqVZ0kGJdlzhbn	Xy8e6eRwzQBR_u9Mky5v7A	["device","pin"]	[]	1795817474	1795817474	1795817474	1827353474	31536000	\N	\N	\N	\N
\.


--
-- Data for Name: signing_keys; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.signing_keys (kid, tenant_id, sealed_key, active, created_at, algorithm) FROM stdin;
N_BmDTZjO1EPae4jlpO8A1EHSMhgg6PlPVhGeJDBwik	vIldFVZC4lCBoxAF	93Gh0mqMXMie1-vmAHi9XkYvwhINap2y87kZaoxClqWcnILuLNS5XCmli3CLVfmrCsFPao1UZ2gyRCpu	1	1795817473	ES256
\.


--
-- Data for Name: sso_sessions; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.sso_sessions (activation_id, user_id, tenant_id, factors, auth_time, expires_at, token_digest) FROM stdin;
\.


--
-- Data for Name: tenants; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.tenants (id, name, lockout_policy, created_at, process_policy, sso_lifetime, sso_policy, session_lifetime, session_idle_lifetime, history_retention, audit_retention, access_token_lifetime, app_links, webauthn_trust_anchors, webauthn_rp_id, dynamic_registration, android_apps_host_wide) FROM stdin;
vIldFVZC4lCBoxAF	fixture	{"free_attempts":3,"permanent_after":10,"waits":[30,60,300,900,3600]}	1795817473	device+pin,device+biometric	0	\N	31536000	31536000	31536000	\N	300	\N	\N	\N	0	0
\.


--
-- Data for Name: users; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.users (id, tenant_id, username, attributes, created_at, disabled_at) FROM stdin;
A1DqVZ0kGJdlzhbn	vIldFVZC4lCBoxAF	alice	{"email":"alice@example.com"}	1795817474	\N
\.


--
-- Data for Name: web_sessions; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.web_sessions (digest, kind, tenant_id, user_id, activation_id, session_id, csrf, created_at, last_seen_at, expires_at, idle_lifetime, ended_at) FROM stdin;
\.


--
-- Data for Name: webauthn_ceremonies; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.webauthn_ceremonies (challenge, tenant_id, kind, user_id, request_id, invitation_id, web_session, user_verification, created_at, expires_at) FROM stdin;
\.


--
-- Name: activation_users activation_users_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.activation_users
    ADD CONSTRAINT activation_users_pkey PRIMARY KEY (activation_id, user_id);


--
-- Name: activations activations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.activations
    ADD CONSTRAINT activations_pkey PRIMARY KEY (id);


--
-- Name: admin_keys admin_keys_digest_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.admin_keys
    ADD CONSTRAINT admin_keys_digest_key UNIQUE (digest);


--
-- Name: admin_keys admin_keys_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.admin_keys
    ADD CONSTRAINT admin_keys_pkey PRIMARY KEY (id);


--
-- Name: audit_log audit_log_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.audit_log
    ADD CONSTRAINT audit_log_pkey PRIMARY KEY (id);


--
-- Name: auth_requests auth_requests_v2_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.auth_requests
    ADD CONSTRAINT auth_requests_v2_pkey PRIMARY KEY (id);


--
-- Name: authentication_history authentication_history_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.authentication_history
    ADD CONSTRAINT authentication_history_pkey PRIMARY KEY (id);


--
-- Name: console_operators console_operators_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.console_operators
    ADD CONSTRAINT console_operators_pkey PRIMARY KEY (user_id);


--
-- Name: device_token_ids device_token_ids_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.device_token_ids
    ADD CONSTRAINT device_token_ids_pkey PRIMARY KEY (jti);


--
-- Name: dpop_proofs dpop_proofs_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.dpop_proofs
    ADD CONSTRAINT dpop_proofs_pkey PRIMARY KEY (digest);


--
-- Name: federated_identities federated_identities_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.federated_identities
    ADD CONSTRAINT federated_identities_pkey PRIMARY KEY (provider_id, subject);


--
-- Name: federation_logins federation_logins_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.federation_logins
    ADD CONSTRAINT federation_logins_pkey PRIMARY KEY (state_digest);


--
-- Name: grants grants_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.grants
    ADD CONSTRAINT grants_pkey PRIMARY KEY (digest);


--
-- Name: identity_providers identity_providers_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.identity_providers
    ADD CONSTRAINT identity_providers_pkey PRIMARY KEY (id);


--
-- Name: identity_providers identity_providers_tenant_id_name_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.identity_providers
    ADD CONSTRAINT identity_providers_tenant_id_name_key UNIQUE (tenant_id, name);


--
-- Name: invitations invitations_code_digest_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.invitations
    ADD CONSTRAINT invitations_code_digest_key UNIQUE (code_digest);


--
-- Name: invitations invitations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.invitations
    ADD CONSTRAINT invitations_pkey PRIMARY KEY (id);


--
-- Name: logout_notices logout_notices_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.logout_notices
    ADD CONSTRAINT logout_notices_pkey PRIMARY KEY (id);


--
-- Name: maintenance maintenance_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.maintenance
    ADD CONSTRAINT maintenance_pkey PRIMARY KEY (name);


--
-- Name: push_targets push_targets_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.push_targets
    ADD CONSTRAINT push_targets_pkey PRIMARY KEY (activation_id);


--
-- Name: pushed_requests pushed_requests_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.pushed_requests
    ADD CONSTRAINT pushed_requests_pkey PRIMARY KEY (digest);


--
-- Name: registration_tokens registration_tokens_digest_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.registration_tokens
    ADD CONSTRAINT registration_tokens_digest_key UNIQUE (digest);


--
-- Name: registration_tokens registration_tokens_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.registration_tokens
    ADD CONSTRAINT registration_tokens_pkey PRIMARY KEY (id);


--
-- Name: schema_migrations schema_migrations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.schema_migrations
    ADD CONSTRAINT schema_migrations_pkey PRIMARY KEY (version);


--
-- Name: sealed_checks sealed_checks_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sealed_checks
    ADD CONSTRAINT sealed_checks_pkey PRIMARY KEY (id);


--
-- Name: security_keys security_keys_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.security_keys
    ADD CONSTRAINT security_keys_pkey PRIMARY KEY (id);


--
-- Name: security_keys security_keys_tenant_id_credential_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.security_keys
    ADD CONSTRAINT security_keys_tenant_id_credential_id_key UNIQUE (tenant_id, credential_id);


--
-- Name: services services_client_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.services
    ADD CONSTRAINT services_client_id_key UNIQUE (client_id);


--
-- Name: services services_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.services
    ADD CONSTRAINT services_pkey PRIMARY KEY (id);


--
-- Name: sessions sessions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sessions
    ADD CONSTRAINT sessions_pkey PRIMARY KEY (id);


--
-- Name: signing_keys signing_keys_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.signing_keys
    ADD CONSTRAINT signing_keys_pkey PRIMARY KEY (kid);


--
-- Name: sso_sessions sso_sessions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sso_sessions
    ADD CONSTRAINT sso_sessions_pkey PRIMARY KEY (activation_id, user_id);


--
-- Name: tenants tenants_name_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.tenants
    ADD CONSTRAINT tenants_name_key UNIQUE (name);


--
-- Name: tenants tenants_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.tenants
    ADD CONSTRAINT tenants_pkey PRIMARY KEY (id);


--
-- Name: users users_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_pkey PRIMARY KEY (id);


--
-- Name: users users_tenant_id_username_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_tenant_id_username_key UNIQUE (tenant_id, username);


--
-- Name: web_sessions web_sessions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.web_sessions
    ADD CONSTRAINT web_sessions_pkey PRIMARY KEY (digest);


--
-- Name: webauthn_ceremonies webauthn_ceremonies_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webauthn_ceremonies
    ADD CONSTRAINT webauthn_ceremonies_pkey PRIMARY KEY (challenge);


--
-- Name: activation_users_by_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX activation_users_by_user ON public.activation_users USING btree (user_id);


--
-- Name: activations_by_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX activations_by_user ON public.activations USING btree (tenant_id, user_id);


--
-- Name: activations_by_user_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX activations_by_user_id ON public.activations USING btree (user_id);


--
-- Name: audit_by_tenant_time; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX audit_by_tenant_time ON public.audit_log USING btree (tenant_id, at);


--
-- Name: audit_by_time; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX audit_by_time ON public.audit_log USING btree (at, id);


--
-- Name: auth_requests_by_activation; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX auth_requests_by_activation ON public.auth_requests USING btree (activation_id);


--
-- Name: auth_requests_by_expiry; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX auth_requests_by_expiry ON public.auth_requests USING btree (expires_at);


--
-- Name: auth_requests_by_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX auth_requests_by_user ON public.auth_requests USING btree (user_id, status);


--
-- Name: device_token_ids_by_activation; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX device_token_ids_by_activation ON public.device_token_ids USING btree (activation_id, expires_at);


--
-- Name: device_token_ids_by_expiry; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX device_token_ids_by_expiry ON public.device_token_ids USING btree (expires_at);


--
-- Name: dpop_proofs_by_expiry; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX dpop_proofs_by_expiry ON public.dpop_proofs USING btree (expires_at);


--
-- Name: federated_identities_by_user; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX federated_identities_by_user ON public.federated_identities USING btree (user_id, provider_id);


--
-- Name: federation_logins_by_expiry; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX federation_logins_by_expiry ON public.federation_logins USING btree (expires_at);


--
-- Name: grants_by_activation; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX grants_by_activation ON public.grants USING btree (activation_id);


--
-- Name: grants_by_expiry; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX grants_by_expiry ON public.grants USING btree (expires_at);


--
-- Name: grants_by_family; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX grants_by_family ON public.grants USING btree (family_id);


--
-- Name: grants_by_use; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX grants_by_use ON public.grants USING btree (used_at);


--
-- Name: history_by_activation; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX history_by_activation ON public.authentication_history USING btree (activation_id, at);


--
-- Name: history_by_tenant_time; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX history_by_tenant_time ON public.authentication_history USING btree (tenant_id, at);


--
-- Name: history_by_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX history_by_user ON public.authentication_history USING btree (user_id, at);


--
-- Name: invitations_by_expiry; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX invitations_by_expiry ON public.invitations USING btree (expires_at);


--
-- Name: invitations_by_tenant; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX invitations_by_tenant ON public.invitations USING btree (tenant_id, expires_at);


--
-- Name: logout_notices_by_due; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX logout_notices_by_due ON public.logout_notices USING btree (next_attempt_at);


--
-- Name: pushed_requests_by_expiry; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX pushed_requests_by_expiry ON public.pushed_requests USING btree (expires_at);


--
-- Name: registration_tokens_by_tenant; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX registration_tokens_by_tenant ON public.registration_tokens USING btree (tenant_id);


--
-- Name: security_keys_by_origin_activation; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX security_keys_by_origin_activation ON public.security_keys USING btree (origin_activation_id);


--
-- Name: security_keys_by_origin_key; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX security_keys_by_origin_key ON public.security_keys USING btree (origin_security_key_id);


--
-- Name: security_keys_by_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX security_keys_by_user ON public.security_keys USING btree (user_id, created_at);


--
-- Name: sessions_by_activation; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX sessions_by_activation ON public.sessions USING btree (activation_id);


--
-- Name: sessions_by_expiry; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX sessions_by_expiry ON public.sessions USING btree (expires_at);


--
-- Name: sessions_by_security_key; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX sessions_by_security_key ON public.sessions USING btree (security_key_id);


--
-- Name: sessions_by_service; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX sessions_by_service ON public.sessions USING btree (service_id);


--
-- Name: sessions_by_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX sessions_by_user ON public.sessions USING btree (user_id);


--
-- Name: sessions_by_user_created; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX sessions_by_user_created ON public.sessions USING btree (user_id, created_at);


--
-- Name: web_sessions_by_expiry; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX web_sessions_by_expiry ON public.web_sessions USING btree (expires_at);


--
-- Name: web_sessions_by_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX web_sessions_by_user ON public.web_sessions USING btree (user_id);


--
-- Name: webauthn_ceremonies_by_expiry; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX webauthn_ceremonies_by_expiry ON public.webauthn_ceremonies USING btree (expires_at);


--
-- Name: activation_users activation_users_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.activation_users
    ADD CONSTRAINT activation_users_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id);


--
-- Name: activations activations_tenant_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.activations
    ADD CONSTRAINT activations_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES public.tenants(id);


--
-- Name: activations activations_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.activations
    ADD CONSTRAINT activations_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id);


--
-- Name: auth_requests auth_requests_v2_service_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.auth_requests
    ADD CONSTRAINT auth_requests_v2_service_id_fkey FOREIGN KEY (service_id) REFERENCES public.services(id);


--
-- Name: auth_requests auth_requests_v2_tenant_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.auth_requests
    ADD CONSTRAINT auth_requests_v2_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES public.tenants(id);


--
-- Name: federated_identities federated_identities_provider_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.federated_identities
    ADD CONSTRAINT federated_identities_provider_id_fkey FOREIGN KEY (provider_id) REFERENCES public.identity_providers(id);


--
-- Name: federated_identities federated_identities_tenant_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.federated_identities
    ADD CONSTRAINT federated_identities_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES public.tenants(id);


--
-- Name: federated_identities federated_identities_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.federated_identities
    ADD CONSTRAINT federated_identities_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id);


--
-- Name: federation_logins federation_logins_provider_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.federation_logins
    ADD CONSTRAINT federation_logins_provider_id_fkey FOREIGN KEY (provider_id) REFERENCES public.identity_providers(id);


--
-- Name: federation_logins federation_logins_tenant_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.federation_logins
    ADD CONSTRAINT federation_logins_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES public.tenants(id);


--
-- Name: grants grants_service_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.grants
    ADD CONSTRAINT grants_service_id_fkey FOREIGN KEY (service_id) REFERENCES public.services(id);


--
-- Name: grants grants_tenant_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.grants
    ADD CONSTRAINT grants_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES public.tenants(id);


--
-- Name: identity_providers identity_providers_tenant_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.identity_providers
    ADD CONSTRAINT identity_providers_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES public.tenants(id);


--
-- Name: invitations invitations_tenant_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.invitations
    ADD CONSTRAINT invitations_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES public.tenants(id);


--
-- Name: invitations invitations_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.invitations
    ADD CONSTRAINT invitations_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id);


--
-- Name: registration_tokens registration_tokens_tenant_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.registration_tokens
    ADD CONSTRAINT registration_tokens_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES public.tenants(id);


--
-- Name: security_keys security_keys_tenant_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.security_keys
    ADD CONSTRAINT security_keys_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES public.tenants(id);


--
-- Name: security_keys security_keys_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.security_keys
    ADD CONSTRAINT security_keys_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id);


--
-- Name: services services_tenant_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.services
    ADD CONSTRAINT services_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES public.tenants(id);


--
-- Name: signing_keys signing_keys_tenant_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.signing_keys
    ADD CONSTRAINT signing_keys_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES public.tenants(id);


--
-- Name: users users_tenant_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES public.tenants(id);


--
-- PostgreSQL database dump complete
--

\unrestrict G6RyJC7BuZzO7UFTneJ0dCS5zWtubv7L5Afb5OgB5wjWxr6SOBSMB4j1Jl0aZJb

