package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/types"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// secret is text that must never leave a file that is not settings: no
// problem, message or decision may quote it.
const secret = "s3cr3t-KEY-0xDEADBEEF"

// Every way a settings file can hide its deny or ask rules makes every
// decision DENY (code settings_unreadable), through attached layers (the
// server, a Go embedder) and through LoadLayers and engine.New (`permopa
// decide`); the messages name the file, never what is in it.
func TestUnreadableSettingsFailClosed(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		// setup makes the project's settings file; it returns the text the
		// problem must mention.
		setup func(t *testing.T, tr *tree, file string) string
	}{
		{"invalid deny rule", func(t *testing.T, tr *tree, file string) string {
			tr.write(t, file, "permissions:\n  deny: [\"Bash(rm:*\"]\n  allow: [\"Read\"]\n")
			return "Bash(rm:*"
		}},
		{"invalid ask rule", func(t *testing.T, tr *tree, file string) string {
			tr.write(t, file, "permissions:\n  ask: [{tool_name: Bash, rule_content: \"git push:*\", expires: soon}]\n")
			return "soon"
		}},
		{"invalid rule in an AgentScope deny list", func(t *testing.T, tr *tree, file string) string {
			tr.write(t, file, "deny_rules:\n  Bash: [{rule_content: 7}]\n")
			return "deny_rules.Bash"
		}},
		{"not YAML", func(t *testing.T, tr *tree, file string) string {
			tr.write(t, file, "permissions: {deny: [\""+secret+"\"\n")
			return "not valid yaml"
		}},
		{"a scalar document (a key file renamed)", func(t *testing.T, tr *tree, file string) string {
			tr.write(t, file, "-----BEGIN OPENSSH PRIVATE KEY-----\n"+secret+"\n-----END OPENSSH PRIVATE KEY-----\n")
			return "not valid yaml"
		}},
		{"symlink to a file without extension", func(t *testing.T, tr *tree, file string) string {
			target := tr.write(t, filepath.Join(tr.root, "etc", "shadow"), "root:"+secret+":19000:0:99999:7:::\n")
			symlink(t, target, file)
			return "symbolic link"
		}},
		{"symlink to a private key", func(t *testing.T, tr *tree, file string) string {
			target := tr.write(t, filepath.Join(tr.home, ".ssh", "id_rsa"), secret)
			symlink(t, target, file)
			return "symbolic link"
		}},
		{"symlink to a YAML file in a credential directory", func(t *testing.T, tr *tree, file string) string {
			target := tr.write(t, filepath.Join(tr.home, ".aws", "creds.yaml"), "permissions: {}\nkey: "+secret+"\n")
			symlink(t, target, file)
			return "credential"
		}},
		{"symlinked .permopa directory leading to a non-settings file", func(t *testing.T, tr *tree, file string) string {
			dir := filepath.Join(tr.root, "elsewhere")
			tr.write(t, filepath.Join(dir, "settings.yaml.real"), secret)
			symlink(t, filepath.Join(dir, "settings.yaml.real"), filepath.Join(dir, "settings.yaml"))
			if err := os.RemoveAll(filepath.Dir(file)); err != nil {
				t.Fatal(err)
			}
			symlink(t, dir, filepath.Dir(file))
			return "symbolic link"
		}},
		{"named pipe", func(t *testing.T, tr *tree, file string) string {
			if err := syscall.Mkfifo(file, 0o644); err != nil {
				t.Skip("no named pipes:", err)
			}
			return "named pipe"
		}},
		{"symlink to a named pipe with the right extension", func(t *testing.T, tr *tree, file string) string {
			fifo := filepath.Join(tr.root, "pipe.yaml")
			if err := syscall.Mkfifo(fifo, 0o644); err != nil {
				t.Skip("no named pipes:", err)
			}
			symlink(t, fifo, file)
			return "named pipe"
		}},
		{"directory", func(t *testing.T, tr *tree, file string) string {
			if err := os.Mkdir(file, 0o755); err != nil {
				t.Fatal(err)
			}
			return "directory"
		}},
		{"too large", func(t *testing.T, tr *tree, file string) string {
			tr.write(t, file, "permissions:\n  deny: [\"Bash(rm:*)\"]\n# "+strings.Repeat("x", settings.MaxSettingsBytes)+"\n")
			return "bytes"
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := newTree(t)
			file := filepath.Join(tr.proj, ".permopa", "settings.yaml")
			if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
				t.Fatal(err)
			}
			mention := c.setup(t, tr, file)
			calls := []map[string]any{
				bashCall(tr.proj, "ls"),
				{"tool_name": "Read", "tool_input": map[string]any{"file_path": filepath.Join(tr.proj, "README")}, "cwd": tr.proj},
				{"tool_name": "mcp__x__y", "tool_input": map[string]any{}, "cwd": tr.proj, "permission_mode": "bypassPermissions"},
			}
			check := func(how string, eng *engine.Engine, problems []error) {
				t.Helper()
				all := fmt.Sprint(problems)
				if !strings.Contains(strings.ToLower(all), strings.ToLower(mention)) || !strings.Contains(all, file) {
					t.Errorf("%s: problems %v, want them to name %s and %q", how, problems, file, mention)
				}
				if len(settings.UnsafeProblems(problems)) == 0 {
					t.Errorf("%s: %v are not unsafe problems", how, problems)
				}
				for _, in := range calls {
					d := decide(eng, in)
					if d.Behavior != permission.Deny || d.Step != permission.StepError || d.Code != permission.CodeSettingsUnreadable {
						t.Errorf("%s: %v: %+v, want DENY %s", how, in["tool_name"], d, permission.CodeSettingsUnreadable)
					}
					if strings.Contains(d.Message, secret) || strings.Contains(d.Reason, secret) {
						t.Errorf("%s: the decision quotes the file: %s", how, d.Message)
					}
				}
				if strings.Contains(all, secret) {
					t.Errorf("%s: a problem quotes the file: %s", how, all)
				}
			}
			eng, _, problems := tr.attach(t)
			check("attached layers", eng, problems)

			s, problems := settings.LoadLayers(tr.opts())
			eng, err := newEngine(context.Background(), engine.WithSettings(s))
			if err != nil {
				t.Fatal(err)
			}
			check("LoadLayers", eng, problems)
		})
	}
}

// A file that was read once and is then swapped for a link to a
// non-settings file keeps its last good settings (and says so), never
// reads the target, and decisions go on with its rules.
func TestSymlinkSwapKeepsLastGood(t *testing.T) {
	t.Parallel()
	tr := newTree(t)
	file := tr.write(t, ".permopa/settings.yaml", "permissions:\n  deny: [\"Bash(git push:*)\"]\n  allow: [\"Bash(npm test)\"]\n")
	tr.write(t, "package.json", `{"scripts": {"test": "echo ok"}}`)
	eng, l, problems := tr.attach(t)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	target := tr.write(t, filepath.Join(tr.home, ".ssh", "id_ed25519"), secret)
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	symlink(t, target, file)
	problems = l.Reload(context.Background())
	if len(problems) != 1 || !strings.Contains(problems[0].Error(), "last good") || strings.Contains(problems[0].Error(), secret) {
		t.Fatalf("problems: %v", problems)
	}
	if d := decide(eng, bashCall(tr.proj, "git push")); d.Behavior != permission.Deny || d.Step != permission.StepDenyRule {
		t.Errorf("git push: %+v", d)
	}
	if d := decide(eng, bashCall(tr.proj, "npm test")); d.Behavior != permission.Allow {
		t.Errorf("npm test: %+v", d)
	}
}

// A settings file kept elsewhere and linked in (a dotfiles repository) is
// read like any other.
func TestSymlinkToSettingsFileIsRead(t *testing.T) {
	t.Parallel()
	tr := newTree(t)
	target := tr.write(t, filepath.Join(tr.home, "dotfiles", "permopa", "settings.yaml"), "permissions:\n  deny: [\"Bash(git push:*)\"]\n")
	symlink(t, target, filepath.Join(tr.user, "settings.yaml"))
	eng, _, problems := tr.attach(t)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	if d := decide(eng, bashCall(tr.proj, "git push")); d.Behavior != permission.Deny || d.Step != permission.StepDenyRule {
		t.Errorf("git push: %+v", d)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// The test built-in is registered when the package's tests start, before any
// runs: registering changes OPA's global built-in tables, which decisions of
// tests running in parallel (and evaluations a deadline abandoned) read.
func init() { registerStall() }

var registerStall = func() func() {
	done := false
	return func() {
		if done {
			return
		}
		done = true
		// A built-in that ignores its context, as a parser busy with a
		// huge input does.
		rego.RegisterBuiltin1(&rego.Function{
			Name: "permopa_test.stall",
			Decl: types.NewFunction(types.Args(types.N), types.B),
		}, func(_ rego.BuiltinContext, a *ast.Term) (*ast.Term, error) {
			ms, _ := a.Value.(ast.Number).Int()
			time.Sleep(time.Duration(ms) * time.Millisecond)
			return ast.BooleanTerm(true), nil
		})
		// A built-in that waits for an event, not a time: "deadline" returns
		// once the evaluation's context has ended (an answer that comes
		// late), any other name when the test releases it (holds), as a
		// built-in that ignores its context does.
		rego.RegisterBuiltin1(&rego.Function{
			Name: "permopa_test.hold",
			Decl: types.NewFunction(types.Args(types.S), types.B),
		}, func(bctx rego.BuiltinContext, a *ast.Term) (*ast.Term, error) {
			name := string(a.Value.(ast.String))
			if name == "deadline" {
				<-bctx.Context.Done()
				return ast.BooleanTerm(true), nil
			}
			ch, _ := holds.LoadOrStore(name, make(chan struct{}))
			select {
			case <-ch.(chan struct{}):
			case <-time.After(time.Minute):
			}
			return ast.BooleanTerm(true), nil
		})
	}
}()

// holds are permopa_test.hold's events, by name: closing one ends the
// evaluations that wait on it.
var holds sync.Map

func release(name string) {
	ch, _ := holds.LoadOrStore(name, make(chan struct{}))
	close(ch.(chan struct{}))
}

const holdPolicy = `package permopa.policy

decision := {"behavior": "ALLOW", "message": "late", "reason": "late", "step": "read_only", "suggested_rules": []} if permopa_test.hold(input.hold)
`

const stallPolicy = `package permopa.policy

decision := {"behavior": "ALLOW", "message": "late", "reason": "late", "step": "read_only", "suggested_rules": []} if permopa_test.stall(input.stall_ms)
`

// The engine's deadline answers DENY with code timeout even while a
// built-in is still busy, and so does a caller's context that ends first;
// shared.DecideIn (which must wait for the transaction's reader) never returns a
// late answer as a decision. The busy built-in waits for an event (the test's
// release, or the deadline itself), never a time, and the four calls past a
// deadline run at once.
func TestDecideDeadline(t *testing.T) {
	t.Parallel()
	registerStall()
	dir := t.TempDir()
	policy := filepath.Join(dir, "hold.rego")
	if err := os.WriteFile(policy, []byte(holdPolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	eng, err := engine.New(ctx, engine.WithoutDefaultPolicy(), engine.WithPolicyPaths(policy), engine.WithTimeout(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	unbounded, err := engine.New(ctx, engine.WithoutDefaultPolicy(), engine.WithPolicyPaths(policy), engine.WithTimeout(0))
	if err != nil {
		t.Fatal(err)
	}
	quick := t.Name() + "/quick"
	release(quick)
	if d := eng.Decide(ctx, map[string]any{"hold": quick}); d.Behavior != permission.Allow {
		t.Fatalf("a quick decision: %+v", d)
	}
	held := t.Name() + "/held"
	defer release(held)
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	late := map[string]func() permission.Decision{
		"past the engine's deadline": func() permission.Decision { return eng.Decide(ctx, map[string]any{"hold": held}) },
		"DecideJSON past the deadline": func() permission.Decision {
			return eng.DecideJSON(ctx, []byte(`{"hold": "`+held+`"}`))
		},
		"a cancelled caller": func() permission.Decision {
			go cancel()
			return unbounded.Decide(cctx, map[string]any{"hold": held})
		},
		"DecideIn past the deadline": func() (d permission.Decision) {
			err := storage.Txn(ctx, eng.Store(), storage.TransactionParams{}, func(txn storage.Transaction) error {
				// The store's transaction is held until the evaluation
				// ends: its built-in returns once the deadline has passed.
				d = shared.DecideIn(eng, ctx, txn, map[string]any{"hold": "deadline"})
				return nil
			})
			if err != nil {
				t.Error(err)
			}
			return d
		},
	}
	var wg sync.WaitGroup
	for name, decide := range late {
		wg.Go(func() {
			if d := decide(); d.Behavior != permission.Deny || d.Code != permission.CodeTimeout {
				t.Errorf("%s: %+v", name, d)
			}
		})
	}
	wg.Wait()
}

// Accepting a rule never copies a link's target into the settings file
// nor writes through the link: a symlinked destination file, or a
// symlinked .permopa directory for the project destinations, is refused
// and left as it was.
func TestAddRulesNeverWritesThroughLinks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rule := permission.Rule{ToolName: "Bash", Behavior: permission.Allow}
	cases := []struct {
		name  string
		dest  string
		setup func(t *testing.T, tr *tree) (link, target string)
	}{
		{"local file linked to a JSON credential file", settings.DestinationLocal, func(t *testing.T, tr *tree) (string, string) {
			target := tr.write(t, filepath.Join(tr.home, ".docker", "config.json"), `{"auths": {"r.example": {"auth": "`+secret+`"}}}`)
			link := filepath.Join(tr.proj, ".permopa", "settings.local.json")
			symlink(t, target, link)
			return link, target
		}},
		{"project file linked to another project's settings", settings.DestinationProject, func(t *testing.T, tr *tree) (string, string) {
			target := tr.write(t, filepath.Join(tr.root, "other", ".permopa", "settings.yaml"), "# "+secret+"\npermissions: {deny: [\"Bash(rm:*)\"]}\n")
			link := filepath.Join(tr.proj, ".permopa", "settings.yaml")
			symlink(t, target, link)
			return link, target
		}},
		{"user file linked", settings.DestinationUser, func(t *testing.T, tr *tree) (string, string) {
			target := tr.write(t, filepath.Join(tr.home, "dotfiles", "settings.yaml"), "# "+secret+"\npermissions: {}\n")
			link := filepath.Join(tr.user, "settings.yaml")
			symlink(t, target, link)
			return link, target
		}},
		{".permopa directory linked to the user's settings", settings.DestinationLocal, func(t *testing.T, tr *tree) (string, string) {
			target := tr.write(t, filepath.Join(tr.user, "settings.local.yaml"), "# "+secret+"\npermissions: {}\n")
			link := filepath.Join(tr.proj, ".permopa")
			symlink(t, tr.user, link)
			return link, target
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := newTree(t)
			link, target := c.setup(t, tr)
			before, err := os.ReadFile(target)
			if err != nil {
				t.Fatal(err)
			}
			_, l, _ := tr.attach(t)
			_, err = l.AddRules(ctx, c.dest, "", []permission.Rule{rule}, 0)
			if err == nil || !strings.Contains(err.Error(), "symbolic link") || strings.Contains(err.Error(), secret) {
				t.Fatalf("AddRules: %v, want a refusal naming the link", err)
			}
			if info, err := os.Lstat(link); err != nil || info.Mode()&os.ModeSymlink == 0 {
				t.Errorf("the link was replaced: %v %v", info, err)
			}
			if after, _ := os.ReadFile(target); string(after) != string(before) {
				t.Errorf("the target was changed:\n%s", after)
			}
			if _, err := l.RevokeRules(ctx, c.dest, "", []permission.Rule{rule}); err == nil {
				t.Errorf("RevokeRules wrote through the link")
			}
		})
	}
}

// DecideTraced (which permopa replay uses for calls whose log erased a
// field) answers by the same deadline as Decide: a DENY with code timeout,
// never a late decision, and the rules it entered up to then.
func TestDecideTracedDeadline(t *testing.T) {
	t.Parallel()
	registerStall()
	policy := filepath.Join(t.TempDir(), "stall.rego")
	if err := os.WriteFile(policy, []byte(stallPolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	eng, err := engine.New(ctx, engine.WithoutDefaultPolicy(), engine.WithPolicyPaths(policy), engine.WithTimeout(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	var entered []string
	if d := eng.DecideTraced(ctx, map[string]any{"stall_ms": 0}, func(r *ast.Rule) { entered = append(entered, r.Head.Name.String()) }); d.Behavior != permission.Allow {
		t.Fatalf("a quick traced decision: %+v", d)
	}
	if !slices.Contains(entered, "decision") {
		t.Errorf("a quick traced decision entered %v, not the decision rule", entered)
	}
	if d := eng.DecideTraced(ctx, map[string]any{"stall_ms": 30000}, func(*ast.Rule) {}); d.Behavior != permission.Deny || d.Code != permission.CodeTimeout {
		t.Errorf("a traced decision past the deadline: %+v", d)
	}
}

// WithMaxConcurrent counts evaluations abandoned at their deadline until
// they end: a decision that finds every slot taken by them is a DENY with
// code timeout, and once they end decisions go on.
func TestMaxConcurrentCountsAbandonedEvaluations(t *testing.T) {
	t.Parallel()
	registerStall()
	policy := filepath.Join(t.TempDir(), "hold.rego")
	if err := os.WriteFile(policy, []byte(holdPolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	eng, err := engine.New(ctx, engine.WithoutDefaultPolicy(), engine.WithPolicyPaths(policy),
		engine.WithTimeout(100*time.Millisecond), engine.WithMaxConcurrent(1))
	if err != nil {
		t.Fatal(err)
	}
	held, quick := t.Name()+"/held", t.Name()+"/quick"
	release(quick)
	if d := eng.Decide(ctx, map[string]any{"hold": held}); d.Code != permission.CodeTimeout {
		release(held)
		t.Fatalf("the stalled decision: %+v", d)
	}
	// Its evaluation still holds the only slot (until released).
	if d := eng.Decide(ctx, map[string]any{"hold": quick}); d.Code != permission.CodeTimeout || !strings.Contains(d.Message, "already running") {
		t.Errorf("while the slot is held: %+v", d)
	}
	release(held)
	// Bounded wait for the stalled evaluation to end, not a timing assertion.
	for i := 0; ; i++ {
		if d := eng.Decide(ctx, map[string]any{"hold": quick}); d.Behavior == permission.Allow {
			break
		}
		if i == 100 {
			t.Fatal("the slot was never given back")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A permopa server's token files are credentials: reading one (which
// would let an agent confirm its own rules over TCP) is a safety ASK that
// no allow rule silences, and a DENY in dontAsk, through every read form.
func TestServerTokensAreCredentials(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	allowAll := settings.Settings{Home: "/home/u", Cwd: "/home/u/app", Rules: []permission.Rule{
		{ToolName: "Read", Behavior: permission.Allow}, {ToolName: "Bash", Behavior: permission.Allow},
	}}
	eng, err := newEngine(ctx, engine.WithSettings(allowAll))
	if err != nil {
		t.Fatal(err)
	}
	calls := map[string]map[string]any{
		"Read token":        {"tool_name": "Read", "tool_input": map[string]any{"file_path": "/home/u/.config/permopa/server-token"}},
		"Read admin token":  {"tool_name": "Read", "tool_input": map[string]any{"file_path": "~/.config/permopa/server-admin-token"}},
		"cat token":         {"tool_name": "Bash", "tool_input": map[string]any{"command": "cat ~/.config/permopa/server-token"}},
		"curl with token":   {"tool_name": "Bash", "tool_input": map[string]any{"command": "curl -H \"Authorization: Bearer $(cat /home/u/.config/permopa/server-admin-token)\" http://127.0.0.1:8181/v1/permission/confirm"}},
		"redirect in token": {"tool_name": "Bash", "tool_input": map[string]any{"command": "head -c 64 < /home/u/.config/permopa/server-token"}},
	}
	for name, call := range calls {
		for mode, want := range map[string]string{"default": permission.Ask, "acceptEdits": permission.Ask, "dontAsk": permission.Deny} {
			in := map[string]any{"permission_mode": mode, "cwd": "/home/u/app"}
			for k, v := range call {
				in[k] = v
			}
			d := eng.Decide(ctx, in)
			if d.Behavior != want || (want == permission.Ask && !d.BypassImmune) {
				t.Errorf("%s in %s: %s %s (%s)", name, mode, d.Behavior, d.Step, d.Message)
			}
		}
	}
}
