package opaplugin

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/permopa/permopa/internal/decisionlog"
	"github.com/permopa/permopa/settings"
)

// Values of default_policy.
const (
	// PolicyAuto installs the embedded policy when no policy module under
	// data.permopa.policy is loaded (the default).
	PolicyAuto = "auto"
	// PolicyOn installs it next to policy files under data.permopa.policy,
	// unless a bundle's roots claim permopa/policy.
	PolicyOn = "on"
	// PolicyOff never installs it: the policy comes from bundles or files.
	PolicyOff = "off"
)

// DefaultMaxBodyBytes is the default limit on request bodies (1 MiB).
const DefaultMaxBodyBytes = 1 << 20

// Defaults of the bounds on work (limits, decision_timeout) and of confirm.
const (
	// DefaultDecisionTimeout bounds one check: past it the answer is a
	// DENY with code timeout. Ordinary checks take well under a
	// millisecond; a hook client gives up after 2 s.
	DefaultDecisionTimeout = time.Second
	// DefaultLargeBodyBytes: a check whose body is larger waits for one of
	// the few large-body slots, so that large inputs cannot take the CPUs
	// from ordinary ones.
	DefaultLargeBodyBytes = 16 << 10
	// DefaultConfirmWindow is how long a check's ASK can be confirmed.
	DefaultConfirmWindow = 15 * time.Minute
	// DefaultMaxPending caps the ASKs remembered for confirmation.
	DefaultMaxPending = 10000
)

// DefaultPath is the default decision path, data.permopa.policy.decision.
const DefaultPath = "permopa/policy/decision"

// DefaultMask are the JSON pointers erased from the input of decision log
// events by default: the fields that carry file contents and edits (Write's
// content, Edit's old_string and new_string, MultiEdit's edits). Commands
// and paths stay: they are what an audit needs.
// It is decisionlog's, so that a log `permopa hook --log` writes keeps what
// a server's log keeps.
var DefaultMask = decisionlog.DefaultMask

// Config is the plugin's configuration, under plugins.permopa in OPA's
// configuration file. Every field is optional.
type Config struct {
	// DefaultPolicy is auto (default), on or off.
	DefaultPolicy string `json:"default_policy"`
	// Settings say where the settings layers are.
	Settings SettingsConfig `json:"settings"`
	// ConfirmDestination is where confirmed rules go when the request names
	// no destination: session (default), local, project or user.
	ConfirmDestination string `json:"confirm_destination"`
	// MaxBodyBytes limits request bodies (default 1 MiB).
	MaxBodyBytes int64 `json:"max_body_bytes"`
	// DecisionLogs configures the plugin's decision log events.
	DecisionLogs DecisionLogsConfig `json:"decision_logs"`
	// Path is the decision's path under data, slash-separated
	// (default permopa/policy/decision).
	Path string `json:"path"`
	// WaitForBundles (default true) makes every check a fail-closed DENY
	// (code bundles_not_ready) until each bundle of the configuration has
	// been activated once: an organisation's deny rules arriving in a
	// bundle are then never missing from a decision.
	WaitForBundles *bool `json:"wait_for_bundles"`
	// DecisionTimeout bounds each check (a Go duration, default 1s).
	DecisionTimeout string `json:"decision_timeout"`
	// Limits bound the work checks may take at once.
	Limits LimitsConfig `json:"limits"`
	// HTTP guards the server's routes: tokens, hosts, origins.
	HTTP HTTPConfig `json:"http"`
	// Confirm says how long checks' ASKs can be confirmed.
	Confirm ConfirmConfig `json:"confirm"`
	// DecisionCache answers repeated checks from a cache (off by default;
	// docs/architecture.md, "Repeated calls").
	DecisionCache DecisionCacheConfig `json:"decision_cache"`

	query           string
	decisionTimeout time.Duration
	maskSegs        [][]string // mask() parsed once by ParseConfig
	confirmWindow   time.Duration
}

// DecisionCacheConfig sizes the decision cache: entries > 0 turns it on,
// holding that many decisions and at most max_bytes bytes (default
// engine.DefaultCacheBytes). Every check is still logged, with the
// metric counter_permopa_cache_hit on those the cache answered.
type DecisionCacheConfig struct {
	Entries  int   `json:"entries"`
	MaxBytes int64 `json:"max_bytes"`
}

// LimitsConfig bounds the checks evaluated at once. A check evaluation
// that passed its deadline keeps its slot until it really ends, so these
// also bound the CPU and memory that slow inputs can hold.
type LimitsConfig struct {
	// MaxConcurrent caps the checks evaluated at once (default 4 per CPU).
	MaxConcurrent int `json:"max_concurrent"`
	// LargeBodyBytes: checks with a larger body (default 16 KiB) are
	// evaluated in their own, smaller pool.
	LargeBodyBytes int64 `json:"large_body_bytes"`
	// MaxLargeConcurrent caps the large checks evaluated at once (default:
	// half the CPUs, at least 1).
	MaxLargeConcurrent int `json:"max_large_concurrent"`
}

// HTTPConfig guards the routes (docs/opa.md, "Authentication").
type HTTPConfig struct {
	// TokenFile holds the agents' token (default <user_dir>/server-token,
	// created at the first start).
	TokenFile string `json:"token_file"`
	// AdminTokenFile holds the administrators' token (default
	// <user_dir>/server-admin-token, created at the first start).
	AdminTokenFile string `json:"admin_token_file"`
	// AllowedHosts are Host header values accepted besides the listener's
	// own address ("permopa.internal" for any port, or with a port).
	AllowedHosts []string `json:"allowed_hosts"`
	// AllowedOrigins are browser origins (scheme://host[:port]) whose
	// requests are accepted; every other request with an Origin is refused.
	AllowedOrigins []string `json:"allowed_origins"`
}

// ConfirmConfig bounds what the server remembers of checks' ASKs.
type ConfirmConfig struct {
	// Window is how long an ASK can be confirmed (a Go duration, default 15m).
	Window string `json:"window"`
	// MaxPending caps the ASKs remembered (default 10000; the oldest go first).
	MaxPending int `json:"max_pending"`
}

// SettingsConfig are the settings layers' locations (settings.LayerOptions).
// Empty fields take the layers' defaults (PERMOPA_* variables, /etc/permopa,
// the working directory, ~/.config/permopa).
type SettingsConfig struct {
	ManagedDir string   `json:"managed_dir"`
	ProjectDir string   `json:"project_dir"`
	UserDir    string   `json:"user_dir"`
	Files      []string `json:"files"`
	// Watch reloads the layers when one of their files changes.
	Watch bool `json:"watch"`
	// Projects apply a project directory's own rules to the checks made
	// in it (off by default).
	Projects ProjectsConfig `json:"projects"`
}

// ProjectsConfig is settings.projects: with FromCwd, a check whose input
// cwd is a clean absolute directory inside one of Roots (after resolving
// symlinks) also gets the rules of that directory's
// .permopa/settings.local and .permopa/settings files, as a local
// `permopa hook` run in that cwd would. Off by default: a central server
// must not read directories its clients name.
type ProjectsConfig struct {
	FromCwd bool     `json:"from_cwd"`
	Roots   []string `json:"roots"`
}

// DecisionLogsConfig configures the events of /v1/permission/check.
type DecisionLogsConfig struct {
	// Mask are JSON pointers under /input erased from each event's input
	// (default DefaultMask; an empty list erases nothing).
	Mask *[]string `json:"mask"`
}

// waitForBundles says whether checks wait for the configured bundles.
func (c *Config) waitForBundles() bool { return c.WaitForBundles == nil || *c.WaitForBundles }

// Query is the decision query of the configured path.
func (c *Config) Query() string { return c.query }

// Timeout is the deadline of one check.
func (c *Config) Timeout() time.Duration { return c.decisionTimeout }

// maxConcurrent is limits.max_concurrent with its default.
func (c *Config) maxConcurrent() int {
	if c.Limits.MaxConcurrent > 0 {
		return c.Limits.MaxConcurrent
	}
	return 4 * runtime.GOMAXPROCS(0)
}

// maxLargeConcurrent is limits.max_large_concurrent with its default.
func (c *Config) maxLargeConcurrent() int {
	if c.Limits.MaxLargeConcurrent > 0 {
		return c.Limits.MaxLargeConcurrent
	}
	return max(1, runtime.GOMAXPROCS(0)/2)
}

// mask is the list of pointers to erase, as path segments under input.
func (c *Config) mask() [][]string {
	if c.maskSegs != nil {
		return c.maskSegs
	}
	ptrs := DefaultMask
	if c.DecisionLogs.Mask != nil {
		ptrs = *c.DecisionLogs.Mask
	}
	out := make([][]string, 0, len(ptrs))
	for _, p := range ptrs {
		segs, _ := decisionlog.ParsePointer(p)
		out = append(out, segs)
	}
	return out
}

// ParseConfig reads and checks the plugin configuration (JSON, as OPA hands
// it to Validate) and fills in the defaults. Errors name the field.
func ParseConfig(raw []byte) (*Config, error) {
	c := &Config{}
	if len(bytes.TrimSpace(raw)) > 0 && !bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(c); err != nil {
			return nil, configError(err)
		}
		if _, err := dec.Token(); !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("plugins.%s: trailing data after the configuration object", Name)
		}
	}
	switch c.DefaultPolicy {
	case "":
		c.DefaultPolicy = PolicyAuto
	case PolicyAuto, PolicyOn, PolicyOff:
	default:
		return nil, fmt.Errorf("plugins.%s.default_policy: %q: want auto, on or off", Name, c.DefaultPolicy)
	}
	switch c.ConfirmDestination {
	case "":
		c.ConfirmDestination = settings.DestinationSession
	case settings.DestinationSession, settings.DestinationLocal, settings.DestinationProject, settings.DestinationUser:
	default:
		return nil, fmt.Errorf("plugins.%s.confirm_destination: %q: want session, local, project or user", Name, c.ConfirmDestination)
	}
	switch {
	case c.MaxBodyBytes == 0:
		c.MaxBodyBytes = DefaultMaxBodyBytes
	case c.MaxBodyBytes < 0:
		return nil, fmt.Errorf("plugins.%s.max_body_bytes: %d: want a positive number of bytes", Name, c.MaxBodyBytes)
	}
	if c.DecisionLogs.Mask != nil {
		for i, p := range *c.DecisionLogs.Mask {
			if _, err := decisionlog.ParsePointer(p); err != nil {
				return nil, fmt.Errorf("plugins.%s.decision_logs.mask[%d]: %w", Name, i, err)
			}
		}
	}
	c.maskSegs = c.mask()
	if c.Path == "" {
		c.Path = DefaultPath
	}
	q, err := pathQuery(c.Path)
	if err != nil {
		return nil, fmt.Errorf("plugins.%s.path: %w", Name, err)
	}
	c.query = q
	if c.decisionTimeout, err = duration(c.DecisionTimeout, DefaultDecisionTimeout); err != nil {
		return nil, fmt.Errorf("plugins.%s.decision_timeout: %w", Name, err)
	}
	if c.confirmWindow, err = duration(c.Confirm.Window, DefaultConfirmWindow); err != nil {
		return nil, fmt.Errorf("plugins.%s.confirm.window: %w", Name, err)
	}
	for field, n := range map[string]int64{
		"limits.max_concurrent": int64(c.Limits.MaxConcurrent), "limits.max_large_concurrent": int64(c.Limits.MaxLargeConcurrent),
		"limits.large_body_bytes": c.Limits.LargeBodyBytes, "confirm.max_pending": int64(c.Confirm.MaxPending),
		"decision_cache.entries": int64(c.DecisionCache.Entries), "decision_cache.max_bytes": c.DecisionCache.MaxBytes,
	} {
		if n < 0 {
			return nil, fmt.Errorf("plugins.%s.%s: %d: want a positive number (or leave it out for the default)", Name, field, n)
		}
	}
	if c.Limits.LargeBodyBytes == 0 {
		c.Limits.LargeBodyBytes = DefaultLargeBodyBytes
	}
	if c.Confirm.MaxPending == 0 {
		c.Confirm.MaxPending = DefaultMaxPending
	}
	for i, h := range c.HTTP.AllowedHosts {
		if strings.TrimSpace(h) == "" || strings.ContainsAny(h, "/ ") {
			return nil, fmt.Errorf("plugins.%s.http.allowed_hosts[%d]: %q: want a host name or host:port", Name, i, h)
		}
	}
	for i, o := range c.HTTP.AllowedOrigins {
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") {
			return nil, fmt.Errorf("plugins.%s.http.allowed_origins[%d]: %q: want scheme://host[:port]", Name, i, o)
		}
	}
	for i, f := range c.Settings.Files {
		if strings.TrimSpace(f) == "" {
			return nil, fmt.Errorf("plugins.%s.settings.files[%d]: empty file name", Name, i)
		}
	}
	pc := &c.Settings.Projects
	if pc.FromCwd && len(pc.Roots) == 0 {
		return nil, fmt.Errorf("plugins.%s.settings.projects.roots: empty, but from_cwd is true: name the directories whose projects' rules the server may read (e.g. roots: [/home/alice])", Name)
	}
	for i, r := range pc.Roots {
		if !filepath.IsAbs(r) {
			return nil, fmt.Errorf("plugins.%s.settings.projects.roots[%d]: %q: want an absolute directory", Name, i, r)
		}
		pc.Roots[i] = filepath.Clean(r)
	}
	return c, nil
}

func configError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			return fmt.Errorf("plugins.%s: want an object, got a JSON %s", Name, te.Value)
		}
		return fmt.Errorf("plugins.%s.%s: want a %s, got a JSON %s", Name, field, typeName(te.Type.Kind().String()), te.Value)
	}
	if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return fmt.Errorf("plugins.%s: unknown field %s (want default_policy, settings, confirm_destination, max_body_bytes, decision_logs, path, wait_for_bundles, decision_timeout, limits, http, confirm or decision_cache; settings takes managed_dir, project_dir, user_dir, files, watch and projects (from_cwd, roots); decision_logs takes mask; limits takes max_concurrent, large_body_bytes and max_large_concurrent; http takes token_file, admin_token_file, allowed_hosts and allowed_origins; confirm takes window and max_pending; decision_cache takes entries and max_bytes)", Name, f)
	}
	return fmt.Errorf("plugins.%s: %w", Name, err)
}

func typeName(kind string) string {
	switch kind {
	case "int64", "int":
		return "number"
	case "ptr", "slice":
		return "list"
	case "struct":
		return "object"
	case "bool":
		return "boolean"
	}
	return kind
}

// duration reads a positive Go duration ("" is def).
func duration(s string, def time.Duration) (time.Duration, error) {
	if strings.TrimSpace(s) == "" {
		return def, nil
	}
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%q: want a positive duration such as 500ms, 2s or 15m", s)
	}
	return d, nil
}

// pathQuery turns a slash-separated path under data into a query.
func pathQuery(p string) (string, error) {
	p = strings.Trim(p, "/")
	if p == "" {
		return "", errors.New("empty path: want a path under data such as permopa/policy/decision")
	}
	ref := ast.Ref{ast.DefaultRootDocument}
	for _, seg := range strings.Split(p, "/") {
		if seg == "" {
			return "", fmt.Errorf("%q: empty segment", p)
		}
		ref = append(ref, ast.StringTerm(seg))
	}
	return ref.String(), nil
}
