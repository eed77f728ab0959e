package adapter

import (
	"context"
	"fmt"
	"html"
	"io"
	"strings"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/rego/tables"
	"github.com/permopa/permopa/settings"
)

// MatrixModes are the columns of the decision matrix (docs/decision.md):
// the policy's canonical modes, read from its mode table (tables.Modes).
func MatrixModes() []string { return tables.Modes() }

// MatrixRow is one representative call: it exercises one decision point.
type MatrixRow struct {
	Point int    `json:"point"`
	Title string `json:"title"`
	// Call describes the representative call in rule syntax.
	Call string `json:"call"`
	// Step is the decision point the row exercises; a cell decided at
	// another step shows that step.
	Step  string                `json:"step"`
	Cells map[string]MatrixCell `json:"cells"`
	input func(mode string) map[string]any
}

// Input is the row's representative call in mode.
func (r MatrixRow) Input(mode string) map[string]any { return r.input(mode) }

// MatrixCell is what the live policy decided for a row in a mode.
type MatrixCell struct {
	Behavior string `json:"behavior"`
	Step     string `json:"step"`
	Message  string `json:"message"`
}

// Text is the cell as the matrix shows it: the behavior, and the step that
// decided when it is not the row's own (the point was skipped or not decisive).
func (c MatrixCell) Text(rowStep string) string {
	if c.Step == rowStep {
		return c.Behavior
	}
	return c.Behavior + " via " + c.Step
}

// Matrix is the decision matrix a policy really implements.
type Matrix struct {
	Rows []MatrixRow `json:"rows"`
	// Workspace is the cwd of the representative calls.
	Workspace string `json:"workspace"`
}

// matrixWorkspace is the cwd of the representative calls; nothing is read
// or written there.
const matrixWorkspace = "/tmp/permopa-matrix-ws"

func matrixCall(tool string, toolInput map[string]any, rules map[string]string, extra map[string]any) func(string) map[string]any {
	return func(mode string) map[string]any {
		ctx := map[string]any{
			"mode":                mode,
			"working_directories": map[string]any{matrixWorkspace: map[string]any{"path": matrixWorkspace, "source": "session"}},
			"allow_rules":         map[string]any{},
			"ask_rules":           map[string]any{},
			"deny_rules":          map[string]any{},
		}
		for behavior, rule := range rules {
			r, err := settings.ParseRule(rule, behavior)
			if err != nil {
				panic(err) // the rules below are constants
			}
			var content any
			if r.RuleContent != nil {
				content = *r.RuleContent
			}
			ctx[strings.ToLower(behavior)+"_rules"] = map[string]any{
				r.ToolName: []any{map[string]any{"tool_name": r.ToolName, "rule_content": content, "behavior": r.Behavior, "source": "matrix"}},
			}
		}
		in := map[string]any{
			"tool_name":          tool,
			"tool_input":         toolInput,
			"permission_mode":    mode,
			"cwd":                matrixWorkspace,
			"permission_context": ctx,
			"tool_use_id":        "matrix",
		}
		for k, v := range extra {
			in[k] = v
		}
		return in
	}
}

func bashIn(cmd string) map[string]any { return map[string]any{"command": cmd} }

// matrixRows are the representative calls, one or more per decision point.
func matrixRows() []MatrixRow {
	deploy := map[string]any{"target": "staging"}
	return []MatrixRow{
		{Point: 1, Title: "deny rule matches", Call: "Bash(rm -rf build), deny Bash(rm -rf:*)", Step: permission.StepDenyRule,
			input: matrixCall("Bash", bashIn("rm -rf build"), map[string]string{"DENY": "Bash(rm -rf:*)"}, nil)},
		{Point: 1, Title: "deny rule could match (uncertain)", Call: "Bash(npx prettier --write .), deny Bash(rm -rf:*), allow Bash(npx prettier --write .)", Step: permission.StepDenyRuleUncertain,
			input: matrixCall("Bash", bashIn("npx prettier --write ."), map[string]string{"DENY": "Bash(rm -rf:*)", "ALLOW": "Bash(npx prettier --write .)"}, nil)},
		{Point: 2, Title: "ask rule matches", Call: "Bash(git push origin main), ask Bash(git push:*)", Step: permission.StepAskRule,
			input: matrixCall("Bash", bashIn("git push origin main"), map[string]string{"ASK": "Bash(git push:*)"}, nil)},
		{Point: 3, Title: "call is read-only", Call: "Bash(git status)", Step: permission.StepReadOnly,
			input: matrixCall("Bash", bashIn("git status"), nil, nil)},
		{Point: 4, Title: "tool check ALLOW", Call: "deploy, tool_check ALLOW", Step: permission.StepToolCheck,
			input: matrixCall("deploy", deploy, nil, map[string]any{"tool_check": map[string]any{"behavior": "ALLOW", "message": "host check allows"}})},
		{Point: 4, Title: "tool check DENY", Call: "deploy, tool_check DENY", Step: permission.StepToolCheck,
			input: matrixCall("deploy", deploy, nil, map[string]any{"tool_check": map[string]any{"behavior": "DENY", "message": "host check denies"}})},
		{Point: 4, Title: "tool check safety ASK", Call: "Bash(rm -rf /) (critical removal)", Step: permission.StepToolCheck,
			input: matrixCall("Bash", bashIn("rm -rf /"), nil, nil)},
		{Point: 4, Title: "tool check plain ASK", Call: "deploy, tool_check ASK (not bypass-immune)", Step: permission.StepToolCheck,
			input: matrixCall("deploy", deploy, nil, map[string]any{"tool_check": map[string]any{"behavior": "ASK", "message": "host check asks"}})},
		{Point: 4, Title: "edit inside a working directory", Call: "Write(" + matrixWorkspace + "/src/main.go)", Step: permission.StepToolCheck,
			input: matrixCall("Write", map[string]any{"file_path": matrixWorkspace + "/src/main.go", "content": "package main\n"}, nil, nil)},
		{Point: 5, Title: "allow rule matches", Call: "Bash(npm run build), allow Bash(npm run:*)", Step: permission.StepAllowRule,
			input: matrixCall("Bash", bashIn("npm run build"), map[string]string{"ALLOW": "Bash(npm run:*)"}, nil)},
		{Point: 6, Title: "nothing decides (fallback)", Call: "Bash(make)", Step: permission.StepModeFallback,
			input: matrixCall("Bash", bashIn("make"), nil, nil)},
	}
}

// BuildMatrix evaluates the engine's live policy over the representative
// calls in every mode.
func BuildMatrix(ctx context.Context, eng *engine.Engine) Matrix {
	m := Matrix{Workspace: matrixWorkspace}
	for _, row := range matrixRows() {
		row.Cells = map[string]MatrixCell{}
		for _, mode := range MatrixModes() {
			d := eng.Decide(ctx, row.input(mode))
			row.Cells[mode] = MatrixCell{Behavior: d.Behavior, Step: d.Step, Message: d.Message}
		}
		m.Rows = append(m.Rows, row)
	}
	return m
}

// WriteMarkdown prints the matrix as a Markdown table.
func (m Matrix) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	b.WriteString("| point | representative call | " + strings.Join(MatrixModes(), " | ") + " |\n")
	b.WriteString("|---|---|" + strings.Repeat("---|", len(MatrixModes())) + "\n")
	for _, r := range m.Rows {
		fmt.Fprintf(&b, "| %d %s | `%s` |", r.Point, r.Title, r.Call)
		for _, mode := range MatrixModes() {
			b.WriteString(" " + r.Cells[mode].Text(r.Step) + " |")
		}
		b.WriteString("\n")
	}
	b.WriteString("\nA cell shows the behavior; \"via STEP\" when another decision point decided (the row's point was skipped by the mode or not decisive). Calls run in " + m.Workspace + " with rules given in the input's permission_context.\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteHTML prints the matrix as a standalone HTML page; each cell's title
// is the decision's message.
func (m Matrix) WriteHTML(w io.Writer) error {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>permopa decision matrix</title>
<style>
body{font-family:system-ui,sans-serif;margin:2em}table{border-collapse:collapse}
td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left}
.ALLOW{background:#e3f6e3}.DENY{background:#fbe3e3}.ASK{background:#fff4d6}.via{color:#666;font-size:.85em}
</style></head><body>
<h1>permopa decision matrix</h1>
<table><thead><tr><th>point</th><th>representative call</th>`)
	for _, mode := range MatrixModes() {
		b.WriteString("<th>" + mode + "</th>")
	}
	b.WriteString("</tr></thead><tbody>\n")
	for _, r := range m.Rows {
		fmt.Fprintf(&b, "<tr><td>%d %s</td><td><code>%s</code></td>", r.Point, html.EscapeString(r.Title), html.EscapeString(r.Call))
		for _, mode := range MatrixModes() {
			c := r.Cells[mode]
			via := ""
			if c.Step != r.Step {
				via = ` <span class="via">via ` + html.EscapeString(c.Step) + `</span>`
			}
			fmt.Fprintf(&b, `<td class="%s" title="%s">%s%s</td>`, html.EscapeString(c.Behavior), html.EscapeString(c.Message), html.EscapeString(c.Behavior), via)
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody></table>\n<p>A cell shows the behavior; \"via STEP\" when another decision point decided. Calls run in " + html.EscapeString(m.Workspace) + "; hover a cell for the decision's message.</p>\n</body></html>\n")
	_, err := io.WriteString(w, b.String())
	return err
}
