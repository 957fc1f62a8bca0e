#!/usr/bin/env python3
"""Writes the OpenAPI 3.1 document of the admin and device API that the server serves at
/openapi.json (Sources/TesseraServer/OpenAPIDocument.swift). Edit the API's description
here, run `python3 scripts/openapi.py`, and commit both; `--check` fails when the Swift
file is not what this script writes (scripts/test.sh runs it). The suite checks the
served document against a live server with schemathesis."""
import json, os, sys
def ref(n): return {"$ref": "#/components/schemas/"+n}
S={"type":"string"}; I={"type":"integer"}; B={"type":"boolean"}; N={"type":"number"}
def arr(x): return {"type":"array","items":x}
def obj(props, required=None, additional=None):
    o={"type":"object","properties":props}
    if required: o["required"]=required
    if additional is not None: o["additionalProperties"]=additional
    return o
def nullable(x): return {"oneOf":[x,{"type":"null"}]}
schemas={
 "Error": obj({"error":S,"error_description":S},["error"]),
 "Lockout": obj({"free_attempts":{"type":"integer","minimum":0,"maximum":5},"waits":{"type":"array","minItems":1,"items":{"type":"integer","minimum":5,"maximum":2592000},"description":"Seconds; never shorter than the one before, the last at least 60."},"permanent_after":{"type":"integer","minimum":1,"maximum":20}},["free_attempts","waits","permanent_after"]),
 "AppLinks": obj({"link_domain":{"type":"string","description":"Host of the app's universal and app links, unique across tenants and not the issuer's host; its /.well-known files (chosen by Host) list this tenant's apps only; the login page's same-device link uses it. Without it, only an admin for every tenant may list Android apps (then on the issuer's host); a tenant's own key gets 403"},
   "custom_scheme":{"type":"string","description":"The app's URL scheme, used when there is no link domain"},
   "apple_app_ids":arr({"type":"string","description":"TEAMID.bundle.id"}),
   "android_apps":arr(obj({"package_name":S,"sha256_cert_fingerprints":arr(S)},["package_name","sha256_cert_fingerprints"]))}),
 "Tenant": obj({"id":S,"name":S,"issuer":S,"lockout":ref("Lockout"),"process_policy":S,"sso_lifetime":I,"sso_policy":S,"session_lifetime":I,"session_idle_lifetime":I,"history_retention":I,"audit_retention":I,"access_token_lifetime":I,"app_links":ref("AppLinks"),"webauthn_trust_anchors":{"type":"string","description":"PEM certificates a security key's packed attestation must chain to; absent: any none or packed attestation"},
   "webauthn_rp_id":{"type":"string","description":"The RP ID passkeys are bound to"},"dynamic_registration":{"type":"boolean","description":"Services may register themselves (RFC 7591)"},
   "android_apps_host_wide":{"type":"boolean","description":"Whether app_links' Android apps are listed in the issuer host's assetlinks.json (only an admin for every tenant lists them there, and only without a link_domain, whose own file lists them otherwise)"}},
   ["id","name","issuer","lockout","process_policy","sso_lifetime","session_lifetime","session_idle_lifetime","history_retention","access_token_lifetime","webauthn_rp_id","dynamic_registration","android_apps_host_wide"]),
 "CreateTenant": obj({"name":{"type":"string","pattern":"^[a-z0-9][a-z0-9-]{0,62}$"},"lockout":ref("Lockout"),"process_policy":S,"sso_lifetime":{"type":"integer","minimum":0,"maximum":86400},"sso_policy":S},["name"]),
 "UpdateTenant": obj({"lockout":ref("Lockout"),"process_policy":S,"sso_lifetime":{"type":"integer","minimum":0,"maximum":86400},"sso_policy":nullable(S),
   "session_lifetime":{"type":"integer","minimum":300,"maximum":31536000},"session_idle_lifetime":{"type":"integer","minimum":300,"maximum":31536000},
   "history_retention":{"type":"integer","minimum":86400,"maximum":315360000},"audit_retention":nullable({"type":"integer","minimum":2592000}),
   "access_token_lifetime":{"type":"integer","minimum":60,"maximum":3600},"app_links":nullable(ref("AppLinks")),
   "webauthn_trust_anchors":nullable({"type":"string","maxLength":65536,"description":"PEM certificates; null: any authenticator"}),
   "webauthn_rp_id":nullable({"type":"string","maxLength":253,"description":"The public URL's host or a parent domain of it; null: the server's"}),
   "dynamic_registration":{"type":"boolean","description":"Services may register themselves with an initial access token (RFC 7591)"}}),
 "RegistrationToken": obj({"id":S,"token":{"type":"string","description":"Only in the answer that made it"},"uses_left":I,"expires_at":N,"created_at":N},["id","uses_left","expires_at","created_at"]),
 "IdentityProvider": obj({"name":S,"display_name":S,"logo_uri":nullable(S),"discovery_url":S,"issuer":nullable({"type":"string","description":"Read from the discovery document; in the answer that added it"}),
   "client_id":S,"confidential":{"type":"boolean","description":"Whether Tessera holds a client secret for it (never shown)"},"scope":S,"link_claim":nullable(S),"link_field":nullable(S),
   "claim_mapping":{"type":"object","additionalProperties":S},"redirect_uri":{"type":"string","description":"Register this with the provider"},"created_at":N},
   ["name","display_name","discovery_url","client_id","confidential","scope","claim_mapping","redirect_uri","created_at"]),
 "CreateIdentityProvider": obj({"name":{"type":"string","pattern":"^[a-z0-9][a-z0-9-]{0,62}$","description":"In URLs and the directory (kk_app_id)"},
   "display_name":{"type":"string","minLength":1,"maxLength":100},"logo_uri":{"type":"string","description":"HTTPS"},
   "discovery_url":{"type":"string","description":"The provider's /.well-known/openid-configuration (HTTPS, or HTTP on the loopback)"},
   "client_id":{"type":"string","minLength":1,"maxLength":256},"client_secret":{"type":"string","minLength":1,"maxLength":1024,"description":"Sealed under the master key; none for a public client (PKCE only)"},
   "scope":{"type":"string","description":"Default: openid email profile"},
   "link_claim":{"type":"string","description":"The ID-token claim that finds the user on a first login (email only when email_verified)"},
   "link_field":{"type":"string","description":"username, or the name of the user attribute the claim is compared with"},
   "claim_mapping":{"type":"object","additionalProperties":{"type":"string"},"description":"Claim → user attribute, copied at each login"}},
   ["name","display_name","discovery_url","client_id"]),
 "CreateRegistrationToken": obj({"uses":{"type":"integer","minimum":1,"maximum":1000},"ttl_seconds":{"type":"integer","minimum":60,"maximum":2592000}}),
 "SigningKey": obj({"kid":S,"algorithm":{"type":"string","enum":["ES256","RS256","EdDSA"]},"active":B,"created_at":N},["kid","algorithm","active","created_at"]),
 "Rotation": obj({"kid":S,"algorithm":{"type":"string","enum":["ES256","RS256","EdDSA"]},"active":B,"keys":arr(ref("SigningKey"))},["kid","algorithm","active","keys"]),
 "KeyActivation": obj({"activated":S,"keys":arr(ref("SigningKey"))},["activated","keys"]),
 "KeyRetirement": obj({"retired":S,"keys":arr(ref("SigningKey"))},["retired","keys"]),
 "Service": obj({"client_id":S,"client_secret":S,"name":S,"public":B,"redirect_uris":arr(S),"policy":S,"attributes":arr(S),"backchannel_token_delivery_mode":{"type":"string","enum":["poll","ping"]},"backchannel_client_notification_endpoint":S,"session_lifetime":I,"session_idle_lifetime":I,"number_matching":B,"roles":arr(ref("Role")),"subject_type":{"type":"string","enum":["public","pairwise"]},"app_identity_token":B,"id_token_signed_response_alg":{"type":"string","enum":["ES256","RS256","EdDSA"]},"post_logout_redirect_uris":arr(S),"backchannel_logout_uri":S,"require_pushed_authorization_requests":B,"dpop_bound_access_tokens":B,"gematik_profile":B,"issuer":S},
   ["client_id","name","public","redirect_uris","policy","attributes","number_matching","roles","subject_type","app_identity_token","id_token_signed_response_alg","post_logout_redirect_uris","require_pushed_authorization_requests","dpop_bound_access_tokens","gematik_profile","issuer"]),
 "Role": obj({"name":{"type":"string","pattern":"^[A-Za-z0-9_-]{1,64}$"},"policy":{"type":"string","description":"Combinations of the service's policy, comma separated"}},["name","policy"]),
 "CreateService": obj({"name":S,"redirect_uris":arr(S),"public":B,"policy":S,"attributes":arr(S),"backchannel_token_delivery_mode":{"type":"string","enum":["poll","ping"]},"backchannel_client_notification_endpoint":S,"number_matching":{"type":"boolean","description":"Browser logins show a number the user picks on the device (default true)"},
   "roles":arr(ref("Role")),"subject_type":{"type":"string","enum":["public","pairwise"]},"app_identity_token":{"type":"boolean","description":"A step-up answered on the phone also gives the app an identity token"},
   "id_token_signed_response_alg":{"type":"string","enum":["ES256","RS256","EdDSA"]},"post_logout_redirect_uris":arr(S),"backchannel_logout_uri":{"type":"string","description":"Where logout tokens are posted (https, or http on a loopback host)"},
   "require_pushed_authorization_requests":{"type":"boolean","description":"Authorization requests must be pushed first (RFC 9126)"},
   "dpop_bound_access_tokens":{"type":"boolean","description":"Token requests without a DPoP proof are refused (RFC 9449)"},
   "gematik_profile":{"type":"boolean","description":"Token requests carry a key_verifier; tokens go back encrypted under its token_key"}},["name","redirect_uris"]),
 "UpdateService": obj({"name":S,"redirect_uris":arr(S),"policy":S,"attributes":arr(S),"backchannel_token_delivery_mode":nullable({"type":"string","enum":["poll","ping"]}),"backchannel_client_notification_endpoint":nullable(S),
   "session_lifetime":nullable({"type":"integer","minimum":300,"maximum":31536000}),"session_idle_lifetime":nullable({"type":"integer","minimum":300,"maximum":31536000}),"number_matching":B,
   "roles":nullable(arr(ref("Role"))),"subject_type":{"type":"string","enum":["public","pairwise"]},"app_identity_token":B,
   "id_token_signed_response_alg":{"type":"string","enum":["ES256","RS256","EdDSA"]},"post_logout_redirect_uris":nullable(arr(S)),"backchannel_logout_uri":nullable(S),"require_pushed_authorization_requests":B,"dpop_bound_access_tokens":B,"gematik_profile":B}),
 "User": obj({"id":S,"username":S,"attributes":obj({},None,S),"disabled":B,"created_at":N},["id","username","attributes","disabled","created_at"]),
 "CreateUser": obj({"username":S,"attributes":obj({},None,S)},["username"]),
 "UpdateUser": obj({"attributes":obj({},None,S)},["attributes"]),
 "UserPage": obj({"users":arr(ref("User")),"next_cursor":S},["users"]),
 "Activation": obj({"id":S,"username":S,"alias":S,"factors":arr(S),"status":S,"failed_attempts":I,"locked_until":N,"permanently_locked":B,"created_at":N,"last_used_at":N,"merged_users":arr(S)},
   ["id","username","factors","status","failed_attempts","permanently_locked","created_at","merged_users"]),
 "Session": obj({"id":S,"client_id":S,"service":S,"factors":arr(S),"activation_id":S,"created_at":N,"last_refreshed_at":N,"expires_at":N},["id","factors","created_at","last_refreshed_at","expires_at"]),
 "UserDetail": obj({"user":ref("User"),"activations":arr(ref("Activation")),"sessions":arr(ref("Session")),"security_keys":arr(ref("SecurityKey"))},["user","activations","sessions","security_keys"]),
 "SecurityKey": obj({"id":S,"user_id":S,"name":S,"credential_id":{"type":"string","description":"The authenticator's credential id, base64url"},
   "algorithm":{"type":"string","enum":["ES256","EdDSA","RS256"]},"aaguid":S,"transports":arr(S),"backup_eligible":{"type":"boolean","description":"A synced passkey"},
   "backed_up":B,"attestation":{"type":"string","enum":["none","self","certificate","trusted"]},"sign_count":I,
   "suspicious":{"type":"boolean","description":"Its counter went backwards once: refused from then on"},"created_at":N,"last_used_at":N},
   ["id","user_id","name","credential_id","algorithm","aaguid","transports","backup_eligible","backed_up","attestation","sign_count","suspicious","created_at"]),
 "CreateInvitation": obj({"username":S,"ttl_seconds":{"type":"integer","minimum":1,"maximum":2592000}},["username"]),
 "Invitation": obj({"url":S,"username":S,"expires_at":N},["url","username","expires_at"]),
 "OpenInvitation": obj({"id":S,"user_id":S,"username":S,"kind":{"type":"string","enum":["invitation","activation_data"]},"created_at":N,"expires_at":N},["id","user_id","username","kind","created_at","expires_at"]),
 "HistoryEntry": obj({"id":S,"user_id":S,"username":S,"activation_id":S,"request_id":S,"service":S,"purpose":S,"outcome":S,"factors":arr(S),"at":N},["id","activation_id","request_id","purpose","outcome","factors","at"]),
 "HistoryPage": obj({"entries":arr(ref("HistoryEntry")),"next_cursor":S},["entries"]),
 "AuditEntry": obj({"id":S,"tenant":S,"actor":S,"action":S,"target":S,"details":obj({},None,S),"at":N},["id","actor","action","details","at"]),
 "PurgeReport": obj({"at":I,"deleted":obj({},None,I)},["at","deleted"]),
 "Stats": obj({"tables":obj({},None,I),"last_purge":ref("PurgeReport")},["tables"]),
 "AdminKey": obj({"id":S,"name":S,"role":{"type":"string","enum":["admin","helpdesk","auditor"]},"tenant":S,"created_at":N,"key":S},["id","name","role","created_at"]),
 "CreateAdminKey": obj({"name":S,"role":{"type":"string","enum":["admin","helpdesk","auditor"]},"tenant":S},["name","role"]),
 "AddConsoleUser": obj({"username":S,"role":{"type":"string","enum":["admin","helpdesk","auditor"]},"tenant":S},["username"]),
 "ConsoleUserInvitation": obj({"username":S,"role":S,"tenant":S,"url":S,"expires_at":N},["username","role","url","expires_at"]),
}
def resp(desc, schema=None):
    r={"description":desc}
    if schema: r["content"]={"application/json":{"schema":schema}}
    return r
err=lambda d: resp(d, ref("Error"))
def op(summary, ok, okschema, codes, body=None, params=None, okdesc="OK"):
    o={"summary":summary,"responses":{str(ok):resp(okdesc, okschema)}}
    codes=sorted(set(codes)|{400})
    for c in codes: o["responses"][str(c)]=err({400:"Malformed or out-of-bounds input",401:"No or bad admin token or key",403:"Beyond the key's role or scope",404:"Unknown (or another tenant's)",409:"Conflicts with the current state",413:"Body too large",423:"The activation is locked (lockout)",502:"An external provider failed or could not be reached",429:"Too many requests from this address, or long polls of this device (Retry-After)",503:"Too many attempts at once on this activation (Retry-After)"}[c])
    if body is not None:
        o["requestBody"]={"required":True,"content":{"application/json":{"schema":body}}}
    if params: o["parameters"]=params
    return o
def p(name, where="path", schema=S, required=None, desc=None):
    d={"name":name,"in":where,"required":(where=="path") if required is None else required,"schema":schema}
    if desc: d["description"]=desc
    return d
R=[401,403,404]; W=[400,401,403,404,413]
T=p("tenant",desc="The tenant's name")
limit=p("limit","query",{"type":"integer","minimum":1,"maximum":1000},desc="At most this many (default 100)")
cursor=p("cursor","query",S,desc="The next_cursor of the previous page")
paths={
 "/admin/tenants":{
   "post":op("Create a tenant",201,ref("Tenant"),[400,401,403,409,413],ref("CreateTenant"),okdesc="Created"),
   "get":op("List tenants (a tenant's key sees its own)",200,obj({"tenants":arr(ref("Tenant"))},["tenants"]),[401])},
 "/admin/tenants/{tenant}":{"parameters":[T],
   "get":op("A tenant's settings",200,ref("Tenant"),R),
   "patch":op("Change the settings the body names",200,ref("Tenant"),W,ref("UpdateTenant")),
   "delete":op("Delete a tenant (409 while it has users unless force)",200,obj({"deleted":S},["deleted"]),[400,401,403,404,409],params=[p("force","query",{"type":"string","enum":["true","false"]})])},
 "/admin/tenants/{tenant}/signing-keys":{"parameters":[T],
   "post":{**op("A new signing key (active unless activate is false)",201,ref("Rotation"),W,okdesc="Created"),"requestBody":{"required":False,"content":{"application/json":{"schema":obj({"activate":B,"algorithm":{"type":"string","enum":["ES256","RS256","EdDSA"]}})}}}},
   "get":op("The tenant's published signing keys",200,obj({"keys":arr(ref("SigningKey"))},["keys"]),R)},
 "/admin/tenants/{tenant}/signing-keys/{kid}/activate":{"parameters":[T,p("kid")],
   "post":op("Make a published key the one that signs",200,ref("KeyActivation"),R)},
 "/admin/tenants/{tenant}/signing-keys/{kid}":{"parameters":[T,p("kid")],
   "delete":op("Retire an inactive key",200,ref("KeyRetirement"),[401,403,404,409])},
 "/admin/tenants/{tenant}/services":{"parameters":[T],
   "post":op("Register a service",201,ref("Service"),W,ref("CreateService"),okdesc="Created"),
   "get":op("The tenant's services",200,obj({"services":arr(ref("Service"))},["services"]),R)},
 "/admin/tenants/{tenant}/services/{client}":{"parameters":[T,p("client",desc="The service's client_id")],
   "get":op("A service",200,ref("Service"),R),
   "patch":op("Change what the body names (409 for the server's own console and account-page services)",200,ref("Service"),W+[409],ref("UpdateService")),
   "delete":op("Delete a service; its sessions end (409 for the server's own console and account-page services)",200,obj({"deleted":S},["deleted"]),R+[409])},
 "/admin/tenants/{tenant}/services/{client}/secret":{"parameters":[T,p("client")],
   "post":op("A new client secret, shown once",200,ref("Service"),[400,401,403,404])},
 "/admin/tenants/{tenant}/users":{"parameters":[T],
   "post":op("Create a user",201,ref("User"),W+[409],ref("CreateUser"),okdesc="Created"),
   "get":op("Users in username order, a page at a time",200,ref("UserPage"),[400,401,403,404],params=[p("username","query"),p("search","query"),p("attribute","query",desc="name=value"),cursor,limit])},
 "/admin/tenants/{tenant}/users/{user}":{"parameters":[T,p("user",desc="The user's id")],
   "get":op("A user with their activations and live sessions",200,ref("UserDetail"),R),
   "patch":op("Replace the user's attributes",200,ref("User"),W,ref("UpdateUser")),
   "delete":op("Delete a user with their devices, sessions and history",200,obj({"deleted":S},["deleted"]),R)},
 "/admin/tenants/{tenant}/users/{user}/disable":{"parameters":[T,p("user")],"post":op("Disable a user: sessions end, no login",200,ref("User"),R)},
 "/admin/tenants/{tenant}/users/{user}/enable":{"parameters":[T,p("user")],"post":op("Enable a user again",200,ref("User"),R)},
 "/admin/tenants/{tenant}/users/{user}/sessions":{"parameters":[T,p("user")],
   "get":op("The user's live sessions",200,obj({"sessions":arr(ref("Session"))},["sessions"]),R),
   "delete":op("End every session of the user",200,obj({"ended":I},["ended"]),R)},
 "/admin/tenants/{tenant}/users/{user}/security-keys":{"parameters":[T,p("user")],
   "get":op("The user's security keys and passkeys",200,obj({"security_keys":arr(ref("SecurityKey"))},["security_keys"]),R)},
 "/admin/tenants/{tenant}/users/{user}/security-keys/{key}":{"parameters":[T,p("user"),p("key",desc="The security key's id (not its credential id)")],
   "delete":op("Remove a security key or passkey; the sessions of its logins end",200,obj({"removed":S},["removed"]),R)},
 "/admin/tenants/{tenant}/sessions/{session}":{"parameters":[T,p("session",desc="The tokens' sid")],
   "delete":op("End one session",200,obj({"ended":I},["ended"]),[401,403,404,409])},
 "/admin/tenants/{tenant}/registration-tokens":{"parameters":[T],
   "post":{**op("An initial access token for dynamic client registration (RFC 7591)",201,ref("RegistrationToken"),W,okdesc="Created"),"requestBody":{"required":False,"content":{"application/json":{"schema":ref("CreateRegistrationToken")}}}},
   "get":op("The tenant's initial access tokens",200,obj({"tokens":arr(ref("RegistrationToken"))},["tokens"]),R)},
 "/admin/tenants/{tenant}/registration-tokens/{token}":{"parameters":[T,p("token")],
   "delete":op("Revoke an initial access token",200,obj({"revoked":S},["revoked"]),[401,403,404])},
 "/admin/tenants/{tenant}/identity-providers":{"parameters":[T],
   "post":op("Add an external OpenID provider users may sign in with (federation); its discovery document is read first",201,ref("IdentityProvider"),W+[409,502],ref("CreateIdentityProvider"),okdesc="Created"),
   "get":op("The tenant's external providers",200,obj({"providers":arr(ref("IdentityProvider"))},["providers"]),R)},
 "/admin/tenants/{tenant}/identity-providers/{provider}":{"parameters":[T,p("provider",desc="The provider's name")],
   "delete":op("Remove a provider and the users' links to it",200,obj({"removed":S},["removed"]),R)},
 "/admin/tenants/{tenant}/invitations":{"parameters":[T],
   "post":op("An activation link for a user",201,ref("Invitation"),W,ref("CreateInvitation"),okdesc="Created"),
   "get":op("Open invitations",200,obj({"invitations":arr(ref("OpenInvitation"))},["invitations"]),R)},
 "/admin/tenants/{tenant}/invitations/{invitation}":{"parameters":[T,p("invitation")],
   "delete":op("End an open invitation",200,obj({"revoked":S},["revoked"]),[401,403,404,409])},
 "/admin/tenants/{tenant}/activations":{"parameters":[T],
   "get":op("Activations, with their lock state",200,obj({"activations":arr(ref("Activation"))},["activations"]),R,params=[p("username","query")])},
 "/admin/tenants/{tenant}/history":{"parameters":[T],
   "get":op("Authentication history, newest first, paged",200,ref("HistoryPage"),[400,401,403,404],params=[p("username","query"),p("activation","query"),p("service","query"),
      p("outcome","query",{"type":"string","enum":["approved","failed","locked","denied","completed"]}),p("since","query",{"type":"integer","minimum":0}),p("until","query",{"type":"integer","minimum":0}),cursor,limit])},
 "/admin/activations/{activation}/unlock":{"parameters":[p("activation")],"post":op("Clear an activation's failures and lock",200,ref("Activation"),R)},
 "/admin/activations/{activation}/revoke":{"parameters":[p("activation")],"post":op("Remove an activation; its sessions end",200,ref("Activation"),R)},
 "/admin/audit":{"get":op("The audit log, newest first",200,obj({"entries":arr(ref("AuditEntry"))},["entries"]),[400,401,403,404],params=[p("tenant","query"),p("since","query",{"type":"integer","minimum":0}),p("action","query",{"type":"string","maxLength":64},desc="Only actions beginning so"),p("actor","query",{"type":"string","maxLength":200},desc="Only this actor"),limit])},
 "/admin/stats":{"get":op("Rows per table and the last purge",200,ref("Stats"),[401,403])},
 "/admin/purge":{"post":op("Purge expired and spent data now",200,ref("PurgeReport"),[401,403])},
 "/admin/keys":{
   "post":op("An admin API key, shown once",201,ref("AdminKey"),[400,401,403,404,413],ref("CreateAdminKey"),okdesc="Created"),
   "get":op("Live admin API keys",200,obj({"keys":arr(ref("AdminKey"))},["keys"]),[401,403])},
 "/admin/keys/{key}":{"parameters":[p("key")],"delete":op("Revoke an admin API key",200,obj({"revoked":S},["revoked"]),[401,403,404,409])},
 "/admin/console-users":{
   "post":op("Make a console operator (and the operators' tenant, and the user, if missing); an activation link for its device",201,ref("ConsoleUserInvitation"),[400,401,403,404,413],ref("AddConsoleUser"),okdesc="Created")},
}
# What each admin operation needs of its caller: read (every role), support (helpdesk and
# admin) or manage (admin); global: the caller must reach every tenant. On the tenant
# `operators` (the console's operators) every operation needs a global admin.
# The role-and-tenant matrix test reads these from the served document.
NEEDS={
 "post /admin/tenants":"manage global","get /admin/tenants":"read",
 "get /admin/tenants/{tenant}":"read","patch /admin/tenants/{tenant}":"manage","delete /admin/tenants/{tenant}":"manage global",
 "post /admin/tenants/{tenant}/signing-keys":"manage","get /admin/tenants/{tenant}/signing-keys":"read",
 "post /admin/tenants/{tenant}/signing-keys/{kid}/activate":"manage","delete /admin/tenants/{tenant}/signing-keys/{kid}":"manage",
 "post /admin/tenants/{tenant}/services":"manage","get /admin/tenants/{tenant}/services":"read",
 "get /admin/tenants/{tenant}/services/{client}":"read","patch /admin/tenants/{tenant}/services/{client}":"manage","delete /admin/tenants/{tenant}/services/{client}":"manage",
 "post /admin/tenants/{tenant}/services/{client}/secret":"manage",
 "post /admin/tenants/{tenant}/users":"manage","get /admin/tenants/{tenant}/users":"read",
 "get /admin/tenants/{tenant}/users/{user}":"read","patch /admin/tenants/{tenant}/users/{user}":"manage","delete /admin/tenants/{tenant}/users/{user}":"manage",
 "post /admin/tenants/{tenant}/users/{user}/disable":"manage","post /admin/tenants/{tenant}/users/{user}/enable":"manage",
 "get /admin/tenants/{tenant}/users/{user}/sessions":"read","delete /admin/tenants/{tenant}/users/{user}/sessions":"support",
 "get /admin/tenants/{tenant}/users/{user}/security-keys":"read","delete /admin/tenants/{tenant}/users/{user}/security-keys/{key}":"support",
 "delete /admin/tenants/{tenant}/sessions/{session}":"support",
 "post /admin/tenants/{tenant}/registration-tokens":"manage","get /admin/tenants/{tenant}/registration-tokens":"read","delete /admin/tenants/{tenant}/registration-tokens/{token}":"manage",
 "post /admin/tenants/{tenant}/identity-providers":"manage","get /admin/tenants/{tenant}/identity-providers":"read","delete /admin/tenants/{tenant}/identity-providers/{provider}":"manage",
 "post /admin/tenants/{tenant}/invitations":"support","get /admin/tenants/{tenant}/invitations":"read","delete /admin/tenants/{tenant}/invitations/{invitation}":"support",
 "get /admin/tenants/{tenant}/activations":"read","get /admin/tenants/{tenant}/history":"read",
 "post /admin/activations/{activation}/unlock":"support","post /admin/activations/{activation}/revoke":"support",
 "get /admin/audit":"read","get /admin/stats":"read global","post /admin/purge":"manage global",
 "post /admin/keys":"manage","get /admin/keys":"manage","delete /admin/keys/{key}":"manage",
 "post /admin/console-users":"manage global",
}
for path, item in paths.items():
  for method, o in item.items():
    if method=="parameters": continue
    need=NEEDS.pop(method+" "+path)
    o["x-tessera-need"]=need.split()[0]
    if need.endswith(" global"): o["x-tessera-global"]=True
assert not NEEDS, NEEDS
# The device API: activation and finishing carry their own proofs; every other call a
# `Tessera-Device` token (a JWS signed by the device key, single use, bound to method and path).
schemas.update({
 "ActivationStart": obj({"code":S},["code"]),
 "ActivationOffer": obj({"issuer":S,"tenant":S,"username":S,"pin_salt":S,"expires_at":N,"mergeable":B},["issuer","tenant","username","pin_salt","expires_at"]),
 "ActivationComplete": obj({"registration":S,"biometric_registration":S},["registration"]),
 "ActivationReceipt": obj({"activation_id":S,"issuer":S,"tenant":S,"user_id":S,"username":S,"factors":arr(S)},["activation_id","issuer","tenant","user_id","username","factors"]),
 "Claim": obj({"user_id":S}),
 "Finish": obj({"proof":S,"biometric_proof":S},["proof"]),
 "ProcessStart": obj({"purpose":S,"target":S,"code":S,"factor":S}, ["purpose"]),
 "ProcessComplete": obj({"pin_key":S,"totp_secret":S,"biometric_key":{"type":"object"},"biometric_registration":S,"alias":S,"retire":B,
   "security_key":{"type":"object","description":"add_factor securitykey: the new credential, WebAuthn's RegistrationResponseJSON"},"security_key_name":S}),
 "InAppStart": obj({"client_id":S,"scope":S,"state":S,"nonce":S,"code_challenge":S,"code_challenge_method":S,"redirect_uri":S,"user_id":S},["client_id","redirect_uri","code_challenge","code_challenge_method","scope"]),
 "PushRegistration": obj({"kind":{"type":"string","enum":["apns","webhook"]},"token":S},["kind","token"]),
 "Factors": arr({"type":"string","enum":["device","pin","biometric","otp","securitykey","federation"]}),
 "ServiceInformation": obj({"client_id":S,"name":S},["client_id","name"]),
 "ProcessDescription": obj({"factor":S,"username":S,"target":S,"target_alias":S}),
 "Challenge": obj({"request_id":S,"purpose":S,"challenge":S,"audience":S,"expires_at":N,"service":ref("ServiceInformation"),
   "process":ref("ProcessDescription"),"requested_attributes":arr(obj({"name":S,"value":S},["name"])),
   "requested_authenticators":arr(ref("Factors")),"binding_message":S,
   "origin":obj({"address":S,"network":S,"user_agent":S,"started_at":N},["address","network","started_at"]),
   "number_choices":{"type":"array","items":S,"description":"Number matching: the user picks the one the login page shows; it goes into the proof as match"},
   "security_key":obj({"rp_id":S,"credential_id":S,"transports":arr(S),"user_verification":S},["rp_id","credential_id","transports","user_verification"])},
   ["request_id","purpose","challenge","audience","expires_at","requested_attributes","requested_authenticators"]),
 "FinishAnswer": obj({"result":S,"login":obj({"service":ref("ServiceInformation"),"username":S,"factors":ref("Factors"),"authenticated_at":N,"role":S,"subject":S,"attributes":obj({},None,S),"identity_token":S,"sso_token":S,"sso_expires_at":N},["service","username","factors","authenticated_at"]),
   "lockout":obj({"is_permanent":B,"locked_until":N},["is_permanent"]),"user_information":ref("Challenge"),
   "process":obj({"request_id":S,"purpose":S,"expires_at":N,"pin_salt":S,"description":ref("ProcessDescription"),
     "security_key":{"type":"object","description":"add_factor securitykey: WebAuthn's PublicKeyCredentialCreationOptionsJSON"}},["request_id","purpose","expires_at"]),
   "merged":obj({"idm_identifier":S,"username":S},["idm_identifier","username"])},["result"]),
 "Status": obj({"status":S,"kind":S},["status"]),
 "PendingList": obj({"requests":arr(obj({"request_id":S,"service":ref("ServiceInformation"),"binding_message":S,"username":S,"user_id":S,"expires_at":N,
   "status":{"type":"string","enum":["pending","authenticated","ongoing_on_another_device","canceled","failed","timeout"]}},
   ["request_id","service","username","user_id","expires_at","status"])),"version":S},["requests","version"]),
 "PendingState": obj({"request_id":S,"status":{"type":"string","enum":["pending","authenticated","ongoing_on_another_device","canceled","failed","timeout"]}},["request_id","status"]),
 "SingleSignOnCode": obj({"sso_token":S,"login":ref("InAppStart"),"attributes":arr(S)},["sso_token","login"]),
 "InAppCode": obj({"code":S,"state":S,"iss":S,"redirect_uri":S,"expires_at":N},["code","iss","redirect_uri","expires_at"]),
 "ProcessCompletion": obj({"purpose":S,"factors":ref("Factors"),"url":S,"expires_at":N,
   "devices":arr(obj({"activation_id":S,"alias":S,"factors":ref("Factors"),"created_at":N,"last_used_at":N,"current":B},["activation_id","factors","created_at","current"])),
   "removed":S},["purpose"]),
 "DeviceHistory": obj({"entries":arr(obj({"request_id":S,"service":S,"purpose":S,"outcome":S,"factors":ref("Factors"),"username":S,"at":N},["request_id","purpose","outcome","factors","at"]))},["entries"]),
})
DW=[400,401,403,404,409,413,423,429,503]
RQ=p("request",desc="The authentication request's id")
def device(summary, ok, okschema, body=None, params=None, okdesc="OK", signed=True):
    o=op(summary, ok, okschema, DW, body, params, okdesc)
    o["tags"]=["device"]
    o["security"]=[{"deviceToken":[]}] if signed else []
    return o
D="/t/{tenant}/device"
device_paths={
 D+"/activation/start":{"parameters":[T],"post":device("What an activation code offers (user, PIN salt)",200,ref("ActivationOffer"),ref("ActivationStart"),signed=False)},
 D+"/activation/complete":{"parameters":[T],"post":device("Register the device's keys (signed registration)",201,ref("ActivationReceipt"),ref("ActivationComplete"),okdesc="Created",signed=False)},
 D+"/authentications/{request}/finish":{"parameters":[T,RQ],"post":device("Answer a claimed request with a signed proof",200,ref("FinishAnswer"),ref("Finish"),signed=False)},
 D+"/authentications/{request}/claim":{"parameters":[T,RQ],"post":{**device("Claim a request: its challenge and what it asks",200,ref("Challenge")),"requestBody":{"required":False,"content":{"application/json":{"schema":ref("Claim")}}}}},
 D+"/authentications/{request}/deny":{"parameters":[T,RQ],"post":device("Decline a request",200,ref("Status"))},
 D+"/authentications/{request}":{"parameters":[T,RQ],"get":device("A request's state as this device sees it",200,ref("PendingState"))},
 D+"/pending":{"parameters":[T],"get":device("The requests waiting for this device (long poll with wait)",200,ref("PendingList"),params=[p("wait","query",{"type":"integer","minimum":0,"maximum":60})])},
 D+"/push":{"parameters":[T],"post":device("Register a wake-up push target",200,ref("Status"),ref("PushRegistration")),
   "delete":device("Remove the push target",200,ref("Status"))},
 D+"/in-app":{"parameters":[T],"post":device("Start an in-app login for a service",201,ref("Challenge"),ref("InAppStart"),okdesc="Created")},
 D+"/in-app/{request}/code":{"parameters":[T,RQ],"post":device("The authorization code of an approved in-app login",200,ref("InAppCode"))},
 D+"/sso/code":{"parameters":[T],"post":device("A code for a further service on the activation's single sign-on session (native single sign-on)",200,ref("InAppCode"),ref("SingleSignOnCode"))},
 D+"/processes":{"parameters":[T],"post":device("Start an account process",201,ref("Challenge"),ref("ProcessStart"),okdesc="Created")},
 D+"/processes/{request}/complete":{"parameters":[T,RQ],"post":device("Complete an approved account process",200,ref("ProcessCompletion"),ref("ProcessComplete"))},
 D+"/history":{"parameters":[T],"get":device("This activation's history",200,ref("DeviceHistory"),params=[limit])},
}

for path,item in paths.items():
    for m,o in item.items():
        if m=="parameters": continue
        o["security"]=[{"adminToken":[]}]
        o["tags"]=["admin"]
paths.update(device_paths)
doc={"openapi":"3.1.0","info":{"title":"Tessera admin and device API","version":"1","description":"The admin API of a Tessera server (bearer: the bootstrap admin token or an admin API key, tsk_…) and the device API under each issuer (a Tessera-Device token, or the proofs a request carries). Times are seconds since 1970; docs/PROTOCOL.md describes each exchange."},
 "paths":paths,"components":{"schemas":schemas,"securitySchemes":{"adminToken":{"type":"http","scheme":"bearer"},"deviceToken":{"type":"apiKey","in":"header","name":"Authorization","description":"Tessera-Device followed by a device-signed JWS (docs/PROTOCOL.md)"}}}}
text = json.dumps(doc, indent=1, ensure_ascii=False)
swift = ("// Written by scripts/openapi.py: edit that script, not this file.\n\n"
         "/// The OpenAPI 3.1 document of the admin and device API, served at `/openapi.json`.\n"
         "enum OpenAPIDocument {\n    static let json = #\"\"\"\n" + text + "\n\"\"\"#\n}\n")
target = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Sources", "TesseraServer", "OpenAPIDocument.swift")
if "--check" in sys.argv:
    with open(target, encoding="utf-8") as current:
        if current.read() != swift:
            sys.exit("Sources/TesseraServer/OpenAPIDocument.swift is not what scripts/openapi.py writes: run it")
else:
    with open(target, "w", encoding="utf-8") as out:
        out.write(swift)
