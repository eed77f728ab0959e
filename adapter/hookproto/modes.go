package hookproto

import (
	"fmt"
	"sort"
	"strings"

	"github.com/permopa/permopa/permission"
)

// A hook is a security boundary that sits in front of the host's own
// permission system, and it must never make the host more permissive than
// the host alone would be, unless the user said so in permopa's settings
// (docs/hosts.md, "A hook never loosens its host"). Each host names its
// permission modes with its own semantics, so the hook maps every mode the
// host documents to
//   - the permopa mode that decides the call (sent as permission_mode), and
//   - how permopa's decision may be answered in that mode (HostMode).
//
// The mapping lives here, at the host boundary, and not in the policy: it
// is a translation of each host's protocol, the same for a local decision
// and a server's, and cmd/permopa-hook (which links no OPA) applies it too.

// HostMode is what a host's permission mode means for the hook's answer.
type HostMode struct {
	// Host is the host that sent the mode; Name the mode as it was named
	// ("" when the payload and --mode name none: the settings' default
	// mode applies, with permopa's own semantics).
	Host, Name string
	// Mode is the permopa mode that decides (a key of the policy's mode
	// table: default, accept_edits, explore, bypass, dont_ask), or "" for
	// the settings' default mode.
	Mode string
	// Unattended: nobody can answer a question in this mode, so an ASK is
	// answered as a deny (the host alone would deny what it would ask).
	Unattended bool
	// RuleAllowsOnly: the host alone runs only what its own rules
	// pre-approve. permopa answers ALLOW only for an allow rule of its
	// settings (the user said so); its other ALLOWs (read-only, a tool
	// check) leave the call to the host.
	RuleAllowsOnly bool
	// DeferAsk: the host has its own reviewer for calls nothing decided
	// (Claude Code's auto-mode classifier). permopa's ASK from its mode
	// fallback (no rule, no safety check) leaves the call to that reviewer;
	// ask rules and safety checks still ask.
	DeferAsk bool
	// Unknown: a mode this version of permopa does not know. The call is
	// decided as in default mode and permopa never approves it (its ALLOW
	// leaves the call to the host); DENY and ASK are answered as usual,
	// and the answer says which mode was not known.
	Unknown bool
}

// Kinds of answer a hook gives.
const (
	KindAllow = "allow" // approve: the host skips its own question
	KindDeny  = "deny"  // block the call, with permopa's reason
	KindAsk   = "ask"   // have the host ask its human
	KindDefer = "defer" // no decision: the host decides as if no hook ran
)

// Verdict is the answer a hook gives for a decision in a host mode.
type Verdict struct {
	Kind     string
	Decision permission.Decision
	// Unattended is set when an ASK is answered as a deny because nobody
	// can answer it.
	Unattended bool
	// Note is extra text for the human (an unknown mode), or "".
	Note string
}

// modeEntry is one row of a host's mode table.
type modeEntry struct {
	mode                               string
	unattended, ruleAllowsOnly, defer_ bool
}

// hostModes are the modes each host documents, by lower-cased name, with
// what each means (docs/hosts.md has the same tables with the reasoning).
// permopa's own mode names are accepted too, for --mode and for settings.
var hostModes = map[string]map[string]modeEntry{
	HostClaude: {
		// Manual in the UI; "default" is what hooks see.
		"default": {mode: "default"},
		"manual":  {mode: "default"},
		// Edits inside the working directories run unasked, as permopa's
		// ACCEPT_EDITS allows them.
		"acceptedits": {mode: "accept_edits"},
		// Read-only exploration: permopa's EXPLORE allows only read-only calls.
		"plan": {mode: "explore"},
		// A classifier reviews what nothing else decided: permopa's
		// mode-fallback ASK defers to it; rules and safety checks still
		// decide, read-only calls are allowed as the host allows them.
		"auto": {mode: "default", defer_: true},
		// Only what an allow rule pre-approves runs; anything else is
		// denied (nobody is asked).
		"dontask": {mode: "default", unattended: true, ruleAllowsOnly: true},
		// Everything runs unasked: permopa's DENY and safety ASKs still
		// stop it; its mode-fallback ALLOW is left to the host.
		"bypasspermissions": {mode: "bypass"},
	},
	HostCodex: {
		// Codex reports Claude Code's names for its approval policies.
		// "default": an approval policy that asks (untrusted, on-request).
		"default":     {mode: "default"},
		"acceptedits": {mode: "accept_edits"},
		"plan":        {mode: "explore"},
		// Codex reports bypassPermissions whenever it will not ask
		// (approval_policy = "never", which `codex exec` forces, or
		// --dangerously-bypass-approvals-and-sandbox): nobody is there to
		// answer, so an ASK is a DENY, never an ALLOW.
		"bypasspermissions": {mode: "default", unattended: true},
		"dontask":           {mode: "default", unattended: true, ruleAllowsOnly: true},
	},
	HostGemini: {
		// Gemini CLI's payloads name no mode: these are --mode values
		// (Gemini's approval modes and permopa's names).
		"default":           {mode: "default"},
		"auto_edit":         {mode: "accept_edits"},
		"autoedit":          {mode: "accept_edits"},
		"acceptedits":       {mode: "accept_edits"},
		"accept_edits":      {mode: "accept_edits"},
		"plan":              {mode: "explore"},
		"explore":           {mode: "explore"},
		"yolo":              {mode: "bypass"},
		"bypass":            {mode: "bypass"},
		"bypasspermissions": {mode: "bypass"},
		// Headless runs (gemini -p) where nobody answers a confirmation.
		"dontask":  {mode: "dont_ask", unattended: true},
		"dont_ask": {mode: "dont_ask", unattended: true},
	},
}

// permopaModes are permopa's own mode names, accepted for every host as
// --mode values (the user's own choice, with permopa's semantics).
var permopaModes = map[string]modeEntry{
	"explore":            {mode: "explore"},
	"accept_edits":       {mode: "accept_edits"},
	"bypass":             {mode: "bypass"},
	"bypass_permissions": {mode: "bypass"},
	"dont_ask":           {mode: "dont_ask", unattended: true},
}

// KnownModes lists the mode names a host's table has, sorted.
func KnownModes(host string) []string {
	var out []string
	for k := range hostModes[canonicalHost(host)] {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func canonicalHost(host string) string {
	switch strings.ToLower(host) {
	case HostClaude, "claude-code", "claudecode":
		return HostClaude
	case HostGemini, "gemini-cli":
		return HostGemini
	}
	return strings.ToLower(host)
}

// ResolveMode is the HostMode of a call: the payload's permission_mode
// (unless ignoreHost), else flagMode (--mode), else none (the settings'
// default mode, with permopa's semantics).
func ResolveMode(host, payloadMode, flagMode string, ignoreHost bool) HostMode {
	host = canonicalHost(host)
	name := payloadMode
	if ignoreHost {
		name = ""
	}
	if name == "" {
		name = flagMode
	}
	hm := HostMode{Host: host, Name: name}
	if name == "" {
		return hm
	}
	key := strings.ToLower(name)
	e, ok := hostModes[host][key]
	if !ok {
		e, ok = permopaModes[key]
	}
	if !ok {
		hm.Mode = "default"
		hm.Unknown = true
		return hm
	}
	hm.Mode = e.mode
	hm.Unattended = e.unattended
	hm.RuleAllowsOnly = e.ruleAllowsOnly
	hm.DeferAsk = e.defer_
	return hm
}

// applyMode puts the permopa mode of hm into every input of req.
func applyMode(req Request, hm HostMode) {
	for _, in := range req.Inputs {
		if hm.Mode == "" {
			delete(in, "permission_mode")
		} else {
			in["permission_mode"] = hm.Mode
		}
	}
}

// Shape is the answer for decision d of a call made in host mode hm, for
// the hook event: it never approves what the host alone would not run.
//   - DENY is a deny, in every mode.
//   - ASK: a deny where nobody can answer (Unattended); left to the host's
//     reviewer in DeferAsk modes when it is the mode's fallback; else ask.
//   - ALLOW: an approval only when the user's permopa settings or
//     permopa's read-only verdict gave it in a mode whose host runs such
//     calls unasked (RuleAllowsOnly keeps only allow rules). A mode
//     fallback's ALLOW (BYPASS) and every ALLOW in an unknown mode leave
//     the call to the host.
//   - PermissionRequest (the host is about to ask its human): never an
//     approval; the host asks as it would without the hook.
func Shape(hm HostMode, event string, d permission.Decision) Verdict {
	v := Verdict{Decision: d}
	if hm.Unknown {
		v.Note = fmt.Sprintf("permopa does not know %s's permission mode %q (known: %s), so it decided the call as in default mode and approves nothing: upgrade permopa, or set the mode with --ignore-host-mode and defaultMode in permopa's settings", hostName(hm.Host), hm.Name, strings.Join(KnownModes(hm.Host), ", "))
	}
	switch d.Behavior {
	case permission.Allow:
		switch {
		case hm.Unknown:
			v.Kind = KindDefer
		case d.Step == permission.StepAllowRule:
			v.Kind = KindAllow
		case hm.RuleAllowsOnly:
			v.Kind = KindDefer
		case d.Step == permission.StepModeFallback:
			v.Kind = KindDefer
		default:
			v.Kind = KindAllow
		}
	case permission.Ask:
		switch {
		case hm.Unattended:
			v.Kind, v.Unattended = KindDeny, true
		case hm.DeferAsk && d.Step == permission.StepModeFallback && !d.BypassImmune:
			v.Kind = KindDefer
		default:
			v.Kind = KindAsk
		}
	default:
		v.Kind = KindDeny
	}
	if event == EventPermissionRequest && (v.Kind == KindAllow || v.Kind == KindAsk) {
		v.Kind = KindDefer
	}
	return v
}

func hostName(host string) string {
	switch host {
	case HostClaude:
		return "Claude Code"
	case HostCodex:
		return "Codex"
	case HostGemini:
		return "Gemini CLI"
	}
	return host
}
