// Package opaplugin is permopa's OPA server plugin: `permopa run --server`
// serves the agent-facing permission API on OPA's own HTTP server (so OPA's
// authentication, system.authz, TLS, gzip, Prometheus metrics and tracing
// cover it), with the embedded default policy unless bundles replace it.
//
// # Routes
//
//   - POST /v1/permission/check: body, the input of docs/api.md (a Claude
//     Code PreToolUse payload is one; unknown fields are ignored); answer 200
//     with the decision (docs/api.md) and its decision_id. Policy faults, and a
//     check not decided within decision_timeout (code timeout), are DENY
//     decisions with step "error" and a code, never HTTP errors.
//   - POST /v1/permission/confirm: body, an adapter.ConfirmResult
//     ({"confirmed", "tool_call", "rules", "destination", "ttl"}) with the
//     decision_id of the check that answered ASK; only that check's
//     suggested rules are accepted, once (an admin confirm, "admin": true,
//     may name any call and rule); answer 200 with an adapter.Confirmation
//     (approved, rules written, the call decided again). Without a
//     destination, confirm_destination applies.
//   - POST /v1/permission/hook/claude[?destination=D][&mode=M][&ignore_host_mode=B]:
//     Claude Code's http hooks (hook.go). Body, a PreToolUse or
//     PermissionRequest payload; answer 200 with what `permopa hook claude`
//     prints for it, decided as a check (pools, deadline, decision log). A
//     refusal or fault is a 200 that denies the call, never an error status
//     (Claude Code lets a failed hook's call through without onFailure
//     block). No token is needed, as for a check (docs/opa.md §7).
//   - GET /v1/permission/rules[?session_id=ID][&cwd=DIR]: {"rules": [...]},
//     the rules in force: the organisation's (data.permopa.rules), the
//     settings layers', with cwd the rules of that project (when
//     settings.projects reads it), then the sessions' (all of them, or with
//     session_id only session "" and that session's), each with tool_name, rule_content,
//     behavior, source, layer and expires. Expired rules are left out.
//
// OPA's own data API serves the same decision at
// /v1/data/permopa/policy/decision.
//
// A refused request is answered by one writer (writeError): the
// permission.Error's JSON, {"code": "...", "message": "..."}, with its
// code's HTTP status (permission.Error.HTTPStatus; docs/api.md lists each
// code with its status). The exception is Claude Code's hook route: every
// fault there is a 200 whose body blocks the call (refuseHook), since
// Claude Code lets a call through when its http hook answers non-2xx. A
// host must treat any answer other than a 200 decision as DENY.
//
// Every route of the server, OPA's own included, is guarded (guard.go;
// docs/opa.md §7): a Host that is not the server's address
// (forbidden_host), a cross-site Origin (cross_origin), a permopa POST
// that is not application/json (unsupported_media_type), a wrong
// Bearer token (unauthorized). Over TCP (or a unix socket others can
// connect to) confirm and every route but a check, Claude Code's hook and
// /health (the rules list, OPA's data, query, policy, config and status
// routes, which show the user's rules and settings) need a token
// (unauthorized): the agents' token
// (server-token) or the administrators' (server-admin-token), both written
// in the user directory at the first start; OPA's data and policy writes
// need the administrators' token (admin_required). A confirm that
// names no checked ASK is decision_required or unknown_decision,
// one with another call tool_call_mismatch, one with a rule the check
// did not suggest rule_not_suggested. With system.authz
// (SetOPAAuthorization), it judges every route instead of the tokens.
//
// With --authorization=basic, OPA's authorizer reads and parses the bodies
// of check and confirm before the handler (system.authz sees them as
// input.body), so a malformed body is refused by the authorizer with OPA's
// own 400 invalid_parameter instead of invalid_json. testdata/authz holds an
// example system.authz: agent tokens may check, administrator tokens may
// confirm and list.
//
// # Configuration (plugins.permopa; every key is optional)
//
//	plugins:
//	  permopa:
//	    default_policy: auto          # auto | on | off
//	    path: permopa/policy/decision # the decision's path under data
//	    confirm_destination: session  # session | local | project | user
//	    max_body_bytes: 1048576       # limit on request bodies (1 MiB)
//	    wait_for_bundles: true        # checks are DENY (bundles_not_ready) until every
//	                                  #   configured bundle has been activated once
//	    settings:
//	      managed_dir: /etc/permopa   # defaults: as `permopa decide` (PERMOPA_* variables,
//	      project_dir: /repo          #   /etc/permopa, the working directory,
//	      user_dir: ~/.config/permopa #   ~/.config/permopa)
//	      files: [/etc/agent.yaml]    # command-line layer files, highest first
//	      watch: true                 # reload when a settings file changes
//	      projects:                   # off by default
//	        from_cwd: true            # apply the rules of each check's cwd's .permopa/ files
//	        roots: [/home/alice]      #   when the cwd is inside one of these (required)
//	    decision_logs:
//	      mask:                       # JSON pointers under /input erased from events
//	        - /input/tool_input/content
//	    decision_timeout: 1s          # a check not decided by then is DENY (timeout)
//	    limits:                       # checks evaluated at once (past their deadline too)
//	      max_concurrent: 8           #   default 4 per CPU
//	      large_body_bytes: 16384     #   larger bodies use the large pool
//	      max_large_concurrent: 1     #   default half the CPUs
//	    http:
//	      token_file: ...             # default <user_dir>/server-token
//	      admin_token_file: ...       # default <user_dir>/server-admin-token
//	      allowed_hosts: []           # Host names besides the listener's address
//	      allowed_origins: []         # browser origins accepted
//	    confirm:
//	      window: 15m                 # how long an ASK can be confirmed
//	      max_pending: 10000          # ASKs remembered
//
// `permopa run --server` enables the plugin with these defaults when the
// configuration names neither plugins.permopa nor discovery.
//
// default_policy: auto installs the embedded policy (store ids
// "permopa/embedded/...") when no loaded module is under
// data.permopa.policy; on installs it even next to such modules (files that
// extend it); off never does. Either way a bundle whose manifest roots cover
// permopa/policy replaces it: OPA's activation erases store policies under
// a bundle's roots, and the plugin does not put it back while such a bundle
// is active. Bundles with other roots (permopa/custom/<tool>,
// permopa/rules) extend it. A bundle without roots owns the whole tree and
// erases it and the settings document on each activation: the plugin
// installs (auto, on) and writes them again after each one. Files loaded
// under data.permopa.policy in auto mode replace the embedded policy whole,
// so a file extending it needs default_policy: on, or a package under
// data.permopa.custom.
//
// The settings layers (managed, command line, environment, project, user;
// session rules in memory) are read as by `permopa decide` and written to
// data.permopa.settings. A bundle whose roots cover permopa/settings puts
// the plugin in an ERROR state in which every /v1/permission/check answer
// is DENY (code settings_owned_by_bundle): its data would silently replace
// the deny rules. Problems in settings files never drop rules already
// accepted (the last good settings of a broken file are kept); they are
// logged and set the plugin status to WARN, or ERROR when a deny or ask rule
// could not be read (settings.UnsafeProblems): then every check is DENY with
// code settings_unreadable until the file is fixed.
//
// # Project rules (settings.projects)
//
// With from_cwd, a check whose input project_dir (a string), else cwd, is a
// clean absolute directory inside one of roots (symlinks resolved) also
// gets the rules of that directory's .permopa/settings.local.* and
// .permopa/settings.* files (settings.NewProjectLayers), as a local `permopa
// hook` made in that cwd does. They are written to the settings document
// under projects[<that string>] (settings.Settings.Projects), which the
// policy consults after the settings layers' rules and before the
// session's; the string is used as is, so a cwd with a trailing slash,
// "..", or a relative one gets none. Only rules are taken: a project's
// mode, directories and other knobs are not, and the managed locks of the
// server's layers hold over its rules. The files are read at the first
// check from that cwd and again when a stat of them differs (size, mtime,
// mode) at a later check; at most MaxProjects are kept, the least recently
// used dropped. A file that cannot be read, or a deny or ask rule that
// cannot be read, makes the project's checks DENY with code
// project_settings_unreadable. Confirmations with destination local or
// project for a tool_call made in such a project write its files. A cwd
// outside the roots is decided without project rules. OPA's data API sees
// the rules of projects that a check has read, and reads none itself.
//
// # Decision logs
//
// When decision_logs is configured, each check is logged with a fresh
// decision ID, path (the configured path), the input with the mask pointers
// erased (custom.permopa_erased lists the ones that were present), the
// decision as the result (behavior, step, matched_rule with its layer,
// tool_use_id), the revisions of the bundles in the store snapshot the
// decision was made in, and a timer_permopa_check_ns metric. The default
// mask erases the fields that carry file contents: /input/tool_input/content
// (Write), /input/tool_input/new_string and /input/tool_input/old_string
// (Edit) and /input/tool_input/edits (MultiEdit). OPA's system.log.mask and
// system.log.drop policies apply to these events as well, and they are the
// only masking of decisions made through OPA's own data API, which OPA logs
// itself. For example:
//
//	package system.log
//
//	mask contains "/input/tool_input/content" if input.path == "permopa/policy/decision"
//	mask contains "/input/tool_input/edits" if input.path == "permopa/policy/decision"
//
// # Limits
//
// Routes are added to OPA's server when the plugin starts, before the
// server starts: a plugin configured later through discovery decides for
// OPA's data API but does not add the /v1/permission routes. After a bundle
// activation erases data.permopa.settings, OPA's own data API decides
// without it until the plugin has written it again (the plugin's own check
// never does: it rewrites the settings first).
package opaplugin
