package replay

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
)

// Report writes a replay's changed calls as they come and its summary at
// the end: Text for people, JSON for tools.
type Report interface {
	Call(*Call) error
	Error(error)
	Finish(*Summary) error
}

// ReportOptions choose what a report lists.
type ReportOptions struct {
	// Reasons lists calls whose behavior is the same but whose step,
	// check, rule or layer changed, too.
	Reasons bool
	// Max caps the calls listed (0: all); the counts still count them all.
	Max int
	// Title names the candidate policy in the text report's heading.
	Title string
}

// listed reports whether a call belongs in the list of changes.
func (o ReportOptions) listed(c *Call) bool {
	switch c.Change {
	case Widened, Narrowed, Unknown, TimedOut:
		return true
	case Reason:
		return o.Reasons
	}
	return false
}

// maxErrorsShown caps the bad lines a report repeats (all are counted).
const maxErrorsShown = 100

// TextReport is the readable report.
type TextReport struct {
	w      *bufio.Writer
	opts   ReportOptions
	listed int
	more   int
	errs   []string
	header bool
}

// NewTextReport writes a text report to w.
func NewTextReport(w io.Writer, opts ReportOptions) *TextReport {
	return &TextReport{w: bufio.NewWriter(w), opts: opts}
}

// Call lists c if it changed.
func (t *TextReport) Call(c *Call) error {
	if !t.opts.listed(c) {
		return nil
	}
	if t.opts.Max > 0 && t.listed >= t.opts.Max {
		t.more++
		return nil
	}
	t.listed++
	if !t.header {
		t.header = true
		fmt.Fprintf(t.w, "CHANGED CALLS\n")
	}
	id := ""
	var parts []string
	if c.ToolUseID != "" {
		parts = append(parts, c.ToolUseID)
	}
	if c.Time != nil {
		parts = append(parts, c.Time.UTC().Format("2006-01-02 15:04:05Z"))
	}
	if len(parts) > 0 {
		id = "  (" + strings.Join(parts, ", ") + ")"
	}
	fmt.Fprintf(t.w, "%s  %s %s  %s%s\n", c.Pos, strings.ToUpper(c.Change), Short(c.Tool, 40), Short(c.Subject, 100), id)
	var reads []string
	for _, m := range c.Masked {
		reads = append(reads, Printable(m.Pointer)+" (read at "+Printable(m.Rule)+")")
	}
	unknown := "UNKNOWN: the decision reads fields the log's mask erased: " + strings.Join(reads, ", ")
	if c.Old == nil && c.Change == Unknown {
		fmt.Fprintf(t.w, "    old  %s\n", unknown)
	} else {
		fmt.Fprintf(t.w, "    old  %s\n", describe(c.Old))
	}
	if len(c.Revisions) > 0 && c.Old != nil && c.Old.From == "recorded" {
		fmt.Fprintf(t.w, "         by bundle revisions %s (as the log says)\n", revisionsKey(c.Revisions))
	}
	if c.New == nil {
		fmt.Fprintf(t.w, "    new  %s\n", unknown)
	} else {
		fmt.Fprintf(t.w, "    new  %s\n", describe(c.New))
	}
	return t.w.Flush()
}

func describe(o *Outcome) string {
	if o == nil {
		return "none (the log has no decision and there is no base policy)"
	}
	// A recorded outcome is the log's: every string of it is printed safe.
	parts := []string{fmt.Sprintf("%-5s", Printable(o.Behavior)), Printable(stepKey(o))}
	if o.Rule != "" {
		parts = append(parts, Printable(o.Rule))
		if o.Layer != "" {
			parts = append(parts, "("+Printable(o.Layer)+")")
		}
	}
	if o.Code != "" && o.Step == "error" {
		parts = append(parts, "code "+Printable(o.Code))
	}
	if o.BypassImmune {
		parts = append(parts, "safety check")
	}
	if o.From != "" && o.From != "candidate" {
		parts = append(parts, "["+o.From+"]")
	}
	return strings.Join(parts, "  ")
}

// Error records a bad line (the first ones are repeated in the summary).
func (t *TextReport) Error(err error) {
	if len(t.errs) < maxErrorsShown {
		t.errs = append(t.errs, Printable(err.Error()))
	}
}

// Finish writes the summary.
func (t *TextReport) Finish(s *Summary) error {
	w := t.w
	if t.more > 0 {
		fmt.Fprintf(w, "... and %d more changed calls (--max-changes 0 lists them all)\n", t.more)
	}
	if t.listed > 0 {
		fmt.Fprintln(w)
	}
	title := ""
	if t.opts.Title != "" {
		title = " under " + t.opts.Title
	}
	fmt.Fprintf(w, "Replayed %s from %s%s in %.1fs.\n", plural(s.Calls, "call"), plural(len(s.Files), "log"), title, s.Seconds)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "\nBEHAVIOR (old → new)\tCALLS\t")
	for _, k := range sortedByCount(s.Behaviors) {
		fmt.Fprintf(tw, "%s\t%d\t%s\n", Printable(k), s.Behaviors[k], behaviorNote(k))
	}
	fmt.Fprintln(tw, "\nSTEP (old → new)\tCALLS\t")
	for _, k := range sortedByCount(s.Steps) {
		fmt.Fprintf(tw, "%s\t%d\t\n", Printable(k), s.Steps[k])
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n%d widened, %d narrowed, %d unknown (a masked field decides), %d with another step, check, rule or layer.\n",
		s.Widened, s.Narrowed, s.Unknown, s.Reason)
	if s.TimedOut > 0 {
		fmt.Fprintf(w, "%s had no decision within the deadline (--timeout) and could not be compared; they are listed as TIMEOUT.\n", plural(s.TimedOut, "call"))
	}
	if s.Masked > 0 {
		fmt.Fprintf(w, "%s had fields erased by the log's mask; %d of them decided without reading one (exact).\n", plural(s.Masked, "call"), s.MaskedExact)
	}
	if len(s.Revisions) > 1 || (len(s.Revisions) == 1 && s.Revisions["(none)"] == 0) {
		fmt.Fprintln(w, "The log says its decisions were made by these bundle revisions (its claim; every call was decided again):")
		for _, k := range sortedByCount(s.Revisions) {
			fmt.Fprintf(w, "  %s: %s\n", Printable(k), plural(s.Revisions[k], "call"))
		}
		if len(s.CandidateRevisions) > 0 {
			var cand []string
			for path, rev := range s.CandidateRevisions {
				cand = append(cand, path+"="+rev)
			}
			sort.Strings(cand)
			fmt.Fprintf(w, "  the candidate's bundles: %s\n", Printable(strings.Join(cand, ", ")))
		}
	}
	if s.WithoutProjectRules > 0 {
		fmt.Fprintf(w, "truncated: %s decided without their project's rules, from %s on: the logs name more than %d projects, the most replay loads.\n", plural(s.WithoutProjectRules, "call"), Printable(s.WithoutProjectRulesFrom), s.MaxProjects)
	}
	if s.OtherProject > 0 {
		verb := "were"
		if s.OtherProject == 1 {
			verb = "was"
		}
		fmt.Fprintf(w, "%s %s made in another project than the working directory's (%s; first %s, cwd %s) and decided without that project's rules; --project-rules applies them.\n", plural(s.OtherProject, "call"), verb, Printable(s.WorkProject), Printable(s.OtherProjectFrom), Printable(s.OtherProjectCwd))
	}
	if s.NoOld > 0 {
		fmt.Fprintf(w, "%s had no recorded decision and no base policy to compare with.\n", plural(s.NoOld, "call"))
	}
	if s.Skipped > 0 {
		fmt.Fprintf(w, "%d log values were not calls and were skipped (console lines, events of other decision paths).\n", s.Skipped)
	}
	if s.Errors > 0 {
		fmt.Fprintf(w, "%d log values could not be read:\n", s.Errors)
		for _, e := range t.errs {
			fmt.Fprintf(w, "  %s\n", e)
		}
		if s.Errors > len(t.errs) {
			fmt.Fprintf(w, "  ... and %d more\n", s.Errors-len(t.errs))
		}
	}
	return w.Flush()
}

func behaviorNote(k string) string {
	old, new, _ := strings.Cut(k, " → ")
	switch {
	case new == "UNKNOWN":
		return "unknown"
	case new == "TIMEOUT":
		return "timed out, not compared"
	case old == "NONE" || old == new:
		return ""
	case rank(new) > rank(old):
		return "widened"
	}
	return "narrowed"
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// sortedByCount orders a count map's keys by count, then by key.
func sortedByCount(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	return keys
}

// JSONReport writes {"changes": [...], "errors": [...], "summary": {...}},
// the changes as they come (one per line), so that memory stays bounded.
type JSONReport struct {
	w    *bufio.Writer
	opts ReportOptions
	n    int
	errs []string
}

// NewJSONReport writes a JSON report to w.
func NewJSONReport(w io.Writer, opts ReportOptions) *JSONReport {
	r := &JSONReport{w: bufio.NewWriter(w), opts: opts}
	r.w.WriteString(`{"changes": [`)
	return r
}

// Call writes c if it changed.
func (j *JSONReport) Call(c *Call) error {
	if !j.opts.listed(c) || (j.opts.Max > 0 && j.n >= j.opts.Max) {
		return nil
	}
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	if j.n > 0 {
		j.w.WriteString(",")
	}
	j.n++
	j.w.WriteString("\n  ")
	j.w.Write(b)
	return nil
}

// Error records a bad line.
func (j *JSONReport) Error(err error) {
	if len(j.errs) < maxErrorsShown {
		j.errs = append(j.errs, err.Error())
	}
}

// Finish writes the errors and the summary and ends the document.
func (j *JSONReport) Finish(s *Summary) error {
	errs, _ := json.Marshal(j.errs)
	if j.errs == nil {
		errs = []byte("[]")
	}
	sum, err := json.Marshal(s)
	if err != nil {
		return err
	}
	fmt.Fprintf(j.w, "\n],\n\"errors\": %s,\n\"summary\": %s}\n", errs, sum)
	return j.w.Flush()
}

// Gate is a CI condition on a replay (--fail-on).
type Gate string

// Gates.
const (
	GateNone         Gate = "none"
	GateAllowWidened Gate = "allow-widened"
	GateAny          Gate = "any"
)

// GateCounter counts the calls that trip a gate. A call whose new outcome
// is unknown (a masked field decides, or a decision timed out) counts as
// possibly widened unless it was ALLOW already.
type GateCounter struct {
	Gate  Gate
	Calls int
}

// Add counts c.
func (g *GateCounter) Add(c *Call) {
	switch g.Gate {
	case GateAny:
		if c.Change == Widened || c.Change == Narrowed || c.Change == Unknown || c.Change == TimedOut {
			g.Calls++
		}
	case GateAllowWidened:
		if c.Change == Widened || ((c.Change == Unknown || c.Change == TimedOut) && (c.Old == nil || c.Old.Behavior != "ALLOW")) {
			g.Calls++
		}
	}
}
