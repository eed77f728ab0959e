package adapter

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/permopa/permopa/builtins/bash"
	"github.com/permopa/permopa/engine"
)

// Explanation is a readable trace of one decision: what each of the six
// decision points saw, which one decided, the rule and the layer it came
// from, the Bash analysis and the suggested rules.
type Explanation struct {
	Tool     string          `json:"tool"`
	Mode     string          `json:"mode"`
	Cwd      string          `json:"cwd,omitempty"`
	Decision engine.Decision `json:"decision"`
	// InputErrors are the input problems that made the decision an error.
	InputErrors []string       `json:"input_errors,omitempty"`
	Points      []ExplainPoint `json:"points"`
	// ToolCheck is the tool check's raw result {behavior, bypass_immune, message}.
	ToolCheck map[string]any `json:"tool_check,omitempty"`
	// Bash is the analysis of a Bash command (see builtins/bash.Analysis).
	Bash map[string]any `json:"bash_analysis,omitempty"`
	// Command is the Bash command line.
	Command        string        `json:"command,omitempty"`
	SuggestedRules []engine.Rule `json:"suggested_rules"`
	// NetworkReadAsked is true when the Bash command reads from the network
	// and the setting network_reads (ask) kept it from being read-only.
	NetworkReadAsked bool `json:"network_read_asked,omitempty"`
}

// ExplainPoint is one decision point in an Explanation.
type ExplainPoint struct {
	Point int    `json:"point"`
	Step  string `json:"step"`
	// Status is "decided", "passed" (consulted, not decisive), "skipped"
	// (the mode does not consult it) or "not reached".
	Status string       `json:"status"`
	Detail string       `json:"detail"`
	Rule   *engine.Rule `json:"rule,omitempty"`
	// Leaves are the indexes (0-based) of the Bash leaves the rule hits.
	Leaves []int `json:"leaves,omitempty"`
	// Coverage says, for point 5 of a Bash call, what covers each leaf: an
	// allow rule, "read-only", or "" (nothing: the call is not allowed by rules).
	Coverage []LeafCoverage `json:"coverage,omitempty"`
}

// LeafCoverage is what covers one Bash leaf at the allow-rule point.
type LeafCoverage struct {
	Leaf int          `json:"leaf"`
	By   string       `json:"by"`
	Rule *engine.Rule `json:"rule,omitempty"`
}

var explainSteps = []string{
	engine.StepDenyRule, engine.StepAskRule, engine.StepReadOnly,
	engine.StepToolCheck, engine.StepAllowRule, engine.StepModeFallback,
}

var stepTitles = map[string]string{
	engine.StepDenyRule:     "deny rule",
	engine.StepAskRule:      "ask rule",
	engine.StepReadOnly:     "read-only",
	engine.StepToolCheck:    "tool check",
	engine.StepAllowRule:    "allow rule",
	engine.StepModeFallback: "mode fallback",
}

// explainQuery gathers the intermediate results of the default policy in one
// evaluation. Each is a list so that an undefined part (a bundle without that
// package, a rule that does not match) is empty instead of undefining the rest.
const explainQuery = `mode := [x | x := data.permopa.policy.call.mode]
errs := [x | some x in data.permopa.policy.call.errors]
deny := [x | x := data.permopa.policy.rules.match.deny]
ask := [x | x := data.permopa.policy.rules.match.ask]
allow := [x | x := data.permopa.policy.rules.match.allow]
ro := [x | data.permopa.policy.tools.read_only; x := true]
chk := [x | x := data.permopa.policy.tools.check]
consults := [x | data.permopa.policy.call.mode in data.permopa.policy.modes.consults_tools; x := true]
analysis := [x | input.tool_name == "Bash"; x := data.permopa.policy.tools.bash.analysis]
creds := [x | input.tool_name == "Bash"; some x in data.permopa.policy.tools.bash._reads.credential]
netask := [x | input.tool_name == "Bash"; data.permopa.policy.tools.bash.network_read_asked; x := true]
sugg := [x | x := data.permopa.policy.tools.suggestions]`

// Explain decides input and explains the decision with the engine's
// intermediate results.
func Explain(ctx context.Context, eng *engine.Engine, input map[string]any) (Explanation, error) {
	d := eng.Decide(ctx, input)
	ex := Explanation{Decision: d, SuggestedRules: d.SuggestedRules}
	ex.Tool, _ = input["tool_name"].(string)
	ex.Cwd, _ = input["cwd"].(string)
	if ti, ok := input["tool_input"].(map[string]any); ok && ex.Tool == "Bash" {
		ex.Command, _ = ti["command"].(string)
	}
	raw, err := eng.Evaluate(ctx, explainQuery, input)
	if err != nil {
		return ex, fmt.Errorf("explain: %w", err)
	}
	b, _ := raw.(map[string]any)
	one := func(k string) any {
		if xs, ok := b[k].([]any); ok && len(xs) > 0 {
			return xs[0]
		}
		return nil
	}
	ex.Mode, _ = one("mode").(string)
	if xs, ok := b["errs"].([]any); ok {
		for _, x := range xs {
			ex.InputErrors = append(ex.InputErrors, fmt.Sprint(x))
		}
		sort.Strings(ex.InputErrors)
	}
	ex.ToolCheck, _ = one("chk").(map[string]any)
	ex.Bash, _ = one("analysis").(map[string]any)
	consults := one("consults") == true
	readOnly := one("ro") == true
	ex.NetworkReadAsked = one("netask") == true
	rules := map[string]*engine.Rule{}
	for step, key := range map[string]string{engine.StepDenyRule: "deny", engine.StepAskRule: "ask", engine.StepAllowRule: "allow"} {
		if m, ok := one(key).(map[string]any); ok {
			r := ruleFromMap(m)
			rules[step] = &r
		}
	}
	decidedAt := -1
	for i, s := range explainSteps {
		if s == d.Step {
			decidedAt = i
		}
	}
	for i, step := range explainSteps {
		p := ExplainPoint{Point: i + 1, Step: step, Rule: rules[step]}
		switch {
		case d.Step == engine.StepError:
			p.Status = "not reached"
			p.Detail = "the input or the evaluation failed first"
		case i == decidedAt:
			p.Status = "decided"
			p.Detail = d.Behavior + ": " + d.Message
			if step == engine.StepReadOnly {
				p.Detail += ex.networkNote()
			}
		case i > decidedAt:
			p.Status = "not reached"
			p.Detail = ex.notReached(step, rules[step], consults, readOnly)
		default:
			p.Status, p.Detail = ex.passed(step, consults, rules[step], readOnly, one("creds"))
		}
		if p.Rule != nil && step != engine.StepAllowRule {
			p.Leaves = ex.leavesHit(ctx, eng, input, *p.Rule)
		}
		if step == engine.StepAllowRule && ex.Bash != nil && d.Step != engine.StepError && (p.Status == "decided" || p.Status == "passed") {
			p.Coverage = ex.allowCoverage(ctx, eng, input)
		}
		ex.Points = append(ex.Points, p)
	}
	if d.Step == engine.StepError {
		ex.Points = append([]ExplainPoint{{Point: 0, Step: engine.StepError, Status: "decided", Detail: d.Behavior + ": " + d.Message}}, ex.Points...)
	}
	return ex, nil
}

func ruleFromMap(m map[string]any) engine.Rule {
	var r engine.Rule
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
		r.Syntax = engine.SyntaxAgentScope
	}
	return r
}

func (ex *Explanation) notReached(step string, rule *engine.Rule, consults, readOnly bool) string {
	switch step {
	case engine.StepAskRule, engine.StepDenyRule:
		if rule != nil {
			return "a " + stepTitles[step] + " would also match: " + ruleText(*rule)
		}
	case engine.StepReadOnly:
		if readOnly {
			return "the call is read-only"
		}
		return "the call is not read-only"
	case engine.StepToolCheck:
		if !consults {
			return "the mode " + ex.Mode + " does not consult tool checks"
		}
		if ex.ToolCheck != nil {
			return "the tool check says " + checkText(ex.ToolCheck)
		}
	case engine.StepAllowRule:
		if rule != nil {
			return "an allow rule would also match: " + ruleText(*rule)
		}
	}
	return ""
}

func (ex *Explanation) passed(step string, consults bool, rule *engine.Rule, readOnly bool, cred any) (string, string) {
	switch step {
	case engine.StepDenyRule:
		return "passed", "no deny rule matches"
	case engine.StepAskRule:
		return "passed", "no ask rule matches"
	case engine.StepReadOnly:
		return "passed", "not read-only: " + ex.notReadOnlyWhy(cred)
	case engine.StepToolCheck:
		if !consults {
			return "skipped", "the mode " + ex.Mode + " does not consult tool checks"
		}
		if ex.Mode == "BYPASS" && ex.ToolCheck != nil && ex.ToolCheck["bypass_immune"] == true {
			return "passed", "the tool check says " + checkText(ex.ToolCheck) + "; BYPASS ignores it (bypass_honours_safety is off)"
		}
		if ex.ToolCheck != nil && ex.ToolCheck["behavior"] == "ASK" && ex.ToolCheck["bypass_immune"] != true {
			return "passed", "the tool check says " + checkText(ex.ToolCheck)
		}
		return "passed", "the tool check says " + checkText(ex.ToolCheck) + "; not decisive here"
	case engine.StepAllowRule:
		if !consults {
			if rule != nil {
				return "skipped", "the mode " + ex.Mode + " does not consult allow rules (" + ruleText(*rule) + " would match)"
			}
			return "skipped", "the mode " + ex.Mode + " does not consult allow rules"
		}
		if ex.Tool == "Bash" {
			return "passed", "no set of allow rules covers every leaf that is not read-only"
		}
		return "passed", "no allow rule matches"
	}
	return "passed", ""
}

func (ex *Explanation) notReadOnlyWhy(cred any) string {
	if ex.Bash == nil {
		if ex.ToolCheck != nil && ex.ToolCheck["bypass_immune"] == true {
			return fmt.Sprint(ex.ToolCheck["message"])
		}
		return ex.Tool + " is not a read-only tool (or the host did not say read_only)"
	}
	var why []string
	if xs, ok := ex.Bash["not_read_only"].([]any); ok {
		for _, x := range xs {
			why = append(why, fmt.Sprint(x))
		}
	}
	if m, ok := cred.(map[string]any); ok {
		why = append(why, fmt.Sprintf("reads credential path %v", m["path"]))
	}
	if ex.NetworkReadAsked {
		why = append(why, "it reads from the network ("+strings.Join(networkLeaves(ex.Bash, "read"), ", ")+
			") and the setting network_reads is ask")
	}
	if len(why) == 0 {
		return "see the analysis"
	}
	return strings.Join(why, "; ")
}

// networkNote says, for a read-only Bash command, which leaves read from a
// service configured outside the command and which caches they may write.
func (ex *Explanation) networkNote() string {
	if ex.Bash == nil {
		return ""
	}
	var s string
	if net := networkLeaves(ex.Bash, "read"); len(net) > 0 {
		s += "; a network read (" + strings.Join(net, ", ") + " talks to a service configured outside the command; network_reads: allow)"
	}
	if c := strs(ex.Bash["cache_writes"]); len(c) > 0 {
		s += "; may write only its own cache and logs: " + strings.Join(c, " ")
	}
	return s
}

// networkLeaves names the leaves of a Bash analysis whose network kind is kind.
func networkLeaves(a map[string]any, kind string) []string {
	var out []string
	leaves, _ := a["leaves"].([]any)
	for _, l := range leaves {
		leaf, _ := l.(map[string]any)
		if leaf["network"] != kind {
			continue
		}
		name := fmt.Sprint(leaf["program"])
		if sub, _ := leaf["subcommand"].(string); sub != "" {
			name += " " + sub
		}
		out = append(out, name)
	}
	return out
}

func checkText(c map[string]any) string {
	if c == nil {
		return "nothing"
	}
	s := fmt.Sprint(c["behavior"])
	if c["bypass_immune"] == true {
		s += " (safety, bypass-immune)"
	} else if c["behavior"] == "ASK" {
		s += " (plain ASK, treated as PASSTHROUGH)"
	}
	if m, _ := c["message"].(string); m != "" {
		s += ": " + m
	}
	return s
}

func ruleText(r engine.Rule) string {
	s := r.String()
	if r.Layer != "" {
		s += " from " + r.Layer
	}
	if r.Source != "" && r.Source != r.Layer {
		s += " (" + r.Source + ")"
	}
	return s
}

// leavesHit says which leaves of a Bash command a deny or ask rule hits:
// a Bash rule seen through every wrapper, or a Read/Edit/Write path rule
// on the paths a leaf reads or writes.
func (ex *Explanation) leavesHit(ctx context.Context, eng *engine.Engine, input map[string]any, r engine.Rule) []int {
	leaves, _ := ex.Bash["leaves"].([]any)
	if len(leaves) == 0 {
		return nil
	}
	content := ""
	if r.RuleContent != nil {
		content = *r.RuleContent
	}
	var hits []int
	switch r.ToolName {
	case "Bash":
		p, err := bash.CompilePattern(content)
		if err != nil {
			return nil
		}
		for i, l := range leaves {
			leaf, _ := l.(map[string]any)
			argvs := [][]string{strs(leaf["argv"])}
			if layers, ok := leaf["layers"].([]any); ok {
				for _, a := range layers {
					argvs = append(argvs, strs(a))
				}
			}
			for _, argv := range argvs {
				if p.Match(argv) {
					hits = append(hits, i)
					break
				}
			}
		}
	case "Read", "Edit", "Write":
		field := "writes"
		if r.ToolName == "Read" {
			field = "reads"
		}
		// The patterns the rule stands for (its readings), as the policy
		// matches them.
		c, _ := json.Marshal(r.MatchContents())
		for i, l := range leaves {
			leaf, _ := l.(map[string]any)
			paths := strs(leaf[field])
			if len(paths) == 0 {
				continue
			}
			ps, _ := json.Marshal(paths)
			q := fmt.Sprintf(`x := permopa.glob.match_any(%s, %s, object.union(data.permopa.policy.call.path_opts, {"mode": "any"}))`, c, ps)
			v, err := eng.Evaluate(ctx, q, input)
			if m, ok := v.(map[string]any); err == nil && ok && m["x"] != nil && fmt.Sprint(m["x"]) != "-1" {
				hits = append(hits, i)
			}
		}
	}
	return hits
}

// allowCoverage says what covers each leaf for the allow-rule point: a
// read-only leaf needs no rule; another needs an allow rule matching what
// allow rules see of it (allow_argv: wrappers that are not transparent stay).
func (ex *Explanation) allowCoverage(ctx context.Context, eng *engine.Engine, input map[string]any) []LeafCoverage {
	leaves, _ := ex.Bash["leaves"].([]any)
	// The rule list function of the default policy (for_tool; rules_of in
	// its first version). A policy without either gets no coverage.
	var v any
	var err error
	for _, fn := range []string{"for_tool", "rules_of"} {
		if v, err = eng.Evaluate(ctx, `x := data.permopa.policy.rules.`+fn+`("allow", "Bash")`, input); err == nil {
			break
		}
	}
	if err != nil {
		return nil
	}
	m, _ := v.(map[string]any)
	raw, _ := m["x"].([]any)
	type compiled struct {
		rule engine.Rule
		p    *bash.Pattern
	}
	var rules []compiled
	for _, x := range raw {
		rm, ok := x.(map[string]any)
		if !ok {
			continue
		}
		r := ruleFromMap(rm)
		content := ""
		if r.RuleContent != nil {
			content = *r.RuleContent
		}
		if p, err := bash.CompilePattern(content); err == nil {
			rules = append(rules, compiled{r, p})
		}
	}
	var out []LeafCoverage
	for i, l := range leaves {
		leaf, _ := l.(map[string]any)
		c := LeafCoverage{Leaf: i}
		if ro, _ := leaf["read_only"].(bool); ro {
			c.By = "read-only"
		} else {
			argv := strs(leaf["allow_argv"])
			for _, r := range rules {
				if r.p.Match(argv) {
					rule := r.rule
					c.Rule, c.By = &rule, ruleText(rule)
					break
				}
			}
		}
		out = append(out, c)
	}
	return out
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
		if p.Rule != nil && (p.Status == "decided" || p.Step != engine.StepAllowRule) {
			fmt.Fprintf(&b, "      rule: %s\n", ruleText(*p.Rule))
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
		}
		if cmd := ApproveCommand(d, "local", ex.Cwd); cmd != "" {
			fmt.Fprintf(&b, "  accept with: %s\n", cmd)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
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
		words[j] = shellQuote(w)
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
