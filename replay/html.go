package replay

import (
	"fmt"
	"html/template"
	"io"
	"sync"
	"time"
)

// The HTML report is one self-contained file: inline CSS and inline SVG
// charts, no script, nothing loaded from anywhere. Everything that comes
// from a log (commands, paths, rules, projects) is untrusted (an agent
// chose those commands) and goes through html/template's contextual
// escaping; nothing is marked safe. The document is also well-formed XML,
// which the tests check.

type htmlBar struct {
	Label, Title    string
	Y, W, ValueX    int
	Value           int
	Class           string
	AskW, DenyW     int
	AskValue, DenyV int
}

type htmlColumn struct {
	X, W           int
	AskY, AskH     int
	DenyY, DenyH   int
	Title          string
	Label          string
	LabelX, LabelY int
}

type htmlChart struct {
	Width, Height int
	Bars          []htmlBar
	Columns       []htmlColumn
	Max           int
	AxisY         int
	Empty         bool
}

type htmlPage struct {
	In          *Insights
	Generated   string
	Span        string
	Timeline    htmlChart
	Programs    htmlChart
	Coverage    htmlChart
	Tables      []htmlTable
	Suggestions []Suggestion
	Broad       []BroadAllow
	Top         int
}

type htmlTable struct {
	Title string
	Rows  []Row
	More  int
}

// WriteInsightsHTML writes the self-contained HTML report, n rows per
// table and chart.
func WriteInsightsHTML(w io.Writer, in *Insights, n int) error {
	if n <= 0 {
		n = 15
	}
	in = printableInsights(in)
	p := htmlPage{In: in, Generated: time.Now().UTC().Format("2006-01-02 15:04 UTC"), Top: n}
	if !in.From.IsZero() {
		p.Span = in.From.UTC().Format("2006-01-02 15:04") + " to " + in.To.UTC().Format("2006-01-02 15:04 UTC")
	}
	p.Timeline = timelineChart(in)
	p.Programs = barChart(top(in.ByProgram, n), func(r Row) (string, int, string) { return r.Key, r.Prompts(), "" }, true)
	sugg := top(in.Suggestions, n)
	p.Coverage = barChart(sugg, func(s Suggestion) (string, int, string) {
		return joinRules(s.Rules), s.Calls, "risk-" + s.Level
	}, false)
	for _, t := range []struct {
		title string
		rows  []Row
	}{
		{"Tool", in.ByTool}, {"Program (Bash commands)", in.ByProgram}, {"Step and rule or check", in.ByRule},
		{"Mode", in.ByMode}, {"Project (cwd)", in.ByProject},
	} {
		p.Tables = append(p.Tables, htmlTable{Title: t.title, Rows: top(t.rows, n), More: len(t.rows) - len(top(t.rows, n))})
	}
	p.Suggestions = sugg
	p.Broad = top(in.BroadAllows, n)
	return htmlReport().Execute(w, p)
}

// printableInsights is a copy of in whose strings are Printable: HTML
// escaping keeps a log's markup out of the document, but a bidirectional
// override or a zero-width character would still reorder or hide what a
// reader sees of a command in the browser.
func printableInsights(in *Insights) *Insights {
	out := *in
	all := func(xs []string) []string {
		if xs == nil {
			return nil
		}
		ys := make([]string, len(xs))
		for i, x := range xs {
			ys[i] = Printable(x)
		}
		return ys
	}
	rows := func(rs []Row) []Row {
		out := make([]Row, len(rs))
		for i, r := range rs {
			r.Key = Printable(r.Key)
			out[i] = r
		}
		return out
	}
	out.Files = all(in.Files)
	out.UncheckedFrom = Printable(in.UncheckedFrom)
	out.ByTool, out.ByProgram, out.ByRule = rows(in.ByTool), rows(in.ByProgram), rows(in.ByRule)
	out.ByMode, out.ByProject = rows(in.ByMode), rows(in.ByProject)
	out.Suggestions = make([]Suggestion, len(in.Suggestions))
	for i, s := range in.Suggestions {
		s.Rules, s.Projects, s.Examples = all(s.Rules), all(s.Projects), all(s.Examples)
		s.Command, s.Broad = Printable(s.Command), Printable(s.Broad)
		s.Risk.DangerousPaths = all(s.Risk.DangerousPaths)
		out.Suggestions[i] = s
	}
	out.BroadAllows = make([]BroadAllow, len(in.BroadAllows))
	for i, b := range in.BroadAllows {
		b.Rule, b.Layer, b.Why = Printable(b.Rule), Printable(b.Layer), Printable(b.Why)
		b.Examples, b.Risk.DangerousPaths = all(b.Examples), all(b.Risk.DangerousPaths)
		out.BroadAllows[i] = b
	}
	return &out
}

func joinRules(rules []string) string {
	s := ""
	for i, r := range rules {
		if i > 0 {
			s += " + "
		}
		s += r
	}
	return s
}

const (
	chartWidth = 760
	labelWidth = 300
	rowHeight  = 20
)

// barChart lays out horizontal bars, one per item.
func barChart[T any](items []T, of func(T) (string, int, string), split bool) htmlChart {
	c := htmlChart{Width: chartWidth, Empty: len(items) == 0}
	for _, it := range items {
		_, v, _ := of(it)
		c.Max = max(c.Max, v)
	}
	span := chartWidth - labelWidth - 60
	for i, it := range items {
		label, v, class := of(it)
		w := 0
		if c.Max > 0 {
			w = v * span / c.Max
		}
		b := htmlBar{Label: Short(label, 44), Title: fmt.Sprintf("%s: %d", label, v), Y: i * rowHeight, W: max(w, 1), ValueX: labelWidth + max(w, 1) + 6, Value: v, Class: class}
		if split {
			if r, ok := any(it).(Row); ok && v > 0 {
				b.AskW = r.Ask * w / v
				b.DenyW = w - b.AskW
				b.AskValue, b.DenyV = r.Ask, r.Deny
				b.Title = fmt.Sprintf("%s: %d ASK, %d DENY", label, r.Ask, r.Deny)
			}
		}
		c.Bars = append(c.Bars, b)
	}
	c.Height = len(items)*rowHeight + 4
	return c
}

// timelineChart lays out one stacked column (ASK under DENY) per bucket.
func timelineChart(in *Insights) htmlChart {
	const height, top, bottom = 180, 10, 24
	c := htmlChart{Width: chartWidth, Height: top + height + bottom, AxisY: top + height, Empty: len(in.Timeline) == 0}
	for _, b := range in.Timeline {
		c.Max = max(c.Max, b.Ask+b.Deny)
	}
	n := len(in.Timeline)
	if n == 0 {
		return c
	}
	colW := max((chartWidth-40)/n, 2)
	layout := "2006-01-02 15:04"
	if in.BucketSeconds >= 86400 {
		layout = "2006-01-02"
	}
	for i, b := range in.Timeline {
		x := 40 + i*colW
		scale := func(v int) int {
			if c.Max == 0 {
				return 0
			}
			return v * height / c.Max
		}
		askH, denyH := scale(b.Ask), scale(b.Deny)
		col := htmlColumn{X: x, W: max(colW-2, 1), AskH: askH, AskY: top + height - askH, DenyH: denyH, DenyY: top + height - askH - denyH,
			Title: fmt.Sprintf("%s: %d ASK, %d DENY, %d ALLOW", b.Start.Format(layout), b.Ask, b.Deny, b.Allow)}
		if i == 0 || i == n-1 {
			col.Label, col.LabelX, col.LabelY = b.Start.Format(layout), x, top+height+16
		}
		c.Columns = append(c.Columns, col)
	}
	return c
}

// htmlReport is parsed on first use, not at package initialisation: every
// process that links replay (each permopa start) would pay for it otherwise.
// TestHTMLReportTemplateParses forces it in the quick suite.
var htmlReport = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8"/>
<meta name="viewport" content="width=device-width, initial-scale=1"/>
<title>permopa insights</title>
<style>
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 60em; padding: 0 1em; color: #1b1b1b; }
h1 { font-size: 1.5em; margin-bottom: .2em; }
h2 { font-size: 1.15em; margin-top: 2em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: .5em 0 1em; }
th, td { text-align: left; padding: 2px 10px 2px 0; vertical-align: top; }
td.n, th.n { text-align: right; }
code, .mono { font-family: ui-monospace, monospace; font-size: 12.5px; overflow-wrap: anywhere; }
code.cmd { overflow-wrap: break-word; word-break: normal; white-space: pre-wrap; }
.meta { color: #555; }
.ask { fill: #e0a100; } .deny { fill: #c62828; } .bar { fill: #4a6fa5; }
.risk-low { fill: #5a9e5a; } .risk-medium { fill: #e0a100; } .risk-high { fill: #c62828; }
.lvl-low { color: #2e7d32; } .lvl-medium { color: #b07d00; } .lvl-high { color: #c62828; font-weight: bold; }
svg text { font: 11px ui-monospace, monospace; fill: #333; }
.legend span { display: inline-block; width: .8em; height: .8em; margin: 0 .3em 0 1em; }
</style>
</head>
<body>
<h1>permopa insights</h1>
<p class="meta">{{.In.Calls}} calls from {{len .In.Files}} log(s){{if .Span}}, {{.Span}}{{end}}: {{index .In.Behaviors "ALLOW"}} ALLOW, {{index .In.Behaviors "ASK"}} ASK, {{index .In.Behaviors "DENY"}} DENY. Generated {{.Generated}}.</p>
{{if .In.Errors}}<p class="meta">{{.In.Errors}} log values could not be read.</p>{{end}}

<h2>Prompts over time</h2>
{{if .Timeline.Empty}}<p class="meta">The log has no timestamps.</p>{{else}}
<p class="legend meta"><span style="background:#e0a100"></span>ASK<span style="background:#c62828"></span>DENY (max {{.Timeline.Max}} per column)</p>
<svg width="{{.Timeline.Width}}" height="{{.Timeline.Height}}" role="img" aria-label="ASK and DENY calls over time">
<line x1="40" y1="{{.Timeline.AxisY}}" x2="{{.Timeline.Width}}" y2="{{.Timeline.AxisY}}" stroke="#999"/>
<text x="0" y="14">{{.Timeline.Max}}</text>
{{range .Timeline.Columns}}<g><title>{{.Title}}</title><rect class="ask" x="{{.X}}" y="{{.AskY}}" width="{{.W}}" height="{{.AskH}}"/><rect class="deny" x="{{.X}}" y="{{.DenyY}}" width="{{.W}}" height="{{.DenyH}}"/></g>
{{if .Label}}<text x="{{.LabelX}}" y="{{.LabelY}}">{{.Label}}</text>
{{end}}{{end}}</svg>{{end}}

<h2>Top programs (ASK and DENY of Bash commands)</h2>
{{if .Programs.Empty}}<p class="meta">No Bash command was asked about or denied.</p>{{else}}
<svg width="{{.Programs.Width}}" height="{{.Programs.Height}}" role="img" aria-label="programs by prompts">
{{range .Programs.Bars}}<g transform="translate(0,{{.Y}})"><title>{{.Title}}</title><text x="0" y="14">{{.Label}}</text><rect class="ask" x="300" y="3" width="{{.AskW}}" height="14"/><rect class="deny" x="{{.AskW}}" y="3" width="{{.DenyW}}" height="14" transform="translate(300,0)"/><text x="{{.ValueX}}" y="14">{{.Value}}</text></g>
{{end}}</svg>{{end}}

<h2>Rules that would have removed the most ASKs</h2>
{{if .In.Unchecked}}<p class="meta">Truncated: {{.In.Unchecked}} ASKs not checked for a rule, from <code>{{.In.UncheckedFrom}}</code> on: the logs hold more than {{.In.UncheckedLimit}} distinct (rules, project) pairs, the most insights checks.</p>{{end}}
{{if .Coverage.Empty}}<p class="meta">No ASK suggested a rule.</p>{{else}}
<svg width="{{.Coverage.Width}}" height="{{.Coverage.Height}}" role="img" aria-label="suggested rules by ASKs covered">
{{range .Coverage.Bars}}<g transform="translate(0,{{.Y}})"><title>{{.Title}}</title><text x="0" y="14">{{.Label}}</text><rect class="{{.Class}}" x="300" y="3" width="{{.W}}" height="14"/><text x="{{.ValueX}}" y="14">{{.Value}}</text></g>
{{end}}</svg>
<p class="legend meta">risk: <span style="background:#5a9e5a"></span>low (read-only)<span style="background:#e0a100"></span>medium (writes or runs)<span style="background:#c62828"></span>high (dangerous path, or code permopa cannot see)</p>
<table>
<tr><th>rules</th><th class="n">ASKs</th><th>risk</th><th>add with</th><th>for example</th></tr>
{{range .Suggestions}}<tr><td><code>{{range $i, $r := .Rules}}{{if $i}} + {{end}}{{$r}}{{end}}</code></td><td class="n">{{.Calls}}</td><td class="lvl-{{.Level}}">{{.Level}}: {{.Risk.NotReadOnly}} not read-only{{if .Risk.Dangerous}}, {{.Risk.Dangerous}} dangerous paths ({{range $i, $p := .Risk.DangerousPaths}}{{if $i}}, {{end}}<code>{{$p}}</code>{{end}}){{end}}{{if .Risk.RunsUnknown}}, {{.Risk.RunsUnknown}} ran code permopa cannot see{{end}}{{if .Broad}}; broad: {{.Broad}}{{end}}</td><td><code class="cmd">{{.Command}}</code></td><td>{{range .Examples}}<code>{{.}}</code><br/>{{end}}</td></tr>
{{end}}</table>{{end}}

<h2>Allows by broad rules</h2>
{{if .Broad}}<table>
<tr><th>rule</th><th>layer</th><th>why broad</th><th class="n">calls</th><th>risk</th><th>for example</th></tr>
{{range .Broad}}<tr><td><code>{{.Rule}}</code></td><td class="mono">{{.Layer}}</td><td>{{.Why}}</td><td class="n">{{.Calls}}</td><td class="lvl-{{.Level}}">{{.Level}}: {{.Risk.NotReadOnly}} not read-only{{if .Risk.Dangerous}}, {{.Risk.Dangerous}} dangerous paths{{end}}{{if .Risk.RunsUnknown}}, {{.Risk.RunsUnknown}} ran code permopa cannot see{{end}}</td><td>{{range .Examples}}<code>{{.}}</code><br/>{{end}}</td></tr>
{{end}}</table>{{else}}<p class="meta">No call was allowed by a broad rule.</p>{{end}}

<h2>Where the prompts and denials come from</h2>
{{range .Tables}}<h3>{{.Title}}</h3>
<table>
<tr><th></th><th class="n">ASK</th><th class="n">DENY</th><th class="n">ALLOW</th></tr>
{{range .Rows}}<tr><td class="mono">{{.Key}}</td><td class="n">{{.Ask}}</td><td class="n">{{.Deny}}</td><td class="n">{{.Allow}}</td></tr>
{{end}}{{if .More}}<tr><td class="meta">({{.More}} more in the JSON report)</td><td></td><td></td><td></td></tr>{{end}}
</table>
{{end}}
</body>
</html>
`))
})
