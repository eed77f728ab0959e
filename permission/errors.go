package permission

// Error is a request permopa refused or could not carry out, with a stable
// Code (one of the Code* constants) and a Message for people that names
// the field, rule or file. Its JSON, {"code", "message"}, is the body of
// the server's HTTP errors (docs/api.md). A fault in deciding a call is not
// an Error: it is a DENY Decision with step "error" and the same kind of
// code (FailClosed).
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	// Err is the underlying error, if any (errors.Is and errors.As see it).
	Err error `json:"-"`
}

// NewError is an Error with code whose message is err's.
func NewError(code string, err error) *Error {
	return &Error{Code: code, Message: err.Error(), Err: err}
}

func (e *Error) Error() string { return e.Message }

// HTTPStatus is the status of a server's answer refusing with e: its
// code's (httpStatus), 500 for a code that has none.
func (e *Error) HTTPStatus() int {
	if s, ok := httpStatus[e.Code]; ok {
		return s
	}
	return 500
}

func (e *Error) Unwrap() error { return e.Err }

// The error codes, stable strings; docs/api.md lists each with when it
// happens, and a test holds that list and these constants together.
//
// Codes of decisions: a fault in deciding a call is a DENY with step
// "error", this code as its code and reason, never an ALLOW.
const (
	CodeInputError         = "input_error"         // the input failed validation (the message names the field)
	CodeInvalidJSON        = "invalid_json"        // the input is not one JSON document (also a server's HTTP 400)
	CodeSettingsUnreadable = "settings_unreadable" // a settings file's deny or ask rules could not be read
	CodeLimitExceeded      = "limit_exceeded"      // a Bash command is beyond the analyser's limits
	CodeRulesUnreadable    = "rules_unreadable"    // a rules document is malformed
	CodeTimeout            = "timeout"             // no decision within the deadline, or no free evaluation slot
	CodeEvalError          = "eval_error"          // policy evaluation failed
	CodeUndefinedDecision  = "undefined_decision"  // the policy produced no decision
	CodeBadDecision        = "bad_decision"        // the policy produced something that is not a decision

	// Decisions of a server (adapter/opaplugin) whose state forbids deciding.
	CodeProjectSettingsUnreadable = "project_settings_unreadable" // a file of the call's project (settings.projects) cannot be read
	CodeSettingsOwnedByBundle     = "settings_owned_by_bundle"    // a bundle's roots cover permopa/settings
	CodePolicyUnavailable         = "policy_unavailable"          // the engine could not be built or prepared (also HTTP 500)
	CodeEmbeddedPolicyError       = "embedded_policy_error"       // the embedded policy could not be installed
	CodeBundlesNotReady           = "bundles_not_ready"           // a configured bundle has not been activated yet (wait_for_bundles)
)

// Codes of an Error: a confirmation that did nothing (adapter.Confirm, the
// server's confirm route) or a request the server refused (its
// HTTPStatus).
const (
	CodeInvalidToolCall    = "invalid_tool_call"   // the confirm's tool_call is not a call
	CodeInvalidDestination = "invalid_destination" // no such destination
	CodeInvalidTTL         = "invalid_ttl"         // the ttl does not parse
	CodeInvalidRule        = "invalid_rule"        // a rule does not parse
	CodeRulesNotSaved      = "rules_not_saved"     // the destination could not be written (or a managed lock forbids the rule); nothing was approved

	CodeBodyTooLarge     = "body_too_large"     // the body is over max_body_bytes
	CodeInvalidRequest   = "invalid_request"    // a confirm field has the wrong type
	CodeUnavailable      = "unavailable"        // the plugin is in an error state (see the message); nothing was written
	CodePluginNotRunning = "plugin_not_running" // the route exists but the plugin was removed by a reconfiguration
	CodeDecisionRequired = "decision_required"  // a confirm names no decision_id (and is not an admin confirm)
	CodeUnknownDecision  = "unknown_decision"   // no pending ASK has that decision_id
	CodeToolCallMismatch = "tool_call_mismatch" // the confirm's tool_call is not the call that was checked
	CodeRuleNotSuggested = "rule_not_suggested" // a rule the check did not suggest

	CodeForbiddenHost        = "forbidden_host"         // the Host header is not the server's address (DNS rebinding)
	CodeCrossOrigin          = "cross_origin"           // a browser request from another origin
	CodeUnsupportedMediaType = "unsupported_media_type" // a permopa POST whose Content-Type is not application/json
	CodeUnauthorized         = "unauthorized"           // a wrong token, or none where the route needs one
	CodeAdminRequired        = "admin_required"         // the route or request needs the administrators' token
	CodeInternalError        = "internal_error"         // the answer could not be encoded
)

// httpStatus is the HTTP status of each code a server answers as an HTTP
// error (docs/api.md's "HTTP" column; TestHTTPStatuses holds the two
// together), one per code. The decision codes have none: a server answers
// a fault in deciding with a 200 DENY, except policy_unavailable (no
// engine to decide with). Plain numbers: the package imports no net/http
// (doc.go).
var httpStatus = map[string]int{
	CodePolicyUnavailable: 500,

	CodeInvalidToolCall:    400,
	CodeInvalidDestination: 400,
	CodeInvalidTTL:         400,
	CodeInvalidRule:        400,
	CodeRulesNotSaved:      500,

	CodeInvalidJSON:      400,
	CodeBodyTooLarge:     413,
	CodeInvalidRequest:   400,
	CodeUnavailable:      503,
	CodePluginNotRunning: 503,
	CodeDecisionRequired: 400,
	CodeUnknownDecision:  409,
	CodeToolCallMismatch: 409,
	CodeRuleNotSuggested: 403,

	CodeForbiddenHost:        403,
	CodeCrossOrigin:          403,
	CodeUnsupportedMediaType: 415,
	CodeUnauthorized:         401,
	CodeAdminRequired:        403,
	CodeInternalError:        500,
}
