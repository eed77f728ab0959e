// Package explain renders why permopa decided what it did for a call: what
// each of the six decision points saw (docs/decision.md, "Explanations"),
// the rule and the file it came from, the Bash analysis and the suggested
// rules. The explanation is the policy's own (the entrypoint Query, next to
// the decision), so an explanation and the decision it explains cannot
// disagree; `permopa explain` prints it.
package explain

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/permopa/permopa/adapter/hookproto"
	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
)

// Explanation is a readable trace of one decision: what each of the six
// decision points saw, which one decided, the rule and the layer it came
// from, the Bash analysis and the suggested rules.
type Explanation struct {
	Tool     string              `json:"tool"`
	Mode     string              `json:"mode"`
	Cwd      string              `json:"cwd,omitempty"`
	Decision permission.Decision `json:"decision"`
	// InputErrors are the input problems that made the decision an error.
	InputErrors []string `json:"input_errors,omitempty"`
	Points      []Point  `json:"points"`
	// ToolCheck is the tool check's raw result {id, behavior, bypass_immune,
	// message}; id is the check id (docs/api.md, "Check ids").
	ToolCheck map[string]any `json:"tool_check,omitempty"`
	// Bash is the analysis of a Bash command (see builtins/bash.Analysis).
	Bash map[string]any `json:"bash_analysis,omitempty"`
	// Command is the Bash command line.
	Command        string            `json:"command,omitempty"`
	SuggestedRules []permission.Rule `json:"suggested_rules"`
	// NetworkReadAsked is true when the Bash command reads from the network
	// and the setting network_reads (ask) kept it from being read-only.
	NetworkReadAsked bool `json:"network_read_asked,omitempty"`
}

// Point is one decision point in an Explanation.
type Point struct {
	Point int    `json:"point"`
	Step  string `json:"step"`
	// Status is "decided", "passed" (consulted, not decisive), "skipped"
	// (the mode does not consult it) or "not reached".
	Status string           `json:"status"`
	Detail string           `json:"detail"`
	Rule   *permission.Rule `json:"rule,omitempty"`
	// Leaves are the indexes (0-based) of the Bash leaves the rule hits.
	Leaves []int `json:"leaves,omitempty"`
	// Coverage says, for point 5 of a Bash call, what covers each leaf: an
	// allow rule, "read-only", or "" (nothing: the call is not allowed by rules).
	Coverage []LeafCoverage `json:"coverage,omitempty"`
}

// LeafCoverage is what covers one Bash leaf at the allow-rule point.
type LeafCoverage struct {
	Leaf int              `json:"leaf"`
	By   string           `json:"by"`
	Rule *permission.Rule `json:"rule,omitempty"`
}

var stepTitles = map[string]string{
	permission.StepDenyRule:          "deny rule",
	permission.StepDenyRuleUncertain: "deny rule?",
	permission.StepAskRule:           "ask rule",
	permission.StepReadOnly:          "read-only",
	permission.StepToolCheck:         "tool check",
	permission.StepAllowRule:         "allow rule",
	permission.StepModeFallback:      "mode fallback",
}

// Query is the policy's explanation entrypoint: what each
// decision point saw, computed by the rules the decision reads
// (docs/decision.md, "Explanations"). It is evaluated apart from the
// decision, so the decision path does not pay for it.
const Query = "data.permopa.policy.explanation"

// wireExplanation is the policy's explanation document.
type wireExplanation struct {
	Decision         map[string]any   `json:"decision"`
	Mode             *string          `json:"mode"`
	InputErrors      []string         `json:"input_errors"`
	ToolCheck        map[string]any   `json:"tool_check"`
	Bash             map[string]any   `json:"bash_analysis"`
	NetworkReadAsked bool             `json:"network_read_asked"`
	Points           []wireExplainPnt `json:"points"`
}

type wireExplainPnt struct {
	Point    int            `json:"point"`
	Step     string         `json:"step"`
	Status   string         `json:"status"`
	Detail   string         `json:"detail"`
	Rule     map[string]any `json:"rule"`
	Leaves   []int          `json:"leaves"`
	Coverage []struct {
		Leaf      int            `json:"leaf"`
		NeedsRule bool           `json:"needs_rule"`
		Rule      map[string]any `json:"rule"`
	} `json:"coverage"`
}

// Decide decides input as eng.Decide does and renders the policy's explanation of that
// decision (Query). The explanation is the policy's: no decision
// point is judged here. It is an error when the policy has no explanation
// or when its decision is not the engine's (an evaluation that failed or
// timed out).
func Decide(ctx context.Context, eng *engine.Engine, input map[string]any) (Explanation, error) {
	d := eng.Decide(ctx, input)
	ex := Explanation{Decision: d, SuggestedRules: d.SuggestedRules}
	ex.Tool, _ = input["tool_name"].(string)
	ex.Cwd, _ = input["cwd"].(string)
	if ti, ok := input["tool_input"].(map[string]any); ok && ex.Tool == "Bash" {
		ex.Command, _ = ti["command"].(string)
	}
	raw, err := eng.Evaluate(ctx, Query, input)
	if err != nil {
		return ex, fmt.Errorf("explain: %w", err)
	}
	if raw == nil {
		return ex, fmt.Errorf("explain: the policy has no explanation (%s is undefined)", Query)
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return ex, fmt.Errorf("explain: %w", err)
	}
	var w wireExplanation
	if err := json.Unmarshal(b, &w); err != nil {
		return ex, fmt.Errorf("explain: the policy's explanation: %w", err)
	}
	step, _ := w.Decision["step"].(string)
	check, _ := w.Decision["check"].(string)
	if step != d.Step || check != d.Check || w.Decision["behavior"] != d.Behavior {
		return ex, fmt.Errorf("explain: the policy explains %v at %v (check %q), the engine decided %s at %s (check %q): %s",
			w.Decision["behavior"], w.Decision["step"], check, d.Behavior, d.Step, d.Check, d.Message)
	}
	if w.Mode != nil {
		ex.Mode = *w.Mode
	}
	ex.InputErrors = w.InputErrors
	ex.ToolCheck = w.ToolCheck
	ex.Bash = w.Bash
	ex.NetworkReadAsked = w.NetworkReadAsked
	for _, wp := range w.Points {
		p := Point{Point: wp.Point, Step: wp.Step, Status: wp.Status, Detail: wp.Detail, Leaves: wp.Leaves}
		if wp.Rule != nil {
			r := ruleFromMap(wp.Rule)
			p.Rule = &r
		}
		for _, c := range wp.Coverage {
			lc := LeafCoverage{Leaf: c.Leaf}
			switch {
			case !c.NeedsRule:
				lc.By = "read-only"
			case c.Rule != nil:
				r := ruleFromMap(c.Rule)
				lc.Rule, lc.By = &r, ruleText(r)
			}
			p.Coverage = append(p.Coverage, lc)
		}
		ex.Points = append(ex.Points, p)
	}
	return ex, nil
}

func ruleFromMap(m map[string]any) permission.Rule {
	var r permission.Rule
	r.ToolName, _ = m["tool_name"].(string)
	if c, ok := m["rule_content"].(string); ok && c != "" {
		r.RuleContent = &c
	}
	r.Behavior, _ = m["behavior"].(string)
	r.Source, _ = m["source"].(string)
	r.Layer, _ = m["layer"].(string)
	r.Syntax, _ = m["syntax"].(string)
	r.Project, _ = m["project"].(string)
	if r.Layer == "permission_context" && r.Syntax == "" {
		r.Syntax = permission.SyntaxAgentScope
	}
	return r
}

func ruleText(r permission.Rule) string {
	s := r.String()
	if r.Layer != "" {
		s += " from " + r.Layer
	}
	if r.Source != "" && r.Source != r.Layer {
		s += " (" + r.Source + ")"
	}
	return s
}

func strs(x any) []string {
	xs, _ := x.([]any)
	out := make([]string, 0, len(xs))
	for _, v := range xs {
		out = append(out, fmt.Sprint(v))
	}
	return out
}

// WriteText renders the explanation for people.
func (ex Explanation) WriteText(w io.Writer) error {
	var b strings.Builder
	d := ex.Decision
	fmt.Fprintf(&b, "Call:     %s", orDash(ex.Tool))
	if ex.Mode != "" {
		fmt.Fprintf(&b, " in mode %s", ex.Mode)
	}
	if ex.Cwd != "" {
		fmt.Fprintf(&b, ", cwd %s", ex.Cwd)
	}
	b.WriteString("\n")
	if ex.Command != "" {
		fmt.Fprintf(&b, "Command:  %s\n", ex.Command)
	}
	fmt.Fprintf(&b, "Decision: %s at %s: %s\n", d.Behavior, d.Step, d.Message)
	if d.MatchedRule != nil {
		fmt.Fprintf(&b, "Rule:     %s\n", ruleText(*d.MatchedRule))
	}
	if d.Check != "" {
		fmt.Fprintf(&b, "Check:    %s\n", d.Check)
	}
	if d.Code != "" {
		fmt.Fprintf(&b, "Code:     %s\n", d.Code)
	}
	for _, e := range ex.InputErrors {
		fmt.Fprintf(&b, "Input error: %s\n", e)
	}
	b.WriteString("\nDecision points (the first decisive one wins):\n")
	for _, p := range ex.Points {
		if p.Point == 0 {
			continue
		}
		mark := " "
		if p.Status == "decided" {
			mark = ">"
		}
		fmt.Fprintf(&b, " %s %d %-13s %-11s %s\n", mark, p.Point, stepTitles[p.Step], p.Status, p.Detail)
		if p.Rule != nil && (p.Status == "decided" || p.Step != permission.StepAllowRule) {
			fmt.Fprintf(&b, "      rule: %s\n", ruleText(*p.Rule))
		}
		if p.Status == "decided" && d.Check != "" {
			fmt.Fprintf(&b, "      check: %s\n", d.Check)
		}
		for _, i := range p.Leaves {
			fmt.Fprintf(&b, "      hits leaf %d: %s\n", i+1, leafText(ex.Bash, i))
		}
		for _, c := range p.Coverage {
			by := c.By
			if by == "" {
				by = "NOT covered by any allow rule"
			}
			fmt.Fprintf(&b, "      leaf %d %s: %s\n", c.Leaf+1, leafText(ex.Bash, c.Leaf), by)
		}
	}
	if ex.Bash != nil {
		b.WriteString("\n")
		WriteBashAnalysis(&b, ex.Bash)
	}
	b.WriteString("\nSuggested rules: ")
	if len(ex.SuggestedRules) == 0 {
		switch {
		case d.BypassImmune:
			b.WriteString("none (a safety check: no rule can clear it)\n")
		default:
			b.WriteString("none\n")
		}
	} else {
		b.WriteString("\n")
		for _, r := range ex.SuggestedRules {
			fmt.Fprintf(&b, "  %s\n", r.String())
			if r.ToolName == "Bash" {
				writeScriptsRun(&b, ex.Bash)
			}
		}
		if cmd := hookproto.ApproveCommand(d, "local", ex.Cwd); cmd != "" {
			fmt.Fprintf(&b, "  accept with: %s\n", cmd)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeScriptsRun shows, under a suggested Bash rule, what the scripts the
// command runs hold now: the rule allows the command that runs them, and
// so whatever they hold when it runs (docs/rules.md, "Scripts and
// suggested rules").
func writeScriptsRun(b *strings.Builder, a map[string]any) {
	leaves, _ := a["leaves"].([]any)
	var sites []string
	cmds := map[string][]string{}
	for i := range leaves {
		leaf, _ := leaves[i].(map[string]any)
		site, _ := leaf["script"].(string)
		if site == "" {
			continue
		}
		if _, ok := cmds[site]; !ok {
			sites = append(sites, site)
		}
		words := strs(leaf["argv"])
		for j, w := range words {
			words[j] = hookproto.ShellQuote(w)
		}
		cmds[site] = append(cmds[site], strings.Join(words, " "))
	}
	if len(sites) == 0 {
		return
	}
	b.WriteString("    allows the scripts it runs as they are when they run; now:\n")
	for _, site := range sites {
		fmt.Fprintf(b, "      %s: %s\n", site, strings.Join(cmds[site], "; "))
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func leafText(a map[string]any, i int) string {
	leaves, _ := a["leaves"].([]any)
	if i < 0 || i >= len(leaves) {
		return "?"
	}
	leaf, _ := leaves[i].(map[string]any)
	words := strs(leaf["argv"])
	for j, w := range words {
		words[j] = hookproto.ShellQuote(w)
	}
	s := strings.Join(words, " ")
	if ws := strs(leaf["wrappers"]); len(ws) > 0 {
		s += "   (through " + strings.Join(ws, " > ") + ")"
	}
	return s
}

// WriteBashAnalysis renders a Bash analysis (the JSON form of
// builtins/bash.Analysis) for people: each leaf with its wrappers and
// read-only verdict, the paths read and written, and why the command is
// not read-only or not analysable.
func WriteBashAnalysis(b *strings.Builder, a map[string]any) {
	flag := func(k string) bool { v, _ := a[k].(bool); return v }
	fmt.Fprintf(b, "Bash analysis: ")
	var head []string
	if flag("analysable") {
		head = append(head, "analysable")
	} else {
		head = append(head, "NOT analysable")
	}
	if flag("read_only") {
		head = append(head, "read-only")
	} else {
		head = append(head, "not read-only")
	}
	if flag("truncated") {
		head = append(head, "truncated at a cap")
	}
	if flag("dynamic_writes") {
		head = append(head, "writes paths not known statically")
	}
	if flag("network_read") {
		head = append(head, "reads from the network (a service configured outside the command)")
	}
	b.WriteString(strings.Join(head, ", ") + "\n")
	leaves, _ := a["leaves"].([]any)
	for i := range leaves {
		leaf, _ := leaves[i].(map[string]any)
		verdict := "read-only"
		if ro, _ := leaf["read_only"].(bool); !ro {
			verdict = "not read-only"
			if r, _ := leaf["reason"].(string); r != "" {
				verdict += ": " + r
			}
		}
		fmt.Fprintf(b, "  leaf %d: %s\n          %s\n", i+1, leafText(a, i), verdict)
		if aa := strs(leaf["allow_argv"]); len(aa) > 0 && strings.Join(aa, " ") != strings.Join(strs(leaf["argv"]), " ") {
			fmt.Fprintf(b, "          allow rules see: %s\n", strings.Join(aa, " "))
		}
		if r := strs(leaf["reads"]); len(r) > 0 {
			fmt.Fprintf(b, "          reads:  %s\n", strings.Join(r, " "))
		}
		if w := strs(leaf["writes"]); len(w) > 0 {
			fmt.Fprintf(b, "          writes: %s\n", strings.Join(w, " "))
		}
		switch leaf["network"] {
		case "read":
			fmt.Fprintf(b, "          network: reads from a service configured outside the command (a network read)\n")
		case "egress":
			fmt.Fprintf(b, "          network: sends to a destination named in the command (egress)\n")
		}
		if c := strs(leaf["cache_writes"]); len(c) > 0 {
			fmt.Fprintf(b, "          own cache and logs (not project writes): %s\n", strings.Join(c, " "))
		}
	}
	list := func(title, key string) {
		if xs := strs(a[key]); len(xs) > 0 {
			fmt.Fprintf(b, "  %s: %s\n", title, strings.Join(xs, "; "))
		}
	}
	list("all reads", "reads")
	if ts, ok := a["recursive_reads"].([]any); ok && len(ts) > 0 {
		var out []string
		for _, t := range ts {
			if m, ok := t.(map[string]any); ok {
				s := fmt.Sprint(m["path"])
				if m["names_only"] == true {
					s += " (names)"
				}
				if m["hidden"] != true {
					s += " (not hidden files)"
				}
				out = append(out, s)
			}
		}
		fmt.Fprintf(b, "  reads the trees below: %s\n", strings.Join(out, "; "))
	}
	list("prints the environment", "environment")
	list("all writes", "writes")
	list("not read-only because", "not_read_only")
	list("not analysable because", "reasons")
	list("critical removals", "critical_removals")
	if hs, ok := a["dangerous"].([]any); ok {
		for _, h := range hs {
			m, _ := h.(map[string]any)
			leaf := fmt.Sprint(m["leaf"])
			if n, err := strconv.Atoi(leaf); err == nil {
				leaf = strconv.Itoa(n + 1)
			}
			fmt.Fprintf(b, "  dangerous pattern %v in leaf %s: %v\n", m["pattern"], leaf, m["detail"])
		}
	}
}

// BashAnalysis analyses a command the way the policy does: the Bash tool's
// analysis for a call in cwd.
func BashAnalysis(ctx context.Context, eng *engine.Engine, command, cwd string) (map[string]any, error) {
	in := map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": command}}
	if cwd != "" {
		in["cwd"] = cwd
	}
	v, err := eng.Evaluate(ctx, "x := data.permopa.policy.tools.bash.analysis", in)
	if err != nil {
		return nil, err
	}
	m, _ := v.(map[string]any)
	a, ok := m["x"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the policy has no Bash analysis (data.permopa.policy.tools.bash.analysis is undefined)")
	}
	return a, nil
}
